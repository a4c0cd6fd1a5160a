// "Add Selection to Chat": the active editor's selection as an attachment for the next prompt.

import * as vscode from 'vscode';
import type { Attachment } from '../shared/messages';

export function selectionAttachment(editor: vscode.TextEditor): Attachment {
  const doc = editor.document;
  const sel = editor.selection;
  const rel = vscode.workspace.asRelativePath(doc.uri, false);
  const whole = sel.isEmpty;
  const first = sel.start.line + 1;
  // A selection ending at the start of a line does not include that line.
  const last = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
  return {
    label: whole ? rel : first === last ? `${rel}:${first}` : `${rel}:${first}-${last}`,
    item: {
      path: doc.uri.scheme === 'file' ? doc.uri.fsPath : rel,
      // Unsaved text goes along: the sidecar would otherwise read the file as saved.
      ...(doc.isDirty || doc.isUntitled ? { text: doc.getText() } : {}),
      ...(whole ? {} : { range: { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } } }),
    },
  };
}
