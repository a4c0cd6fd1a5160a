import './dom';
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { TurnId, UpdateParams } from '../../src/protocol';
import type { ImageAttachment } from '../../src/shared/images';
import type { Attachment } from '../../src/shared/messages';
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
  const sent: { text: string; forkBefore: TurnId | undefined; attachments?: string[]; images?: string[] }[] = [];
  const c = new Composer({
    send: (text, a, i, forkBefore) =>
      sent.push({ text, forkBefore, ...(a.length > 0 ? { attachments: a.map((x) => x.label) } : {}), ...(i.length > 0 ? { images: i.map((x) => x.name) } : {}) }),
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

  const selection: Attachment = { label: 'greet.js:1-3', item: { path: 'greet.js', text: 'function greet() {}', range: { start: { line: 0, character: 0 }, end: { line: 3, character: 0 } } } };
  const problems: Attachment = { label: '@problems', item: { kind: 'editor', path: 'problems', text: 'greet.js:1: error' } };
  // A 1×1 PNG.
  const png: ImageAttachment = { name: 'pasted image 1', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=' };
  const chips = (c: Composer) => [...c.el.querySelectorAll('.chip')].map((e) => e.textContent);

  it('the prompt’s attachments come back as chips, go with the edited prompt, and can be removed first', () => {
    const { c, sent, input, enter } = composer();
    c.editPrompt(turnIdFrom('t1'), 'Explain this');
    c.editAttachments(turnIdFrom('t1'), [selection, problems], [png]);
    assert.deepEqual(chips(c), ['greet.js:1-3', '@problems', 'pasted image 1']);
    c.el.querySelector<HTMLButtonElement>('.chip button[aria-label="Remove @problems"]')?.click();
    assert.deepEqual(chips(c), ['greet.js:1-3', 'pasted image 1']);
    input.value = 'Explain this, briefly';
    enter();
    assert.deepEqual(sent, [{ text: 'Explain this, briefly', forkBefore: 't1', attachments: ['greet.js:1-3'], images: ['pasted image 1'] }]);
    assert.deepEqual(chips(c), []);
  });

  it('attachments for another prompt than the one being edited are not added', () => {
    const { c } = composer();
    c.editPrompt(turnIdFrom('t2'), 'Name a fruit');
    c.editAttachments(turnIdFrom('t1'), [selection], [png]);
    assert.deepEqual(chips(c), []);
  });

  it('a cancelled fork’s prompt comes back with its attachments', () => {
    const { c, sent, enter } = composer();
    c.editPrompt(turnIdFrom('t1'), 'Explain this', [selection], [png]);
    assert.deepEqual(chips(c), ['greet.js:1-3', 'pasted image 1']);
    enter();
    assert.deepEqual(sent, [{ text: 'Explain this', forkBefore: 't1', attachments: ['greet.js:1-3'], images: ['pasted image 1'] }]);
  });

  it('the draft’s own chips wait while an earlier prompt is edited, and come back on Cancel', () => {
    const { c, sent, input, enter } = composer();
    input.value = 'a draft';
    c.attach(problems);
    c.editPrompt(turnIdFrom('t1'), 'Explain this');
    c.editAttachments(turnIdFrom('t1'), [selection], []);
    assert.deepEqual(chips(c), ['greet.js:1-3']);
    c.el.querySelector<HTMLButtonElement>('button.cancel-edit')?.click();
    assert.equal(input.value, 'a draft');
    assert.deepEqual(chips(c), ['@problems']);
    enter();
    assert.deepEqual(sent, [{ text: 'a draft', forkBefore: undefined, attachments: ['@problems'] }]);
  });
});
