// What a failed turn (or tool call) was about, so the chat can offer the action that helps.
// Shared by host and webview: no `vscode`, no DOM.

export type ErrorKind = 'noServer' | 'auth' | 'connection' | 'stale' | 'contextOverflow' | 'other';

const KINDS: readonly string[] = ['noServer', 'auth', 'connection', 'stale', 'contextOverflow', 'other'];

/** The sidecar's texts and common provider texts, for a sidecar that sends no `errorKind`. */
const PATTERNS: [ErrorKind, RegExp][] = [
  ['noServer', /no model server is configured|no model server (was )?found|none answered at/i],
  ['auth', /\b401\b|\b403\b|unauthori[sz]ed|forbidden|invalid[ _-]api[ _-]key|incorrect api key|api key .*(missing|invalid|not valid)|authentication/i],
  ['stale', /^Error \(stale\)|changed (on disk )?since (you last read it|the edit was proposed)|was deleted since/i],
  ['contextOverflow', /context (length|window|size)|maximum context|too many tokens|prompt is too long|exceeds? the (model'?s )?(context|max)/i],
  ['connection', /could not connect|connection refused|econnrefused|connection (reset|closed|failed)|failed to connect|request to the model server failed|dns error|timed out|no route to host/i],
];

/** The kind the sidecar sent when it is one we know, else what the text says. */
export function classifyError(errorKind: unknown, text: string | null | undefined): ErrorKind {
  if (typeof errorKind === 'string' && KINDS.includes(errorKind)) return errorKind as ErrorKind;
  const t = text ?? '';
  for (const [kind, re] of PATTERNS) if (re.test(t)) return kind;
  return 'other';
}

/** A link from the model's text the host may open in the browser: http, https and mailto only. */
export function externalLink(href: string): string | undefined {
  let u: URL;
  try {
    u = new URL(href.trim());
  } catch {
    return undefined;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:' ? u.href : undefined;
}
