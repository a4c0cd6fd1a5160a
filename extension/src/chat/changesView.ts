// Opens a turn's change set (`tandem/turnChanges`) in VS Code's multi-diff editor. The sides that
// are not the workspace file itself are in-memory, read-only documents under `tandem-before:`.

import * as vscode from 'vscode';
import type { TurnChangesResult } from '../protocol';
import { BEFORE_SCHEME, changeRows, isAbsolutePath } from './turnChanges';

/** The read-only sides, by URI. */
class Sides implements vscode.TextDocumentContentProvider {
  readonly texts = new Map<string, string>();
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

export class ChangesView implements vscode.Disposable {
  private readonly sides = new Sides();
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(BEFORE_SCHEME, this.sides);
  private opened = 0;

  /** Opens the multi-diff of `result`; false when it has no files. */
  async show(result: TurnChangesResult): Promise<boolean> {
    if (result.files.length === 0) return false;
    const root = vscode.Uri.file(result.root);
    // A file of an additional root comes as its absolute path.
    const at = (path: string) => (isAbsolutePath(path) ? vscode.Uri.file(path) : vscode.Uri.joinPath(root, path));
    // A new query each time: reopening a turn shows its texts as they are now.
    const shown = ++this.opened;
    const { title, rows } = changeRows(result, {
      file: at,
      readOnly: (path, side, text) => {
        // The file's own path, so the editor names the row after the file (not as a rename).
        const uri = at(path).with({ scheme: BEFORE_SCHEME, query: `${side}-${shown}` });
        this.sides.texts.set(uri.toString(), text);
        return uri;
      },
    });
    await vscode.commands.executeCommand(
      'vscode.changes',
      title,
      rows.map((r) => [r.resource, r.original, r.modified]),
    );
    return true;
  }

  dispose(): void {
    this.registration.dispose();
  }
}
