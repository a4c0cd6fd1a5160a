// Where a proposed edit lives while the user looks at it: `tandem-proposal:` is an in-memory,
// writable file system, so the right side of the diff is an ordinary editable document whose
// text (saved or not) is what Accept writes. `tandem-original:` is its read-only left side.

import * as vscode from 'vscode';

export const PROPOSAL_SCHEME = 'tandem-proposal';
export const ORIGINAL_SCHEME = 'tandem-original';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function fileStat(size: number, mtime: number): vscode.FileStat {
  return { type: vscode.FileType.File, ctime: mtime, mtime, size };
}

/** Files are keyed by path and query: the query names the tool call a proposal belongs to. */
const key = (uri: vscode.Uri) => `${uri.path}?${uri.query}`;

export class MemoryFiles implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  set(uri: vscode.Uri, text: string): void {
    const existed = this.files.has(key(uri));
    this.files.set(key(uri), { data: encoder.encode(text), mtime: Date.now() });
    this.emitter.fire([{ type: existed ? vscode.FileChangeType.Changed : vscode.FileChangeType.Created, uri }]);
  }

  text(uri: vscode.Uri): string | undefined {
    const f = this.files.get(key(uri));
    return f && decoder.decode(f.data);
  }

  remove(uri: vscode.Uri): void {
    if (this.files.delete(key(uri))) this.emitter.fire([{ type: vscode.FileChangeType.Deleted, uri }]);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this.files.get(key(uri));
    if (f) return fileStat(f.data.byteLength, f.mtime);
    // Parent "folders" of a proposal exist implicitly.
    const dir = uri.path.endsWith('/') ? uri.path : `${uri.path}/`;
    if ([...this.files.keys()].some((k) => k.startsWith(dir))) {
      return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    }
    throw vscode.FileSystemError.FileNotFound(uri);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {}

  readFile(uri: vscode.Uri): Uint8Array {
    const f = this.files.get(key(uri));
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return f.data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    // Only proposals the extension opened can be saved; nothing new is created here.
    if (!this.files.has(key(uri))) throw vscode.FileSystemError.NoPermissions(uri);
    this.files.set(key(uri), { data: content, mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.remove(uri);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('Proposals cannot be renamed');
  }
}
