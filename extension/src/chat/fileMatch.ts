// The pure parts of the `@` file list: the exclude glob from the user's settings, the
// .gitignore rules (the `ignore` package), and the ranking. No `vscode`, so it is unit-tested.

import ignore, { type Ignore } from 'ignore';

/**
 * One glob of every pattern switched on in `files.exclude`/`search.exclude` (`true`; a `when`
 * condition on a sibling is left to VS Code's own view), or undefined when none is.
 */
export function excludeGlob(settings: Record<string, unknown>): string | undefined {
  const on = Object.entries(settings)
    .filter(([, v]) => v === true)
    .map(([k]) => k.replace(/[{},]/g, (c) => `\\${c}`));
  if (on.length === 0) return undefined;
  return on.length === 1 ? on[0] : `{${on.join(',')}}`;
}

/** The .gitignore files of a workspace, each applying below its own folder. */
export class GitIgnores {
  private readonly rules: { dir: string; ig: Ignore }[];

  constructor(files: readonly { dir: string; text: string }[]) {
    this.rules = files.map((f) => ({ dir: f.dir, ig: ignore().add(f.text) }));
  }

  /** Whether a workspace-relative path (with `/`) is ignored by any of them. */
  ignored(rel: string): boolean {
    if (rel.split('/').includes('.git')) return true;
    return this.rules.some(({ dir, ig }) => {
      if (dir !== '' && !rel.startsWith(`${dir}/`)) return false;
      const below = dir === '' ? rel : rel.slice(dir.length + 1);
      return below !== '' && ig.ignores(below);
    });
  }
}

/** Files whose name starts with the query first, then whose name holds it, then the rest; shorter paths first. */
export function rankMatches<T extends { rel: string }>(files: readonly T[], query: string): T[] {
  const lq = query.toLowerCase();
  const rank = (rel: string) => {
    const name = (rel.split('/').pop() ?? rel).toLowerCase();
    return name.startsWith(lq) ? 0 : name.includes(lq) ? 1 : 2;
  };
  return [...files].sort((a, b) => rank(a.rel) - rank(b.rel) || a.rel.length - b.rel.length || a.rel.localeCompare(b.rel));
}
