// Keys that work while the chat has the focus. VS Code's own keybindings do not reach a focused
// chat view (its webview sits outside the view's DOM, so `focusedView` is not set), so the chat
// handles them: Ctrl+Alt+Enter (Cmd on macOS) accepts and Ctrl+Alt+Backspace rejects the oldest
// edit waiting for approval (the one the diff shows), as in the diff editor; Escape stops the
// running turn. A key another handler already took (the @-file list's Escape) is left alone.

import type { Decision, PendingApproval } from '../src/shared/messages';

export interface KeyTargets {
  /** The questions waiting, oldest first. */
  pending(): Iterable<PendingApproval>;
  running(): boolean;
  decide(request: PendingApproval, decision: Decision): void;
  stop(): void;
}

/** The parts of a key event the chat looks at. */
export interface ChatKey {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  defaultPrevented: boolean;
}

/** Acts on a key; true when it was one of the chat's (the caller then stops it). */
export function chatKey(e: ChatKey, targets: KeyTargets, mac: boolean): boolean {
  if (e.defaultPrevented) return false;
  const mod = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  if (mod && e.altKey && !e.shiftKey && (e.key === 'Enter' || e.key === 'Backspace')) {
    const edit = [...targets.pending()].find((r) => r.kind === 'edit');
    if (!edit) return false;
    targets.decide(edit, e.key === 'Enter' ? 'accept' : 'reject');
    return true;
  }
  if (e.key === 'Escape' && !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey && targets.running()) {
    targets.stop();
    return true;
  }
  return false;
}

/**
 * Listens on the chat's window: the approval keys in the capture phase, before the prompt box
 * would take Ctrl+Alt+Enter for Enter (send); Escape in the bubble phase, after the prompt box
 * had its chance to close the @-file list with it.
 */
export function installChatKeys(win: Window, targets: KeyTargets): void {
  const mac = /Mac|iPhone|iPad/.test(win.navigator.platform || win.navigator.userAgent);
  const handle = (e: KeyboardEvent) => {
    if (chatKey(e, targets, mac)) {
      e.preventDefault();
      e.stopPropagation();
    }
  };
  win.addEventListener('keydown', (e) => e.key !== 'Escape' && handle(e), true);
  win.addEventListener('keydown', (e) => e.key === 'Escape' && handle(e));
}
