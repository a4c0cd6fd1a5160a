// Compile-time tests of the id types, checked by `npm run typecheck` (this file is in
// extension/tsconfig.json and never runs). Each `@ts-expect-error` line must not compile: if
// the brands of the generated `SessionId`, `TurnId` and `ToolCallId` were lost (plain `string`
// again), tsc fails here with "Unused '@ts-expect-error' directive".

import { wholeOutputName } from '../../src/chat/wholeOutput';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom, type SessionId, type SessionParams, type ToolCallId, type TurnId, type UndoParams } from '../../src/protocol';
import type { WebviewMessage } from '../../src/shared/messages';

function takesTurn(_turn: TurnId): void {}
function takesSession(_session: SessionId): void {}
function takesText(_text: string): void {}

const session = sessionIdFrom('0123abcd');
const turn = turnIdFrom('t1');
const call = toolCallIdFrom('call_0');

// What is meant compiles, and an id is still its text.
takesTurn(turn);
takesSession(session);
takesText(session);
wholeOutputName(session, turn, call);
export const undo: UndoParams = { sessionId: session, turnId: turn };

// @ts-expect-error: a session id where a turn id is meant
takesTurn(session);
// @ts-expect-error: a turn id where a session id is meant
takesSession(turn);
// @ts-expect-error: a plain string is no id
takesTurn('t1');
// @ts-expect-error: a tool call id is not a turn id
takesTurn(call satisfies ToolCallId);
// @ts-expect-error: the ids in the wrong order
wholeOutputName(turn, session, call);
// @ts-expect-error: a turn id in a request's sessionId
export const cancel: SessionParams = { sessionId: turn };
// @ts-expect-error: a session id in the webview's restore message
export const restore: WebviewMessage = { type: 'restore', turnId: session };
