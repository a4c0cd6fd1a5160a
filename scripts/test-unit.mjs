// Unit tests of the extension's and the webview's logic, with Node's own test runner: each
// extension/test/**/*.test.ts is bundled by esbuild (the TypeScript goes as it is, no vscode
// module needed) and run with node --test.
//   node scripts/test-unit.mjs [name filter]

import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const testDir = join(repo, 'extension', 'test');
const outDir = join(repo, 'extension', 'out', 'test');
const filter = process.argv[2] ?? '';

const tests = readdirSync(testDir, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.ts') && f.includes(filter))
  .map((f) => join(testDir, f));
if (tests.length === 0) {
  console.error(`no unit tests match "${filter}"`);
  process.exit(1);
}

rmSync(outDir, { recursive: true, force: true });
await build({
  entryPoints: tests,
  outdir: outDir,
  outbase: testDir,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  // jsdom loads files of its own at run time.
  external: ['jsdom'],
  logLevel: 'warning',
});

const bundles = tests.map((t) => join(outDir, relative(testDir, t).replace(/\.ts$/, '.cjs')));
const run = spawnSync(process.execPath, ['--enable-source-maps', '--test', ...bundles], { stdio: 'inherit' });
process.exit(run.status ?? 1);
