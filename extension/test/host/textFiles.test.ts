import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { binaryByName, isTextFile } from '../../src/chat/textFiles';

describe('text files for @ mentions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-text-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, data: string | Uint8Array) => {
    writeFileSync(join(dir, name), data);
    return join(dir, name);
  };

  it('skips binary names without reading them', () => {
    for (const n of ['m.pyc', 'a/B.PNG', 'x.tar.gz', 'lib.so', 'f.woff2']) assert.equal(binaryByName(n), true, n);
    for (const n of ['main.rs', 'Makefile', 'README.md', '.env', 'a.ts']) assert.equal(binaryByName(n), false, n);
  });

  it('reads the first 8 KB and calls a file with a NUL byte binary', async () => {
    assert.equal(await isTextFile(file('main.rs', 'fn main() {}\n')), true);
    assert.equal(await isTextFile(file('empty.txt', '')), true);
    assert.equal(await isTextFile(file('utf8.md', 'naïve – ✓\n'.repeat(2000))), true);
    assert.equal(await isTextFile(file('blob.dat', new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]))), false);
    // A NUL past the first 8 KB is not looked at.
    assert.equal(await isTextFile(file('late.log', `${'a'.repeat(9000)}\u0000`)), true);
    assert.equal(await isTextFile(file('cache.pyc', 'text inside, binary by name')), false);
    assert.equal(await isTextFile(join(dir, 'missing.txt')), false);
  });
});
