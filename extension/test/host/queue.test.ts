import { describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../src/approvals/queue';
import type { ApprovalReply, ApprovalRequest } from '../../src/protocol';

function req(toolCallId: string, kind: 'edit' | 'command', turnId = 't1'): ApprovalRequest {
  return { sessionId: 's', turnId, toolCallId, kind, ...(kind === 'edit' ? { path: `/w/${toolCallId}.ts`, proposed: 'x' } : { command: 'ls', cwd: '/w' }) };
}

function setup() {
  const q = new ApprovalQueue();
  const replies = new Map<string, ApprovalReply>();
  const add = (r: ApprovalRequest) => q.add({ request: r, reply: (a) => replies.set(r.toolCallId, a) });
  return { q, replies, add };
}

describe('ApprovalQueue', () => {
  it('keeps the order asked and shows the oldest edit first', () => {
    const { q, add } = setup();
    add(req('c1', 'command'));
    add(req('e1', 'edit'));
    add(req('e2', 'edit'));
    expect(q.requests.map((r) => r.toolCallId)).toEqual(['c1', 'e1', 'e2']);
    expect(q.headEdit?.request.toolCallId).toBe('e1');
  });

  it('answers a request once, then forgets it', () => {
    const { q, replies, add } = setup();
    add(req('e1', 'edit'));
    add(req('e2', 'edit'));
    expect(q.settle('e1', { decision: 'accept', content: 'mine' })).toBe(true);
    expect(q.settle('e1', { decision: 'reject' })).toBe(false);
    expect(replies.get('e1')).toEqual({ decision: 'accept', content: 'mine' });
    expect(q.headEdit?.request.toolCallId).toBe('e2');
  });

  it("drops a finished turn's requests as rejected and keeps the others", () => {
    const { q, replies, add } = setup();
    add(req('e1', 'edit', 't1'));
    add(req('c2', 'command', 't2'));
    const dropped = q.drop((r) => r.turnId === 't1', 'The turn ended.');
    expect(dropped.map((r) => r.toolCallId)).toEqual(['e1']);
    expect(replies.get('e1')).toEqual({ decision: 'reject', feedback: 'The turn ended.' });
    expect(q.requests.map((r) => r.toolCallId)).toEqual(['c2']);
  });
});
