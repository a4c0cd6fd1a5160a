import type { NewSessionParams } from '../protocol/generated/NewSessionParams';

/** A workspace folder as the session needs it: its path, and whether it is on this disk. */
export interface Folder {
  fsPath: string;
  /** `file:` scheme: a folder of another file system (remote, virtual) can't be a root. */
  onDisk: boolean;
}

/**
 * A new session's roots from the window's folders, in VS Code's order: the first is the primary
 * root (relative paths, commands, project settings), every other one on disk an additional root.
 * `undefined` when the window has no folder. The session keeps them: folders added or removed
 * later are a new chat's (see `foldersChangedNotice`).
 */
export function sessionRoots(folders: readonly Folder[]): NewSessionParams | undefined {
  const [first, ...rest] = folders;
  if (first === undefined) return undefined;
  return { root: first.fsPath, additionalRoots: rest.filter((f) => f.onDisk).map((f) => f.fsPath) };
}

/** What the chat says when the window's folders change under a session. */
export function foldersChangedNotice(added: number, removed: number): string {
  const what = [added > 0 ? `${added} added` : '', removed > 0 ? `${removed} removed` : ''].filter((s) => s !== '').join(', ');
  return `The workspace's folders changed (${what}). This chat keeps the folders it started with; a new chat works in the window's folders as they are now.`;
}
