// Answers the sidecar's `tandem/requestApproval` in VS Code: the broker keeps the requests, the
// diff editor shows the oldest pending edit, and the user's decision (chat, editor title bar,
// keys or command palette) becomes the reply. Edits are shown one at a time, in the order asked.

import * as vscode from 'vscode';
import type { CancellationToken } from 'vscode-languageclient/node';
import type { ApprovalReply, ApprovalRequest, SessionId, TurnId } from '../protocol';
import type { ApprovalRef, Decision } from '../shared/messages';
import { ApprovalBroker } from './broker';
import { DiffView } from './diffView';
import { HunkLenses } from './hunkLens';

export class ApprovalController implements vscode.Disposable {
  private readonly diff = new DiffView();
  private readonly changed = new vscode.EventEmitter<ApprovalRequest[]>();
  /** The pending requests changed (for the chat). */
  readonly onDidChange = this.changed.event;
  private readonly broker: ApprovalBroker;
  private readonly lenses: HunkLenses;

  constructor(
    private readonly reveal: () => void,
    shownSession: () => SessionId | null,
  ) {
    this.broker = new ApprovalBroker(
      this.diff,
      {
        changed: (pending, pendingEdit) => {
          this.lenses.retain(pending);
          this.changed.fire(pending);
          void vscode.commands.executeCommand('setContext', 'tandem.pendingEdit', pendingEdit);
        },
        showFailed: (e) => void vscode.window.showErrorMessage(`Could not open the proposed edit: ${String(e)}`),
      },
      shownSession,
    );
    this.lenses = new HunkLenses((ref) => this.broker.edit(ref));
  }

  get pending(): ApprovalRequest[] {
    return this.broker.pending;
  }

  /** The handler of `tandem/requestApproval`. */
  request(request: ApprovalRequest, token: CancellationToken): Promise<ApprovalReply> {
    const reply = this.broker.request(request);
    token.onCancellationRequested(() => this.broker.cancel(request));
    // Only a question that is waiting brings the chat into view (not one answered at once).
    if (this.broker.pending.includes(request)) this.reveal();
    return reply;
  }

  decide(ref: ApprovalRef, decision: Decision, feedback?: string): Promise<void> {
    return this.broker.decide(ref, decision, feedback);
  }

  /** Accept/Reject Edit from the title bar or keys (with the proposal's URI) or the palette (the shown edit). */
  decideEdit(decision: Decision, uri?: unknown): Promise<void> {
    const ref = uri instanceof vscode.Uri ? DiffView.ref(uri) : undefined;
    return this.broker.decideEdit(decision, ref);
  }

  showDiff(ref: ApprovalRef): Promise<void> {
    return this.broker.showDiff(ref);
  }

  /** A tool call finished, in whichever session: a question still open for it closes. */
  toolFinished(ref: ApprovalRef): void {
    this.broker.toolFinished(ref);
  }

  /** A turn ended, in whichever session: its diffs close. */
  turnEnded(sessionId: SessionId, turnId: TurnId): void {
    this.broker.turnEnded(sessionId, turnId);
  }

  /** The chat shows another session (or a new chat): the others' requests go. */
  keepOnly(sessionId: SessionId | null): void {
    this.broker.keepOnly(sessionId);
  }

  dropAll(reason: string): void {
    this.broker.dropAll(reason);
  }

  dispose(): void {
    this.dropAll('The editor is closing.');
    this.lenses.dispose();
    this.diff.dispose();
    this.changed.dispose();
  }
}
