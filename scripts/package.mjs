// `npm run package`: one .vsix per VS Code target, each carrying only that platform's sidecar, as
// VS Code's platform-specific extensions do (`vsce package --target`).
//   npm run package                               this machine's target, from cargo build --release (run first)
//   npm run package -- --target darwin-arm64 ...  targets whose sidecar is built (scripts/release.sh)
//   npm run package -- --all                      all six targets; fails first, naming each missing sidecar
//   --out-dir DIR         where the .vsix files go (default dist/; tandem-<target>-<version>.vsix)
//   --publisher ID        the Marketplace publisher / Open VSX namespace to publish under (default:
//                         package.json's; also TANDEM_PUBLISHER)
//   --repository URL      the public repository (https://github.com/OWNER/NAME): the gallery loads the
//                         README's images from it (also TANDEM_REPOSITORY; default: package.json's).
//                         Without one, the package is for installing by hand: its README's images
//                         stay relative and load from the package in VS Code, not on a gallery page.
//   TANDEM_SKIP_CARGO=1   use the binaries already under target/ (CI builds them first)
//   TANDEM_SIDECAR_PROFILE=debug  plain packaging takes this machine's debug build (the VS Code e2e test)
//   CARGO_TARGET_DIR      where cargo puts binaries, as for cargo itself (default target/)

import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { rustNotices } from './rust-notices.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const ext = join(repo, 'extension');

// VS Code targets and the Rust triples whose binary serves each, in the order release.sh builds
// them. Windows: the GNU ABI is what this machine can link (mingw-w64); MSVC builds from a
// Windows machine are taken as well.
const TARGETS = {
  'linux-x64': ['x86_64-unknown-linux-gnu'],
  'linux-arm64': ['aarch64-unknown-linux-gnu'],
  'darwin-x64': ['x86_64-apple-darwin'],
  'darwin-arm64': ['aarch64-apple-darwin'],
  'win32-x64': ['x86_64-pc-windows-gnu', 'x86_64-pc-windows-msvc'],
  'win32-arm64': ['aarch64-pc-windows-gnullvm', 'aarch64-pc-windows-msvc'],
};
const HOST = `${process.platform}-${process.arch}`;

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

function run(cmd, args, cwd = repo) {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { cwd, stdio: 'inherit' });
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      target: { type: 'string', multiple: true, default: [] },
      all: { type: 'boolean', default: false },
      'out-dir': { type: 'string', default: join(repo, 'dist') },
      publisher: { type: 'string', default: process.env.TANDEM_PUBLISHER || undefined },
      repository: { type: 'string', default: process.env.TANDEM_REPOSITORY || undefined },
    },
  }));
} catch (e) {
  fail(
    `${e.message}\nUsage: npm run package -- [--target ${Object.keys(TARGETS).join('|')}]... [--all] [--out-dir DIR] [--publisher ID] [--repository URL]`,
  );
}
const explicit = options.all || options.target.length > 0;
const targets = options.all ? Object.keys(TARGETS) : explicit ? [...new Set(options.target)] : [HOST];
for (const t of targets) {
  if (!TARGETS[t]) fail(`unknown target ${t}; the targets are ${Object.keys(TARGETS).join(', ')}.`);
}
const targetDir = resolve(repo, process.env.CARGO_TARGET_DIR ?? 'target');
const outDir = resolve(options['out-dir']);
const exe = (target) => (target.startsWith('win32') ? 'tandem.exe' : 'tandem');
const shown = (p) => (p.startsWith(repo) ? relative(repo, p) : p);

// Only this machine's own target is built here; cross builds take minutes each and tools of their own.
if (!explicit && !process.env.TANDEM_SKIP_CARGO) run('cargo', ['build', '--release', '--locked', '-p', 'tandem']);

/**
 * The sidecar binary for a target: the first of its triples' builds that exists. Plain `npm run
 * package` takes what `cargo build --release` just built; an explicit --target of this machine
 * prefers release.sh's build (linked against an older glibc, so it runs on more systems).
 */
function sidecarFor(target) {
  const native = join(targetDir, process.env.TANDEM_SIDECAR_PROFILE || 'release', exe(target));
  const candidates = explicit ? TARGETS[target].map((triple) => join(targetDir, triple, 'release', exe(target))) : [native];
  const triples = explicit ? [...TARGETS[target]] : [];
  if (explicit && target === HOST) candidates.push(native);
  const found = candidates.findIndex((p) => existsSync(p) && statSync(p).isFile());
  // The native build's triple is rustc's host.
  const triple = found < 0 ? undefined : (triples[found] ?? /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))?.[1]);
  return { binary: found < 0 ? undefined : candidates[found], candidates, triple };
}

