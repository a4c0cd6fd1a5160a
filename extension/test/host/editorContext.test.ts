import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { formatProblems, stripTerminalControls } from '../../src/context/editorText';

test('problems come errors first, one line each, with where and who says so', () => {
  const text = formatProblems([
    { path: 'b.ts', line: 3, character: 1, severity: 1, message: 'unused', source: 'eslint' },
    { path: 'a.rs', line: 10, character: 5, severity: 0, message: 'mismatched types\n  expected u32', source: 'rustc' },
  ]);
  assert.equal(text, 'a.rs:10:5 error mismatched types expected u32 (rustc)\nb.ts:3:1 warning unused (eslint)');
  assert.equal(formatProblems([]), 'No problems.');
});

test('problems past the cap are counted, and the errors are the ones kept', () => {
  const many = Array.from({ length: 250 }, (_, i) => ({ path: 'w.ts', line: i + 1, character: 1, severity: 1, message: 'w' }));
  const text = formatProblems([...many, { path: 'z.ts', line: 1, character: 1, severity: 0, message: 'the error' }]);
  const lines = text.split('\n');
  assert.equal(lines.length, 201);
  assert.equal(lines[0], 'z.ts:1:1 error the error');
  assert.equal(lines[200], '[51 more not shown of 251]');
});

test("a terminal's colours, titles, marks and rewritten lines are gone", () => {
  const raw =
    '\x1b]633;C\x07\x1b]0;title\x07\x1b[1;31merror\x1b[0m: failed\r\n' +
    'progress 10%\rprogress 100%\n' +
    '\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\ done\x07\x00\n';
  assert.equal(stripTerminalControls(raw), 'error: failed\nprogress 100%\nlink done\n');
});

test('an inline edit says what to change and how, and an empty selection means the whole line', async () => {
  const { editSelectionPrompt, selectionToEdit } = await import('../../src/context/inlineEdit');
  assert.equal(
    editSelectionPrompt('  handle an empty list \n'),
    'Edit the attached selection: handle an empty list\nChange only the selected lines (and whatever they need elsewhere to stay correct), with replace_in_file; then say in one line what changed.',
  );
  type Sel = { isEmpty: boolean; active: { line: number } };
  const make = (a: number, b: number) => ({ isEmpty: false, active: { line: a }, range: [a, b] }) as unknown as import('vscode').Selection;
  const editor = (sel: Sel, lineCount = 10) => ({ selection: sel, document: { lineCount } }) as never;
  const chosen = { isEmpty: false, active: { line: 2 } };
  assert.equal(selectionToEdit(editor(chosen), make), chosen);
  assert.deepEqual((selectionToEdit(editor({ isEmpty: true, active: { line: 4 } }), make) as unknown as { range: number[] }).range, [4, 5]);
});

test("@changes runs none of the repository's own programs: fsmonitor, external diff, textconv, filters", async () => {
  const { execFileSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { changesText } = await import('../../src/context/gitChanges');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-changes-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, stdio: 'pipe' });
  git('init', '-q');
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'first');
  const mark = path.join(root, 'ran');
  const evil = `touch ${mark}`;
  for (const key of ['core.fsmonitor', 'diff.external', 'diff.evil.textconv', 'filter.evil.clean']) git('config', key, evil);
  // A process filter from a file the repository's config includes.
  fs.writeFileSync(path.join(root, 'included'), `[filter "evil"]\n\tprocess = ${evil}\n`);
  git('config', 'include.path', '../included');
  fs.writeFileSync(path.join(root, '.gitattributes'), '*.txt diff=evil filter=evil\n');
  fs.writeFileSync(path.join(root, 'a.txt'), 'two\n');
  const out = await changesText(root);
  assert.match(out, /\+two/);
  assert.equal(fs.existsSync(mark), false, "the repository's config ran a program");
  fs.rmSync(root, { recursive: true, force: true });
});
