// What a screen reader hears of a turn. The transcript streams in many small redraws; announcing
// each would read fragments, so the log is marked busy while a turn runs and, when it ends, one
// polite status line says how it ended and what the answer was (its start).
import type { Transcript } from './transcript';

/** How much of the answer the closing announcement reads; the log holds the rest. */
const READ_CHARS = 300;

/** The announcement for the turn `turnId`, once it has ended; null while it runs. */
export function turnAnnouncement(t: Transcript, turnId: string): string | null {
  const turn = t.blocks.find((b) => b.kind === 'turn' && b.turnId === turnId);
  if (!turn || turn.kind !== 'turn' || !turn.ended) return null;
  const answer = turn.items
    .filter((i) => i.type === 'text')
    .map((i) => i.text)
    .join(' ')
    .replace(/[`*_#>]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const tools = turn.items.filter((i) => i.type === 'tool').length;
  const ran = tools ? ` after ${tools} tool call${tools === 1 ? '' : 's'}` : '';
  const said = answer ? `: ${answer.length > READ_CHARS ? `${answer.slice(0, READ_CHARS)}…` : answer}` : '.';
  switch (turn.ended.stopReason) {
    case 'cancelled':
      return `Stopped${ran}${said}`;
    case 'error':
      return `The turn failed${ran}: ${turn.ended.error ?? 'see the error in the chat'}`;
    default:
      return `Answer finished${ran}${said}`;
  }
}
