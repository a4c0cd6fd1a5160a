// The messages between the extension host and the chat webview. Shared by both bundles, so it
// must not import `vscode` or touch the DOM.
//
// The host owns the truth: the transcript is the sidecar's updates as the host logged them, and
// the webview only renders it. A webview that is recreated gets it all again in one `reset`.

import { type ApprovalRequest, type ContextItem, type CustomCommand, type Decision, type Mode, type ModelInfo, type SessionId, sessionIdFrom, type ToolCallId, toolCallIdFrom, type TurnId, turnIdFrom, type UpdateParams } from '../protocol';
import { type ImageAttachment, isImageAttachment, MAX_IMAGES } from './images';

/** A line the extension itself adds to the transcript (sidecar restarts, undo results, errors). */
export interface Notice {
  kind: 'notice';
  level: 'info' | 'error';
  text: string;
}

export type LogEntry = UpdateParams | Notice;

/** A piece of context waiting to go with the next prompt. */
export interface Attachment {
  /** What the chip shows, e.g. `src/main.rs:10-20`. */
  label: string;
  item: ContextItem;
}

/** An approval request as the chat shows it. */
export type PendingApproval = ApprovalRequest & {
  /** The edited file relative to the workspace. */
  displayPath?: string;
};

export type SidecarState = 'starting' | 'running' | 'stopped';

/** Whether a model server answered the chat's check (the model listing), and if not, why. */
export type ServerState =
  | { problem: 'none' }
  | { problem: 'checking' }
  /** Nothing configured, and no local server answered. */
  | { problem: 'noServer'; baseUrl: string | null; detail: string }
  /** The configured endpoint did not answer. */
  | { problem: 'unreachable'; baseUrl: string | null; detail: string }
  /** The endpoint refused the key (or got none). */
  | { problem: 'auth'; baseUrl: string | null; detail: string };

/**
 * Names one approval request. Turn ids are per-session counters (`t1`, `t2`) and local models
 * reuse tool-call ids (`call_0`), so only the three together tell two requests apart.
 */
export interface ApprovalRef {
  sessionId: SessionId;
  turnId: TurnId;
  toolCallId: ToolCallId;
}

/** A map key for an approval request. */
export function approvalKey(r: ApprovalRef): string {
  return JSON.stringify([r.sessionId, r.turnId, r.toolCallId]);
}

/** The same ref, without any other fields the request carries. */
export function approvalRef(r: ApprovalRef): ApprovalRef {
  return { sessionId: r.sessionId, turnId: r.turnId, toolCallId: r.toolCallId };
}

export type HostMessage =
  /**
   * The chat to show. `loaded`: whether `entries` are the sidecar's transcript of the session; false
   * while the host is still loading it (after a reload), when nothing may be sent to it yet.
   */
  | { type: 'reset'; sessionId: SessionId | null; entries: LogEntry[]; loaded: boolean }
  | { type: 'append'; entries: LogEntry[] }
  | { type: 'status'; runningTurn: TurnId | null; sidecar: SidecarState; /** Why it stopped unasked, in its own words. */ sidecarProblem: string | null }
  | { type: 'approvals'; pending: PendingApproval[] }
  | { type: 'models'; models: ModelInfo[]; current: string | null }
  | { type: 'endpoint'; baseUrl: string | null; hasKey: boolean }
  | { type: 'attach'; attachment: Attachment }
  /** An image file the host read for the composer (an `@` pick, a drop from the explorer). */
  | { type: 'image'; image: ImageAttachment }
  | { type: 'fileMatches'; query: string; paths: string[] }
  /** The custom commands for the composer's `/` menu, read from their files just now. */
  | { type: 'commands'; commands: CustomCommand[] }
  /** The shown chat's mode (a new chat's: the mode its session will start in). */
  | { type: 'mode'; mode: Mode }
  /** What the last check for a model server found. */
  | { type: 'server'; state: ServerState }
  /** An earlier prompt back in the box to edit (its fork was cancelled before it was sent). */
  | { type: 'editPrompt'; turnId: TurnId; text: string; attachments: Attachment[]; images: ImageAttachment[] }
  /** What the earlier prompt being edited was sent with, back as chips (`editPromptOf`'s answer). */
  | { type: 'editAttachments'; turnId: TurnId; attachments: Attachment[]; images: ImageAttachment[] };

export type { Decision };

export type ChatCommand = 'newChat' | 'showHistory' | 'undoLastTurn' | 'setApiKey' | 'openSettings' | 'checkServer' | 'openConfigFile' | 'showOutput';

export type WebviewMessage =
  | { type: 'ready' }
  /** `forkBefore`: an earlier prompt edited, sent as a fork of the chat from before that turn. */
  | { type: 'send'; text: string; attachments: Attachment[]; images: ImageAttachment[]; forkBefore?: TurnId }
  /** Read this workspace image (a path or a `file:` URI) and send it back as an `image`. */
  | { type: 'attachImage'; path: string }
  | { type: 'stop' }
  | { type: 'decide'; ref: ApprovalRef; decision: Decision; feedback?: string }
  | { type: 'openDiff'; ref: ApprovalRef }
  | { type: 'setModel'; model: string }
  | { type: 'findFiles'; query: string }
  | { type: 'command'; command: ChatCommand }
  /** Code block buttons: to the clipboard, or into the active editor at the cursor. */
  | { type: 'copy'; text: string }
  | { type: 'insert'; text: string }
  /** A link in the model's text; the host opens http(s) and mailto only. */
  | { type: 'openLink'; href: string }
  /** A command's whole output, as the sidecar kept it (the host checks the path). */
  | { type: 'openOutput'; turnId: TurnId; toolCallId: ToolCallId; path: string }
  /** Send the last prompt again (after a connection or server error). */
  | { type: 'retry' }
  /** "Restore to here": put the files back as they were before this turn. */
  | { type: 'restore'; turnId: TurnId }
  /** A turn's changes in the multi-diff editor. */
  | { type: 'showChanges'; turnId: TurnId }
  /** The mode picker. */
  | { type: 'setMode'; mode: Mode }
  /** The composer's `/` menu opened: the commands, please. */
  | { type: 'listCommands' }
  /** Edit on an earlier prompt: what it was sent with, please (an `editAttachments`). */
  | { type: 'editPromptOf'; turnId: TurnId };

