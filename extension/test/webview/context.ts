// A render context for the webview's tests: every hook a no-op unless a test gives its own.

import type { TurnId } from '../../src/protocol';
import type { PendingApproval } from '../../src/shared/messages';
import { pendingKey, type RenderContext } from '../../webview/render';

export function renderContext(pending: readonly PendingApproval[], runningTurn: TurnId | null, hooks: Partial<RenderContext> = {}): RenderContext {
  return {
    pending: new Map(pending.map((r) => [pendingKey(r.turnId, r.toolCallId), r])),
    runningTurn,
    expanded: {},
    onToggle: () => undefined,
    onDecide: () => undefined,
    onOpenDiff: () => undefined,
    onCopy: () => undefined,
    onInsert: () => undefined,
    onOpenLink: () => undefined,
    onRetry: () => undefined,
    onCommand: () => undefined,
    onRestore: () => undefined,
    ...hooks,
  };
}
