import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTwoFilesPatch } from 'diff';
import { applyTextEdit, changes, dropHunk, hunkLines, parseHunks, rejectedHunks, splitLines } from '../../src/approvals/hunks';

const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`) => Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');

// Twenty lines; the proposal changes line 3 and line 17: far enough apart for two hunks.
const original = lines(20);
const proposed = original.replace('line 3\n', 'line three\n').replace('line 17\n', 'line seventeen\nline 17b\n');
// As the sidecar (similar, 3 lines of context) writes it.
const sidecarDiff = [
  '--- a/f.txt',
  '+++ b/f.txt',
  '@@ -1,6 +1,6 @@',
  ' line 1',
  ' line 2',
  '-line 3',
  '+line three',
  ' line 4',
  ' line 5',
  ' line 6',
  '@@ -14,7 +14,8 @@',
  ' line 14',
  ' line 15',
  ' line 16',
  '-line 17',
  '+line seventeen',
  '+line 17b',
  ' line 18',
  ' line 19',
  ' line 20',
  '',
].join('\n');

describe('hunks: parsing the request diff', () => {
  it('numbers hunks by @@ order, with their region in the original', () => {
    assert.deepEqual(parseHunks(sidecarDiff), [
      { index: 0, oldStart: 0, oldEnd: 6 },
      { index: 1, oldStart: 13, oldEnd: 20 },
    ]);
  });

  it('reads a new file, a count-less header and a pure insertion', () => {
    assert.deepEqual(parseHunks('--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n'), [{ index: 0, oldStart: 0, oldEnd: 0 }]);
    assert.deepEqual(parseHunks('@@ -3 +3 @@\n-a\n+b\n'), [{ index: 0, oldStart: 2, oldEnd: 3 }]);
    assert.deepEqual(parseHunks('@@ -5,0 +6,2 @@\n+x\n+y\n'), [{ index: 0, oldStart: 5, oldEnd: 5 }]);
    assert.deepEqual(parseHunks(''), []);
  });

  it('keeps a missing final newline as a difference', () => {
    assert.deepEqual(splitLines('a\nb'), ['a\n', 'b']);
    assert.deepEqual(splitLines('a\nb\n'), ['a\n', 'b\n']);
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(changes('a\nb', 'a\nb\n'), [{ oldStart: 1, oldEnd: 2, newStart: 1, newEnd: 2 }]);
  });
});

describe('hunks: dropping one and telling which were dropped', () => {
  const hunks = parseHunks(sidecarDiff);

  it('an untouched proposal rejects nothing and shows both hunks where they start', () => {
    assert.deepEqual(rejectedHunks(hunks, original, proposed), []);
    assert.deepEqual([...hunkLines(hunks, original, proposed)], [
      [0, 2],
      [1, 16],
    ]);
  });

  it('dropping the first hunk puts its original line back and leaves the second', () => {
    const edit = dropHunk(hunks[0]!, original, proposed);
    assert.ok(edit);
    const after = applyTextEdit(proposed, edit);
    assert.equal(after, original.replace('line 17\n', 'line seventeen\nline 17b\n'));
    assert.deepEqual(rejectedHunks(hunks, original, after), [0]);
    assert.deepEqual([...hunkLines(hunks, original, after)], [[1, 16]]);
    // Nothing left to drop of it.
    assert.equal(dropHunk(hunks[0]!, original, after), undefined);
  });

  it('dropping the second hunk (an insertion that grew the file) leaves the first', () => {
    const after = applyTextEdit(proposed, dropHunk(hunks[1]!, original, proposed)!);
    assert.equal(after, original.replace('line 3\n', 'line three\n'));
    assert.deepEqual(rejectedHunks(hunks, original, after), [1]);
  });

  it('dropping both gives the original and rejects both', () => {
    let text = proposed;
    for (const h of hunks) text = applyTextEdit(text, dropHunk(h, original, text)!);
    assert.equal(text, original);
    assert.deepEqual(rejectedHunks(hunks, original, text), [0, 1]);
  });

  it("keeps the user's own edits on the proposal side when a hunk is dropped", () => {
    // The user typed a line at the top and changed line 10 (outside both hunks).
    const edited = `// mine\n${proposed.replace('line 10\n', 'line ten (mine)\n')}`;
    const after = applyTextEdit(edited, dropHunk(hunks[1]!, original, edited)!);
    assert.equal(after, `// mine\n${original.replace('line 3\n', 'line three\n').replace('line 10\n', 'line ten (mine)\n')}`);
    // Only hunk 1 is gone: the top line lands in hunk 0's region, which still has its change.
    assert.deepEqual(rejectedHunks(hunks, original, after), [1]);
    assert.deepEqual([...hunkLines(hunks, original, after).keys()], [0]);
  });

  it('a hunk with two changes inside drops as a whole', () => {
    const orig = lines(10);
    const prop = orig.replace('line 4\n', 'FOUR\n').replace('line 7\n', 'SEVEN\n');
    const diff = createTwoFilesPatch('a/f', 'b/f', orig, prop, '', '', { context: 3 });
    assert.match(diff, /@@ -1,10 \+1,10 @@/);
    const [h] = parseHunks(diff);
    assert.equal(applyTextEdit(prop, dropHunk(h!, orig, prop)!), orig);
  });

  it('a created file is one hunk; dropping it empties the proposal', () => {
    const hs = parseHunks('--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    assert.deepEqual(rejectedHunks(hs, '', 'a\nb\n'), []);
    const after = applyTextEdit('a\nb\n', dropHunk(hs[0]!, '', 'a\nb\n')!);
    assert.equal(after, '');
    assert.deepEqual(rejectedHunks(hs, '', after), [0]);
  });

  it('a deletion hunk (lines removed) drops back to the removed lines', () => {
    const orig = lines(12);
    const prop = orig.replace('line 6\nline 7\n', '');
    const diff = createTwoFilesPatch('a/f', 'b/f', orig, prop, '', '', { context: 3 });
    assert.match(diff, /@@ -3,8 \+3,6 @@/);
    const hs = parseHunks(diff);
    assert.deepEqual([...hunkLines(hs, orig, prop)], [[0, 5]]);
    assert.equal(applyTextEdit(prop, dropHunk(hs[0]!, orig, prop)!), orig);
  });
});
