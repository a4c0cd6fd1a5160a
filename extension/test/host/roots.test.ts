import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldersChangedNotice, sessionRoots } from '../../src/chat/roots';

describe('sessionRoots', () => {
  it('makes the first folder the root and every other one an additional root, in order', () => {
    const folders = [
      { fsPath: '/home/me/app', onDisk: true },
      { fsPath: '/home/me/lib', onDisk: true },
      { fsPath: '/srv/shared', onDisk: true },
    ];
    assert.deepEqual(sessionRoots(folders), { root: '/home/me/app', additionalRoots: ['/home/me/lib', '/srv/shared'] });
  });

  it('gives a single folder no additional roots, and no folder no session', () => {
    assert.deepEqual(sessionRoots([{ fsPath: '/home/me/app', onDisk: true }]), { root: '/home/me/app', additionalRoots: [] });
    assert.equal(sessionRoots([]), undefined);
  });

  it('leaves out a folder of another file system', () => {
    const folders = [
      { fsPath: '/home/me/app', onDisk: true },
      { fsPath: '/remote/repo', onDisk: false },
    ];
    assert.deepEqual(sessionRoots(folders), { root: '/home/me/app', additionalRoots: [] });
  });
});

describe('foldersChangedNotice', () => {
  it('says what changed and that a new chat gets it', () => {
    const text = foldersChangedNotice(1, 2);
    assert.match(text, /\(1 added, 2 removed\)/);
    assert.match(text, /a new chat works in the window's folders/);
  });
});
