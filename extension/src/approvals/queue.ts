// The approval requests waiting for the user, in the order the sidecar asked. Pure: the
// controller adds the editor and the chat around it.

import type { ApprovalReply, ApprovalRequest } from '../protocol';

export interface Pending {
  request: ApprovalRequest;
  /** Answers the sidecar. Called exactly once, by `settle`. */
  reply: (reply: ApprovalReply) => void;
}

export class ApprovalQueue {
  private readonly items: Pending[] = [];

  add(p: Pending): void {
    this.items.push(p);
  }

  get(toolCallId: string): Pending | undefined {
    return this.items.find((p) => p.request.toolCallId === toolCallId);
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
  settle(toolCallId: string, reply: ApprovalReply): boolean {
    const i = this.items.findIndex((p) => p.request.toolCallId === toolCallId);
    if (i < 0) return false;
    const [p] = this.items.splice(i, 1);
    p?.reply(reply);
    return true;
  }

  /**
   * Removes the requests matching `which` and answers them rejected. The sidecar has already
   * given up on them (the turn ended, or the sidecar restarted); the answer only closes the
   * JSON-RPC request.
   */
  drop(which: (r: ApprovalRequest) => boolean, reason: string): ApprovalRequest[] {
    const dropped = this.items.filter((p) => which(p.request));
    for (const p of dropped) this.settle(p.request.toolCallId, { decision: 'reject', feedback: reason });
    return dropped.map((p) => p.request);
  }
}