const CHAT_COMMANDS: readonly string[] = ['newChat', 'showHistory', 'undoLastTurn', 'setApiKey', 'openSettings', 'checkServer', 'openConfigFile', 'showOutput'];

/** The most text a code block button carries (a bigger one is not a code block from the chat). */
const MAX_CODE = 4 * 1024 * 1024;

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function isString(x: unknown): x is string {
  return typeof x === 'string';
}

/** A turn id as the webview sends it: a short non-empty string (the sidecar checks it is one). */
function isTurnId(x: unknown): x is string {
  return isString(x) && x !== '' && x.length <= 256;
}

/** The ref in a webview message: three strings, typed as the ids they name. */
function parseRef(x: unknown): ApprovalRef | undefined {
  return isRecord(x) && isString(x.sessionId) && isString(x.turnId) && isString(x.toolCallId)
    ? { sessionId: sessionIdFrom(x.sessionId), turnId: turnIdFrom(x.turnId), toolCallId: toolCallIdFrom(x.toolCallId) }
    : undefined;
}

function isPosition(x: unknown): boolean {
  return isRecord(x) && Number.isInteger(x.line) && Number.isInteger(x.character);
}

function isAttachment(x: unknown): x is Attachment {
  if (!isRecord(x) || !isString(x.label) || !isRecord(x.item)) return false;
  const { path, text, range } = x.item;
  return (
    isString(path) &&
    (text === undefined || isString(text)) &&
    (range === undefined || (isRecord(range) && isPosition(range.start) && isPosition(range.end)))
  );
}

/**
 * The webview's message if it is one the host understands, else `undefined`. The webview runs
 * only our own script, but the host still checks every field before acting on it.
 */
export function parseWebviewMessage(x: unknown): WebviewMessage | undefined {
  if (!isRecord(x)) return undefined;
  switch (x.type) {
    case 'ready':
    case 'stop':
    case 'retry':
    case 'listCommands':
      return { type: x.type };
    case 'setMode':
      return x.mode === 'default' || x.mode === 'plan' ? { type: 'setMode', mode: x.mode } : undefined;
    case 'copy':
    case 'insert':
      return isString(x.text) && x.text.length <= MAX_CODE ? { type: x.type, text: x.text } : undefined;
    case 'openLink':
      return isString(x.href) && x.href.length <= 8192 ? { type: 'openLink', href: x.href } : undefined;
    case 'send': {
      if (!isString(x.text) || !Array.isArray(x.attachments) || !x.attachments.every(isAttachment)) return undefined;
      if (x.forkBefore !== undefined && !isTurnId(x.forkBefore)) return undefined;
      const fork = isTurnId(x.forkBefore) ? { forkBefore: turnIdFrom(x.forkBefore) } : {};
      if (x.images === undefined) return { type: 'send', text: x.text, attachments: x.attachments, images: [], ...fork };
      return Array.isArray(x.images) && x.images.length <= MAX_IMAGES && x.images.every(isImageAttachment)
        ? { type: 'send', text: x.text, attachments: x.attachments, images: x.images, ...fork }
        : undefined;
    }
    case 'attachImage':
      return isString(x.path) && x.path !== '' && x.path.length <= 4096 ? { type: 'attachImage', path: x.path } : undefined;
    case 'decide': {
      const ref = parseRef(x.ref);
      if (!ref || (x.decision !== 'accept' && x.decision !== 'acceptAlways' && x.decision !== 'reject')) {
        return undefined;
      }
      if (x.feedback !== undefined && !isString(x.feedback)) return undefined;
      return {
        type: 'decide',
        ref,
        decision: x.decision,
        ...(x.feedback ? { feedback: x.feedback } : {}),
      };
    }
    case 'openDiff': {
      const ref = parseRef(x.ref);
      return ref ? { type: 'openDiff', ref } : undefined;
    }
    case 'restore':
      return isTurnId(x.turnId) ? { type: 'restore', turnId: turnIdFrom(x.turnId) } : undefined;
    case 'showChanges':
      return isTurnId(x.turnId) ? { type: 'showChanges', turnId: turnIdFrom(x.turnId) } : undefined;
    case 'editPromptOf':
      return isTurnId(x.turnId) ? { type: 'editPromptOf', turnId: turnIdFrom(x.turnId) } : undefined;
    case 'setModel':
      return isString(x.model) && x.model !== '' ? { type: 'setModel', model: x.model } : undefined;
    case 'openOutput':
      // The host opens only the sidecar's output file of that call (wholeOutput.ts checks).
      return isString(x.turnId) && isString(x.toolCallId) && isString(x.path) && x.path.length <= 4096
        ? { type: 'openOutput', turnId: turnIdFrom(x.turnId), toolCallId: toolCallIdFrom(x.toolCallId), path: x.path }
        : undefined;
    case 'findFiles':
      return isString(x.query) ? { type: 'findFiles', query: x.query } : undefined;
    case 'command':
      return isString(x.command) && CHAT_COMMANDS.includes(x.command)
        ? { type: 'command', command: x.command as ChatCommand }
        : undefined;
    default:
      return undefined;
  }
}
