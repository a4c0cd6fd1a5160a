// The editor's context as text for the model: pure, so the unit tests run without VS Code.

/** One diagnostic, one-based. `severity`: VS Code's (0 error, 1 warning, 2 information, 3 hint). */
export interface Problem {
  path: string;
  line: number;
  character: number;
  severity: number;
  message: string;
  source?: string;
}

/** How many problems go to the model: the errors first, so they are never the ones cut. */
const MAX_PROBLEMS = 200;
const SEVERITY = ['error', 'warning', 'info', 'hint'];

/** `path:line:col severity message (source)`, a line each, errors first, capped. */
export function formatProblems(problems: Problem[]): string {
  if (problems.length === 0) return 'No problems.';
  const sorted = [...problems].sort(
    (a, b) => a.severity - b.severity || a.path.localeCompare(b.path) || a.line - b.line || a.character - b.character,
  );
  const lines = sorted.slice(0, MAX_PROBLEMS).map((p) => {
    const source = p.source ? ` (${p.source})` : '';
    // A message may span lines (rustc's notes): one line each, so the list stays a list.
    const message = p.message.replace(/\s*\n\s*/g, ' ');
    return `${p.path}:${p.line}:${p.character} ${SEVERITY[p.severity] ?? 'info'} ${message}${source}`;
  });
  if (problems.length > MAX_PROBLEMS) lines.push(`[${problems.length - MAX_PROBLEMS} more not shown of ${problems.length}]`);
  return lines.join('\n');
}

/**
 * Terminal output without its control sequences (colours, cursor moves, titles, shell
 * integration's own marks) and carriage-return overwrites, as a person would read it.
 */
export function stripTerminalControls(data: string): string {
  /* eslint-disable no-control-regex -- terminal control sequences are what this removes */
  return (
    data
      // OSC ... (BEL or ST): titles, hyperlinks, shell integration marks.
      .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
      // CSI sequences: colours, cursor moves, erases.
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
      // Other two-byte escapes.
      .replace(/\x1b[@-Z\\-_]/g, '')
      .replace(/\r\n/g, '\n')
      // A progress bar rewrites its line: keep what it ended as.
      .split('\n')
      .map((line) => line.slice(line.lastIndexOf('\r') + 1))
      .join('\n')
      // Any other control but tab and newline.
      .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '')
  );
  /* eslint-enable no-control-regex */
}
