// The chat's last transcript in the webview's own saved state (VS Code keeps it across a window
// reload), so a reloaded chat shows its turns at once instead of after the sidecar has started
// and loaded the session. Bounded: setState serialises the whole state on every call (each
// keystroke of the draft too), so what is kept is the last whole turns that fit MAX_CHARS.
// What it holds is the model's text as it was shown: untrusted, rendered as the live chat is.

import { type SessionId, sessionIdFrom } from '../src/protocol';
import type { LogEntry } from '../src/shared/messages';

/** The most characters of JSON the saved transcript takes (UTF-16 units, as JSON.stringify counts). */
export const MAX_CHARS = 256 * 1024;
/** The most turns kept: a reload shows the end of a chat; the sidecar's answer brings the rest. */
export const MAX_TURNS = 50;
/** The saved form's version: a state from another version is ignored, not misread. */
const VERSION = 1;

export interface SavedChat {
  sessionId: SessionId;
  /** The last turns' entries, streamed deltas merged. */
  entries: LogEntry[];
  /** Turns of the chat that were not kept. */
  earlier: number;
}

/**
 * Adjacent text (or reasoning) deltas of one turn as one entry: the transcript folds them the
 * same way, and a streamed answer is otherwise hundreds of entries.
 */
export function mergeDeltas(entries: readonly LogEntry[]): LogEntry[] {
  const out: LogEntry[] = [];
  for (const e of entries) {
    const last = out[out.length - 1];
    if ((e.kind === 'text' || e.kind === 'reasoning') && last !== undefined && last.kind === e.kind && last.turnId === e.turnId) {
      out[out.length - 1] = { ...last, delta: last.delta + e.delta };
    } else {
      out.push(e);
    }
  }
  return out;
}

/**
 * The saved form of a chat: its last whole turns within `maxChars` and `maxTurns` (what came
 * before the first turn, such as a notice, counts as a turn of its own). Undefined for no chat.
 */
export function saveChat(sessionId: SessionId | null, entries: readonly LogEntry[], maxChars = MAX_CHARS, maxTurns = MAX_TURNS): string | undefined {
  if (sessionId === null) return undefined;
  const groups: LogEntry[][] = [];
  for (const e of mergeDeltas(entries)) {
    const current = groups[groups.length - 1];
    if (current === undefined || e.kind === 'turnStarted') groups.push([e]);
    else current.push(e);
  }
  const envelope = JSON.stringify({ v: VERSION, sessionId, earlier: groups.length, entries: [] }).length;
  let size = envelope;
  let first = groups.length;
  while (first > 0 && groups.length - first < maxTurns) {
    const group = groups[first - 1] ?? [];
    // Each entry's JSON and its comma.
    const more = group.reduce((n, e) => n + JSON.stringify(e).length + 1, 0);
    if (size + more > maxChars) break;
    size += more;
    first--;
  }
  return JSON.stringify({ v: VERSION, sessionId, earlier: first, entries: groups.slice(first).flat() });
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The saved chat back, or undefined when there is none or it is not of this version. Its entries
 * are checked for shape only: they are rendered as the live ones, through the sanitiser.
 */
export function readSavedChat(raw: unknown): SavedChat | undefined {
  if (typeof raw !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || parsed.v !== VERSION || typeof parsed.sessionId !== 'string' || !Array.isArray(parsed.entries)) return undefined;
  if (typeof parsed.earlier !== 'number' || !Number.isInteger(parsed.earlier) || parsed.earlier < 0) return undefined;
  const entries: unknown[] = parsed.entries;
  if (!entries.every((e) => isRecord(e) && typeof e.kind === 'string')) return undefined;
  return { sessionId: sessionIdFrom(parsed.sessionId), entries: entries as LogEntry[], earlier: parsed.earlier };
}

/** What the saved chat shows: a note for the turns left out, then its turns. */
export function savedEntries(saved: SavedChat): LogEntry[] {
  if (saved.earlier === 0) return saved.entries;
  const turns = saved.earlier === 1 ? '1 earlier turn' : `${saved.earlier} earlier turns`;
  return [{ kind: 'notice', level: 'info', text: `${turns} of this chat show once Tandem has loaded it.` }, ...saved.entries];
}
