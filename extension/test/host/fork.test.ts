import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filesChangedFrom, forkBefore, type ForkDeps, turnNumber } from '../../src/chat/fork';
import type { RestoreOutcome } from '../../src/chat/restore';
import type { ForkSessionParams, LoadSessionResult, SessionId, TurnChangesResult, TurnId } from '../../src/protocol';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';

const s1 = sessionIdFrom('s1');
const loaded: LoadSessionResult = { sessionId: sessionIdFrom('s2'), entries: [], unreadableLines: 0, mode: 'default' };

/** A sidecar whose last turn with changes is `last` (none: no changes), and a user who answers `choice`. */
function deps(last: string | null, choice: 'keep' | 'restore' | undefined, restore: RestoreOutcome = { kind: 'restored', restored: ['a.txt'], overwritten: [] }) {
  const calls: string[] = [];
  const d: ForkDeps = {
    turnChanges: async (): Promise<TurnChangesResult> => (last ? { turnId: turnIdFrom(last), root: '/w', files: [{ path: 'a.txt', kind: 'modified', before: { kind: 'absent' }, after: { kind: 'absent' } }] } : { root: '/w', files: [] }),
    askFiles: async () => (calls.push('ask'), choice),
    restore: async (id: SessionId, turn: TurnId) => (calls.push(`restore ${id} ${turn}`), restore),
    fork: async (p: ForkSessionParams) => (calls.push(`fork ${p.sessionId} ${p.beforeTurn}`), loaded),
  };
  return { d, calls };
}

describe('edit and resend an earlier prompt', () => {
  it('reads turn numbers', () => {
    assert.equal(turnNumber(turnIdFrom('t12')), 12);
    assert.equal(turnNumber(turnIdFrom('outside')), undefined);
  });

  it('no files changed from that turn on: forks at once, asking nothing', async () => {
    for (const last of [null, 't1']) {
      const { d, calls } = deps(last, 'restore');
      assert.deepEqual(await forkBefore(d, s1, turnIdFrom('t2')), { kind: 'forked', loaded });
      assert.deepEqual(calls, ['fork s1 t2'], `last changes in ${last}`);
    }
  });

  it('files changed from that turn on: asks; keeping them forks and restores nothing', async () => {
    const { d, calls } = deps('t3', 'keep');
    assert.deepEqual(await forkBefore(d, s1, turnIdFrom('t2')), { kind: 'forked', loaded });
    assert.deepEqual(calls, ['ask', 'fork s1 t2']);
  });

  it('restoring puts the files back on the original session before the fork', async () => {
    const { d, calls } = deps('t2', 'restore');
    const outcome = await forkBefore(d, s1, turnIdFrom('t2'));
    assert.deepEqual(outcome, { kind: 'forked', loaded, restore: { kind: 'restored', restored: ['a.txt'], overwritten: [] } });
    assert.deepEqual(calls, ['ask', 'restore s1 t2', 'fork s1 t2']);
  });

  it('cancelling the question, or keeping a changed file at the restore question, forks nothing', async () => {
    const cancelled = deps('t3', undefined);
    assert.deepEqual(await forkBefore(cancelled.d, s1, turnIdFrom('t2')), { kind: 'cancelled' });
    assert.deepEqual(cancelled.calls, ['ask']);
    const declined: RestoreOutcome = { kind: 'declined', conflicts: [{ path: 'a.txt', change: 'modified', lost: '' }] };
    const kept = deps('t3', 'restore', declined);
    assert.deepEqual(await forkBefore(kept.d, s1, turnIdFrom('t2')), { kind: 'declined', restore: declined });
    assert.deepEqual(kept.calls, ['ask', 'restore s1 t2']);
  });

  it('a turn id it cannot compare counts as changed (it asks rather than guess)', async () => {
    assert.equal(await filesChangedFrom(deps('t1', 'keep').d, s1, turnIdFrom('weird')), true);
  });
});
