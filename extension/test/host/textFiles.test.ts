import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { excludeGlob, GitIgnores, rankMatches } from '../../src/chat/fileMatch';
import { isTextContent } from '../../src/chat/textFiles';

const bytes = (s: string | number[]) => (typeof s === 'string' ? new TextEncoder().encode(s) : new Uint8Array(s));

describe('text files for @ mentions', () => {
  it('judges by content: a NUL byte in the first 8 KB is binary, whatever the name', () => {
    assert.equal(isTextContent(bytes('fn main() {}\n')), true);
    assert.equal(isTextContent(bytes('')), true);
    assert.equal(isTextContent(bytes('naïve – ✓\n'.repeat(2000))), true);
    assert.equal(isTextContent(bytes([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2])), false);
    // A NUL past the first 8 KB is not looked at.
    assert.equal(isTextContent(bytes(`${'a'.repeat(9000)}\u0000`)), true);
  });
});

describe('which files the @ list may offer', () => {
  it('builds one glob of the switched-on excludes of both settings', () => {
    assert.equal(excludeGlob({}), undefined);
    assert.equal(excludeGlob({ '**/.git': true, '**/dist': false }), '**/.git');
    assert.equal(excludeGlob({ '**/node_modules': true, '**/*.{log,tmp}': true, '**/x': { when: '$(basename).ts' } }), '{**/node_modules,**/*.\\{log\\,tmp\\}}');
  });

  it('honours every .gitignore below its own folder, and never offers .git', () => {
    const ig = new GitIgnores([
      { dir: '', text: 'target/\n*.log\n!keep.log\n' },
      { dir: 'web', text: 'dist\n' },
    ]);
    assert.equal(ig.ignored('target/debug/tandem'), true);
    assert.equal(ig.ignored('a/b/run.log'), true);
    assert.equal(ig.ignored('keep.log'), false);
    assert.equal(ig.ignored('web/dist/app.js'), true);
    assert.equal(ig.ignored('dist/app.js'), false, "web/.gitignore does not reach the root");
    assert.equal(ig.ignored('.git/config'), true);
    assert.equal(ig.ignored('src/main.rs'), false);
  });

  it('ranks names that start with the query, then names that hold it, shorter paths first', () => {
    const files = ['src/old_greet.js', 'test/greet.test.js', 'greet.js', 'docs/greeting/notes.md'].map((rel) => ({ rel }));
    assert.deepEqual(rankMatches(files, 'gre').map((f) => f.rel), ['greet.js', 'test/greet.test.js', 'src/old_greet.js', 'docs/greeting/notes.md']);
  });
});
