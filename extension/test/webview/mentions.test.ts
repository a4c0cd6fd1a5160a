import { describe, expect, it } from 'vitest';
import { completeMention, mentionAtCaret } from '../../webview/mentions';

describe('@file completion', () => {
  it('finds the mention being typed', () => {
    expect(mentionAtCaret('explain @src/ma', 15)).toEqual({ start: 8, query: 'src/ma' });
    expect(mentionAtCaret('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionAtCaret('mail me@x', 9)).toBeNull();
    expect(mentionAtCaret('@a.ts done', 10)).toBeNull();
  });

  it('replaces the partial mention with the path and moves the caret past it', () => {
    const text = 'explain @src/ma please';
    const m = mentionAtCaret(text, 15)!;
    expect(completeMention(text, m, 15, 'src/main.rs')).toEqual({ text: 'explain @src/main.rs please', caret: 21 });
  });
});
