// `@changes` in VS Code: the folder's uncommitted changes as `git diff` shows them. The user asked
// for them, so git runs outside the sandbox, but with the repository's own config that would run
// programs switched off (a cloned repository's `.git/config` is not the user's): no fsmonitor, no
// external diff, no textconv, and none of the clean, smudge or process filters the repository's
// config defines (`git diff` runs a clean filter on every file it compares). The user's own
// filters (git-lfs's, in their global config) still run: they are the user's programs.

import { execFile } from 'node:child_process';

/** What git may print before it is cut (a diff of a generated file). */
const MAX_GIT_BYTES = 1024 * 1024;

/**
 * The uncommitted changes of the folder's repository: the diff against `HEAD` (the empty tree
 * before the first commit), then the untracked files by name.
 */
export async function changesText(folder: string): Promise<string> {
  const off = await repositoryFiltersOff(folder);
  const hasHead = await git(folder, off, ['rev-parse', '--verify', '--quiet', 'HEAD']).then(
    () => true,
    () => false,
  );
  const base = hasHead ? 'HEAD' : '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
  const diff = await git(folder, off, ['diff', base, '--no-color', '--no-ext-diff', '--no-textconv']);
  const untracked = (await git(folder, off, ['ls-files', '--others', '--exclude-standard', '-z'])).split('\0').filter((p) => p);
  let out = diff;
  if (untracked.length > 0) out += `\nUntracked files (${untracked.length}):\n${untracked.join('\n')}\n`;
  return out.trim() ? out : 'No uncommitted changes.';
}

/**
 * `-c KEY=` for every filter command the repository's own config (`.git/config`, a worktree's, and
 * the files they include) sets: an empty command is no filter. Reading the config runs nothing.
 */
export async function repositoryFiltersOff(folder: string): Promise<string[]> {
  const listed = await git(folder, [], [
    'config',
    '--includes',
    '--show-scope',
    '--name-only',
    '--get-regexp',
    '^filter\\..*\\.(clean|smudge|process)$',
  ]).catch(() => '');
  return listed
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([scope, key]) => key !== undefined && (scope === 'local' || scope === 'worktree'))
    .flatMap(([, key]) => ['-c', `${key}=`]);
}

function git(cwd: string, off: string[], args: string[]): Promise<string> {
  const full = ['-c', 'core.fsmonitor=false', '-c', 'diff.external=', ...off, ...args];
  return new Promise((resolve, reject) => {
    execFile('git', full, { cwd, maxBuffer: MAX_GIT_BYTES, encoding: 'utf8' }, (error, stdout, stderr) => {
      // Over the buffer: what came is enough (the sidecar cuts it further).
      if (error && (error as { code?: unknown }).code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') resolve(stdout);
      else if (error) reject(new Error(`git ${args[0]} failed in ${cwd}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}
