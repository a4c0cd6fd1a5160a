// What `tandem/getDiagnostics` answers: the errors and warnings VS Code reports for some files,
// once the language servers have had time to look. Pure apart from the clock, so the waiting
// and the mapping are tested without VS Code.

import type { Diagnostic } from '../protocol';

/** A diagnostic as VS Code has it: zero-based line, severity 0 error, 1 warning, 2 info, 3 hint. */
export interface EditorDiagnostic {
  line: number;
  severity: number;
  message: string;
}

export function toProtocol(path: string, diags: readonly EditorDiagnostic[]): Diagnostic[] {
  return diags
    .filter((d) => d.severity === 0 || d.severity === 1)
    .map((d) => ({ path, line: d.line + 1, severity: d.severity === 0 ? 'error' : 'warning', message: d.message }));
}

export interface SettleOptions {
  /** Quiet this long after the last change counts as settled. */
  quietMs: number;
  /** Never wait longer than this in all. */
  maxMs: number;
}

// The sidecar waits 5 s at most for an answer: stay under it.
export const DEFAULT_SETTLE: SettleOptions = { quietMs: 600, maxMs: 4000 };

/**
 * Resolves once `subscribe`'s events stop for `quietMs` (language servers report in bursts after
 * an edit), or after `maxMs` at the latest. A file no language server looks at never changes, so
 * it costs one quiet period.
 */
export function settled(subscribe: (onChange: () => void) => { dispose(): void }, opts: SettleOptions = DEFAULT_SETTLE): Promise<void> {
  return new Promise((resolve) => {
    let quiet: ReturnType<typeof setTimeout>;
    const done = () => {
      clearTimeout(quiet);
      clearTimeout(deadline);
      sub.dispose();
      resolve();
    };
    const deadline = setTimeout(done, opts.maxMs);
    const sub = subscribe(() => {
      clearTimeout(quiet);
      quiet = setTimeout(done, opts.quietMs);
    });
    quiet = setTimeout(done, opts.quietMs);
  });
}
