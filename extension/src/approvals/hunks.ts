// Per-hunk review of a proposed edit, without the editor: which of the proposal's hunks are still
// in the text the user left on the proposal side, where each one is now, and how to put the
// original lines of one back.
//
// The hunks are the ones of the request's unified `diff`, numbered as the sidecar numbers them
// (by @@ header order): `rejectedHunks` in the reply are those indices. The text on the proposal
// side may have been edited by the user, so hunks are found again by a fresh line diff of the
// original against it: a hunk is the region of the original its @@ header covers (context lines
// included; hunks of one diff never touch), and the changes of that diff that fall in it are its
// changes now.

import { diffArrays, parsePatch, type StructuredPatch } from 'diff';

/** One hunk of the request's diff: where it lies in the original, 0-based, end exclusive. */
export interface Hunk {
  index: number;
  oldStart: number;
  oldEnd: number;
}

/** The hunks of a unified diff, in @@ order (parsed by the `diff` package); none if it is malformed. */
export function parseHunks(unified: string): Hunk[] {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(unified);
  } catch {
    return [];
  }
  // `parsePatch` gives one-based starts, the line after for an empty range ("-5,0" is 6).
  return patches
    .flatMap((p) => p.hunks)
    .map((h, index) => ({ index, oldStart: h.oldStart - 1, oldEnd: h.oldStart - 1 + h.oldLines }));
}

/** The lines of a text, each with its line break, so a missing final newline is a difference. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** One run of changed lines: original lines [oldStart, oldEnd) became current [newStart, newEnd). */
export interface Change {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/** The changes from `original` to `current`, by lines. */
export function changes(original: string, current: string): Change[] {
  const out: Change[] = [];
  let o = 0;
  let n = 0;
  let open: Change | undefined;
  for (const part of diffArrays(splitLines(original), splitLines(current))) {
    const count = part.value.length;
    if (!part.added && !part.removed) {
      if (open) out.push(open);
      open = undefined;
      o += count;
      n += count;
      continue;
    }
    open ??= { oldStart: o, oldEnd: o, newStart: n, newEnd: n };
    if (part.removed) {
      o += count;
      open.oldEnd = o;
    } else {
      n += count;
      open.newEnd = n;
    }
  }
  if (open) out.push(open);
  return out;
}

/** Whether a change lies in a hunk's region (an insertion at either edge of it counts). */
function inHunk(c: Change, h: Hunk): boolean {
  if (c.oldStart === c.oldEnd) return c.oldStart >= h.oldStart && c.oldStart <= h.oldEnd;
  return c.oldStart < h.oldEnd && c.oldEnd > h.oldStart;
}

/** The changes of `current` that belong to hunk `h`. */
export function hunkChanges(h: Hunk, all: readonly Change[]): Change[] {
  return all.filter((c) => inHunk(c, h));
}

/**
 * The hunks the user dropped: none of their changes is left in `current` (dropped with "Drop
 * this change", or put back by hand). 0-based, ascending.
 */
export function rejectedHunks(hunks: readonly Hunk[], original: string, current: string): number[] {
  const all = changes(original, current);
  return hunks.filter((h) => hunkChanges(h, all).length === 0).map((h) => h.index);
}

/** Where each hunk that is still there starts in `current` (0-based line), for its actions. */
export function hunkLines(hunks: readonly Hunk[], original: string, current: string): Map<number, number> {
  const all = changes(original, current);
  const at = new Map<number, number>();
  for (const h of hunks) {
    const first = hunkChanges(h, all)[0];
    if (first) at.set(h.index, first.newStart);
  }
  return at;
}

/** A replacement of `current[start, end)` (character offsets) by `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** Character offset of each line start of `lines`, plus the end. */
function offsets(lines: readonly string[]): number[] {
  const at = [0];
  for (const l of lines) at.push((at[at.length - 1] ?? 0) + l.length);
  return at;
}

/**
 * The edit that drops hunk `h` from `current`: its changed lines go back to the original's.
 * Undefined when the hunk has no change left. Changes outside the hunk (other hunks, the user's
 * own edits elsewhere) are kept.
 */
export function dropHunk(h: Hunk, original: string, current: string): TextEdit | undefined {
  const mine = hunkChanges(h, changes(original, current));
  const first = mine[0];
  const last = mine[mine.length - 1];
  if (!first || !last) return undefined;
  const oldLines = splitLines(original);
  const at = offsets(splitLines(current));
  // Between the first and the last change of the hunk the lines are equal on both sides, so
  // the original's span replaces the current span as a whole.
  return {
    start: at[first.newStart] ?? 0,
    end: at[last.newEnd] ?? current.length,
    text: oldLines.slice(first.oldStart, last.oldEnd).join(''),
  };
}

/** `text` with `edit` applied. */
export function applyTextEdit(text: string, edit: TextEdit): string {
  return text.slice(0, edit.start) + edit.text + text.slice(edit.end);
}
