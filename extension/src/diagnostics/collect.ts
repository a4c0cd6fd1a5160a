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

export interface WaitOptions {
  /** The longest wait for a language whose diagnostics have been seen in this window. */
  coveredMs: number;
  /** The longest wait for a language not seen yet: if nothing comes by then, no provider covers it. */
  unknownMs: number;
}

// The sidecar waits 5 s at most for an answer: stay under it.
export const DEFAULT_WAIT: WaitOptions = { coveredMs: 4000, unknownMs: 600 };

/**
 * Which languages a diagnostics provider covers, as this window has seen it: a language is
 * covered once diagnostics of one of its files changed (an empty report counts: the server
 * looked), and uncovered once a wait for one of its files saw nothing. VS Code has no API that
 * lists the providers, so this is learnt; an uncovered language that reports later is covered
 * from then on.
 */
export class Coverage {
  private readonly covered = new Set<string>();
  private readonly uncovered = new Set<string>();

  /** Diagnostics of a file in `languageId` changed. */
  saw(languageId: string): void {
    this.covered.add(languageId);
    this.uncovered.delete(languageId);
  }

  /** A wait for files in `languageIds` saw no change. */
  sawNothing(languageIds: readonly string[]): void {
    for (const id of languageIds) if (!this.covered.has(id)) this.uncovered.add(id);
  }

  /** How long to wait for the first report on files in these languages: 0 when none is covered. */
  waitMs(languageIds: readonly string[], opts: WaitOptions = DEFAULT_WAIT): number {
    if (languageIds.some((id) => this.covered.has(id))) return opts.coveredMs;
    if (languageIds.some((id) => !this.uncovered.has(id))) return opts.unknownMs;
    return 0;
  }
}

/**
 * Resolves true at the first of `subscribe`'s events (the language server's report on the
 * edited file), or false after `maxMs`; at once (false) when `maxMs` is 0.
 */
export function firstChange(subscribe: (onChange: () => void) => { dispose(): void }, maxMs: number): Promise<boolean> {
  if (maxMs <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    const end = (changed: boolean) => {
      clearTimeout(deadline);
      sub.dispose();
      resolve(changed);
    };
    const deadline = setTimeout(() => end(false), maxMs);
    const sub = subscribe(() => end(true));
  });
}
