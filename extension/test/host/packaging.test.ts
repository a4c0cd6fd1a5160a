// The extension as the Marketplace and Open VSX receive it: the manifest's gallery fields, the
// README's images, and real .vsix files from scripts/package.mjs (with stand-in sidecar files,
// so no cross build is needed; release.sh builds the real ones).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';

function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'scripts', 'package.mjs'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no scripts/package.mjs above ${__dirname}`);
    dir = up;
  }
  return dir;
}

const repo = repoRoot();
const ext = path.join(repo, 'extension');
const manifest = JSON.parse(readFileSync(path.join(ext, 'package.json'), 'utf8')) as Record<string, unknown> & {
  version: string;
  icon: string;
  repository?: { type: string; url: string; directory: string };
  galleryBanner: { color: string; theme: string };
  contributes: { tomlValidation?: { url: string }[] };
};

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${file} is not a PNG`);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Every image a Markdown file shows: ![alt](src) and <img src="...">. */
function markdownImages(markdown: string): string[] {
  const images = [...markdown.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
  images.push(...[...markdown.matchAll(/<img\s[^>]*src=["']([^"']+)["']/gi)].map((m) => m[1] ?? ''));
  return images;
}

describe('the extension manifest', () => {
  it('has what the Marketplace and Open VSX list', () => {
    for (const field of ['name', 'displayName', 'description', 'version', 'publisher', 'license']) {
      assert.equal(typeof manifest[field], 'string', `package.json lacks ${field}`);
      assert.notEqual(manifest[field], '', `package.json has an empty ${field}`);
    }
    // No invented address: the repository is the owner's to give (package.json or --repository).
    if (manifest.repository) {
      assert.match(manifest.repository.url, /^https:\/\/[^/]+\/[^/]+\/[^/]+\.git$/);
      assert.equal(manifest.repository.directory, 'extension');
    }
    assert.match(manifest.galleryBanner.color, /^#[0-9a-f]{6}$/i);
    assert.ok(['dark', 'light'].includes(manifest.galleryBanner.theme), manifest.galleryBanner.theme);
    for (const doc of ['README.md', 'CHANGELOG.md', 'LICENSE']) assert.ok(existsSync(path.join(ext, doc)), `extension/${doc} is missing`);
    assert.match(readFileSync(path.join(ext, 'CHANGELOG.md'), 'utf8'), new RegExp(`^## ${manifest.version.replace(/\./g, '\\.')}\\b`, 'm'));
    // The license texts themselves, not only their names.
    const license = readFileSync(path.join(ext, 'LICENSE'), 'utf8');
    assert.match(license, /^MIT License$/m);
    assert.match(license, /Permission is hereby granted, free of charge/);
    assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
    assert.match(license, /END OF TERMS AND CONDITIONS/);
  });

  it('has a PNG icon of at least 128x128 (the Marketplace refuses SVG)', () => {
    assert.match(manifest.icon, /\.png$/);
    const { width, height } = pngSize(path.join(ext, manifest.icon));
    assert.ok(width >= 128 && width === height, `icon is ${width}x${height}`);
  });

  it('names README images that exist and are packaged', () => {
    const images = markdownImages(readFileSync(path.join(ext, 'README.md'), 'utf8'));
    assert.ok(images.length > 0, 'the README shows no image');
    for (const src of images) {
      if (/^https:\/\//.test(src)) continue;
      assert.doesNotMatch(src, /^[a-z]+:|^\/|\.\./i, `${src}: only https or a path inside extension/ loads in the gallery`);
      assert.doesNotMatch(src, /\.svg$/i, `${src}: vsce refuses SVG images in a README`);
      assert.ok(existsSync(path.join(ext, src)), `the README shows ${src}, which does not exist`);
    }
  });
});

describe('vsce ls (what .vscodeignore lets into a package)', () => {
  it('lists the manifest, the docs, the license and every image the README and manifest show, and no sources', () => {
    const r = spawnSync(process.execPath, [path.join(repo, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], {
      cwd: ext,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const listed = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    const readmeImages = markdownImages(readFileSync(path.join(ext, 'README.md'), 'utf8')).filter((src) => !src.startsWith('https://'));
    // Every file the manifest points at (the config file's schema for tomlValidation).
    const contributed = (manifest.contributes.tomlValidation ?? []).map((v) => v.url.replace(/^\.\//, ''));
    assert.ok(contributed.length > 0, 'the config schema is contributed');
    for (const f of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', manifest.icon, ...readmeImages, ...contributed]) {
      assert.ok(listed.includes(f), `vsce ls lacks ${f}: ${listed.join(', ')}`);
    }
    for (const f of listed) {
      assert.doesNotMatch(f, /^(src|test|webview|node_modules)\/|^tsconfig\.json$|\.ts$|\.map$|^media\/icon\.svg$/, `${f} would be packed`);
    }
  });
});

describe('scripts/package.mjs', () => {
  let work: string;
  let cargoTarget: string;
  const sidecar = (triple: string, name = 'tandem') => {
    const file = path.join(cargoTarget, triple, 'release', name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `stand-in sidecar for ${triple}\n`);
  };
  const packageCmd = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(repo, 'scripts', 'package.mjs'), ...args, '--out-dir', path.join(work, 'dist')], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, TANDEM_SKIP_CARGO: '1', CARGO_TARGET_DIR: cargoTarget, TANDEM_PUBLISHER: '', TANDEM_REPOSITORY: '' },
    });
  const unzip = (...args: string[]) => {
    const r = spawnSync('unzip', args, { encoding: 'utf8' });
    assert.equal(r.status, 0, `unzip ${args.join(' ')}: ${r.error?.message ?? r.stderr}`);
    return r.stdout;
  };

  before(() => {
    work = mkdtempSync(path.join(tmpdir(), 'tandem-package-test-'));
    cargoTarget = path.join(work, 'target');
    sidecar('x86_64-pc-windows-gnu', 'tandem.exe');
    sidecar('aarch64-unknown-linux-gnu');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('packs one .vsix per target, each with that platform sidecar alone and the gallery files', () => {
    const r = packageCmd('--target', 'win32-x64', '--target', 'linux-arm64');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.deepEqual(readdirSync(path.join(work, 'dist')).sort(), [
      `tandem-linux-arm64-${manifest.version}.vsix`,
      `tandem-win32-x64-${manifest.version}.vsix`,
    ]);
    for (const [target, bin] of [
      ['win32-x64', 'extension/bin/win32-x64/tandem.exe'],
      ['linux-arm64', 'extension/bin/linux-arm64/tandem'],
    ] as const) {
      const vsix = path.join(work, 'dist', `tandem-${target}-${manifest.version}.vsix`);
      const files = unzip('-Z1', vsix).split('\n').filter(Boolean);
      for (const f of [
        'extension/package.json',
        'extension/readme.md',
        'extension/changelog.md',
        'extension/LICENSE.txt',
        'extension/ThirdPartyNotices.txt',
        `extension/${manifest.icon}`,
        ...markdownImages(readFileSync(path.join(ext, 'README.md'), 'utf8'))
          .filter((src) => !src.startsWith('https://'))
          .map((src) => `extension/${src}`),
        'extension/out/extension.js',
        'extension/out/webview/main.js',
        'extension/out/webview/codicon.css',
        'extension/out/webview/codicon.ttf',
      ]) {
        assert.ok(files.some((x) => x.toLowerCase() === f.toLowerCase()), `${path.basename(vsix)} lacks ${f}: ${files.join(', ')}`);
      }
      assert.deepEqual(
        files.filter((f) => f.startsWith('extension/bin/')),
        [bin],
      );
      assert.ok(!files.includes('extension/media/icon.svg'), 'the icon source was packed');
      assert.equal(unzip('-p', vsix, bin), `stand-in sidecar for ${target === 'win32-x64' ? 'x86_64-pc-windows-gnu' : 'aarch64-unknown-linux-gnu'}\n`);
      assert.ok(!files.some((f) => /\/(src|test|webview)\/.*\.ts$|\.map$/.test(f)), 'sources or source maps were packed');
      const vsixManifest = unzip('-p', vsix, 'extension.vsixmanifest');
      assert.match(vsixManifest, new RegExp(`TargetPlatform="${target}"`));
      assert.match(vsixManifest, /<Icon>extension\/media\/icon\.png<\/Icon>/);
      assert.match(vsixManifest, /Branding\.Color" Value="#/);
      // Without a repository the README's images stay relative: VS Code loads them from the
      // installed package, which holds each of them.
      const readme = unzip('-p', vsix, files.find((f) => f.toLowerCase() === 'extension/readme.md') ?? '');
      const images = markdownImages(readme).filter((src) => !src.startsWith('https://'));
      assert.ok(images.length > 0, 'the packaged README shows no packaged image');
      for (const src of images) assert.ok(files.includes(`extension/${src}`), `${src} is not in ${path.basename(vsix)}`);
      const notices = unzip('-p', vsix, 'extension/ThirdPartyNotices.txt');
      assert.match(notices, /^markdown-it \d/m);
      assert.match(notices, /^dompurify \d/m);
      assert.match(notices, /^@vscode\/codicons \d/m);
      // The sidecar's Rust crates, for that platform: Windows' own crates in the Windows package only.
      assert.match(notices, /^tokio \d+\.\d+\.\d+ \(MIT\)\n-+\n[^]*?Permission is hereby granted/m);
      // A crate that ships no license file gets its license's standard text.
      assert.match(notices, /^agent-client-protocol \d[^\n]*\(Apache-2\.0\)\n-+\n\(The crate ships no license file[^]*?Apache License/m);
      if (target === 'win32-x64') assert.match(notices, /^windows-sys \d/m);
      else assert.doesNotMatch(notices, /^windows-sys \d/m);
    }
  });

  it('refuses a crate whose license is not on the accepted list, and reads old and compound expressions', async () => {
    const { refusal, licenseIds } = (await import(pathToFileURL(path.join(repo, 'scripts', 'rust-notices.mjs')).href)) as {
      refusal: (name: string, version: string, license?: string) => string | undefined;
      licenseIds: (license: string) => string[];
    };
    assert.deepEqual(licenseIds('(Apache-2.0 OR MIT) AND Unicode-3.0'), ['Apache-2.0', 'MIT', 'Unicode-3.0']);
    assert.deepEqual(licenseIds('MIT/Apache-2.0'), ['MIT', 'Apache-2.0']);
    assert.deepEqual(licenseIds('Apache-2.0 WITH LLVM-exception OR MIT'), ['Apache-2.0', 'LLVM-exception', 'MIT']);
    assert.equal(refusal('serde', '1.0.0', 'MIT OR Apache-2.0'), undefined);
    assert.match(refusal('evil', '0.1.0', 'GPL-3.0-only OR MIT') ?? '', /evil 0\.1\.0 is under GPL-3\.0-only OR MIT: GPL-3\.0-only is not on the accepted list/);
    assert.match(refusal('bare', '1.0.0', undefined) ?? '', /declares no license/);
  });

  it('takes the owner\'s publisher and repository: the gallery README loads its images from there', () => {
    const r = packageCmd('--target', 'win32-x64', '--publisher', 'acme', '--repository', 'https://github.com/acme/tandem');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const vsix = path.join(work, 'dist', `tandem-win32-x64-${manifest.version}.vsix`);
    const files = unzip('-Z1', vsix).split('\n').filter(Boolean);
    const packed = JSON.parse(unzip('-p', vsix, 'extension/package.json')) as typeof manifest & { homepage: string };
    assert.equal(packed.publisher, 'acme');
    assert.deepEqual(packed.repository, { type: 'git', url: 'https://github.com/acme/tandem.git', directory: 'extension' });
    assert.equal(packed.homepage, 'https://github.com/acme/tandem/tree/HEAD/extension#readme');
    assert.match(unzip('-p', vsix, 'extension.vsixmanifest'), /Publisher="acme"/);
    const readme = unzip('-p', vsix, files.find((f) => f.toLowerCase() === 'extension/readme.md') ?? '');
    const images = markdownImages(readme);
    assert.ok(images.length > 0);
    for (const src of images) {
      if (/^https:\/\/(?!github\.com\/acme\/)/.test(src)) continue;
      assert.match(src, /^https:\/\/github\.com\/acme\/tandem\/raw\/HEAD\/extension\/media\/[^/]+$/);
      assert.ok(files.includes(`extension/${src.slice(src.indexOf('media/'))}`), src);
    }
    // extension/package.json itself is untouched.
    assert.equal((JSON.parse(readFileSync(path.join(ext, 'package.json'), 'utf8')) as { publisher: string }).publisher, manifest.publisher);
  });

  it('refuses a repository or publisher it cannot use, before packing', () => {
    rmSync(path.join(work, 'dist'), { recursive: true, force: true });
    let r = packageCmd('--target', 'win32-x64', '--repository', 'github.com/acme');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /--repository github\.com\/acme: give the repository's https address/);
    r = packageCmd('--target', 'win32-x64', '--publisher', 'a b');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /a publisher ID is letters, digits and dashes/);
    assert.ok(!existsSync(path.join(work, 'dist')) || readdirSync(path.join(work, 'dist')).length === 0);
  });

  it('packs this machine\'s target from cargo build --release by default', () => {
    const host = `${process.platform}-${process.arch}`;
    const name = process.platform === 'win32' ? 'tandem.exe' : 'tandem';
    mkdirSync(path.join(cargoTarget, 'release'), { recursive: true });
    writeFileSync(path.join(cargoTarget, 'release', name), 'native build\n');
    const r = packageCmd();
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const vsix = path.join(work, 'dist', `tandem-${host}-${manifest.version}.vsix`);
    assert.equal(unzip('-p', vsix, `extension/bin/${host}/${name}`), 'native build\n');
    rmSync(path.join(cargoTarget, 'release'), { recursive: true });
  });

  it('names the build command for a target whose sidecar is not built, and packs nothing', () => {
    rmSync(path.join(work, 'dist'), { recursive: true, force: true });
    const r = packageCmd('--target', 'darwin-arm64');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /no sidecar for darwin-arm64: .*aarch64-apple-darwin[/\\]release[/\\]tandem does not exist/);
    assert.match(r.stderr, /scripts\/release\.sh aarch64-apple-darwin/);
    assert.ok(!existsSync(path.join(work, 'dist')) || readdirSync(path.join(work, 'dist')).length === 0);
  });

  it('--all lists every missing sidecar before packing anything', () => {
    const r = packageCmd('--all');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    for (const missing of ['linux-x64', 'darwin-x64', 'darwin-arm64', 'win32-arm64']) assert.match(r.stderr, new RegExp(`no sidecar for ${missing}:`));
    for (const present of ['linux-arm64', 'win32-x64']) assert.doesNotMatch(r.stderr, new RegExp(`no sidecar for ${present}:`));
    assert.ok(!existsSync(path.join(work, 'dist')) || readdirSync(path.join(work, 'dist')).length === 0);
  });

  it('--all packs six .vsix files, tandem.exe for the win32 targets and tandem for the others', () => {
    const all: [string, string][] = [
      ['linux-x64', 'x86_64-unknown-linux-gnu'],
      ['linux-arm64', 'aarch64-unknown-linux-gnu'],
      ['darwin-x64', 'x86_64-apple-darwin'],
      ['darwin-arm64', 'aarch64-apple-darwin'],
      ['win32-x64', 'x86_64-pc-windows-gnu'],
      ['win32-arm64', 'aarch64-pc-windows-gnullvm'],
    ];
    const out = path.join(work, 'all');
    const target = path.join(work, 'all-target');
    for (const [, triple] of all) {
      const file = path.join(target, triple, 'release', triple.includes('windows') ? 'tandem.exe' : 'tandem');
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `stand-in sidecar for ${triple}\n`);
    }
    const r = spawnSync(process.execPath, [path.join(repo, 'scripts', 'package.mjs'), '--all', '--out-dir', out], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, TANDEM_SKIP_CARGO: '1', CARGO_TARGET_DIR: target, TANDEM_PUBLISHER: '', TANDEM_REPOSITORY: '' },
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.deepEqual(readdirSync(out).sort(), all.map(([t]) => `tandem-${t}-${manifest.version}.vsix`).sort());
    for (const [vscodeTarget, triple] of all) {
      const vsix = path.join(out, `tandem-${vscodeTarget}-${manifest.version}.vsix`);
      const bin = `extension/bin/${vscodeTarget}/${vscodeTarget.startsWith('win32') ? 'tandem.exe' : 'tandem'}`;
      assert.deepEqual(
        unzip('-Z1', vsix)
          .split('\n')
          .filter((f) => f.startsWith('extension/bin/')),
        [bin],
      );
      assert.equal(unzip('-p', vsix, bin), `stand-in sidecar for ${triple}\n`);
      assert.match(unzip('-p', vsix, 'extension.vsixmanifest'), new RegExp(`TargetPlatform="${vscodeTarget}"`));
    }
  });

  it('refuses a target VS Code does not have', () => {
    const r = packageCmd('--target', 'win32-ia32');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /unknown target win32-ia32; the targets are linux-x64, linux-arm64/);
  });
});

describe('scripts/release.sh', () => {
  const release = (...args: string[]) => spawnSync('bash', [path.join(repo, 'scripts', 'release.sh'), ...args], { encoding: 'utf8' });

  it('refuses a target it does not build before building anything', () => {
    const r = release('x86_64-pc-windows-gnu', 'x86_64-unknown-freebsd');
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /unknown target x86_64-unknown-freebsd; known: x86_64-unknown-linux-gnu .*aarch64-pc-windows-gnullvm/);
    assert.doesNotMatch(r.stdout, /building/);
  });

  it('writes macOS framework stubs of exactly the symbols each -sys crate declares (scripts/macos-frameworks.py)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tandem-frameworks-'));
    try {
      const crate = (name: string, source: string) => {
        mkdirSync(path.join(dir, name, 'src', 'sub'), { recursive: true });
        writeFileSync(path.join(dir, name, 'src', 'sub', 'lib.rs'), source);
      };
      crate(
        'sec-sys',
        [
          'pub fn rust_helper() {}',
          'extern "C" {',
          '    pub fn SecTrustCreate(a: *const u8) -> i32;',
          '    pub static kSecClass: *const u8;',
          '    #[cfg_attr(target_arch = "aarch64", link_name = "SecCopyKey$LEGACYMAC")]',
          '    pub fn SecCopyKey() -> i32;',
          '    pub fn CFShared();',
          '}',
        ].join('\n'),
      );
      crate('cf-sys', 'extern "C" {\n    pub fn CFRelease(x: *const u8);\n    pub fn CFShared();\n}\npub fn CFRangeMake() {}\n');
      const out = path.join(dir, 'out');
      const r = spawnSync('python3', [path.join(repo, 'scripts', 'macos-frameworks.py'), out, `Security=${path.join(dir, 'sec-sys')}`, `CoreFoundation=${path.join(dir, 'cf-sys')}`], {
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      const symbols = (framework: string) => {
        const tbd = readFileSync(path.join(out, `${framework}.framework`, `${framework}.tbd`), 'utf8');
        assert.match(tbd, new RegExp(`install-name: +'/System/Library/Frameworks/${framework}\\.framework/Versions/A/${framework}'`));
        assert.match(tbd, /targets: +\[ x86_64-macos, arm64-macos \]/);
        return (/symbols: +\[ (.*) \]/.exec(tbd)?.[1] ?? '').split(', ');
      };
      assert.deepEqual(symbols('Security'), ['_SecCopyKey', "'_SecCopyKey$LEGACYMAC'", '_SecTrustCreate', '_kSecClass']);
      // Declared by both crates: bound to one framework only, the one its prefix names.
      assert.deepEqual(symbols('CoreFoundation'), ['_CFRelease', '_CFShared']);
      const none = spawnSync('python3', [path.join(repo, 'scripts', 'macos-frameworks.py'), out, `Security=${path.join(dir, 'missing')}`], { encoding: 'utf8' });
      assert.equal(none.status, 1);
      assert.match(none.stderr, /no Rust sources under/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('builds for every target package.mjs packs', () => {
    // Each VS Code target's first triple in package.mjs is the one release.sh builds.
    const script = readFileSync(path.join(repo, 'scripts', 'release.sh'), 'utf8');
    const packer = readFileSync(path.join(repo, 'scripts', 'package.mjs'), 'utf8');
    const built = new Map([...script.matchAll(/\[([a-z0-9_-]+)\]=([a-z0-9-]+)/g)].map((m) => [m[2], m[1]]));
    const packed = [...packer.matchAll(/'([a-z0-9]+-[a-z0-9]+)': \['([a-z0-9_-]+)'/g)].map((m) => [m[1], m[2]]);
    assert.equal(packed.length, 6);
    for (const [target, triple] of packed) assert.equal(built.get(target ?? ''), triple, target);
  });
});
