import { describe, expect, it } from 'vitest';
import { parseWebviewMessage } from '../../src/shared/messages';

describe('parseWebviewMessage', () => {
  it('accepts the messages the webview sends', () => {
    expect(parseWebviewMessage({ type: 'ready' })).toEqual({ type: 'ready' });
    expect(parseWebviewMessage({ type: 'decide', toolCallId: 'c', decision: 'reject', feedback: 'use a constant' })).toEqual({
      type: 'decide',
      toolCallId: 'c',
      decision: 'reject',
      feedback: 'use a constant',
    });
    const attachment = { label: 'a.ts:1-2', item: { path: '/w/a.ts', range: { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } } } };
    expect(parseWebviewMessage({ type: 'send', text: 'hi', attachments: [attachment] })).toEqual({ type: 'send', text: 'hi', attachments: [attachment] });
  });

  it('refuses anything else', () => {
    for (const bad of [
      null,
      'ready',
      { type: 'eval', code: 'x' },
      { type: 'decide', toolCallId: 'c', decision: 'acceptAlways' },
      { type: 'decide', toolCallId: 1, decision: 'accept' },
      { type: 'command', command: 'workbench.action.terminal.sendSequence' },
      { type: 'send', text: 'x', attachments: [{ label: 'a', item: { path: 3 } }] },
      { type: 'setModel', model: '' },
    ]) {
      expect(parseWebviewMessage(bad)).toBeUndefined();
    }
  });
});
