// Which `tandem` binary to run: `tandem.serverPath` if set, else the one bundled for this
// platform under bin/<platform>-<arch>/ (the VS Code target the package was built for:
// scripts/package.mjs puts exactly one there).

import * as os from 'node:os';
import * as path from 'node:path';

/** Path rules of the OS the extension runs on, whatever OS runs the tests. */
const pathFor = (platform: string): path.PlatformPath => (platform === 'win32' ? path.win32 : path.posix);

/** The sidecar's file name: Windows runs only what ends in .exe. */
export function sidecarName(platform: string): string {
  return platform === 'win32' ? 'tandem.exe' : 'tandem';
}

export function bundledBinary(extensionPath: string, platform: string, arch: string): string {
  return pathFor(platform).join(extensionPath, 'bin', `${platform}-${arch}`, sidecarName(platform));
}

export type Resolved = { path: string } | { error: string };

export function resolveBinary(
  serverPath: string | undefined,
  extensionPath: string,
  platform: string,
  arch: string,
  isFile: (p: string) => boolean,
  home: string = os.homedir(),
): Resolved {
  const p = pathFor(platform);
  const configured = serverPath?.trim();
  if (configured) {
    const tilde = /^~[/\\]/.test(configured) && (platform === 'win32' || configured[1] === '/');
    const expanded = tilde ? p.join(home, configured.slice(2)) : configured;
    return isFile(expanded)
      ? { path: expanded }
      : { error: `tandem.serverPath points to ${expanded}, which is not a file.` };
  }
  const bundled = bundledBinary(extensionPath, platform, arch);
  const built = p.join('target', 'release', sidecarName(platform));
  return isFile(bundled)
    ? { path: bundled }
    : {
        error:
          `This Tandem package carries no sidecar for ${platform}-${arch} (${bundled} is missing). ` +
          `Install the package built for ${platform}-${arch}, or build the sidecar (cargo build --release -p tandem) ` +
          `and set tandem.serverPath to its ${built}.`,
      };
}
