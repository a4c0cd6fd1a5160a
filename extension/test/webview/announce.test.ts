import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UpdateParams } from '../../src/protocol';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';
import { turnAnnouncement } from '../../webview/announce';
import { buildTranscript } from '../../webview/transcript';

const u = (e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), ...e }) as UpdateParams;

describe('what a screen reader hears at the end of a turn', () => {
  it('nothing while the turn runs, then how it ended and the start of the answer, without Markdown marks', () => {
    const running = [u({ kind: 'turnStarted', prompt: 'Fix it' }), u({ kind: 'text', delta: 'Working on **it**' })];
    assert.equal(turnAnnouncement(buildTranscript(running), 't1'), null);
    const ended = buildTranscript([
      ...running,
      u({ kind: 'toolCall', toolCallId: toolCallIdFrom('c1'), name: 'read_file', arguments: {}, title: 'Read a.rs' }),
      u({ kind: 'toolResult', toolCallId: toolCallIdFrom('c1'), status: 'success', output: 'x' }),
      u({ kind: 'text', delta: ' and `done`.' }),
      u({ kind: 'turnEnded', stopReason: 'endTurn' }),
    ]);
    assert.equal(turnAnnouncement(ended, 't1'), 'Answer finished after 1 tool call: Working on it and done.');
  });

  it('reads at most 300 characters of a long answer, and names a stop or an error', () => {
    const long = buildTranscript([u({ kind: 'turnStarted', prompt: 'p' }), u({ kind: 'text', delta: 'a'.repeat(1000) }), u({ kind: 'turnEnded', stopReason: 'endTurn' })]);
    assert.equal(turnAnnouncement(long, 't1'), `Answer finished: ${'a'.repeat(300)}…`);
    const stopped = buildTranscript([u({ kind: 'turnStarted', prompt: 'p' }), u({ kind: 'turnEnded', stopReason: 'cancelled' })]);
    assert.equal(turnAnnouncement(stopped, 't1'), 'Stopped.');
    const failed = buildTranscript([u({ kind: 'turnStarted', prompt: 'p' }), u({ kind: 'turnEnded', stopReason: 'error', error: 'the server crashed' })]);
    assert.equal(turnAnnouncement(failed, 't1'), 'The turn failed: the server crashed');
  });
});

describe('the accessibility help', () => {
  it("lists the chat's keys with the platform's modifier", async () => {
    const { accessibilityHelp } = await import('../../src/chat/accessibilityHelp');
    const linux = accessibilityHelp(false).detail;
    for (const key of ['Shift+Enter', 'Escape', 'Ctrl+Alt+Enter', 'Ctrl+Alt+Backspace', '@', '/']) assert.ok(linux.includes(key), key);
    assert.match(accessibilityHelp(true).detail, /Cmd\+Alt\+Enter/);
  });
});
