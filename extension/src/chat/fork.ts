// Edit and resend an earlier prompt: the chat forks (`tandem/forkSession`) into a new session
// that continues from just before that prompt; the original stays in the history, whole. When
// that turn or a later one changed files, the user chooses whether to put them back as they were
// before it (through "Restore to here", with its own questions); the default leaves the files as
// they are. Pure apart from the calls it is given, so the flow is unit-tested.

import type { ForkSessionParams, LoadSessionResult, SessionId, TurnChangesParams, TurnChangesResult, TurnId } from '../protocol';
import type { RestoreOutcome } from './restore';

export interface ForkDeps {
  turnChanges(params: TurnChangesParams): Promise<TurnChangesResult>;
  /** Asks whether to restore the files; `undefined` when the user cancelled (nothing is sent). */
  askFiles(message: string, detail: string): Promise<'keep' | 'restore' | undefined>;
  /** "Restore to here" on the original session (it asks again on conflicts). */
  restore(sessionId: SessionId, turnId: TurnId): Promise<RestoreOutcome>;
  fork(params: ForkSessionParams): Promise<LoadSessionResult>;
}

export type ForkOutcome =
  | { kind: 'cancelled' }
  /** The user chose to restore, then kept their changes at the conflict question: nothing forked. */
  | { kind: 'declined'; restore: RestoreOutcome }
  | { kind: 'forked'; loaded: LoadSessionResult; restore?: RestoreOutcome };

/** A turn id's number (`t3` → 3); turn ids are a session's counter. */
export function turnNumber(turnId: TurnId): number | undefined {
  const m = /^t(\d+)$/.exec(turnId);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * Whether `turnId` or a later turn has changes not undone: the last such turn (the sidecar's
 * answer without a turn id) is not before it.
 */
export async function filesChangedFrom(deps: Pick<ForkDeps, 'turnChanges'>, sessionId: SessionId, turnId: TurnId): Promise<boolean> {
  const last = await deps.turnChanges({ sessionId });
  if (!last.turnId || last.files.length === 0) return false;
  const from = turnNumber(turnId);
  const lastN = turnNumber(last.turnId);
  // Ids this chat can't compare: ask rather than guess that nothing changed.
  return from === undefined || lastN === undefined || lastN >= from;
}

export const KEEP_FILES = 'Keep Files as They Are';
export const RESTORE_FILES = 'Restore Files to Before It';

/**
 * Forks `sessionId` before `turnId`, first asking about the files when that turn or a later one
 * changed some. Nothing is forked when the user cancels, or declines a restore's conflict.
 */
export async function forkBefore(deps: ForkDeps, sessionId: SessionId, turnId: TurnId): Promise<ForkOutcome> {
  let restored: RestoreOutcome | undefined;
  if (await filesChangedFrom(deps, sessionId, turnId)) {
    const choice = await deps.askFiles(
      'The edited prompt continues a new chat from before it. Its turn or later ones changed files: restore them too?',
      'Keep Files leaves the workspace as it is now. Restore puts back every file the agent changed from that prompt on (asking first about files you changed since). The original chat stays in the history either way.',
    );
    if (choice === undefined) return { kind: 'cancelled' };
    if (choice === 'restore') {
      restored = await deps.restore(sessionId, turnId);
      if (restored.kind === 'declined') return { kind: 'declined', restore: restored };
    }
  }
  const loaded = await deps.fork({ sessionId, beforeTurn: turnId });
  return restored ? { kind: 'forked', loaded, restore: restored } : { kind: 'forked', loaded };
}
