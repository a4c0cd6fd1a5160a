import './dom';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sessionIdFrom, turnIdFrom, type UpdateParams } from '../../src/protocol';
import type { LogEntry } from '../../src/shared/messages';
import { Composer } from '../../webview/composer';
import { TranscriptView } from '../../webview/render';
import { MAX_CHARS, MAX_TURNS, readSavedChat, saveChat } from '../../webview/savedChat';
import { ShownChat } from '../../webview/shownChat';
import { renderContext } from './context';

const A = sessionIdFrom('session-a');
const B = sessionIdFrom('session-b');

const u = (session: string, turn: string, e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom(session), turnId: turnIdFrom(turn), ...e }) as UpdateParams;

/** `n` turns of session `session`, each answer streamed in several deltas as the live chat gets it. */
function turns(n: number, session = 'session-a', answer = (i: number) => `Answer ${i}.`): LogEntry[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    const t = `t${i}`;
    const text = answer(i);
    const third = Math.ceil(text.length / 3);
    return [
      u(session, t, { kind: 'turnStarted', prompt: `Prompt ${i}` }),
      ...[0, 1, 2].map((p) => u(session, t, { kind: 'text', delta: text.slice(p * third, (p + 1) * third) })),
      u(session, t, { kind: 'usage', promptTokens: 10 * i, completionTokens: 5 }),
      u(session, t, { kind: 'turnEnded', stopReason: 'endTurn' }),
    ];
  }).flat();
}

/** The chat as main.ts drives it: a reset that replaced the transcript forgets the view's cache. */
function screen(chat: ShownChat) {
  const root = document.createElement('div');
  const view = new TranscriptView(root);
  const draw = () => view.render(chat.transcript, renderContext([], null));
  draw();
  return {
    root,
    reset(sessionId: typeof A | null, entries: LogEntry[], loaded: boolean) {
      const outcome = chat.reset(sessionId, entries, loaded);
      if (outcome === 'replaced') view.clear();
      draw();
      return outcome;
    },
    prompts: () => [...root.querySelectorAll('.turn .user')].map((e) => e.textContent?.trim()),
    answers: () => [...root.querySelectorAll('.turn .answer')].map((e) => e.textContent?.trim()),
  };
}

describe("the chat's saved copy", () => {
  it('shows the saved turns at once, before the host answers, and sends nothing meanwhile', () => {
    const chat = new ShownChat(saveChat(A, turns(3)));
    const s = screen(chat);
    assert.deepEqual(s.prompts(), ['Prompt 1', 'Prompt 2', 'Prompt 3']);
    assert.deepEqual(s.answers(), ['Answer 1.', 'Answer 2.', 'Answer 3.']);
    assert.equal(chat.source, 'saved');
    assert.equal(chat.sendable, false);
  });

  it('renders saved model text through the same sanitiser as the live chat', () => {
    const chat = new ShownChat(saveChat(A, turns(1, 'session-a', () => 'Hi <img src=x onerror="alert(1)"><script>alert(2)</script> [x](javascript:alert(3))')));
    const s = screen(chat);
    assert.equal(s.root.querySelectorAll('script, img, [onerror]').length, 0);
    assert.equal(s.root.querySelector('a[href^="javascript"]'), null);
    assert.match(s.answers()[0] ?? '', /Hi <img/, 'shown as text');
  });

  it("replaces the saved turns with the sidecar's transcript, without duplicating any", () => {
    const chat = new ShownChat(saveChat(A, turns(3)));
    const s = screen(chat);
    // The host has not loaded the session yet: the saved copy stays up.
    assert.equal(s.reset(A, [], false), 'kept');
    assert.deepEqual(s.prompts(), ['Prompt 1', 'Prompt 2', 'Prompt 3']);
    assert.equal(chat.sendable, false);
    // The load has a turn more (it ended after the state was saved) and a different answer.
    const loaded = turns(4, 'session-a', (i) => (i === 2 ? 'Answer 2, as stored.' : `Answer ${i}.`));
    assert.equal(s.reset(A, loaded, true), 'replaced');
    assert.deepEqual(s.prompts(), ['Prompt 1', 'Prompt 2', 'Prompt 3', 'Prompt 4']);
    assert.deepEqual(s.answers(), ['Answer 1.', 'Answer 2, as stored.', 'Answer 3.', 'Answer 4.']);
    assert.equal(chat.source, 'sidecar');
    assert.equal(chat.sendable, true);
  });

  it('keeps the saved turns on screen when the sidecar has the same, once each', () => {
    const chat = new ShownChat(saveChat(A, turns(3)));
    const s = screen(chat);
    assert.equal(s.reset(A, turns(3), true), 'kept');
    assert.deepEqual(s.prompts(), ['Prompt 1', 'Prompt 2', 'Prompt 3']);
    assert.equal(chat.sendable, true);
  });

  it('clears the saved turns when the host shows another session, or none', () => {
    const other = screen(new ShownChat(saveChat(A, turns(3))));
    other.reset(B, [], false);
    assert.deepEqual(other.prompts(), [], 'another session: nothing of the saved one stays');

    const gone = new ShownChat(saveChat(A, turns(3)));
    const s = screen(gone);
    // The session was not found: the host starts a new chat.
    s.reset(null, [], true);
    assert.deepEqual(s.prompts(), []);
    assert.equal(gone.saved(), undefined, 'and the saved copy goes too');
  });

  it('shows nothing of a saved state it cannot read', () => {
    for (const raw of [undefined, 'not json', JSON.stringify({ v: 999, sessionId: 'a', earlier: 0, entries: [] }), JSON.stringify({ v: 1, sessionId: 'a', earlier: 0, entries: [1] })]) {
      const chat = new ShownChat(raw);
      assert.equal(chat.transcript.blocks.length, 0, String(raw));
      assert.equal(chat.source, 'loading');
    }
  });

  it('writes the saved copy at a turn end, not for every streamed token', () => {
    const chat = new ShownChat(undefined);
    chat.reset(A, [], true);
    assert.equal(chat.append([u('session-a', 't1', { kind: 'turnStarted', prompt: 'go' })]), false);
    assert.equal(chat.append([u('session-a', 't1', { kind: 'text', delta: 'a' })]), false);
    assert.equal(chat.append([u('session-a', 't1', { kind: 'turnEnded', stopReason: 'endTurn' })]), true);
    assert.deepEqual(readSavedChat(chat.saved())?.entries.map((e) => e.kind), ['turnStarted', 'text', 'turnEnded']);
  });
});

