// Which transcript the chat shows, and whether it is the sidecar's: after a reload it first shows
// the copy saved in the webview's state (savedChat.ts), which the host's `reset` then confirms or
// replaces. Until the host has the session from the sidecar, nothing may be sent to it.

import type { SessionId } from '../src/protocol';
import type { LogEntry } from '../src/shared/messages';
import { mergeDeltas, readSavedChat, saveChat, savedEntries } from './savedChat';
import { buildTranscript, applyEntry, type Transcript } from './transcript';

/**
 * `saved`: the copy from the webview's state is on screen. `loading`: the host is loading the
 * session from the sidecar and nothing of it is shown. `sidecar`: the host's transcript is.
 */
export type Source = 'saved' | 'loading' | 'sidecar';

/** What a `reset` did to the screen. */
export type ResetOutcome = 'kept' | 'replaced';

export class ShownChat {
  sessionId: SessionId | null = null;
  /** The shown transcript's entries, as the host sent them (the saved form is made from them). */
  entries: LogEntry[] = [];
  transcript: Transcript = buildTranscript([]);
  source: Source = 'loading';

  /** Starts from the webview's saved state (`raw`, as `saveChat` made it), when there is one. */
  constructor(raw: unknown) {
    const saved = readSavedChat(raw);
    if (!saved) return;
    try {
      const entries = savedEntries(saved);
      this.transcript = buildTranscript(entries);
      this.entries = entries;
      this.sessionId = saved.sessionId;
      this.source = 'saved';
    } catch {
      // A state this version cannot fold: the host's transcript comes anyway.
      this.transcript = buildTranscript([]);
    }
  }

  /** Whether a prompt may be sent: only to a chat the host has from the sidecar. */
  get sendable(): boolean {
    return this.source === 'sidecar';
  }

  /**
   * The host's `reset`. `loaded` false: the host has not had the session from the sidecar yet,
   * and the saved copy stays up if it is of that session (of another, it goes: no stale turns).
   * `loaded` true: its entries replace whatever is shown, unless they are what is shown already.
   */
  reset(sessionId: SessionId | null, entries: LogEntry[], loaded: boolean): ResetOutcome {
    // What the host has before the load (a notice at most) is replaced by the load's answer too.
    if (!loaded && this.source === 'saved' && sessionId !== null && sessionId === this.sessionId) return 'kept';
    const same = this.source === 'saved' && sessionId === this.sessionId && sameEntries(this.entries, entries);
    this.sessionId = sessionId;
    this.source = loaded ? 'sidecar' : 'loading';
    if (same) {
      this.entries = entries;
      return 'kept';
    }
    this.entries = entries;
    this.transcript = buildTranscript(entries);
    return 'replaced';
  }

  /** The host's `append`; true when the saved copy is worth writing now (a turn ended, a notice). */
  append(entries: readonly LogEntry[]): boolean {
    for (const e of entries) {
      this.entries.push(e);
      applyEntry(this.transcript, e);
    }
    return this.source === 'sidecar' && entries.some((e) => e.kind === 'turnEnded' || e.kind === 'notice');
  }

  /** The saved form of what is shown, for the webview's state; undefined unless it is the sidecar's. */
  saved(): string | undefined {
    return this.source === 'sidecar' ? saveChat(this.sessionId, this.entries) : undefined;
  }
}

/** Whether two transcripts show the same (streamed deltas merged, as the saved form has them). */
function sameEntries(a: readonly LogEntry[], b: readonly LogEntry[]): boolean {
  return JSON.stringify(mergeDeltas(a)) === JSON.stringify(mergeDeltas(b));
}
