import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Decision, PendingApproval } from '../../src/shared/messages';
import { chatKey, type ChatKey, type KeyTargets } from '../../webview/keys';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';

const key = (k: string, mods: Partial<ChatKey> = {}): ChatKey => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, defaultPrevented: false, ...mods });
const edit = (toolCallId: string) => ({ kind: 'edit', sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom(toolCallId), path: `/w/${toolCallId}.txt` }) as unknown as PendingApproval;
const command = { kind: 'command', sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('c'), command: 'ls' } as unknown as PendingApproval;

function targets(pending: PendingApproval[], running = true) {
  const decided: [string, Decision][] = [];
  let stopped = 0;
  const t: KeyTargets = {
    pending: () => pending,
    running: () => running,
    decide: (r, d) => decided.push([r.toolCallId, d]),
    stop: () => stopped++,
  };
  return { t, decided, stopped: () => stopped };
}

describe('keys in the chat', () => {
  it('Ctrl+Alt+Enter accepts and Ctrl+Alt+Backspace rejects the oldest edit waiting, as in the diff', () => {
    const { t, decided } = targets([command, edit('e1'), edit('e2')]);
    assert.equal(chatKey(key('Enter', { ctrlKey: true, altKey: true }), t, false), true);
    assert.equal(chatKey(key('Backspace', { ctrlKey: true, altKey: true }), t, false), true);
    assert.deepEqual(decided, [['e1', 'accept'], ['e1', 'reject']]);
  });

  it('uses Cmd on macOS, and plain Enter or Ctrl+Enter is not taken', () => {
    const { t, decided } = targets([edit('e1')]);
    assert.equal(chatKey(key('Enter', { ctrlKey: true, altKey: true }), t, true), false);
    assert.equal(chatKey(key('Enter', { metaKey: true, altKey: true }), t, true), true);
    assert.equal(chatKey(key('Enter'), t, false), false);
    assert.equal(chatKey(key('Enter', { ctrlKey: true }), t, false), false);
    assert.deepEqual(decided, [['e1', 'accept']]);
  });

  it('with no edit waiting, the keys do nothing (a command is answered in its card)', () => {
    const { t, decided } = targets([command]);
    assert.equal(chatKey(key('Enter', { ctrlKey: true, altKey: true }), t, false), false);
    assert.deepEqual(decided, []);
  });

  it('Escape stops a running turn, unless another handler took it (the @ list)', () => {
    const running = targets([]);
    assert.equal(chatKey(key('Escape'), running.t, false), true);
    assert.equal(running.stopped(), 1);
    assert.equal(chatKey(key('Escape', { defaultPrevented: true }), running.t, false), false);
    assert.equal(running.stopped(), 1);
    const idle = targets([], false);
    assert.equal(chatKey(key('Escape'), idle.t, false), false);
    assert.equal(idle.stopped(), 0);
  });
});

describe('keys in the chat window', () => {
  it('Ctrl+Alt+Enter in the prompt box decides the edit and sends no prompt', async () => {
    await import('./dom');
    const { installChatKeys } = await import('../../webview/keys');
    const { Composer } = await import('../../webview/composer');
    const sent: string[] = [];
    const composer = new Composer({ send: (t) => sent.push(t), stop: () => undefined, findFiles: () => undefined, listCommands: () => undefined, attachImage: () => undefined, changed: () => undefined });
    document.body.append(composer.el);
    const { t, decided } = targets([edit('e1')]);
    installChatKeys(window, t);
    const input = composer.el.querySelector('textarea');
    assert.ok(input);
    input.value = 'half a prompt';
    input.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true, altKey: true, bubbles: true, cancelable: true }));
    assert.deepEqual(decided, [['e1', 'accept']]);
    assert.deepEqual(sent, [], 'the prompt was not sent');
    assert.equal(input.value, 'half a prompt');
    composer.el.remove();
  });
});
