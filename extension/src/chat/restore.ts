// "Restore to here": `tandem/undo` to before a turn, with the user's say when it would lose their
// work. The sidecar restores nothing while a file it would put back was changed since the agent
// wrote it; it lists those files with what would be lost, and this asks the user before calling
// again with `confirm`. Pure apart from the calls it is given, so the flow is unit-tested.

import { applyPatch } from 'diff';
import type { SessionId, TurnId, UndoConflict, UndoParams, UndoResult } from '../protocol';

export interface RestoreDeps {
  undo(params: UndoParams): Promise<UndoResult>;
  /**
   * Shows the user what restoring would lose (`conflicts`, as diffs) and asks; true only when
   * they choose to restore anyway. The safe answer is the default.
   */
  confirm(message: string, detail: string, conflicts: readonly UndoConflict[]): Promise<boolean>;
}

export type RestoreOutcome =
  | { kind: 'restored'; restored: string[]; overwritten: UndoConflict[] }
  | { kind: 'declined'; conflicts: UndoConflict[] };

/** The most characters of the dialog's text. */
const MAX_DETAIL = 2000;

/**
 * The dialog's text: each file and what happened to it. What would be lost is not quoted here:
 * it opens as a diff beside the dialog (see lossView.ts), whole.
 */
export function conflictDetail(conflicts: readonly UndoConflict[]): string {
  const parts = conflicts.map((c) =>
    c.change === 'deleted'
      ? `${c.path}: you deleted it since; restoring brings it back.`
      : `${c.path}: you changed it since the agent wrote it; your changes would be lost (${lostLines(c.lost)}).`,
  );
  const shown = conflicts.some((c) => c.change === 'modified') ? '\n\nThe diff beside this dialog shows what you would lose: your text now on the left, the restored file on the right.' : '';
  const text = parts.join('\n') + shown;
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}\n…` : text;
}

/** "3 lines removed, 1 changed" of a unified diff, in words. */
function lostLines(unified: string): string {
  let removed = 0;
  let added = 0;
  for (const line of unified.split('\n')) {
    if (line.startsWith('-') && !line.startsWith('---')) removed++;
    else if (line.startsWith('+') && !line.startsWith('+++')) added++;
  }
  const n = (k: number, what: string) => `${k} line${k === 1 ? '' : 's'} ${what}`;
  return [removed > 0 ? n(removed, 'of yours') : '', added > 0 ? n(added, 'put back') : ''].filter(Boolean).join(', ') || 'no line';
}

/**
 * The text restoring gives, from the file's text now and the sidecar's `lost` (a unified diff
 * from now to the restored text); undefined when the diff does not apply (the file changed again).
 */
export function restoredText(now: string, lost: string): string | undefined {
  const out = applyPatch(now, lost);
  return out === false ? undefined : out;
}

/** The dialog's question. */
export function conflictMessage(conflicts: readonly UndoConflict[], turnLabel: string): string {
  const files = conflicts.length === 1 ? `${conflicts[0]?.path ?? 'A file'} was` : `${conflicts.length} files were`;
  return `${files} changed after the agent wrote ${conflicts.length === 1 ? 'it' : 'them'}. Restoring ${turnLabel} overwrites those changes.`;
}

/**
 * Restores to before `turnId` (the last turn that changed files when absent). Asks first when
 * the sidecar reports conflicts; nothing is restored unless the user agrees.
 */
export async function restoreTo(deps: RestoreDeps, sessionId: SessionId, turnId: TurnId | undefined): Promise<RestoreOutcome> {
  const base: UndoParams = turnId === undefined ? { sessionId } : { sessionId, turnId };
  const first = await deps.undo(base);
  if (!first.needsConfirmation) return { kind: 'restored', restored: first.restored, overwritten: [] };
  const label = turnId === undefined ? 'the last turn’s files' : 'to before this turn';
  const yes = await deps.confirm(conflictMessage(first.conflicts, label), conflictDetail(first.conflicts), first.conflicts);
  if (!yes) return { kind: 'declined', conflicts: first.conflicts };
  const second = await deps.undo({ ...base, confirm: true });
  return { kind: 'restored', restored: second.restored, overwritten: first.conflicts };
}

/** The chat's notice for an outcome. */
export function restoreNotice(outcome: RestoreOutcome, turnId: TurnId | undefined): string {
  if (outcome.kind === 'declined') {
    return `Nothing was restored: you kept your changes to ${outcome.conflicts.map((c) => c.path).join(', ')}.`;
  }
  if (outcome.restored.length === 0) {
    return turnId === undefined ? 'Nothing to restore: no turn of this chat changed files.' : 'Nothing to restore: no files were changed from this turn on.';
  }
  const where = turnId === undefined ? 'before the last turn that changed files' : 'before this turn';
  return `Restored the files to ${where}: ${outcome.restored.join(', ')}. The model is told at your next prompt.`;
}
