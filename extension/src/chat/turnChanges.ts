// A turn's change set in VS Code's multi-diff editor (`vscode.changes`): every file the turn
// changed, by edits and commands alike, from its text before the turn (served read-only under
// the `tandem-before:` scheme) to the file now (the file itself, so the user can go on editing;
// a deleted file's "now" is an empty read-only side). Binary and too-large sides show a line
// saying so instead of their bytes. The list is built by a pure function, unit-tested.

import type { FileSide, TurnChangesResult, TurnFile } from '../protocol';

export const BEFORE_SCHEME = 'tandem-before';

/** A side as text for the diff editor (the model wrote it: it goes in a text document only). */
export function sideText(side: FileSide): string {
  switch (side.kind) {
    case 'absent':
      return '';
    case 'text':
      return side.text;
    case 'binary':
      return `(binary file, ${side.bytes} bytes: not shown)\n`;
    case 'tooLarge':
      return `(${side.bytes} bytes, over the 1 MiB Tandem shows in a diff: not shown)\n`;
  }
}

/** One row of `vscode.changes`: the file's URI, the left side, the right side. */
export interface ChangeRow<U> {
  resource: U;
  original: U;
  modified: U;
}

/**
 * Whether a path of the change set is absolute: a file in an additional root is sent as that
 * root's absolute path and the rest (POSIX `/…`, Windows `C:\…`, `C:/…` or `\\server\…`); any
 * other is relative to the primary root.
 */
export function isAbsolutePath(path: string): boolean {
  return /^(?:[\\/]|[a-zA-Z]:[\\/])/.test(path);
}

/** How the rows name their sides, so the list is built without VS Code. */
export interface UriMaker<U> {
  /** The workspace file at `path` (relative to the root, or absolute: `isAbsolutePath`). */
  file(path: string): U;
  /** A read-only side of `path` with this text, under the before scheme. */
  readOnly(path: string, side: 'before' | 'after', text: string): U;
}

/**
 * The rows of the multi-diff, by path; the title names the turn. A file that exists now is shown
 * as itself on the right, unless its "now" is binary or too large (then a read-only note).
 */
export function changeRows<U>(result: TurnChangesResult, uris: UriMaker<U>): { title: string; rows: ChangeRow<U>[] } {
  const rows = result.files.map((f: TurnFile) => {
    const resource = uris.file(f.path);
    const original = uris.readOnly(f.path, 'before', sideText(f.before));
    const modified = f.after.kind === 'text' ? resource : uris.readOnly(f.path, 'after', sideText(f.after));
    return { resource, original, modified };
  });
  // VS Code adds the count of files to the title itself.
  return { title: `Tandem: changes of turn ${result.turnId ?? ''}`, rows };
}

/** "by a command (call_1)", for a file's tooltip. */
export function changedByText(f: TurnFile): string {
  if (!f.by) return '';
  const source = {
    edit: 'an edit',
    command: 'a command',
    mcp: 'an MCP tool',
    hook: 'a hook',
  }[f.by.source];
  return f.by.toolCallId ? `by ${source} (${f.by.toolCallId})` : `by ${source}`;
}
