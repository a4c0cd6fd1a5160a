import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApprovalBroker, type DiffSurface } from '../../src/approvals/broker';
import type { ApprovalReply, ApprovalRequest, EditApprovalRequest, SessionId } from '../../src/protocol';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';

const tick = () => new Promise((r) => setImmediate(r));

function edit(sessionId: string, turnId = 't1', toolCallId = 'call_0'): EditApprovalRequest {
  return { sessionId: sessionIdFrom(sessionId), turnId: turnIdFrom(turnId), toolCallId: toolCallIdFrom(toolCallId), kind: 'edit', path: `/w/${sessionId}.ts`, original: 'a', proposed: `b from ${sessionId}`, diff: '' };
}

/** A diff editor that records which proposals are open, as the VS Code one would show them. */
class OpenDiffs implements DiffSurface {
  readonly open: string[] = [];
  edited = new Map<string, string>();
  private name = (r: ApprovalRequest) => `${r.sessionId}/${r.turnId}/${r.toolCallId}`;
  async show(r: EditApprovalRequest) {
    if (!this.open.includes(this.name(r))) this.open.push(this.name(r));
  }
  async close(r: EditApprovalRequest) {
    const i = this.open.indexOf(this.name(r));
    if (i >= 0) this.open.splice(i, 1);
  }
  content(r: EditApprovalRequest) {
    return this.edited.get(this.name(r)) ?? r.proposed;
  }
}

function setup(shown: { id: SessionId | null }) {
  const diffs = new OpenDiffs();
  const broker = new ApprovalBroker(diffs, { changed: () => undefined, showFailed: (e) => assert.fail(String(e)) }, () => shown.id);
  const replies: ApprovalReply[] = [];
  const ask = (r: ApprovalRequest) => broker.request(r).then((a) => (replies.push(a), a));
  return { diffs, broker, replies, ask };
}

