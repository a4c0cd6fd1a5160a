import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkspaceEdit } from 'vscode-languageclient/node';
import { applyAndSave, approvedEdit, touchedUris, type Editor } from '../../src/sidecar/applyEdit';

/**
 * An editor with buffers and a disk: `apply` changes buffers (as VS Code does, on top of what
 * the user typed), `save` writes a dirty buffer to the disk.
 */
class FakeEditor implements Editor {
  readonly buffers = new Map<string, string>();
  readonly disk = new Map<string, string>();
  readonly applied: WorkspaceEdit[] = [];
  readonly warnings: string[] = [];
  refuse = false;
  failSave = new Set<string>();

  async apply(edit: WorkspaceEdit): Promise<boolean> {
    if (this.refuse) return false;
    this.applied.push(edit);
    for (const change of edit.documentChanges ?? []) {
      if ('textDocument' in change) {
        // Whole-document replacements are enough for this fake.
        for (const e of change.edits) this.buffers.set(change.textDocument.uri, e.newText);
      } else if (change.kind === 'create') {
        this.buffers.set(change.uri, '');
        this.disk.set(change.uri, '');
      } else if (change.kind === 'delete') {
        this.buffers.delete(change.uri);
        this.disk.delete(change.uri);
      }
    }
    return true;
  }

  async save(uri: string): Promise<boolean> {
    if (this.failSave.has(uri)) return false;
    const text = this.buffers.get(uri);
    if (text !== undefined) this.disk.set(uri, text);
    return true;
  }

  warn(message: string): void {
    this.warnings.push(message);
  }
}

const A = 'file:///w/a.txt';
const B = 'file:///w/new%20file.txt';
const whole = (uri: string, newText: string) => ({
  textDocument: { uri, version: null },
  edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 99, character: 0 } }, newText }],
});

describe('workspace/applyEdit: applied to the buffer, then saved', () => {
  it("the agent's change lands on the user's unsaved text and the file is saved", async () => {
    const ed = new FakeEditor();
    ed.disk.set(A, 'one\n');
    ed.buffers.set(A, 'one\nmine, unsaved\n');
    // The sidecar read the buffer (text sync) and proposes on top of it.
    const answer = await applyAndSave({ edit: { documentChanges: [whole(A, 'ONE\nmine, unsaved\n')] } }, ed);
    assert.deepEqual(answer, { applied: true });
    assert.equal(ed.buffers.get(A), 'ONE\nmine, unsaved\n');
    assert.equal(ed.disk.get(A), 'ONE\nmine, unsaved\n');
    assert.deepEqual(ed.warnings, []);
  });

  it('a created file is saved with its text; a deleted one is not saved', async () => {
    const ed = new FakeEditor();
    const edit: WorkspaceEdit = {
      documentChanges: [{ kind: 'create', uri: B, options: { ignoreIfExists: true } }, whole(B, 'hi\n'), { kind: 'delete', uri: 'file:///w/gone.txt' }],
    };
    assert.deepEqual(touchedUris(edit), [B]);
    assert.deepEqual(await applyAndSave({ edit }, ed), { applied: true });
    assert.equal(ed.disk.get(B), 'hi\n');
  });

  it('`changes` and renames count as touched, each document once', () => {
    const edit: WorkspaceEdit = {
      changes: { [A]: [], 'file:///w/c.txt': [] },
      documentChanges: [whole(A, 'x'), { kind: 'rename', oldUri: 'file:///w/o.txt', newUri: 'file:///w/n.txt' }],
    };
    assert.deepEqual(touchedUris(edit), [A, 'file:///w/n.txt', 'file:///w/c.txt']);
  });

  it('a refused edit is answered applied: false with a reason, and nothing is saved', async () => {
    const ed = new FakeEditor();
    ed.refuse = true;
    ed.buffers.set(A, 'mine\n');
    const answer = await applyAndSave({ edit: { documentChanges: [whole(A, 'x')] } }, ed);
    assert.equal(answer.applied, false);
    assert.match(answer.failureReason ?? '', /refused/);
    assert.equal(ed.disk.get(A), undefined);
  });

  it('an apply that throws is answered applied: false with its message', async () => {
    const ed = new FakeEditor();
    ed.apply = () => Promise.reject(new Error('bad range'));
    const answer = await applyAndSave({ edit: { documentChanges: [whole(A, 'x')] } }, ed);
    assert.deepEqual(answer, { applied: false, failureReason: 'VS Code could not apply the edit: bad range' });
  });

  it('a failed save keeps the edit applied (it is in the buffer) and warns the user', async () => {
    const ed = new FakeEditor();
    ed.failSave.add(B);
    const answer = await applyAndSave({ edit: { documentChanges: [whole(A, 'a'), whole(B, 'b')] } }, ed);
    assert.deepEqual(answer, { applied: true });
    assert.equal(ed.disk.get(A), 'a');
    assert.equal(ed.warnings.length, 1);
    assert.match(ed.warnings[0]!, /new file\.txt could not be saved/);
  });

  it('the approved edit asks for no second confirmation', async () => {
    const edit: WorkspaceEdit = {
      documentChanges: [whole(A, 'x')],
      changeAnnotations: { tandem: { label: 'Tandem', needsConfirmation: true, description: 'as you approved it' } },
    };
    const ed = new FakeEditor();
    await applyAndSave({ edit }, ed);
    assert.deepEqual(ed.applied[0]?.changeAnnotations, { tandem: { label: 'Tandem', needsConfirmation: false, description: 'as you approved it' } });
    // The sidecar's object is left as it was.
    assert.equal(edit.changeAnnotations?.tandem?.needsConfirmation, true);
    assert.equal(approvedEdit({ changes: {} }).changeAnnotations, undefined);
  });
});
