// "Open Full Output": a command's whole output, which the sidecar keeps in its data dir when it
// streamed more than the chat is sent. The path comes through the command's output stream, which
// the command itself also writes to, so only a file named as the sidecar names it (in a folder
// named `outputs`, for this card's session, turn and call) is opened, read-only.

import type { SessionId, ToolCallId, TurnId } from '../protocol';

/** The name the sidecar gives the file (see server/agent/src/output_file.rs). */
export function wholeOutputName(sessionId: SessionId, turnId: TurnId, toolCallId: ToolCallId): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 64);
  return `${safe(sessionId)}-${safe(turnId)}-${safe(toolCallId)}.log`;
}

/** Whether `path` is the sidecar's output file of this tool call. */
export function isWholeOutputPath(path: string, sessionId: SessionId, turnId: TurnId, toolCallId: ToolCallId): boolean {
  const parts = path.split(/[\\/]/);
  return parts.length >= 3 && parts[parts.length - 2] === 'outputs' && parts[parts.length - 1] === wholeOutputName(sessionId, turnId, toolCallId) && !parts.includes('..');
}
