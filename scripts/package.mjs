// `npm run package`: builds the release sidecar and the extension, and writes one .vsix into
// dist/ that carries the sidecar for every target built (this machine's always).
//   TANDEM_SKIP_CARGO=1  use the binaries already under target/ (CI builds them first)
//   TANDEM_SIDECAR_PROFILE=debug  bundle this machine's debug build instead (the VS Code e2e test:
//                        it tests the extension, and the debug build is already there)

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const ext = join(repo, 'extension');
const dist = join(repo, 'dist');

function run(cmd, args, cwd = repo) {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { cwd, stdio: 'inherit' });
}

// Rust target triples and the VS Code platform folders their binaries go to.
const TARGETS = {
  'x86_64-unknown-linux-gnu': 'linux-x64',
  'aarch64-unknown-linux-gnu': 'linux-arm64',
  'x86_64-apple-darwin': 'darwin-x64',
  'aarch64-apple-darwin': 'darwin-arm64',
  'x86_64-pc-windows-msvc': 'win32-x64',
  'aarch64-pc-windows-msvc': 'win32-arm64',
};
const HOST = `${process.platform}-${process.arch}`;

if (!process.env.TANDEM_SKIP_CARGO) run('cargo', ['build', '--release', '--locked', '-p', 'tandem']);

// Put each built sidecar under extension/bin/<platform>/.
rmSync(join(ext, 'bin'), { recursive: true, force: true });
const bundled = [];
function bundle(from, platform) {
  if (!existsSync(from) || bundled.includes(platform)) return;
  const name = platform.startsWith('win32') ? 'tandem.exe' : 'tandem';
  mkdirSync(join(ext, 'bin', platform), { recursive: true });
  copyFileSync(from, join(ext, 'bin', platform, name));
  chmodSync(join(ext, 'bin', platform, name), 0o755);
  bundled.push(platform);
}
const profile = process.env.TANDEM_SIDECAR_PROFILE || 'release';
bundle(join(repo, 'target', profile, process.platform === 'win32' ? 'tandem.exe' : 'tandem'), HOST);
for (const [triple, platform] of Object.entries(TARGETS)) {
  bundle(join(repo, 'target', triple, 'release', platform.startsWith('win32') ? 'tandem.exe' : 'tandem'), platform);
}
if (bundled.length === 0) {
  console.error('No sidecar binary found under target/: build it with cargo build --release -p tandem.');
  process.exit(1);
}
console.log(`Bundling the sidecar for: ${bundled.join(', ')}`);

run('node', [join(repo, 'scripts', 'build-extension.mjs'), '--production']);
// The webview bundles DOMPurify, highlight.js and markdown-it: their license notices must ship.
if (!readFileSync(join(ext, 'out', 'webview', 'main.js'), 'utf8').includes('Bundled license information')) {
  console.error('extension/out/webview/main.js lost its bundled license notices (esbuild legalComments)');
  process.exit(1);
}

const { version } = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8'));
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const out = join(dist, `tandem-${version}.vsix`);
run(
  process.execPath,
  [
    join(repo, 'node_modules', '@vscode', 'vsce', 'vsce'),
    'package',
    '--no-dependencies',
    '--allow-missing-repository',
    '--no-rewrite-relative-links',
    '--out',
    out,
  ],
  ext,
);
console.log(`Wrote ${out} (${readdirSync(dist).length} file in dist/)`);
