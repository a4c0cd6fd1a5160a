// Per-hunk actions in the proposal's diff editor: "Keep" and "Drop this change" above each hunk
// of the proposal side. Dropping puts the original lines back into the proposal document (an
// ordinary edit, so Undo brings the change back); Accept then writes what is left, and the
// broker tells the sidecar which hunks are gone (see hunks.ts). VS Code shows CodeLens in a diff
// editor only with `diffEditor.codeLens` on, which package.json turns on by default
// (`configurationDefaults`; a user setting still wins).

import * as vscode from 'vscode';
import type { EditApprovalRequest } from '../protocol';
import type { ApprovalRef } from '../shared/messages';
import { approvalKey } from '../shared/messages';
import { DiffView } from './diffView';
import { dropHunk, hunkLines, parseHunks } from './hunks';
import { PROPOSAL_SCHEME } from './proposalFs';

export const KEEP_HUNK = 'tandem.keepHunk';
export const DROP_HUNK = 'tandem.dropHunk';

/**
 * Accept and Reject above the proposal's first line: in a narrow side-by-side diff the editor
 * title bar folds its actions into "…", and these stay in view.
 */
function decisionLenses(uri: vscode.Uri): vscode.CodeLens[] {
  const mod = process.platform === 'darwin' ? 'Cmd' : 'Ctrl';
  const top = new vscode.Range(0, 0, 0, 0);
  return [
    new vscode.CodeLens(top, { title: '$(check) Accept Edit', command: 'tandem.acceptEdit', arguments: [uri], tooltip: `Write what the right side holds (${mod}+Alt+Enter)` }),
    new vscode.CodeLens(top, { title: '$(close) Reject Edit', command: 'tandem.rejectEdit', arguments: [uri], tooltip: `Write nothing; the model is told (${mod}+Alt+Backspace)` }),
  ];
}

export class HunkLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  /** Hunks the user kept, by approval key: their lens says so. */
  private readonly kept = new Map<string, Set<number>>();
  private readonly registrations: vscode.Disposable[];

  constructor(private readonly pendingEdit: (ref: ApprovalRef) => EditApprovalRequest | undefined) {
    this.registrations = [
      vscode.languages.registerCodeLensProvider({ scheme: PROPOSAL_SCHEME }, this),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === PROPOSAL_SCHEME) this.changed.fire();
      }),
      vscode.commands.registerCommand(KEEP_HUNK, (uri: unknown, index: unknown) => this.keep(uri, index)),
      vscode.commands.registerCommand(DROP_HUNK, (uri: unknown, index: unknown) => this.drop(uri, index)),
    ];
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const ref = DiffView.ref(document.uri);
    const r = ref && this.pendingEdit(ref);
    if (!r) return [];
    const hunks = parseHunks(r.diff);
    const kept = this.kept.get(approvalKey(r)) ?? new Set<number>();
    const lenses: vscode.CodeLens[] = decisionLenses(document.uri);
    const uri = document.uri.toString();
    for (const [index, line] of hunkLines(hunks, r.original ?? '', document.getText())) {
      const range = new vscode.Range(line, 0, line, 0);
      const of = hunks.length > 1 ? ` (${index + 1} of ${hunks.length})` : '';
      lenses.push(
        new vscode.CodeLens(range, kept.has(index)
          ? { title: `$(check) Kept${of}`, command: '', tooltip: 'This change will be written when you accept the edit' }
          : { title: `$(check) Keep${of}`, command: KEEP_HUNK, arguments: [uri, index], tooltip: 'Keep this change; Accept writes it' }),
        new vscode.CodeLens(range, { title: '$(discard) Drop this change', command: DROP_HUNK, arguments: [uri, index], tooltip: 'Put the original lines back; the model is told you dropped this change' }),
      );
    }
    return lenses;
  }

  private request(uri: unknown): { doc: vscode.TextDocument; r: EditApprovalRequest } | undefined {
    if (typeof uri !== 'string') return undefined;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    const ref = doc && DiffView.ref(doc.uri);
    const r = ref && this.pendingEdit(ref);
    return doc && r ? { doc, r } : undefined;
  }

  private keep(uri: unknown, index: unknown): void {
    const found = this.request(uri);
    if (!found || typeof index !== 'number') return;
    const key = approvalKey(found.r);
    const set = this.kept.get(key) ?? new Set<number>();
    set.add(index);
    this.kept.set(key, set);
    this.changed.fire();
  }

  private async drop(uri: unknown, index: unknown): Promise<void> {
    const found = this.request(uri);
    if (!found || typeof index !== 'number') return;
    const { doc, r } = found;
    const hunk = parseHunks(r.diff)[index];
    const edit = hunk && dropHunk(hunk, r.original ?? '', doc.getText());
    if (!edit) return;
    this.kept.get(approvalKey(r))?.delete(index);
    const we = new vscode.WorkspaceEdit();
    we.replace(doc.uri, new vscode.Range(doc.positionAt(edit.start), doc.positionAt(edit.end)), edit.text);
    if (!(await vscode.workspace.applyEdit(we))) {
      void vscode.window.showErrorMessage('Could not drop that change from the proposal.');
    }
  }

  /** Only these are pending now: the kept marks of decided or withdrawn proposals go. */
  retain(pending: readonly ApprovalRef[]): void {
    const keys = new Set(pending.map(approvalKey));
    for (const key of this.kept.keys()) if (!keys.has(key)) this.kept.delete(key);
    this.changed.fire();
  }

  dispose(): void {
    for (const d of this.registrations) d.dispose();
    this.changed.dispose();
  }
}