const sidecars = targets.map((target) => ({ target, ...sidecarFor(target) }));
const missing = sidecars.filter((s) => !s.binary);
if (missing.length > 0) {
  fail(
    missing
      .map(
        ({ target, candidates }) =>
          `no sidecar for ${target}: ` +
          (candidates.length === 1 ? `${shown(candidates[0])} does not exist. ` : `none of ${candidates.map(shown).join(', ')} exists. `) +
          (!explicit
            ? 'Build it with: cargo build --release -p tandem'
            : `Build it with: scripts/release.sh ${TARGETS[target][0]}`),
      )
      .join('\n') + (missing.length > 1 ? '\nscripts/release.sh builds every target and then packages them.' : ''),
  );
}

// The Rust crates' notices for each sidecar, first: a crate whose license is not accepted stops
// the packaging before anything is built.
const rustNoticesFor = new Map();
for (const { triple } of sidecars) {
  if (rustNoticesFor.has(triple)) continue;
  try {
    rustNoticesFor.set(triple, rustNotices(triple));
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
}

// Built outside extension/out, so packaging never disturbs a development build or running tests.
const work = mkdtempSync(join(tmpdir(), 'tandem-package-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const bundles = join(work, 'out');
run(process.execPath, [join(repo, 'scripts', 'build-extension.mjs'), '--production', '--outdir', bundles]);

const manifest = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8'));
// What only the owner can say (their publisher ID, where the repository is public) can be given
// at release time instead of in package.json; each package's manifest then carries it.
if (options.publisher !== undefined) {
  if (!/^[a-z0-9][a-z0-9-]*$/i.test(options.publisher)) fail(`--publisher ${options.publisher}: a publisher ID is letters, digits and dashes.`);
  manifest.publisher = options.publisher;
}
if (options.repository !== undefined) {
  const m = /^(https:\/\/[^/\s]+\/[^/\s]+\/[^/\s]+?)(?:\.git)?\/?$/.exec(options.repository);
  if (!m) fail(`--repository ${options.repository}: give the repository's https address, e.g. https://github.com/OWNER/NAME.`);
  manifest.repository = { type: 'git', url: `${m[1]}.git`, directory: 'extension' };
  manifest.homepage = `${m[1]}/tree/HEAD/extension#readme`;
  manifest.bugs = { url: `${m[1]}/issues` };
}
// The README's relative links and images point into the repository's extension/ folder: on the
// Marketplace and Open VSX they must be absolute, and vsce only guesses the repository's root.
// Without a repository they stay relative, which VS Code resolves inside the installed package.
const vsceLinks = [];
if (manifest.repository?.url) {
  const repoUrl = manifest.repository.url.replace(/\.git$/, '');
  const folder = manifest.repository.directory ?? '';
  vsceLinks.push('--baseImagesUrl', `${repoUrl}/raw/HEAD/${folder}`, '--baseContentUrl', `${repoUrl}/blob/HEAD/${folder}`);
} else {
  vsceLinks.push('--no-rewrite-relative-links', '--allow-missing-repository');
  console.log(
    'package: no repository URL (package.json or --repository): these packages are for installing by hand; ' +
      'for the Marketplace and Open VSX give --repository https://github.com/OWNER/NAME, where the gallery loads the README images.',
  );
}

mkdirSync(outDir, { recursive: true });
// Older versions' packages for these targets would be mistaken for the new ones.
for (const old of readdirSync(outDir)) {
  if (targets.some((t) => old.startsWith(`tandem-${t}-`) && old.endsWith('.vsix'))) rmSync(join(outDir, old));
}

// Each target is packed from a staging copy of its own, so exactly one sidecar goes in and
// extension/ is never left holding a binary.
const written = [];
for (const { target, binary, triple } of sidecars) {
  const stage = join(work, target);
  try {
    for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore', 'media']) {
      cpSync(join(ext, f), join(stage, f), { recursive: true });
    }
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    cpSync(bundles, join(stage, 'out'), { recursive: true });
    renameSync(join(stage, 'out', 'ThirdPartyNotices.txt'), join(stage, 'ThirdPartyNotices.txt'));
    const crates = rustNoticesFor.get(triple);
    appendFileSync(join(stage, 'ThirdPartyNotices.txt'), crates.text);
    console.log(`${target}: notices of ${crates.count} Rust crates (${triple})`);
    const to = join(stage, 'bin', target, exe(target));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(binary, to);
    chmodSync(to, 0o755);
    console.log(`${target}: sidecar ${shown(binary)}`);
    const out = join(outDir, `tandem-${target}-${manifest.version}.vsix`);
    run(
      process.execPath,
      [
        join(repo, 'node_modules', '@vscode', 'vsce', 'vsce'),
        'package',
        '--no-dependencies',
        '--target',
        target,
        ...vsceLinks,
        '--out',
        out,
      ],
      stage,
    );
    written.push(out);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
console.log(`Wrote ${written.map(shown).join(', ')}`);
