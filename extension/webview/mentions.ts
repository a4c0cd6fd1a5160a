// `@file` mentions in the prompt box: finding the one being typed and completing it. Pure.

export interface MentionQuery {
  /** Index of the `@`. */
  start: number;
  /** What follows the `@` up to the caret. */
  query: string;
}

/** The mention the caret is in, if any: an `@` at the start or after whitespace, no space since. */
export function mentionAtCaret(text: string, caret: number): MentionQuery | null {
  const before = text.slice(0, caret);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return null;
  const query = m[2] ?? '';
  return { start: caret - query.length - 1, query };
}

/** Replaces the mention being typed with `@path ` and says where the caret goes. */
export function completeMention(text: string, mention: MentionQuery, caret: number, path: string): { text: string; caret: number } {
  const inserted = `@${path} `;
  const after = text.slice(caret).replace(/^\S*/, '').replace(/^ /, '');
  return { text: text.slice(0, mention.start) + inserted + after, caret: mention.start + inserted.length };
}
