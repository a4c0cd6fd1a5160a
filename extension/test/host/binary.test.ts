import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bundledBinary, resolveBinary } from '../../src/sidecar/binary';

describe('resolveBinary', () => {
  // Every VS Code target the packages are built for, with the path the package puts its sidecar at.
  const cases: [string, string, string, string][] = [
    ['linux', 'x64', '/ext', '/ext/bin/linux-x64/tandem'],
    ['linux', 'arm64', '/ext', '/ext/bin/linux-arm64/tandem'],
    ['darwin', 'x64', '/Users/me/.vscode/ext', '/Users/me/.vscode/ext/bin/darwin-x64/tandem'],
    ['darwin', 'arm64', '/Users/me/.vscode/ext', '/Users/me/.vscode/ext/bin/darwin-arm64/tandem'],
    ['win32', 'x64', 'C:\\Users\\me\\.vscode\\ext', 'C:\\Users\\me\\.vscode\\ext\\bin\\win32-x64\\tandem.exe'],
    ['win32', 'arm64', 'C:\\Users\\me\\.vscode\\ext', 'C:\\Users\\me\\.vscode\\ext\\bin\\win32-arm64\\tandem.exe'],
  ];
  for (const [platform, arch, ext, expected] of cases) {
    it(`uses the bundled sidecar on ${platform}-${arch}`, () => {
      assert.equal(bundledBinary(ext, platform, arch), expected);
      assert.deepEqual(resolveBinary('', ext, platform, arch, (p) => p === expected), { path: expected });
    });
  }

  it('prefers tandem.serverPath', () => {
    assert.deepEqual(resolveBinary(' /opt/tandem ', '/ext', 'linux', 'x64', (p) => p === '/opt/tandem'), { path: '/opt/tandem' });
  });

  it('expands ~ in tandem.serverPath with the platform separator', () => {
    const isFile = () => true;
    assert.deepEqual(resolveBinary('~/bin/tandem', '/ext', 'linux', 'x64', isFile, '/home/me'), { path: '/home/me/bin/tandem' });
    assert.deepEqual(resolveBinary('~\\bin\\tandem.exe', 'C:\\ext', 'win32', 'x64', isFile, 'C:\\Users\\me'), {
      path: 'C:\\Users\\me\\bin\\tandem.exe',
    });
    // On Unix a backslash is part of a file name, not a separator.
    assert.deepEqual(resolveBinary('~\\odd', '/ext', 'linux', 'x64', isFile, '/home/me'), { path: '~\\odd' });
  });

  it('says what is wrong when there is no binary', () => {
    const missing = resolveBinary('/nope', '/ext', 'linux', 'x64', () => false);
    assert.ok('error' in missing);
    assert.match(missing.error, /\/nope/);
    const unbundled = resolveBinary(undefined, '/ext', 'darwin', 'arm64', () => false);
    assert.ok('error' in unbundled);
    assert.match(unbundled.error, /darwin-arm64/);
    assert.match(unbundled.error, /cargo build --release -p tandem/);
    // A Windows user is told about the .exe at its Windows path.
    const windows = resolveBinary(undefined, 'C:\\ext', 'win32', 'arm64', (p) => p.endsWith('win32-x64\\tandem.exe'));
    assert.ok('error' in windows);
    assert.match(windows.error, /C:\\ext\\bin\\win32-arm64\\tandem\.exe is missing/);
    assert.match(windows.error, /target\\release\\tandem\.exe/);
  });
});
