import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mentionTarget, sidecarPath } from '../../src/chat/mentionFolders';

const one = [{ name: 'app', fsPath: '/home/me/app' }];
const three = [
  { name: 'app', fsPath: '/home/me/app' },
  { name: 'lib', fsPath: '/home/me/lib' },
  { name: 'shared', fsPath: '/srv/shared/' },
];
const path = (mention: string, folders = three) => {
  const target = mentionTarget(mention, folders);
  return target && sidecarPath(target, folders);
};

describe('an @ mention in a window of several folders', () => {
  it("goes to the sidecar as an absolute path in another folder, the folder's name replaced by its path", () => {
    assert.deepEqual(mentionTarget('lib/src/util.ts', three), { folder: 1, rel: 'src/util.ts' });
    assert.equal(path('lib/src/util.ts'), '/home/me/lib/src/util.ts');
    assert.equal(path('shared/notes.md'), '/srv/shared/notes.md', 'one "/" between the root and the rest');
  });

  it('stays relative in the first folder, named or not', () => {
    assert.equal(path('app/src/main.ts'), 'src/main.ts');
    // Typed by hand without a folder name: the first folder's, as in a window of one.
    assert.equal(path('src/main.ts'), 'src/main.ts');
  });

  it('names a whole folder as its root', () => {
    assert.equal(path('lib/'), '/home/me/lib');
    assert.equal(path('lib'), '/home/me/lib');
    assert.equal(path('app/'), '.');
    assert.equal(path('lib/src/'), '/home/me/lib/src');
  });

  it('refuses a path that climbs out of its folder', () => {
    assert.equal(mentionTarget('lib/../../etc/passwd', three), undefined);
    assert.equal(mentionTarget('../app', one), undefined);
  });

  it("reads no folder's name in a window of one folder", () => {
    // A folder inside the only one may share a name with it.
    assert.equal(path('app/src/main.ts', one), 'app/src/main.ts');
    assert.equal(mentionTarget('x', []), undefined);
  });
});
