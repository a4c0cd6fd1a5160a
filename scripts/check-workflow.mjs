// Checks .github/workflows/ci.yml, which no runner here can run: it parses, it has the fast tier
// on Linux, macOS and Windows and the packing job, every script it runs exists, the fast job runs
// the README's fast-tier command, and the packing job's script builds the six VS Code targets
// scripts/package.mjs knows. Run by `npm test`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = '.github/workflows/ci.yml';
const problems = [];
const workflow = yaml.load(readFileSync(join(repo, file), 'utf8'));

const jobs = workflow?.jobs ?? {};
const oses = jobs.fast?.strategy?.matrix?.os ?? [];
for (const os of ['ubuntu', 'macos', 'windows']) {
  if (!oses.some((o) => String(o).startsWith(`${os}-`))) problems.push(`the fast job has no ${os} runner (matrix.os: ${JSON.stringify(oses)})`);
}

const runs = (job) => (jobs[job]?.steps ?? []).map((s) => s.run).filter(Boolean).join('\n');
if (!/^\s*bash tests\/run-fast\s*$/m.test(runs('fast'))) problems.push('the fast job does not run `bash tests/run-fast`');
if (!/^\s*bash scripts\/release\.sh\s*$/m.test(runs('package'))) problems.push('the package job does not run `bash scripts/release.sh`');
if (!readFileSync(join(repo, 'README.md'), 'utf8').includes('bash tests/run-fast')) problems.push('the README no longer names `bash tests/run-fast`');

// Every script a step names by path.
for (const job of Object.keys(jobs)) {
  for (const [, path] of runs(job).matchAll(/\b(?:bash|node)\s+((?:scripts|tests)\/[\w./-]+)/g)) {
    if (!existsSync(join(repo, path))) problems.push(`job ${job} runs ${path}, which is not in the tree`);
  }
}

// release.sh's triples cover every target package.mjs packs (one triple each at least).
const release = readFileSync(join(repo, 'scripts/release.sh'), 'utf8');
const releaseTargets = new Set([...release.matchAll(/\[[\w-]+\]=([\w-]+)/g)].map((m) => m[1]));
const pack = readFileSync(join(repo, 'scripts/package.mjs'), 'utf8');
const packBlock = pack.slice(pack.indexOf('const TARGETS = {'), pack.indexOf('};', pack.indexOf('const TARGETS = {')));
const packTargets = [...packBlock.matchAll(/'([\w-]+)': \[/g)].map((m) => m[1]);
if (packTargets.length !== 6) problems.push(`scripts/package.mjs lists ${packTargets.length} targets, not 6`);
for (const t of packTargets) if (!releaseTargets.has(t)) problems.push(`scripts/release.sh builds no sidecar for ${t}`);

const nodeMajor = /"node": ">=(\d+)"/.exec(readFileSync(join(repo, 'package.json'), 'utf8'))?.[1];
for (const job of Object.keys(jobs)) {
  const setup = (jobs[job].steps ?? []).find((s) => String(s.uses ?? '').startsWith('actions/setup-node'));
  if (setup && String(setup.with?.['node-version']) !== nodeMajor) problems.push(`job ${job} sets up Node ${setup.with?.['node-version']}, package.json's engines say ${nodeMajor}`);
}

if (problems.length) {
  console.error(`${file}:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`${file}: ${Object.keys(jobs).length} jobs, the fast tier on ${oses.join(', ')}, ${packTargets.length} .vsix targets; every script it names exists`);
