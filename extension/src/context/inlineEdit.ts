// "Edit Selection" (Ctrl+I / Cmd+I): the user's instruction for the selected lines goes to the
// sidecar as a turn with the selection as context; the model's edit comes back as a proposal,
// shown in the editor's diff with per-hunk accept and reject like any other.

import type * as vscode from 'vscode';

/**
 * The prompt of an inline edit. Keep it in step with `tandem_agent::prompt::edit_selection`,
 * which plain LSP's "Edit selection…" sends.
 */
export function editSelectionPrompt(instruction: string): string {
  return (
    `Edit the attached selection: ${instruction.trim()}\n` +
    'Change only the selected lines (and whatever they need elsewhere to stay correct), with replace_in_file; then say in one line what changed.'
  );
}

/** The selection to edit: what is selected, or the caret's whole line when nothing is. */
export function selectionToEdit(editor: Pick<vscode.TextEditor, 'selection' | 'document'>, make: (startLine: number, endLine: number) => vscode.Selection): vscode.Selection | undefined {
  const sel = editor.selection;
  if (!sel.isEmpty) return sel;
  const line = sel.active.line;
  if (line >= editor.document.lineCount) return undefined;
  return make(line, line + 1);
}