describe('ApprovalBroker: requests keyed by session, turn and tool call', () => {
  it('a late turnEnded of the session left behind closes nothing of the session shown now', async () => {
    const shown: { id: SessionId | null } = { id: sessionIdFrom('A') };
    const { diffs, broker, ask } = setup(shown);
    const a = ask(edit('A'));
    await tick();
    assert.deepEqual(diffs.open, ['A/t1/call_0']);

    // History: B is shown now. A's question goes, and its diff closes.
    shown.id = sessionIdFrom('B');
    broker.keepOnly(sessionIdFrom('B'));
    assert.deepEqual(await a, { decision: 'reject', feedback: 'The user left this chat.' });
    await tick();
    assert.deepEqual(diffs.open, []);

    // B asks with the same turn and tool-call ids.
    const b = ask(edit('B'));
    await tick();
    assert.deepEqual(diffs.open, ['B/t1/call_0']);
    broker.turnEnded(sessionIdFrom('A'), turnIdFrom('t1'));
    await tick();
    assert.deepEqual(diffs.open, ['B/t1/call_0'], "A's turn end leaves B's diff open");
    assert.equal(broker.pending.length, 1);

    broker.turnEnded(sessionIdFrom('B'), turnIdFrom('t1'));
    assert.deepEqual(await b, { decision: 'reject', feedback: 'The turn ended.' });
    await tick();
    assert.deepEqual(diffs.open, []);
  });

  it("a question the sidecar stopped waiting for (its tool call finished) closes, and only that one", async () => {
    const { diffs, broker, ask } = setup({ id: sessionIdFrom('A') });
    const first = ask(edit('A', 't1', 'call_0'));
    const second = ask(edit('A', 't1', 'call_1'));
    await tick();
    assert.deepEqual(diffs.open, ['A/t1/call_0']);
    // The same ids in another session change nothing.
    broker.toolFinished({ sessionId: sessionIdFrom('B'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_0') });
    assert.equal(broker.pending.length, 2);
    broker.toolFinished({ sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_0') });
    assert.deepEqual(await first, { decision: 'reject', feedback: 'The question timed out.' });
    await tick();
    assert.deepEqual(diffs.open, ['A/t1/call_1'], 'the next question opens');
    await broker.decideEdit('reject');
    assert.deepEqual(await second, { decision: 'reject' });
  });

  it("a decision names the session: the same ids of another session's request do nothing", async () => {
    const shown: { id: SessionId | null } = { id: sessionIdFrom('B') };
    const { diffs, broker, ask } = setup(shown);
    const b = ask(edit('B'));
    await tick();
    await broker.decide({ sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_0') }, 'accept');
    assert.equal(broker.pending.length, 1);
    diffs.edited.set('B/t1/call_0', 'mine');
    await broker.decide({ sessionId: sessionIdFrom('B'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_0') }, 'accept');
    assert.deepEqual(await b, { decision: 'accept', content: 'mine' });
    assert.deepEqual(diffs.open, []);
  });

  it('keeps two requests that differ only by turn apart, and shows them one after the other', async () => {
    const { diffs, broker, ask } = setup({ id: sessionIdFrom('A') });
    const first = ask(edit('A', 't1'));
    const second = ask(edit('A', 't2'));
    await tick();
    assert.deepEqual(diffs.open, ['A/t1/call_0']);
    await broker.decideEdit('reject');
    assert.deepEqual(await first, { decision: 'reject' });
    await tick();
    assert.deepEqual(diffs.open, ['A/t2/call_0']);
    await broker.decideEdit('accept', { sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t2'), toolCallId: toolCallIdFrom('call_0') });
    assert.deepEqual(await second, { decision: 'accept' });
  });

  it('answers a request of a chat that is not shown at once, without opening its diff', async () => {
    const { diffs, ask } = setup({ id: null });
    assert.deepEqual(await ask(edit('A')), { decision: 'reject', feedback: 'The user left this chat.' });
    await tick();
    assert.deepEqual(diffs.open, []);
  });

  it('a cancelled request closes its own diff only', async () => {
    const { diffs, broker, ask } = setup({ id: sessionIdFrom('A') });
    const one = ask(edit('A', 't1', 'call_0'));
    void ask({ sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_1'), kind: 'command', command: 'ls', cwd: '/w' });
    await tick();
    broker.cancel({ sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_0') });
    assert.deepEqual(await one, { decision: 'reject', feedback: 'The request was cancelled.' });
    await tick();
    assert.deepEqual(diffs.open, []);
    assert.deepEqual(broker.pending.map((r) => r.toolCallId), ['call_1']);
  });

  it('refuses a second request with the same ref while the first waits', async () => {
    const { broker, ask } = setup({ id: sessionIdFrom('A') });
    void ask(edit('A'));
    assert.equal((await ask(edit('A'))).decision, 'reject');
    assert.equal(broker.pending.length, 1);
  });
});

describe('ApprovalBroker: per-hunk review and accept always', () => {
  const original = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join('');
  const proposed = original.replace('line 3\n', 'line three\n').replace('line 17\n', 'line seventeen\n');
  const diff = '--- a/f.txt\n+++ b/f.txt\n@@ -1,6 +1,6 @@\n line 1\n line 2\n-line 3\n+line three\n line 4\n line 5\n line 6\n@@ -14,7 +14,7 @@\n line 14\n line 15\n line 16\n-line 17\n+line seventeen\n line 18\n line 19\n line 20\n';
  const twoHunks = (): EditApprovalRequest => ({ sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_0'), kind: 'edit', path: '/w/f.txt', original, proposed, diff });
  const ref = { sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_0') };

  it('an accept after dropping the second hunk carries what is left and rejectedHunks [1]', async () => {
    const { diffs, broker, ask } = setup({ id: sessionIdFrom('A') });
    const reply = ask(twoHunks());
    await tick();
    // What "Drop this change" leaves on the proposal side.
    const left = original.replace('line 3\n', 'line three\n');
    diffs.edited.set('A/t1/call_0', left);
    await broker.decide(ref, 'accept');
    assert.deepEqual(await reply, { decision: 'accept', content: left, rejectedHunks: [1] });
  });

  it('an accept of an edited proposal that keeps every hunk sends no rejectedHunks', async () => {
    const { diffs, broker, ask } = setup({ id: sessionIdFrom('A') });
    const reply = ask(twoHunks());
    await tick();
    diffs.edited.set('A/t1/call_0', proposed.replace('line 10\n', 'line ten\n'));
    await broker.decide(ref, 'accept');
    assert.deepEqual(await reply, { decision: 'accept', content: proposed.replace('line 10\n', 'line ten\n') });
  });

  it('accept always carries the content and dropped hunks too; for a command it is the bare decision', async () => {
    const { diffs, broker, ask } = setup({ id: sessionIdFrom('A') });
    const reply = ask(twoHunks());
    const command = ask({ sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_1'), kind: 'command', command: 'ls', cwd: '/w' });
    await tick();
    diffs.edited.set('A/t1/call_0', original);
    await broker.decideEdit('acceptAlways');
    assert.deepEqual(await reply, { decision: 'acceptAlways', content: original, rejectedHunks: [0, 1] });
    await broker.decide({ ...ref, toolCallId: toolCallIdFrom('call_1') }, 'acceptAlways', 'ignored');
    assert.deepEqual(await command, { decision: 'acceptAlways' });
  });

  it('edit() finds a pending edit by its ref, and nothing else', async () => {
    const { broker, ask } = setup({ id: sessionIdFrom('A') });
    void ask(twoHunks());
    void ask({ sessionId: sessionIdFrom('A'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('call_1'), kind: 'command', command: 'ls', cwd: '/w' });
    await tick();
    assert.equal(broker.edit(ref)?.path, '/w/f.txt');
    assert.equal(broker.edit({ ...ref, toolCallId: toolCallIdFrom('call_1') }), undefined);
    assert.equal(broker.edit({ ...ref, sessionId: sessionIdFrom('B') }), undefined);
  });
});
