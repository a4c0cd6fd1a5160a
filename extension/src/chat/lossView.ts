// What a restore would lose, shown as VS Code diffs beside the question: the user's text now on
// the left (the file itself, unsaved changes included), the restored text on the right (an
// in-memory, read-only document). Then the question, whose default (Enter) keeps the user's work.

import * as vscode from 'vscode';
import type { UndoConflict } from '../protocol';
import { restoredText } from './restore';
import { isAbsolutePath } from './turnChanges';

export const RESTORED_SCHEME = 'tandem-restored';
const KEEP = 'Keep My Changes';
export const RESTORE_ANYWAY = 'Restore Anyway';

/** The restored texts the diffs show, by URI. */
class RestoredDocs implements vscode.TextDocumentContentProvider {
  readonly texts = new Map<string, string>();
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}

export class LossView implements vscode.Disposable {
  private readonly docs = new RestoredDocs();
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(RESTORED_SCHEME, this.docs);
  private shown = 0;

  /** Opens the diffs, asks, closes the diffs; true only for "Restore Anyway". */
  async confirm(root: vscode.Uri, message: string, detail: string, conflicts: readonly UndoConflict[]): Promise<boolean> {
    const opened: vscode.Uri[] = [];
    for (const c of conflicts.filter((c) => c.change === 'modified').slice(0, 5)) {
      const right = await this.show(root, c);
      if (right) opened.push(right);
    }
    try {
      // "Keep My Changes" comes first: it is the focused button, so Enter keeps the work.
      // VS Code adds Cancel (Escape) to a modal.
      const answer = await vscode.window.showWarningMessage(message, { modal: true, detail }, { title: KEEP }, { title: RESTORE_ANYWAY });
      return answer?.title === RESTORE_ANYWAY;
    } finally {
      await this.close(opened);
    }
  }

  /** One file's diff; the restored side's URI, or undefined when none could be shown. */
  private async show(root: vscode.Uri, c: UndoConflict): Promise<vscode.Uri | undefined> {
    // A file of another folder of the window is named by its absolute path.
    const file = isAbsolutePath(c.path) ? vscode.Uri.file(c.path) : vscode.Uri.joinPath(root, c.path);
    const now = await currentText(file);
    if (now === undefined) return undefined;
    const restored = restoredText(now, c.lost);
    const right = vscode.Uri.from({ scheme: RESTORED_SCHEME, path: `/${c.path}`, query: String(++this.shown) });
    if (restored === undefined) {
      // The file changed again since the sidecar looked: show the sidecar's diff as it is.
      const doc = await vscode.workspace.openTextDocument({ content: c.lost, language: 'diff' });
      await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
      return undefined;
    }
    this.docs.texts.set(right.toString(), restored);
    await vscode.commands.executeCommand('vscode.diff', file, right, `${c.path}: yours now ↔ after restoring (your changes lost)`, { preview: false, preserveFocus: true });
    return right;
  }

  private async close(rights: readonly vscode.Uri[]): Promise<void> {
    const keys = new Set(rights.map((u) => u.toString()));
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && keys.has(t.input.modified.toString()));
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
    for (const k of keys) this.docs.texts.delete(k);
  }

  dispose(): void {
    this.registration.dispose();
  }
}

/** The file's text as the user has it: the open buffer, else the disk. */
async function currentText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}