describe("the saved copy's bound", () => {
  it('keeps the last whole turns under its size cap, and says how many earlier ones load later', () => {
    // 200 turns of about 10 KB each: even the last MAX_TURNS of them are twice the cap.
    const long = turns(200, 'session-a', (i) => `Answer ${i}. ${'x'.repeat(10_000)}`);
    const raw = saveChat(A, long);
    assert.ok(raw !== undefined && raw.length <= MAX_CHARS, `${raw?.length} characters`);
    const saved = readSavedChat(raw);
    assert.ok(saved);
    const prompts = saved.entries.filter((e) => e.kind === 'turnStarted').map((e) => (e.kind === 'turnStarted' ? e.prompt : ''));
    assert.ok(prompts.length > 10 && prompts.length < 200, `${prompts.length} turns`);
    assert.equal(prompts[prompts.length - 1], 'Prompt 200', 'the last turn is kept');
    assert.equal(saved.earlier, 200 - prompts.length);
    assert.equal(prompts[0], `Prompt ${saved.earlier + 1}`, 'whole turns, in order');
    const s = screen(new ShownChat(raw));
    assert.match(s.root.querySelector('.notice')?.textContent ?? '', new RegExp(`^${saved.earlier} earlier turns`));
  });

  it(`keeps at most ${MAX_TURNS} turns, and merges streamed deltas`, () => {
    const saved = readSavedChat(saveChat(A, turns(80)));
    assert.ok(saved);
    assert.equal(saved.entries.filter((e) => e.kind === 'turnStarted').length, MAX_TURNS);
    assert.equal(saved.earlier, 80 - MAX_TURNS);
    assert.equal(saved.entries.filter((e) => e.kind === 'text').length, MAX_TURNS, 'one text entry per answer');
  });

  it('keeps no turn that alone is over the cap', () => {
    const saved = readSavedChat(saveChat(A, turns(1, 'session-a', () => 'y'.repeat(MAX_CHARS))));
    assert.deepEqual(saved?.entries, []);
    assert.equal(saved?.earlier, 1);
  });
});

describe('the composer while the chat loads', () => {
  it('sends nothing and says why, then sends once the chat is back', () => {
    const sent: string[] = [];
    const c = new Composer({ send: (text) => sent.push(text), stop: () => undefined, findFiles: () => undefined, listCommands: () => undefined, attachImage: () => undefined, changed: () => undefined });
    const input = c.el.querySelector('textarea');
    assert.ok(input);
    const enter = () => input.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    c.setRunning(false, true);
    input.value = 'fix it';
    enter();
    assert.deepEqual(sent, []);
    assert.equal(input.value, 'fix it', 'the prompt stays in the box');
    assert.match(c.el.querySelector('.composer-problem')?.textContent ?? '', /still loading/);
    c.setRunning(false, false);
    assert.equal(c.el.querySelector('.composer-problem')?.textContent, '');
    enter();
    assert.deepEqual(sent, ['fix it']);
  });
});
