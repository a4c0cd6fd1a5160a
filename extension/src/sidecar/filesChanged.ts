// `tandem/filesChanged`: files the sidecar deleted or put back itself (an undo, a command). The
// sidecar has already dropped its synced copy of a deleted file; here its editors close, so the
// user does not keep looking at (and typing into) a file that is gone. A buffer with unsaved
// text is reverted first: the undo that deleted the file asked before losing anything.

import * as vscode from 'vscode';
import type { FilesChangedParams } from '../protocol';

/** The tabs showing one of `paths` (as a text editor, or either side of a diff). */
export function tabsShowing(paths: ReadonlySet<string>): vscode.Tab[] {
  const shows = (u: vscode.Uri) => u.scheme === 'file' && paths.has(u.fsPath);
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => (t.input instanceof vscode.TabInputText && shows(t.input.uri)) || (t.input instanceof vscode.TabInputTextDiff && (shows(t.input.original) || shows(t.input.modified))));
}

export async function onFilesChanged(params: FilesChangedParams): Promise<void> {
  const deleted = new Set(params.files.filter((f) => f.kind === 'deleted').map((f) => vscode.Uri.file(f.path).fsPath));
  if (deleted.size === 0) return;
  for (const doc of vscode.workspace.textDocuments.filter((d) => d.isDirty && deleted.has(d.uri.fsPath))) {
    await vscode.window.showTextDocument(doc, { preview: false });
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }
  const tabs = tabsShowing(deleted);
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
}
