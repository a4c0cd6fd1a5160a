import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeRows, changedByText, isAbsolutePath, sideText, type UriMaker } from '../../src/chat/turnChanges';
import type { TurnChangesResult } from '../../src/protocol';
import { toolCallIdFrom, turnIdFrom } from '../../src/protocol';

/** URIs as strings, the read-only texts kept by URI. */
function maker() {
  const texts = new Map<string, string>();
  const uris: UriMaker<string> = {
    file: (p) => `file:///ws/${p}`,
    readOnly: (p, side, text) => {
      const uri = `tandem-before:/${p}?${side}`;
      texts.set(uri, text);
      return uri;
    },
  };
  return { texts, uris };
}

const hostile = '\u001b]0;owned\u0007--- a/x\n+++ b/x\n@@ -1 +1 @@\n';

const result: TurnChangesResult = {
  turnId: turnIdFrom('t2'),
  root: '/ws',
  files: [
    { path: 'a.txt', kind: 'modified', by: { source: 'command', toolCallId: toolCallIdFrom('c1') }, before: { kind: 'text', text: 'a\n' }, after: { kind: 'text', text: hostile } },
    { path: 'big.log', kind: 'modified', by: { source: 'edit' }, before: { kind: 'tooLarge', bytes: 10_000_000 }, after: { kind: 'tooLarge', bytes: 10_000_001 } },
    { path: 'gone.txt', kind: 'deleted', before: { kind: 'text', text: 'old\n' }, after: { kind: 'absent' } },
    { path: 'new.txt', kind: 'created', before: { kind: 'absent' }, after: { kind: 'text', text: 'n\n' } },
  ],
};

describe("a turn's changes in the multi-diff editor", () => {
  it('each file goes from its text before the turn to the file itself', () => {
    const { texts, uris } = maker();
    const { title, rows } = changeRows(result, uris);
    assert.equal(title, 'Tandem: changes of turn t2');
    assert.deepEqual(rows[0], { resource: 'file:///ws/a.txt', original: 'tandem-before:/a.txt?before', modified: 'file:///ws/a.txt' });
    assert.equal(texts.get('tandem-before:/a.txt?before'), 'a\n');
    // A created file's left side is empty; a deleted one's right side is an empty read-only side.
    assert.equal(texts.get('tandem-before:/new.txt?before'), '');
    assert.equal(rows[2]?.modified, 'tandem-before:/gone.txt?after');
    assert.equal(texts.get('tandem-before:/gone.txt?after'), '');
  });

  it('a 10 MB side is a note, never its bytes; the model\'s text stays text in a document', () => {
    const { texts, uris } = maker();
    const { rows } = changeRows(result, uris);
    assert.equal(rows[1]?.modified, 'tandem-before:/big.log?after');
    assert.equal(texts.get('tandem-before:/big.log?before'), '(10000000 bytes, over the 1 MiB Tandem shows in a diff: not shown)\n');
    assert.equal(sideText({ kind: 'binary', bytes: 3 }), '(binary file, 3 bytes: not shown)\n');
    // The escapes and the fake header reach the diff editor as the file's own text, nowhere else.
    assert.equal(rows[0]?.modified, 'file:///ws/a.txt');
    assert.ok(![...texts.values()].some((t) => t.includes('\u001b')));
  });

  it('says who changed a file', () => {
    assert.equal(changedByText(result.files[0]!), 'by a command (c1)');
    assert.equal(changedByText(result.files[1]!), 'by an edit');
    assert.equal(changedByText(result.files[2]!), '');
  });

  it("a path is an additional root's (absolute) or the primary root's (relative)", () => {
    for (const p of ['/home/u/lib/util.txt', 'C:\\lib\\util.txt', 'c:/lib/util.txt', '\\\\server\\share\\x']) assert.ok(isAbsolutePath(p), p);
    for (const p of ['lib/util.txt', 'a.txt', '.', 'C:relative', 'lib\\util.txt']) assert.ok(!isAbsolutePath(p), p);
  });
});
