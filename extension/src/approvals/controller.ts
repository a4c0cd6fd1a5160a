// Answers the sidecar's `tandem/requestApproval`: queues the requests, shows the oldest pending
// edit in the diff editor, and turns the user's decision (chat, editor title bar or command
// palette) into the reply. Edits are shown one at a time, in the order they were asked.

import * as vscode from 'vscode';
import type { CancellationToken } from 'vscode-languageclient/node';
import type { ApprovalReply, ApprovalRequest } from '../protocol';
import type { Decision } from '../shared/messages';
import { DiffView } from './diffView';
import { ApprovalQueue } from './queue';

export class ApprovalController implements vscode.Disposable {
  private readonly queue = new ApprovalQueue();
  private readonly diff = new DiffView();
  private readonly changed = new vscode.EventEmitter<ApprovalRequest[]>();
  /** The pending requests changed (for the chat). */
  readonly onDidChange = this.changed.event;
  /** The edit whose diff is open. */
  private shown: string | undefined;

  constructor(private readonly reveal: () => void) {}

  get pending(): ApprovalRequest[] {
    return this.queue.requests;
  }

  /** The handler of `tandem/requestApproval`. */
  request(request: ApprovalRequest, token: CancellationToken): Promise<ApprovalReply> {
    return new Promise<ApprovalReply>((resolve) => {
      this.queue.add({ request, reply: resolve });
      token.onCancellationRequested(() => this.drop((r) => r.toolCallId === request.toolCallId, 'The request was cancelled.'));
      this.reveal();
      this.refresh();
    });
  }

  /** The user decided, in the chat or the editor. */
  async decide(toolCallId: string, decision: Decision, feedback?: string): Promise<void> {
    const p = this.queue.get(toolCallId);
    if (!p) return;
    const r = p.request;
    let reply: ApprovalReply;
    if (decision === 'accept') {
      // What the user left on the proposal side is what gets written.
      const content = r.kind === 'edit' && this.diff.content(r) !== r.proposed ? this.diff.content(r) : undefined;
      reply = { decision: 'accept', ...(content !== undefined ? { content } : {}) };
    } else {
      reply = { decision: 'reject', ...(feedback ? { feedback } : {}) };
    }
    this.queue.settle(toolCallId, reply);
    await this.closeDiff(r);
    this.refresh();
  }

  /** Accept/Reject Edit from the title bar (with the proposal's URI) or the palette (the shown edit). */
  async decideEdit(decision: Decision, uri?: vscode.Uri): Promise<void> {
    const id = (uri && DiffView.toolCallId(uri)) ?? this.shown ?? this.queue.headEdit?.request.toolCallId;
    if (id) await this.decide(id, decision);
  }

  /** Shows the diff of a pending edit again (the chat's "Show diff"). */
  async showDiff(toolCallId: string): Promise<void> {
    const p = this.queue.get(toolCallId);
    if (p?.request.kind === 'edit') {
      this.shown = toolCallId;
      await this.diff.show(p.request);
    }
  }

  /** Forgets the requests of a turn that ended: the sidecar has already answered them itself. */
  dropTurn(turnId: string): void {
    this.drop((r) => r.turnId === turnId, 'The turn ended.');
  }

  dropAll(reason: string): void {
    this.drop(() => true, reason);
  }

  private drop(which: (r: ApprovalRequest) => boolean, reason: string): void {
    const dropped = this.queue.drop(which, reason);
    if (dropped.length === 0) return;
    void Promise.all(dropped.map((r) => this.closeDiff(r))).then(() => this.refresh());
  }

  private async closeDiff(r: ApprovalRequest): Promise<void> {
    if (r.kind !== 'edit') return;
    if (this.shown === r.toolCallId) this.shown = undefined;
    await this.diff.close(r);
  }

  /** Tells the chat, sets the context keys, and opens the next edit if none is shown. */
  private refresh(): void {
    const requests = this.queue.requests;
    this.changed.fire(requests);
    const head = this.queue.headEdit;
    void vscode.commands.executeCommand('setContext', 'tandem.pendingEdit', head !== undefined);
    if (head && head.request.kind === 'edit' && this.shown === undefined) {
      this.shown = head.request.toolCallId;
      this.diff.show(head.request).catch((e) => void vscode.window.showErrorMessage(`Could not open the proposed edit: ${String(e)}`));
    }
  }

  dispose(): void {
    this.dropAll('The editor is closing.');
    this.diff.dispose();
    this.changed.dispose();
  }
}
