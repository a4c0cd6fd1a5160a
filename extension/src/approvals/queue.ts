// The approval requests waiting for the user, in the order the sidecar asked. Keyed by session,
// turn and tool call together (see `ApprovalRef`). Pure: the broker adds the diff editor around it.

import type { ApprovalReply, ApprovalRequest } from '../protocol';
import { approvalKey, type ApprovalRef } from '../shared/messages';

export interface Pending {
  request: ApprovalRequest;
  /** Answers the sidecar. Called exactly once, by `settle`. */
  reply: (reply: ApprovalReply) => void;
}

export class ApprovalQueue {
  private readonly items: Pending[] = [];

  /** Adds a request; false (and nothing added) if one with the same ref is already pending. */
  add(p: Pending): boolean {
    if (this.get(p.request)) return false;
    this.items.push(p);
    return true;
  }

  get(ref: ApprovalRef): Pending | undefined {
    const key = approvalKey(ref);
    return this.items.find((p) => approvalKey(p.request) === key);
  }

  /** The requests, oldest first. */
  get requests(): ApprovalRequest[] {
    return this.items.map((p) => p.request);
  }

  /** The oldest pending edit: the one the diff editor shows. */
  get headEdit(): Pending | undefined {
    return this.items.find((p) => p.request.kind === 'edit');
  }

  /** Removes the request and answers it; false if it was no longer pending. */
  settle(ref: ApprovalRef, reply: ApprovalReply): boolean {
    const key = approvalKey(ref);
    const i = this.items.findIndex((p) => approvalKey(p.request) === key);
    if (i < 0) return false;
    const [p] = this.items.splice(i, 1);
    p?.reply(reply);
    return true;
  }

  /**
   * Removes the requests matching `which` and answers them rejected. The sidecar has already
   * given up on them (the turn ended, or the sidecar restarted) or the user left their chat;
   * the answer only closes the JSON-RPC request.
   */
  drop(which: (r: ApprovalRequest) => boolean, reason: string): ApprovalRequest[] {
    const dropped = this.items.filter((p) => which(p.request));
    for (const p of dropped) this.settle(p.request, { decision: 'reject', feedback: reason });
    return dropped.map((p) => p.request);
  }
}
