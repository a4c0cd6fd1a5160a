// Bundles the extension host code and the chat webview's code separately with esbuild.
//   node scripts/build-extension.mjs [--production] [--watch] [--outdir DIR]
// --production also writes ThirdPartyNotices.txt: the license of every npm package in the bundles.

import { build, context } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'extension');
const { values: args } = parseArgs({
  options: {
    production: { type: 'boolean', default: false },
    watch: { type: 'boolean', default: false },
    outdir: { type: 'string', default: join(root, 'out') },
  },
});
const out = resolve(args.outdir);
const { production, watch } = args;

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'info',
  // The licenses go into ThirdPartyNotices.txt instead, whole.
  legalComments: 'none',
  metafile: production,
};

const host = {
  ...common,
  entryPoints: [join(root, 'src', 'extension.ts')],
  outfile: join(out, 'extension.js'),
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  // Provided by VS Code at run time.
  external: ['vscode'],
};

const webview = {
  ...common,
  entryPoints: [join(root, 'webview', 'main.ts')],
  outfile: join(out, 'webview', 'main.js'),
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
};

await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'webview'), { recursive: true });
await copyFile(join(root, 'webview', 'style.css'), join(out, 'webview', 'style.css'));
// VS Code's icons for the chat (the webview can't use the workbench's font).
const codicons = join(root, '..', 'node_modules', '@vscode', 'codicons');
for (const file of ['codicon.css', 'codicon.ttf']) await copyFile(join(codicons, 'dist', file), join(out, 'webview', file));
if (watch) {
  for (const options of [host, webview]) await (await context(options)).watch();
} else {
  const results = await Promise.all([build(host), build(webview)]);
  if (production) await writeNotices(results.flatMap((r) => Object.keys(r.metafile.inputs)));
}

/** ThirdPartyNotices.txt: each npm package bundled, with its version and its license text. */
async function writeNotices(inputs) {
  const packages = new Set();
  for (const input of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) packages.add(resolve(m[1]));
  }
  // Shipped as files beside the bundle, not bundled.
  packages.add(resolve(codicons));
  const sections = [];
  for (const dir of [...packages].sort()) {
    const { name, version, license } = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    const file = (await readdir(dir)).find((f) => /^(licen[cs]e|copying|notice)/i.test(f));
    if (!file) throw new Error(`${name}@${version} is bundled but ships no license file: its notice cannot be included.`);
    const text = await readFile(join(dir, file), 'utf8');
    sections.push(`${name} ${version} (${license})\n${'-'.repeat(60)}\n${text.trim()}\n`);
  }
  const head = 'Tandem for VS Code bundles the following npm packages. Their licenses follow.\n\n';
  await writeFile(join(out, 'ThirdPartyNotices.txt'), head + sections.join('\n\n'));
  console.log(`ThirdPartyNotices.txt: ${sections.length} packages`);
}
