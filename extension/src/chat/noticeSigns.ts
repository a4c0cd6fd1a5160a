// What the notices show, decided without VS Code (notices.ts applies it).

/** Turns shorter than this end in plain sight often enough; longer ones earn a notification. */
export const LONG_TURN_MS = 30_000;

export interface WaitingSigns {
  badge: { value: number; tooltip: string } | undefined;
  /** The status-bar item's text, or undefined to hide it. */
  status: string | undefined;
}

/** What shows while `waiting` approvals are pending. The badge stays while any waits; the
 * status-bar item only while the view is out of sight (in sight, the card itself is the sign). */
export function waitingSigns(waiting: number, viewVisible: boolean): WaitingSigns {
  if (waiting <= 0) return { badge: undefined, status: undefined };
  const what = waiting === 1 ? 'An approval waits' : `${waiting} approvals wait`;
  return {
    badge: { value: waiting, tooltip: `${what} in Tandem` },
    status: viewVisible ? undefined : `$(bell-dot) Tandem: ${what.toLowerCase()}`,
  };
}

/** Whether a turn's end is worth a notification: long, the view hidden, the setting on. */
export function notifyTurnEnd(tookMs: number, viewVisible: boolean, enabled: boolean): boolean {
  return enabled && !viewVisible && tookMs >= LONG_TURN_MS;
}
