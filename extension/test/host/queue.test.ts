import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApprovalQueue } from '../../src/approvals/queue';
import type { ApprovalReply, ApprovalRequest } from '../../src/protocol';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';

function req(toolCallId: string, kind: 'edit' | 'command', turnId = 't1'): ApprovalRequest {
  const ids = { sessionId: sessionIdFrom('s'), turnId: turnIdFrom(turnId), toolCallId: toolCallIdFrom(toolCallId) };
  return kind === 'edit' ? { ...ids, kind, path: `/w/${toolCallId}.ts`, proposed: 'x', diff: '' } : { ...ids, kind, command: 'ls', cwd: '/w' };
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
    assert.deepEqual(q.requests.map((r) => r.toolCallId), ['c1', 'e1', 'e2']);
    assert.equal(q.headEdit?.request.toolCallId, 'e1');
  });

  it('answers a request once, then forgets it', () => {
    const { q, replies, add } = setup();
    add(req('e1', 'edit'));
    add(req('e2', 'edit'));
    assert.equal(q.settle(req('e1', 'edit'), { decision: 'accept', content: 'mine' }), true);
    assert.equal(q.settle(req('e1', 'edit'), { decision: 'reject' }), false);
    assert.deepEqual(replies.get('e1'), { decision: 'accept', content: 'mine' });
    assert.equal(q.headEdit?.request.toolCallId, 'e2');
  });

  it("drops a finished turn's requests as rejected and keeps the others", () => {
    const { q, replies, add } = setup();
    add(req('e1', 'edit', 't1'));
    add(req('c2', 'command', 't2'));
    const dropped = q.drop((r) => r.turnId === 't1', 'The turn ended.');
    assert.deepEqual(dropped.map((r) => r.toolCallId), ['e1']);
    assert.deepEqual(replies.get('e1'), { decision: 'reject', feedback: 'The turn ended.' });
    assert.deepEqual(q.requests.map((r) => r.toolCallId), ['c2']);
  });
});
