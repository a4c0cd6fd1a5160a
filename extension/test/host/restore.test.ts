import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conflictDetail, restoredText, restoreNotice, restoreTo, type RestoreDeps } from '../../src/chat/restore';
import type { UndoConflict, UndoParams, UndoResult } from '../../src/protocol';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';

/**
 * A sidecar's undo with the rule the protocol gives: with conflicts and no `confirm`, nothing is
 * restored; `files` is the workspace it restores.
 */
function sidecar(conflicts: UndoConflict[], files: Record<string, string>, before: Record<string, string>) {
  const calls: UndoParams[] = [];
  const undo = async (p: UndoParams): Promise<UndoResult> => {
    calls.push(p);
    if (conflicts.length > 0 && !p.confirm) return { restored: [], conflicts, needsConfirmation: true };
    Object.assign(files, before);
    return { restored: Object.keys(before), conflicts: p.confirm ? conflicts : [], needsConfirmation: false };
  };
  return { calls, undo };
}

const changed: UndoConflict = { path: 'CHANGELOG.md', change: 'modified', lost: '--- a/CHANGELOG.md\n+++ b/CHANGELOG.md\n@@ -1,2 +1 @@\n # Changes\n-my own line\n' };

describe('restore to a turn', () => {
  it('without conflicts it restores at once and asks nothing', async () => {
    const files = { 'a.txt': 'agent' };
    const s = sidecar([], files, { 'a.txt': 'before' });
    const asked: string[] = [];
    const deps: RestoreDeps = { undo: s.undo, confirm: async (m) => (asked.push(m), true) };
    const outcome = await restoreTo(deps, sessionIdFrom('s1'), turnIdFrom('t2'));
    assert.deepEqual(outcome, { kind: 'restored', restored: ['a.txt'], overwritten: [] });
    assert.deepEqual(s.calls, [{ sessionId: sessionIdFrom('s1'), turnId: turnIdFrom('t2') }]);
    assert.deepEqual(asked, []);
    assert.equal(files['a.txt'], 'before');
    assert.match(restoreNotice(outcome, turnIdFrom('t2')), /Restored the files to before this turn: a\.txt/);
  });

  it('a file the user changed since: asked, and declining loses nothing', async () => {
    const files = { 'CHANGELOG.md': '# Changes\nmy own line\n' };
    const s = sidecar([changed], files, { 'CHANGELOG.md': '' });
    let shown: { message: string; detail: string; conflicts: readonly UndoConflict[] } | undefined;
    const outcome = await restoreTo({ undo: s.undo, confirm: async (message, detail, conflicts) => ((shown = { message, detail, conflicts }), false) }, sessionIdFrom('s1'), turnIdFrom('t1'));
    assert.equal(outcome.kind, 'declined');
    // One call, without confirm: the sidecar restored nothing.
    assert.deepEqual(s.calls, [{ sessionId: sessionIdFrom('s1'), turnId: turnIdFrom('t1') }]);
    assert.equal(files['CHANGELOG.md'], '# Changes\nmy own line\n');
    assert.match(shown?.message ?? '', /CHANGELOG\.md was changed after the agent wrote it/);
    assert.match(shown?.detail ?? '', /CHANGELOG\.md: you changed it since/);
    assert.match(shown?.detail ?? '', /1 line of yours/);
    assert.match(shown?.detail ?? '', /The diff beside this dialog shows what you would lose/);
    // The loss itself goes to the diff, whole.
    assert.deepEqual(shown?.conflicts, [changed]);
    assert.equal(restoreNotice(outcome, turnIdFrom('t1')), 'Nothing was restored: you kept your changes to CHANGELOG.md.');
  });

  it('confirming calls again with confirm: true, and then it is restored', async () => {
    const files = { 'CHANGELOG.md': '# Changes\nmy own line\n' };
    const s = sidecar([changed], files, { 'CHANGELOG.md': '' });
    const outcome = await restoreTo({ undo: s.undo, confirm: async () => true }, sessionIdFrom('s1'), turnIdFrom('t1'));
    assert.deepEqual(s.calls, [{ sessionId: sessionIdFrom('s1'), turnId: turnIdFrom('t1') }, { sessionId: sessionIdFrom('s1'), turnId: turnIdFrom('t1'), confirm: true }]);
    assert.deepEqual(outcome, { kind: 'restored', restored: ['CHANGELOG.md'], overwritten: [changed] });
    assert.equal(files['CHANGELOG.md'], '');
  });

  it('Undo Last Turn sends no turnId', async () => {
    const s = sidecar([], {}, {});
    const outcome = await restoreTo({ undo: s.undo, confirm: async () => assert.fail('nothing to ask') }, sessionIdFrom('s1'), undefined);
    assert.deepEqual(s.calls, [{ sessionId: sessionIdFrom('s1') }]);
    assert.equal(restoreNotice(outcome, undefined), 'Nothing to restore: no turn of this chat changed files.');
  });

  it('the dialog says which files were deleted, and counts what a long diff loses instead of quoting it', () => {
    const long: UndoConflict = { path: 'big.txt', change: 'modified', lost: Array.from({ length: 50 }, (_, i) => `-line ${i}`).join('\n') };
    const gone: UndoConflict = { path: 'notes.md', change: 'deleted', lost: '' };
    const detail = conflictDetail([long, gone]);
    assert.match(detail, /big\.txt: you changed it since the agent wrote it; your changes would be lost \(50 lines of yours\)/);
    assert.doesNotMatch(detail, /-line 0/);
    assert.match(detail, /notes\.md: you deleted it since; restoring brings it back\./);
    assert.doesNotMatch(conflictDetail([gone]), /diff beside/, 'nothing is lost, so no diff is shown');
  });

  it('rebuilds the restored text from the file now and the sidecar\'s diff, for the diff editor', () => {
    const now = '# Changes\nmy own line\n';
    assert.equal(restoredText(now, changed.lost), '# Changes\n');
    // The file changed again since the sidecar looked: no made-up text.
    assert.equal(restoredText('something else entirely\n', changed.lost), undefined);
  });
});
