// The chat's mode picker on the host: the shown session's mode (`default` or `plan`), or, in a
// new chat, the mode its session will start in. The sidecar enforces the mode; this only keeps
// what the picker shows in step with it.

import type { Mode, ParamsOf, RequestMethod, ResultOf, SessionId, SetModeParams } from '../protocol';
import { Method } from '../protocol';

/** What the mode needs of the sidecar connection (typed by the method, as the sidecar is). */
export interface Requester {
  request<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
}

export class ChatMode {
  private mode: Mode = 'default';

  constructor(private readonly sidecar: Requester) {}

  get current(): Mode {
    return this.mode;
  }

  /**
   * The user picked `mode`. With a session it takes effect from its next model request (a running
   * turn included); a new chat keeps it for the session its first prompt makes. Throws when the
   * sidecar refused, leaving the shown mode as it was.
   */
  async pick(sessionId: SessionId | null, mode: Mode): Promise<void> {
    if (sessionId) await this.sidecar.request(Method.setMode, { sessionId, mode } satisfies SetModeParams);
    this.mode = mode;
  }

  /** A new chat's session was just made: it gets the mode picked before it existed. */
  async started(sessionId: SessionId): Promise<void> {
    if (this.mode !== 'default') await this.sidecar.request(Method.setMode, { sessionId, mode: this.mode } satisfies SetModeParams);
  }

  /** Another chat is shown: its recorded mode (a new chat starts in `default`). */
  shown(mode: Mode | undefined): void {
    this.mode = mode ?? 'default';
  }
}
