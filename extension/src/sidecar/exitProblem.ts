// Why the sidecar stopped, in its own words, for the chat: a sidecar that refuses to start (a
// bad config file: exit 2) says why on stderr, which otherwise only the Output panel shows.

/** How many of stderr's last lines are kept: the reason is the last thing a failing start says. */
const KEPT_LINES = 20;

/** The last lines of a process's stderr, as it streams in. */
export class StderrTail {
  private lines: string[] = [];
  private partial = '';

  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts);
    if (this.lines.length > KEPT_LINES) this.lines = this.lines.slice(-KEPT_LINES);
  }

  text(): string {
    return [...this.lines, this.partial].join('\n');
  }
}

/**
 * What the chat says of an exit nobody asked for: the sidecar's own last error line (`tandem: …`,
 * the form of every fatal error it prints, without the prefix), else how it exited.
 */
export function exitProblem(stderr: string, code: number | null, signal: string | null): string {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const own = lines.filter((l) => l.startsWith('tandem: ')).pop();
  const how = signal !== null ? `it was killed by ${signal}` : `it exited with code ${code ?? '?'}`;
  if (own) return `${own.slice('tandem: '.length)} (${how})`;
  return how.charAt(0).toUpperCase() + how.slice(1);
}
