// `@path` mentions in a prompt: which files the user named. Pure; the session checks that each
// names a file in the workspace before attaching it.

/** The distinct paths mentioned as `@path` (at the start or after whitespace), in order. */
export function extractMentions(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    // Sentence punctuation after a mention is not part of the path.
    const p = (m[1] ?? '').replace(/[.,;:!?)\]}'"]+$/, '');
    if (p && !found.includes(p)) found.push(p);
  }
  return found;
}
