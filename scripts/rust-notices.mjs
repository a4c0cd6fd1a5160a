// The notices of the Rust crates a sidecar is built from, for the .vsix's ThirdPartyNotices.txt:
// every crate in `tandem`'s normal and build dependencies on the target's platform (cargo metadata
// --filter-platform), with its version, its license expression and the license files it ships.
// Packaging fails on a crate whose license is not on the accepted list, or that ships no license
// file and whose license has no standard text here (scripts/package.mjs calls this per target).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

// Licenses a crate may come under (each identifier of its expression must be one of these):
// permissive ones and MPL-2.0 (file-level copyleft: we ship the crate unchanged, and its source
// is on crates.io).
export const ACCEPTED = new Set([
  'MIT', 'MIT-0', 'Apache-2.0', 'LLVM-exception', 'BSD-2-Clause', 'BSD-3-Clause', 'ISC', 'Zlib',
  'Unicode-3.0', 'Unicode-DFS-2016', 'Unlicense', 'CC0-1.0', '0BSD', 'BSL-1.0', 'MPL-2.0',
]);

/** The identifiers of an SPDX expression (old `MIT/Apache-2.0` forms included). */
export function licenseIds(expression) {
  return (expression ?? '')
    .split(/\s+(?:OR|AND|WITH)\s+|[()/]|\s+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Why a crate's license expression is refused, or undefined when every identifier is accepted. */
export function refusal(name, version, expression) {
  if (!expression) return `${name} ${version} declares no license (Cargo.toml's license field)`;
  const unknown = licenseIds(expression).filter((id) => !ACCEPTED.has(id));
  if (unknown.length) return `${name} ${version} is under ${expression}: ${unknown.join(', ')} is not on the accepted list in scripts/rust-notices.mjs`;
  return undefined;
}

// Standard texts for crates that ship none: Apache-2.0 as the project's own LICENSE carries it,
// the others from scripts/licenses/ID.txt (the license's text as its authors publish it).
function standardText(id, crate) {
  if (id === 'Apache-2.0') {
    const own = readFileSync(join(repo, 'extension', 'LICENSE'), 'utf8');
    const start = own.search(/^\s*Apache License\s*$/m);
    const end = own.indexOf('END OF TERMS AND CONDITIONS');
    return start >= 0 && end > start ? own.slice(start, end + 'END OF TERMS AND CONDITIONS'.length).trim() : undefined;
  }
  const file = join(repo, 'scripts', 'licenses', `${id}.txt`);
  // MIT's text carries a copyright line: the crate's authors, as its Cargo.toml names them.
  return existsSync(file) ? readFileSync(file, 'utf8').trim().replace('{authors}', `the authors of ${crate.name}: ${(crate.authors ?? []).map((a) => a.replace(/\s*<[^>]*>/, '')).join(', ') || 'see its repository'}`) : undefined;
}

/** The crates of `tandem`'s build for `triple`, outside the workspace, sorted by name. */
export function sidecarCrates(triple) {
  const meta = JSON.parse(
    execFileSync('cargo', ['metadata', '--format-version', '1', '--locked', '--filter-platform', triple], {
      cwd: repo,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    }),
  );
  const packages = new Map(meta.packages.map((p) => [p.id, p]));
  const nodes = new Map(meta.resolve.nodes.map((n) => [n.id, n]));
  const root = meta.packages.find((p) => p.name === 'tandem' && !p.source)?.id;
  if (!root) throw new Error('cargo metadata lists no workspace package named tandem');
  const seen = new Set();
  const stack = [root];
  while (stack.length) {
    const id = stack.pop();
    if (seen.has(id)) continue;
    seen.add(id);
    for (const dep of nodes.get(id)?.deps ?? []) {
      // Dev-dependencies are not in the binary.
      if (dep.dep_kinds.some((k) => k.kind === null || k.kind === 'build')) stack.push(dep.pkg);
    }
  }
  return [...seen]
    .map((id) => packages.get(id))
    .filter((p) => p.source)
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/** The notices section for `triple`'s sidecar; throws, naming every crate at fault. */
export function rustNotices(triple) {
  const crates = sidecarCrates(triple);
  const problems = [];
  const sections = [];
  const written = new Map();
  for (const c of crates) {
    const refused = refusal(c.name, c.version, c.license ?? (c.license_file ? 'a license file' : undefined));
    if (refused && !c.license_file) {
      problems.push(refused);
      continue;
    }
    const dir = dirname(c.manifest_path);
    const files = readdirSync(dir)
      .filter((f) => /^(licen[cs]e|copying|notice|copyright)/i.test(f))
      .sort();
    let texts = files.map((f) => readFileSync(join(dir, f), 'utf8').trim());
    if (!texts.length) {
      const standard = licenseIds(c.license).map((id) => standardText(id, c)).filter(Boolean);
      if (!standard.length) {
        problems.push(`${c.name} ${c.version} (${c.license}) ships no license file and its license has no standard text in scripts/rust-notices.mjs`);
        continue;
      }
      texts = [`(The crate ships no license file; the standard text of its license follows.)\n\n${standard[0]}`];
    }
    // Most crates carry the same few texts word for word: each text is written in full once and
    // named after that (whitespace aside, they are identical).
    const body = texts
      .map((text) => {
        const key = text.replace(/\s+/g, ' ');
        const first = written.get(key);
        if (first) return `(The same text as ${first}'s, above.)`;
        written.set(key, `${c.name} ${c.version}`);
        return text;
      })
      .join('\n\n');
    sections.push(`${c.name} ${c.version} (${c.license ?? c.license_file})\n${'-'.repeat(60)}\n${body}\n`);
  }
  if (problems.length) throw new Error(`the sidecar for ${triple} has crates whose notices cannot be shipped:\n  ${problems.join('\n  ')}`);
  const head = `\n\nThe sidecar (bin/) is built from the following Rust crates (for ${triple}). Their licenses follow.\n\n`;
  return { count: sections.length, text: head + sections.join('\n\n') };
}
