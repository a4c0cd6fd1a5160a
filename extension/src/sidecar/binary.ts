// Which `tandem` binary to run: `tandem.serverPath` if set, else the one bundled for this
// platform under bin/<platform>-<arch>/.

import * as os from 'node:os';
import * as path from 'node:path';

export function bundledBinary(extensionPath: string, platform: string, arch: string): string {
  return path.join(extensionPath, 'bin', `${platform}-${arch}`, platform === 'win32' ? 'tandem.exe' : 'tandem');
}

export type Resolved = { path: string } | { error: string };

export function resolveBinary(
  serverPath: string | undefined,
  extensionPath: string,
  platform: string,
  arch: string,
  isFile: (p: string) => boolean,
): Resolved {
  const configured = serverPath?.trim();
  if (configured) {
    const expanded = configured.startsWith('~/') ? path.join(os.homedir(), configured.slice(2)) : configured;
    return isFile(expanded)
      ? { path: expanded }
      : { error: `tandem.serverPath points to ${expanded}, which is not a file.` };
  }
  const bundled = bundledBinary(extensionPath, platform, arch);
  return isFile(bundled)
    ? { path: bundled }
    : {
        error: `This build of Tandem carries no sidecar for ${platform}-${arch}. Build it (cargo build --release) and set tandem.serverPath to target/release/tandem.`,
      };
}
