// The history picker's rows. Pure: the session passes the sidecar's list and a date format.

import type { SessionId, SessionInfo } from '../protocol';

export interface HistoryPick {
  label: string;
  description: string;
  detail: string;
  sessionId: SessionId;
}

/** A date and time the way the user's locale writes them, e.g. `21 Nov 2026, 19:40`. */
export const localDateTime = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

/** A folder's last name, whichever separator its path uses. */
const folderName = (path: string): string => path.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || path;

/**
 * Newest first. The first prompt is the label; the start date and the last activity tell chats
 * with the same first prompt apart, and the id's first characters do when even those match.
 */
export function historyPicks(sessions: readonly SessionInfo[], current: SessionId | null, format: (iso: string) => string = localDateTime): HistoryPick[] {
  return [...sessions]
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    .map((s) => ({
      label: s.title.trim() || '(no prompt yet)',
      description: format(s.createdAt),
      detail: [
        `last active ${format(s.updatedAt)}`,
        // A multi-root chat names its other folders: the same first prompt in another set of
        // folders is another chat.
        ...(s.additionalRoots.length > 0 ? [`also ${s.additionalRoots.map(folderName).join(', ')}`] : []),
        `#${s.sessionId.slice(0, 8)}`,
        ...(s.sessionId === current ? ['current chat'] : []),
      ].join(' · '),
      sessionId: s.sessionId,
    }));
}
