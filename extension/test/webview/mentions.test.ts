import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { completeMention, mentionAtCaret } from '../../webview/mentions';

describe('@file completion', () => {
  it('finds the mention being typed', () => {
    assert.deepEqual(mentionAtCaret('explain @src/ma', 15), { start: 8, query: 'src/ma' });
    assert.deepEqual(mentionAtCaret('@', 1), { start: 0, query: '' });
    assert.equal(mentionAtCaret('mail me@x', 9), null);
    assert.equal(mentionAtCaret('@a.ts done', 10), null);
  });

  it('replaces the partial mention with the path and moves the caret past it', () => {
    const text = 'explain @src/ma please';
    const m = mentionAtCaret(text, 15);
    assert.ok(m);
    assert.deepEqual(completeMention(text, m, 15, 'src/main.rs'), { text: 'explain @src/main.rs please', caret: 21 });
  });
});
