// The session, turn and tool-call ids are branded strings (generated from server/protocol's
// ids.rs), so one can't be passed where another is meant. Ids from the wire come typed; these
// are the only places one is made from a string the types don't vouch for (the workspace
// state, a webview message, a diff view's URI, a test). Each takes the text as it is: the
// sidecar checks ids it is sent.

import type { SessionId, ToolCallId, TurnId } from './generated';

/** A session id from text that is one. */
export function sessionIdFrom(text: string): SessionId {
  return text as SessionId;
}

/** A turn id from text that is one. */
export function turnIdFrom(text: string): TurnId {
  return text as TurnId;
}

/** A tool call id from text that is one. */
export function toolCallIdFrom(text: string): ToolCallId {
  return text as ToolCallId;
}
