// The `@` file list: the files of every workspace folder whose path matches what the user typed,
// found by VS Code's own search (`workspace.findFiles`) with the user's `files.exclude` and
// `search.exclude` and the folders' .gitignore files (parsed by the `ignore` package): text files
// and images.

import * as vscode from 'vscode';
import { excludeGlob, GitIgnores, rankMatches } from './fileMatch';
import { isTextContent, MAX_MENTION_BYTES } from './textFiles';
import { imageTypeOfName } from '../shared/images';

/** How many files VS Code is asked for, and how many the list shows. */
const CANDIDATES = 400;
const SHOWN = 12;

export class FileSearch implements vscode.Disposable {
  private ignores: Promise<GitIgnores> | undefined;
  private readonly watcher = vscode.workspace.createFileSystemWatcher('**/.gitignore');

  constructor() {
    const reset = () => (this.ignores = undefined);
    this.watcher.onDidChange(reset);
    this.watcher.onDidCreate(reset);
    this.watcher.onDidDelete(reset);
  }

  /** Up to 12 paths (mentionPath) of text files and images matching `query`, best first. */
  async find(query: string): Promise<string[]> {
    const q = query.replace(/[[\]{}*?!]/g, '');
    const searchExclude = vscode.workspace.getConfiguration('search').get<Record<string, unknown>>('exclude') ?? {};
    const filesExclude = vscode.workspace.getConfiguration('files').get<Record<string, unknown>>('exclude') ?? {};
    const exclude = excludeGlob({ ...filesExclude, ...searchExclude });
    // "lib/ut" in a window of several folders, one named lib: "ut" in that folder.
    const folders = vscode.workspace.workspaceFolders ?? [];
    const named = folders.length > 1 ? folders.find((f) => q.startsWith(`${f.name}/`)) : undefined;
    const inFolder = named ? q.slice(named.name.length + 1) : q;
    const glob = inFolder ? `**/*${inFolder}*` : '**/*';
    // Undefined: VS Code applies files.exclude itself; a pattern of ours replaces it, so it holds both.
    const uris = await vscode.workspace.findFiles(named ? new vscode.RelativePattern(named, glob) : glob, exclude, CANDIDATES);
    const ignores = await (this.ignores ??= this.loadIgnores());
    const rel = uris.map((u) => ({ uri: u, rel: mentionPath(u) })).filter((f) => !ignores.ignored(f.rel));
    const found: string[] = [];
    for (const f of rankMatches(rel, inFolder)) {
      if (found.length >= SHOWN) break;
      // Text files, and images (which go as images).
      if (imageTypeOfName(f.rel) || (await isText(f.uri))) found.push(f.rel);
    }
    return found;
  }

  private async loadIgnores(): Promise<GitIgnores> {
    const files = await vscode.workspace.findFiles('**/.gitignore', '**/node_modules/**', 200);
    const read = await Promise.all(
      files.map(async (u) => {
        const rel = mentionPath(u);
        const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
        try {
          return { dir, text: new TextDecoder().decode(await vscode.workspace.fs.readFile(u)) };
        } catch {
          return undefined;
        }
      }),
    );
    return new GitIgnores(read.filter((r) => r !== undefined));
  }

  dispose(): void {
    this.watcher.dispose();
  }
}

/**
 * A file's path as the `@` menu shows and inserts it: relative to its folder, after the folder's
 * name when the window has several (VS Code's default), so each .gitignore applies in its own
 * folder and the session knows which folder a pick is in (mentionFolders.ts).
 */
function mentionPath(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri);
}

/**
 * A file the model may be given: text (no NUL in its first 8 KB, the test git and grep use),
 * and not too big to be worth a mention. Read through `workspace.fs`, so remote workspaces work.
 */
export async function isText(uri: vscode.Uri): Promise<boolean> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type !== vscode.FileType.File || stat.size > MAX_MENTION_BYTES) return false;
    return isTextContent(await vscode.workspace.fs.readFile(uri));
  } catch {
    return false;
  }
}
