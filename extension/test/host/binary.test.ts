import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledBinary, resolveBinary } from '../../src/sidecar/binary';

describe('resolveBinary', () => {
  const ext = '/ext';
  it('uses the bundled binary for the platform', () => {
    expect(resolveBinary('', ext, 'linux', 'x64', () => true)).toEqual({ path: path.join(ext, 'bin', 'linux-x64', 'tandem') });
    expect(bundledBinary(ext, 'win32', 'x64')).toBe(path.join(ext, 'bin', 'win32-x64', 'tandem.exe'));
  });

  it('prefers tandem.serverPath', () => {
    expect(resolveBinary(' /opt/tandem ', ext, 'linux', 'x64', (p) => p === '/opt/tandem')).toEqual({ path: '/opt/tandem' });
  });

  it('says what is wrong when there is no binary', () => {
    const missing = resolveBinary('/nope', ext, 'linux', 'x64', () => false);
    expect('error' in missing && missing.error).toContain('/nope');
    const unbundled = resolveBinary(undefined, ext, 'darwin', 'arm64', () => false);
    expect('error' in unbundled && unbundled.error).toContain('darwin-arm64');
  });
});
