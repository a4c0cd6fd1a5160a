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
  readonly files = new Map<string, string>();
  /** Buffers with text the user has not saved. */
  readonly dirty = new Set<string>();
  /** What the user answers when asked to save their unsaved text too. */
  saveAll = false;
  readonly asked: string[] = [];
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
        this.dirty.add(change.textDocument.uri);
      } else if (change.kind === 'create') {
        this.buffers.set(change.uri, '');
        this.files.set(change.uri, '');
      } else if (change.kind === 'delete') {
        this.buffers.delete(change.uri);
        this.files.delete(change.uri);
      }
    }
    return true;
  }

  buffer(uri: string): { text: string; dirty: boolean } | undefined {
    const text = this.buffers.get(uri);
    return text === undefined ? undefined : { text, dirty: this.dirty.has(uri) };
  }

  async disk(uri: string): Promise<string | undefined> {
    return this.files.get(uri);
  }

  async save(uri: string): Promise<boolean> {
    if (this.failSave.has(uri)) return false;
    const text = this.buffers.get(uri);
    if (text !== undefined) this.files.set(uri, text);
    this.dirty.delete(uri);
    return true;
  }

  async saveOnly(uri: string, saved: string): Promise<boolean> {
    if (this.failSave.has(uri)) return false;
    this.files.set(uri, saved);
    return true;
  }

  async askSaveAll(file: string): Promise<boolean> {
    this.asked.push(file);
    return this.saveAll;
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
  it("the agent's change lands on the user's unsaved text; only the agent's change is saved", async () => {
    const ed = new FakeEditor();
    ed.files.set(A, 'one\ntwo\nthree\n');
    ed.buffers.set(A, 'one\ntwo\nthree\nmine, unsaved\n');
    ed.dirty.add(A);
    // The sidecar read the buffer (text sync) and proposes on top of it.
    const answer = await applyAndSave({ edit: { documentChanges: [whole(A, 'ONE\ntwo\nthree\nmine, unsaved\n')] } }, ed);
    assert.deepEqual(answer, { applied: true });
    assert.equal(ed.buffers.get(A), 'ONE\ntwo\nthree\nmine, unsaved\n', 'the buffer holds both');
    assert.equal(ed.files.get(A), 'ONE\ntwo\nthree\n', "the disk gets the agent's change alone");
    assert.ok(ed.dirty.has(A), "the user's text is still unsaved");
    assert.deepEqual(ed.asked, []);
    assert.deepEqual(ed.warnings, []);
  });

  it('a buffer without unsaved text of the user is saved whole, asking nothing', async () => {
    const ed = new FakeEditor();
    ed.files.set(A, 'one\n');
    ed.buffers.set(A, 'one\n');
    await applyAndSave({ edit: { documentChanges: [whole(A, 'ONE\n')] } }, ed);
    assert.equal(ed.files.get(A), 'ONE\n');
    assert.ok(!ed.dirty.has(A));
    assert.deepEqual(ed.asked, []);
  });

  it("when the agent's change touches the user's unsaved lines, the user is asked, and No leaves it all unsaved", async () => {
    const ed = new FakeEditor();
    ed.files.set(A, 'one\n');
    ed.buffers.set(A, 'one, edited by me\n');
    ed.dirty.add(A);
    await applyAndSave({ edit: { documentChanges: [whole(A, 'one, edited by me and the agent\n')] } }, ed);
    assert.deepEqual(ed.asked, ['a.txt']);
    assert.equal(ed.files.get(A), 'one\n', 'nothing the user did not agree to is written');
    assert.equal(ed.buffers.get(A), 'one, edited by me and the agent\n');
    assert.match(ed.warnings.join('\n'), /a\.txt is in the editor, unsaved with your own changes/);
  });

  it('answering Save writes both', async () => {
    const ed = new FakeEditor();
    ed.saveAll = true;
    ed.files.set(A, 'one\n');
    ed.buffers.set(A, 'one, edited by me\n');
    ed.dirty.add(A);
    await applyAndSave({ edit: { documentChanges: [whole(A, 'one, edited by me and the agent\n')] } }, ed);
    assert.equal(ed.files.get(A), 'one, edited by me and the agent\n');
    assert.deepEqual(ed.warnings, []);
  });

  it('a created file is saved with its text; a deleted one is not saved', async () => {
    const ed = new FakeEditor();
    const edit: WorkspaceEdit = {
      documentChanges: [{ kind: 'create', uri: B, options: { ignoreIfExists: true } }, whole(B, 'hi\n'), { kind: 'delete', uri: 'file:///w/gone.txt' }],
    };
    assert.deepEqual(touchedUris(edit), [B]);
    assert.deepEqual(await applyAndSave({ edit }, ed), { applied: true });
    assert.equal(ed.files.get(B), 'hi\n');
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
    assert.equal(ed.files.get(A), undefined);
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
    assert.equal(ed.files.get(A), 'a');
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
