// "Restore to here": `tandem/undo` to before a turn, with the user's say when it would lose their
// work. The sidecar restores nothing while a file it would put back was changed since the agent
// wrote it; it lists those files with what would be lost, and this asks the user before calling
// again with `confirm`. Pure apart from the calls it is given, so the flow is unit-tested.

import type { UndoConflict, UndoParams, UndoResult } from '../protocol';

export interface RestoreDeps {
  undo(params: UndoParams): Promise<UndoResult>;
  /** Asks the user (a modal); true when they choose to restore anyway. */
  confirm(message: string, detail: string): Promise<boolean>;
}

export type RestoreOutcome =
  | { kind: 'restored'; restored: string[]; overwritten: UndoConflict[] }
  | { kind: 'declined'; conflicts: UndoConflict[] };

/** The most lines of one file's `lost` the dialog shows, and the most characters in all. */
const MAX_LINES = 20;
const MAX_DETAIL = 4000;

/** The dialog's text: each file, what happened to it, and what restoring it would lose. */
export function conflictDetail(conflicts: readonly UndoConflict[]): string {
  const parts = conflicts.map((c) => {
    const what = c.change === 'deleted' ? 'you deleted it since; restoring brings it back' : 'you changed it since the agent wrote it; your changes would be lost';
    const lines = c.lost.split('\n').filter((l, i, all) => !(i === all.length - 1 && l === ''));
    const shown = lines.slice(0, MAX_LINES).join('\n');
    const more = lines.length > MAX_LINES ? `\n… ${lines.length - MAX_LINES} more lines` : '';
    return `${c.path}: ${what}.${shown ? `\n${shown}${more}` : ''}`;
  });
  const text = parts.join('\n\n');
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}\n…` : text;
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
export async function restoreTo(deps: RestoreDeps, sessionId: string, turnId: string | undefined): Promise<RestoreOutcome> {
  const base: UndoParams = turnId === undefined ? { sessionId } : { sessionId, turnId };
  const first = await deps.undo(base);
  if (!first.needsConfirmation) return { kind: 'restored', restored: first.restored, overwritten: [] };
  const label = turnId === undefined ? 'the last turn’s files' : 'to before this turn';
  const yes = await deps.confirm(conflictMessage(first.conflicts, label), conflictDetail(first.conflicts));
  if (!yes) return { kind: 'declined', conflicts: first.conflicts };
  const second = await deps.undo({ ...base, confirm: true });
  return { kind: 'restored', restored: second.restored, overwritten: first.conflicts };
}

/** The chat's notice for an outcome. */
export function restoreNotice(outcome: RestoreOutcome, turnId: string | undefined): string {
  if (outcome.kind === 'declined') {
    return `Nothing was restored: you kept your changes to ${outcome.conflicts.map((c) => c.path).join(', ')}.`;
  }
  if (outcome.restored.length === 0) {
    return turnId === undefined ? 'Nothing to restore: no turn of this chat changed files.' : 'Nothing to restore: no files were changed from this turn on.';
  }
  const where = turnId === undefined ? 'before the last turn that changed files' : 'before this turn';
  return `Restored the files to ${where}: ${outcome.restored.join(', ')}. The model is told at your next prompt.`;
}
