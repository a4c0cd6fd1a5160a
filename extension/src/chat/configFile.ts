// The user's Tandem config file (docs/configuration.md): the sidecar reads its [provider] too,
// so the chat's "no server" card offers to open it. Opened as it is, or, when there is none yet,
// as a new editor that saves to its place, with the provider section to fill in.

import * as vscode from 'vscode';
import { NEW_CONFIG } from './configPath';

export async function openConfigFile(file: string): Promise<void> {
  const uri = vscode.Uri.file(file);
  const exists = await vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
  if (exists) {
    await vscode.window.showTextDocument(uri, { preview: false });
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri.with({ scheme: 'untitled' }));
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  if (doc.getText() === '') await editor.edit((b) => b.insert(new vscode.Position(0, 0), NEW_CONFIG));
}
