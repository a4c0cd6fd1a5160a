import './dom';
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { TurnId, UpdateParams } from '../../src/protocol';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';
import { Composer } from '../../webview/composer';
import { TranscriptView } from '../../webview/render';
import { buildTranscript } from '../../webview/transcript';
import { renderContext } from './context';

const u = (turnId: string, e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom(turnId), ...e }) as UpdateParams;

const entries = [
  u('t1', { kind: 'turnStarted', prompt: 'Name a colour' }),
  u('t1', { kind: 'text', delta: 'Blue.' }),
  u('t1', { kind: 'turnEnded', stopReason: 'endTurn' }),
  u('t2', { kind: 'turnStarted', prompt: 'Name a fruit' }),
  u('t2', { kind: 'turnEnded', stopReason: 'endTurn' }),
];

function composer() {
  const sent: { text: string; forkBefore: TurnId | undefined }[] = [];
  const c = new Composer({
    send: (text, _a, _i, forkBefore) => sent.push({ text, forkBefore }),
    stop: () => undefined,
    findFiles: () => undefined,
    listCommands: () => undefined,
    attachImage: () => undefined,
    changed: () => undefined,
  });
  const input = c.el.querySelector('textarea');
  assert.ok(input);
  const enter = () => input.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  return { c, sent, input, enter };
}

describe('editing an earlier prompt', () => {
  it('each turn offers Edit beside "Restore to here", naming its prompt; it gives the turn and its prompt', () => {
    const root = document.createElement('div');
    const onEditPrompt = mock.fn((_t: TurnId, _text: string) => undefined);
    new TranscriptView(root).render(buildTranscript(entries), renderContext([], null, { onEditPrompt }));
    const edits = [...root.querySelectorAll<HTMLButtonElement>('.checkpoint button.edit-prompt')];
    assert.equal(edits.length, 2);
    assert.equal(edits[1]?.getAttribute('aria-label'), 'Edit the prompt “Name a fruit”');
    edits[1]?.click();
    assert.deepEqual(onEditPrompt.mock.calls.map((c) => c.arguments), [['t2', 'Name a fruit']]);
  });

  it('Edit is off while a turn runs (the sidecar would refuse the fork)', () => {
    const root = document.createElement('div');
    const view = new TranscriptView(root);
    const t = buildTranscript(entries);
    view.render(t, renderContext([], turnIdFrom('t3'), { onEditPrompt: () => undefined }));
    assert.ok([...root.querySelectorAll<HTMLButtonElement>('button.edit-prompt')].every((b) => b.disabled));
    view.render(t, renderContext([], null, { onEditPrompt: () => undefined }));
    assert.ok([...root.querySelectorAll<HTMLButtonElement>('button.edit-prompt')].every((b) => !b.disabled));
  });

  it('the prompt comes back in the box; Send sends the edited text as a fork from before its turn, once', () => {
    const { c, sent, input, enter } = composer();
    input.value = 'a draft';
    c.editPrompt(turnIdFrom('t1'), 'Name a colour');
    assert.equal(input.value, 'Name a colour');
    assert.match(c.el.querySelector('.editing')?.textContent ?? '', /Editing an earlier prompt/);
    input.value = 'Name a colour, not blue';
    enter();
    assert.deepEqual(sent, [{ text: 'Name a colour, not blue', forkBefore: 't1' }]);
    assert.equal(c.editingTurn, null);
    assert.ok(c.el.querySelector('.editing')?.classList.contains('hidden'));
    // The next prompt is a new one.
    input.value = 'and then';
    enter();
    assert.deepEqual(sent[1], { text: 'and then', forkBefore: undefined });
  });

  it('Cancel brings the draft back and sends nothing', () => {
    const { c, sent, input } = composer();
    input.value = 'a draft';
    c.editPrompt(turnIdFrom('t2'), 'Name a fruit');
    // Editing another prompt keeps the first draft, not the first edit.
    c.editPrompt(turnIdFrom('t1'), 'Name a colour');
    c.el.querySelector<HTMLButtonElement>('button.cancel-edit')?.click();
    assert.equal(input.value, 'a draft');
    assert.equal(c.editingTurn, null);
    assert.deepEqual(sent, []);
  });
});
