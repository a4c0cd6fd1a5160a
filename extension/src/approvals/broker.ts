// What happens to approval requests, without the editor: which are pending, which edit the diff
// editor shows, and when a request goes away (decided, cancelled, its turn ended, its chat left).
// Pure apart from the `DiffSurface` it drives, so the keying is unit-tested.

import type { ApprovalReply, ApprovalRequest, EditApprovalRequest, SessionId, TurnId } from '../protocol';
import { approvalKey, type ApprovalRef, type Decision } from '../shared/messages';
import { parseHunks, rejectedHunks } from './hunks';
import { ApprovalQueue } from './queue';

/** The diff editor as the broker uses it (`DiffView` in VS Code). */
export interface DiffSurface {
  show(r: EditApprovalRequest): Promise<void>;
  close(r: EditApprovalRequest): Promise<void>;
  /** The proposal as the user left it. */
  content(r: EditApprovalRequest): string;
}

export interface BrokerEvents {
  /** The pending requests changed; `pendingEdit`: one is waiting in the diff editor. */
  changed(pending: ApprovalRequest[], pendingEdit: boolean): void;
  /** Opening a diff failed. */
  showFailed(error: unknown): void;
}

export class ApprovalBroker {
  private readonly queue = new ApprovalQueue();
  /** The key of the edit whose diff is open. */
  private shownKey: string | undefined;

  constructor(
    private readonly diff: DiffSurface,
    private readonly events: BrokerEvents,
    /** The session the chat shows: a request of any other is answered at once. */
    private readonly shownSession: () => SessionId | null,
  ) {}

  get pending(): ApprovalRequest[] {
    return this.queue.requests;
  }

  /** The ref of the edit in the diff editor, if any. */
  get shown(): ApprovalRef | undefined {
    return this.queue.requests.find((r) => approvalKey(r) === this.shownKey);
  }

  /** A `tandem/requestApproval`: resolves with the user's answer. */
  request(request: ApprovalRequest): Promise<ApprovalReply> {
    if (request.sessionId !== this.shownSession()) {
      // The user left that chat (New Chat, history): nobody would see the question.
      return Promise.resolve({ decision: 'reject', feedback: 'The user left this chat.' });
    }
    return new Promise<ApprovalReply>((resolve) => {
      if (!this.queue.add({ request, reply: resolve })) {
        resolve({ decision: 'reject', feedback: 'The same tool call is already waiting for approval.' });
        return;
      }
      this.refresh();
    });
  }

  /** The user decided, in the chat or the editor. */
  async decide(ref: ApprovalRef, decision: Decision, feedback?: string): Promise<void> {
    const p = this.queue.get(ref);
    if (!p) return;
    const r = p.request;
    let reply: ApprovalReply;
    if (decision === 'reject') {
      reply = { decision: 'reject', ...(feedback ? { feedback } : {}) };
    } else if (r.kind === 'edit') {
      // What the user left on the proposal side is what gets written; the hunks no longer in
      // it are the ones the user dropped, and the model is told so.
      const left = this.diff.content(r);
      const content = left !== r.proposed ? left : undefined;
      const dropped = content !== undefined ? rejectedHunks(parseHunks(r.diff), r.original ?? '', content) : [];
      reply = { decision, ...(content !== undefined ? { content } : {}), ...(dropped.length > 0 ? { rejectedHunks: dropped } : {}) };
    } else {
      reply = { decision };
    }
    this.queue.settle(r, reply);
    await this.closeDiff(r);
    this.refresh();
  }

  /** Accept/Reject Edit from the editor: the edit named (by its proposal's URI), else the one shown. */
  async decideEdit(decision: Decision, ref?: ApprovalRef): Promise<void> {
    const target = ref ?? this.shown ?? this.queue.headEdit?.request;
    if (target) await this.decide(target, decision);
  }

  /** The pending edit `ref` names, if it is one. */
  edit(ref: ApprovalRef): EditApprovalRequest | undefined {
    const r = this.queue.get(ref)?.request;
    return r?.kind === 'edit' ? r : undefined;
  }

  /** Shows the diff of a pending edit again (the chat's "Show diff"). */
  async showDiff(ref: ApprovalRef): Promise<void> {
    const p = this.queue.get(ref);
    if (p?.request.kind === 'edit') {
      this.shownKey = approvalKey(p.request);
      await this.diff.show(p.request);
    }
  }

  /** The sidecar withdrew the request (JSON-RPC cancellation). */
  cancel(ref: ApprovalRef): void {
    const key = approvalKey(ref);
    this.drop((r) => approvalKey(r) === key, 'The request was cancelled.');
  }

  /**
   * A tool call finished while its question was open: the sidecar stopped waiting (the
   * question's `approval.timeoutSeconds` ran out) and went on without an answer.
   */
  toolFinished(ref: ApprovalRef): void {
    const key = approvalKey(ref);
    this.drop((r) => approvalKey(r) === key, 'The question timed out.');
  }

  /** A turn ended (in whichever session): the sidecar has already answered its requests itself. */
  turnEnded(sessionId: SessionId, turnId: TurnId): void {
    this.drop((r) => r.sessionId === sessionId && r.turnId === turnId, 'The turn ended.');
  }

  /** The chat now shows `sessionId` (null: a new chat): every other session's requests go. */
  keepOnly(sessionId: SessionId | null): void {
    this.drop((r) => r.sessionId !== sessionId, 'The user left this chat.');
  }

  dropAll(reason: string): void {
    this.drop(() => true, reason);
  }

  private drop(which: (r: ApprovalRequest) => boolean, reason: string): void {
    const dropped = this.queue.drop(which, reason);
    if (dropped.length === 0) return;
    // The chat hears at once; the next edit opens once the dropped diffs are closed.
    this.events.changed(this.queue.requests, this.queue.headEdit !== undefined);
    void Promise.all(dropped.map((r) => this.closeDiff(r))).then(() => this.refresh());
  }

  private async closeDiff(r: ApprovalRequest): Promise<void> {
    if (r.kind !== 'edit') return;
    if (this.shownKey === approvalKey(r)) this.shownKey = undefined;
    await this.diff.close(r);
  }

  /** Tells the chat, and opens the next edit if none is shown. */
  private refresh(): void {
    const head = this.queue.headEdit;
    this.events.changed(this.queue.requests, head !== undefined);
    if (head && head.request.kind === 'edit' && this.shownKey === undefined) {
      this.shownKey = approvalKey(head.request);
      this.diff.show(head.request).catch((e: unknown) => this.events.showFailed(e));
    }
  }
}
