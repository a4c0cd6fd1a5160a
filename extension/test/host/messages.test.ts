import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseWebviewMessage } from '../../src/shared/messages';

describe('parseWebviewMessage', () => {
  it('accepts the messages the webview sends', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'ready' }), { type: 'ready' });
    const ref = { sessionId: 's', turnId: 't1', toolCallId: 'c' };
    assert.deepEqual(parseWebviewMessage({ type: 'decide', ref: { ...ref, extra: 1 }, decision: 'reject', feedback: 'use a constant' }), {
      type: 'decide',
      ref,
      decision: 'reject',
      feedback: 'use a constant',
    });
    assert.deepEqual(parseWebviewMessage({ type: 'decide', ref, decision: 'acceptAlways' }), { type: 'decide', ref, decision: 'acceptAlways' });
    assert.deepEqual(parseWebviewMessage({ type: 'restore', turnId: 't2', extra: true }), { type: 'restore', turnId: 't2' });
    assert.deepEqual(parseWebviewMessage({ type: 'editPromptOf', turnId: 't2' }), { type: 'editPromptOf', turnId: 't2' });
    const attachment = { label: 'a.ts:1-2', item: { path: '/w/a.ts', range: { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } } } };
    // Without images (an older webview's state): none.
    assert.deepEqual(parseWebviewMessage({ type: 'send', text: 'hi', attachments: [attachment] }), { type: 'send', text: 'hi', attachments: [attachment], images: [] });
    // An earlier prompt edited: sent as a fork from before its turn.
    assert.deepEqual(parseWebviewMessage({ type: 'send', text: 'hi', attachments: [], images: [], forkBefore: 't2' }), { type: 'send', text: 'hi', attachments: [], images: [], forkBefore: 't2' });
  });

  it('refuses anything else', () => {
    for (const bad of [
      null,
      'ready',
      { type: 'eval', code: 'x' },
      { type: 'decide', ref: { sessionId: 's', turnId: 't1', toolCallId: 'c' }, decision: 'always' },
      { type: 'restore', turnId: '' },
      { type: 'restore', turnId: 7 },
      { type: 'restore' },
      { type: 'editPromptOf', turnId: '' },
      { type: 'editPromptOf' },
      { type: 'decide', ref: { sessionId: 's', turnId: 't1', toolCallId: 1 }, decision: 'accept' },
      { type: 'decide', toolCallId: 'c', decision: 'accept' },
      { type: 'openDiff', ref: { sessionId: 's', toolCallId: 'c' } },
      { type: 'command', command: 'workbench.action.terminal.sendSequence' },
      { type: 'send', text: 'x', attachments: [{ label: 'a', item: { path: 3 } }] },
      { type: 'send', text: 'x', attachments: [], forkBefore: '' },
      { type: 'send', text: 'x', attachments: [], forkBefore: 2 },
      { type: 'setModel', model: '' },
    ]) {
      assert.equal(parseWebviewMessage(bad), undefined, JSON.stringify(bad));
    }
  });
});
