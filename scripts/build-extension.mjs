// Bundles the extension host code and the chat webview's code separately with esbuild.
//   node scripts/build-extension.mjs [--production] [--watch]

import { build, context } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'extension');
const out = join(root, 'out');
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'info',
  // The bundled libraries' license notices (/*! */, @license, @preserve) stay, at the end of
  // each bundle: their licenses ask for it.
  legalComments: 'eof',
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
if (watch) {
  for (const options of [host, webview]) await (await context(options)).watch();
} else {
  await Promise.all([build(host), build(webview)]);
}
