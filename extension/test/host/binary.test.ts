import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { bundledBinary, resolveBinary } from '../../src/sidecar/binary';

describe('resolveBinary', () => {
  const ext = '/ext';
  it('uses the bundled binary for the platform', () => {
    assert.deepEqual(resolveBinary('', ext, 'linux', 'x64', () => true), { path: path.join(ext, 'bin', 'linux-x64', 'tandem') });
    assert.equal(bundledBinary(ext, 'win32', 'x64'), path.join(ext, 'bin', 'win32-x64', 'tandem.exe'));
  });

  it('prefers tandem.serverPath', () => {
    assert.deepEqual(resolveBinary(' /opt/tandem ', ext, 'linux', 'x64', (p) => p === '/opt/tandem'), { path: '/opt/tandem' });
  });

  it('says what is wrong when there is no binary', () => {
    const missing = resolveBinary('/nope', ext, 'linux', 'x64', () => false);
    assert.ok('error' in missing);
    assert.match(missing.error, /\/nope/);
    const unbundled = resolveBinary(undefined, ext, 'darwin', 'arm64', () => false);
    assert.ok('error' in unbundled);
    assert.match(unbundled.error, /darwin-arm64/);
  });
});
