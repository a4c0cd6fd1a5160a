// Shows a proposed edit in VS Code's diff editor (original left, editable proposal right)
// without taking the focus, reads back what the user left there, and closes it.

import * as vscode from 'vscode';
import { type EditApprovalRequest as ApprovalRequest, sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../protocol';
import type { ApprovalRef } from '../shared/messages';
import { MemoryFiles, ORIGINAL_SCHEME, PROPOSAL_SCHEME } from './proposalFs';

export class DiffView implements vscode.Disposable {
  private readonly proposals = new MemoryFiles();
  private readonly originals = new MemoryFiles();
  private readonly registrations: vscode.Disposable[];

  constructor() {
    this.registrations = [
      vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, this.proposals, { isCaseSensitive: true }),
      vscode.workspace.registerFileSystemProvider(ORIGINAL_SCHEME, this.originals, { isCaseSensitive: true, isReadonly: true }),
    ];
  }

  /**
   * The proposal's URI: the file's workspace path (so the editor knows its language and the
   * breadcrumbs read well), and the session, turn and tool call in the query (two proposals for
   * one file differ, also when two sessions reuse turn and tool-call ids).
   */
  static uri(scheme: string, r: ApprovalRequest): vscode.Uri {
    const rel = vscode.workspace.asRelativePath(r.path, false).replace(/^\/+/, '');
    const query = new URLSearchParams({ session: r.sessionId, turn: r.turnId, call: r.toolCallId }).toString();
    return vscode.Uri.from({ scheme, path: `/${rel}`, query });
  }

  /** The request a proposal (or its original side's) URI belongs to. */
  static ref(uri: vscode.Uri): ApprovalRef | undefined {
    if (uri.scheme !== PROPOSAL_SCHEME && uri.scheme !== ORIGINAL_SCHEME) return undefined;
    const q = new URLSearchParams(uri.query);
    const sessionId = q.get('session');
    const turnId = q.get('turn');
    const toolCallId = q.get('call');
    if (sessionId === null || turnId === null || toolCallId === null) return undefined;
    return { sessionId: sessionIdFrom(sessionId), turnId: turnIdFrom(turnId), toolCallId: toolCallIdFrom(toolCallId) };
  }

  async show(r: ApprovalRequest): Promise<void> {
    const right = DiffView.uri(PROPOSAL_SCHEME, r);
    const left = DiffView.uri(ORIGINAL_SCHEME, r);
    // Opened again (the user closed it, or clicked "Show diff"): keep the user's changes.
    if (this.proposals.text(right) === undefined) this.proposals.set(right, r.proposed);
    if (this.originals.text(left) === undefined) this.originals.set(left, r.original ?? '');
    const name = vscode.workspace.asRelativePath(r.path, false);
    const title = `${name} (${r.original == null ? 'new file' : 'current'} ↔ Tandem's proposal)`;
    // Beside the editor the user is typing in, so that editor stays visible and focused.
    const besideEditor = vscode.window.activeTextEditor && vscode.window.activeTextEditor.document.uri.scheme !== PROPOSAL_SCHEME;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, {
      preview: false,
      preserveFocus: true,
      viewColumn: besideEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
    } satisfies vscode.TextDocumentShowOptions);
  }

  /** The proposal as the user left it, unsaved changes included. */
  content(r: ApprovalRequest): string {
    const right = DiffView.uri(PROPOSAL_SCHEME, r);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === right.toString());
    return doc ? doc.getText() : (this.proposals.text(right) ?? r.proposed);
  }

  /** Closes the diff and forgets the proposal. */
  async close(r: ApprovalRequest): Promise<void> {
    const right = DiffView.uri(PROPOSAL_SCHEME, r);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === right.toString());
    // Saved into memory first, so closing a changed proposal asks nothing.
    if (doc?.isDirty) await doc.save();
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === right.toString());
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
    this.proposals.remove(right);
    this.originals.remove(DiffView.uri(ORIGINAL_SCHEME, r));
  }

  dispose(): void {
    for (const d of this.registrations) d.dispose();
  }
}
