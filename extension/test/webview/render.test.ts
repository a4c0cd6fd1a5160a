// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import type { UpdateParams } from '../../src/protocol';
import type { PendingApproval } from '../../src/shared/messages';
import { TranscriptView, type RenderContext } from '../../webview/render';
import { buildTranscript } from '../../webview/transcript';

// jsdom has no layout, so no scrollIntoView.
Element.prototype.scrollIntoView ??= () => undefined;

const u = (e: Record<string, unknown>): UpdateParams => ({ sessionId: 's', turnId: 't1', ...e }) as UpdateParams;

function context(pending: PendingApproval[] = [], runningTurn: string | null = 't1'): RenderContext & { decide: ReturnType<typeof vi.fn> } {
  const decide = vi.fn();
  return {
    pending: new Map(pending.map((r) => [r.toolCallId, r])),
    runningTurn,
    expanded: {},
    onToggle: () => undefined,
    onDecide: decide,
    onOpenDiff: () => undefined,
    decide,
  };
}

describe('TranscriptView', () => {
  const entries = [
    u({ kind: 'turnStarted', prompt: 'run it' }),
    u({ kind: 'toolCall', toolCallId: 'c1', name: 'run_command', arguments: {}, title: 'npm test' }),
  ];
  const command: PendingApproval = { sessionId: 's', turnId: 't1', toolCallId: 'c1', kind: 'command', command: 'npm test', cwd: '/w' };

  it('shows a command approval with its working directory, and reports the decision with a note', () => {
    const root = document.createElement('div');
    const ctx = context([command]);
    new TranscriptView(root).render(buildTranscript(entries), ctx);
    expect(root.querySelector('.approval .command')?.textContent).toBe('npm test');
    expect(root.querySelector('.approval .cwd')?.textContent).toBe('in /w');
    expect(root.querySelector('.tool-state')?.textContent).toBe('awaiting approval');
    const buttons = [...root.querySelectorAll('button')];
    buttons.find((b) => b.textContent === 'Reject with note…')!.click();
    (root.querySelector('textarea.note') as HTMLTextAreaElement).value = ' use npm run test:unit ';
    [...root.querySelectorAll('button')].find((b) => b.textContent === 'Send rejection')!.click();
    expect(ctx.decide).toHaveBeenCalledWith('c1', 'reject', 'use npm run test:unit');
  });

  it('keeps unchanged elements in place while a turn streams, so a typed note keeps its focus', () => {
    const root = document.createElement('div');
    document.body.append(root);
    const view = new TranscriptView(root);
    const ctx = context([command]);
    const t = buildTranscript(entries);
    view.render(t, ctx);
    const note = root.querySelector('textarea.note') as HTMLTextAreaElement;
    note.focus();
    t.blocks.push(...buildTranscript([{ kind: 'notice', level: 'info', text: 'x' }]).blocks);
    view.render(t, ctx);
    expect(root.querySelector('textarea.note')).toBe(note);
    expect(document.activeElement).toBe(note);
  });

  it('drops the approval box when the request is gone and shows the final state', () => {
    const root = document.createElement('div');
    const view = new TranscriptView(root);
    const t = buildTranscript([...entries, u({ kind: 'toolResult', toolCallId: 'c1', status: 'rejected', output: 'no' }), u({ kind: 'turnEnded', stopReason: 'cancelled' })]);
    view.render(t, context([], null));
    expect(root.querySelector('.approval')).toBeNull();
    expect(root.querySelector('.tool-state')?.textContent).toBe('rejected');
    expect(root.querySelector('.turn-end')?.textContent).toBe('Stopped.');
  });
});
