// When the webview's state is written. `setState` serialises the whole state (the saved chat
// too, up to 256 KiB: savedChat.ts), so the draft's keystrokes are written at most every
// `delayMs`; every other change, and the page going away, writes at once (a pending draft with it).

export class StateSaver {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly write: () => void,
    private readonly delayMs: number,
  ) {}

  /** Writes now, the pending draft included. */
  now(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.write();
  }

  /** Writes within `delayMs`, once for any number of calls meanwhile. */
  soon(): void {
    this.timer ??= setTimeout(() => this.now(), this.delayMs);
  }

  /** Writes what `soon` still holds (the page is going away). */
  flush(): void {
    if (this.timer !== undefined) this.now();
  }
}
