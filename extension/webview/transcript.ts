// The chat as a model: the host's log of sidecar updates folded into turns and items. Pure, so
// it is tested without a DOM; render.ts turns it into elements.

import type { ErrorKind, FileChangeSummary, ToolCallId, ToolStatus, StopReason, TurnId, Update } from '../src/protocol';
import type { LogEntry } from '../src/shared/messages';

/**
 * The most of a command's output the chat keeps and shows (the tail). The model gets what the
 * tool result says either way; this bounds the webview's memory and the DOM.
 */
export const OUTPUT_CAP = 256 * 1024;

interface Base {
  /** Stable across updates: the render cache and the user's expand/collapse state key on it. */
  id: string;
  /** Bumped on every change, so the renderer redraws only what changed. */
  rev: number;
}

export interface UserItem extends Base {
  type: 'user';
  text: string;
}

export interface TextItem extends Base {
  type: 'text';
  text: string;
}

export interface ReasoningItem extends Base {
  type: 'reasoning';
  text: string;
}

export type ToolState = 'running' | ToolStatus;

export interface ToolItem extends Base {
  type: 'tool';
  /** The model's id for the call. Not unique: local models reuse ids across turns and steps. */
  toolCallId: ToolCallId;
  name: string;
  title: string;
  arguments: unknown;
  state: ToolState;
  /** The output's last OUTPUT_CAP characters. */
  output: string;
  /** Characters of output received in all: appends grow it without bumping `rev`. */
  outputTotal: number;
  diff?: string;
  /** The edit was refused because the file changed since the model read it. */
  stale?: boolean;
  /** Where the sidecar kept the whole output of a command that streamed more than it shows. */
  wholeOutput?: string;
  /** The files the call changed other than through an edit (a command's writes), as reported. */
  filesChanged?: FileChangeSummary[];
  /** A `task` call's subagent: its name and its own tool calls, nested under this card. */
  subagent?: Subagent;
}

export interface Subagent {
  agent: string;
  /** Its calls, in order; their ids are the subagent's own. */
  calls: ToolItem[];
}

export type Item = UserItem | TextItem | ReasoningItem | ToolItem;

export interface Turn {
  kind: 'turn';
  turnId: TurnId;
  items: Item[];
  ended?: { stopReason: StopReason; error?: string; errorKind?: ErrorKind };
  /** The model request is being tried again: what the footer says until the next update. */
  retrying?: string;
}

export interface NoticeBlock {
  kind: 'notice';
  id: string;
  level: 'info' | 'error';
  text: string;
}

export type Block = Turn | NoticeBlock;

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  contextWindow?: number;
}

export interface Transcript {
  blocks: Block[];
  usage?: Usage;
}

export function emptyTranscript(): Transcript {
  return { blocks: [] };
}

function turnFor(t: Transcript, turnId: TurnId): Turn {
  const last = t.blocks[t.blocks.length - 1];
  if (last?.kind === 'turn' && last.turnId === turnId) return last;
  // Updates of a turn arrive together; a turn already closed by a notice is found further back.
  for (let i = t.blocks.length - 1; i >= 0; i--) {
    const b = t.blocks[i];
    if (b?.kind === 'turn' && b.turnId === turnId) return b;
  }
  const turn: Turn = { kind: 'turn', turnId, items: [] };
  t.blocks.push(turn);
  return turn;
}

function findTool(turn: Turn, toolCallId: ToolCallId): ToolItem | undefined {
  return findLast(turn.items, toolCallId);
}

function findLast(items: readonly Item[], toolCallId: ToolCallId): ToolItem | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.type === 'tool' && item.toolCallId === toolCallId) return item;
  }
  return undefined;
}

/**
 * A subagent's update, into its `task` card: its calls and their results (its text is its answer,
 * which the card's own result shows; its tokens are in the turn's totals, not the context bar).
 */
function applySubagent(parent: ToolItem, agent: string, u: LogUpdate): void {
  const sub = (parent.subagent ??= { agent, calls: [] });
  switch (u.kind) {
    case 'toolCall':
      sub.calls.push({
        type: 'tool',
        id: `${parent.id}:sub:${sub.calls.length}`,
        toolCallId: u.toolCallId,
        rev: 0,
        name: u.name,
        title: u.title,
        arguments: u.arguments,
        state: 'running',
        output: '',
        outputTotal: 0,
      });
      break;
    case 'toolResult': {
      const call = findLast(sub.calls, u.toolCallId);
      if (!call) return;
      call.state = u.status;
      call.output = capped(u.output);
      call.outputTotal = u.output.length;
      if (u.diff != null) call.diff = u.diff;
      call.rev++;
      break;
    }
    default:
      return;
  }
  parent.rev++;
}

type LogUpdate = Update;

const capped = (s: string) => (s.length > OUTPUT_CAP ? s.slice(s.length - OUTPUT_CAP) : s);

/** Appends a text or reasoning delta to the turn's last item of that type, or starts one. */
function appendStream(turn: Turn, type: 'text' | 'reasoning', delta: string): void {
  const last = turn.items[turn.items.length - 1];
  if (last?.type === type) {
    last.text += delta;
    last.rev++;
    return;
  }
  turn.items.push({ type, id: `${turn.turnId}:${turn.items.length}`, rev: 0, text: delta });
}

/** Folds one log entry into the transcript, in place. */
export function applyEntry(t: Transcript, entry: LogEntry): void {
  if (entry.kind === 'notice') {
    t.blocks.push({ kind: 'notice', id: `notice:${t.blocks.length}`, level: entry.level, text: entry.text });
    return;
  }
  const turn = turnFor(t, entry.turnId);
  // A retry is news only until anything else of its turn arrives.
  delete turn.retrying;
  switch (entry.kind) {
    case 'retrying':
      turn.retrying = retryText(entry);
      return;
    case 'turnStarted':
      turn.items.push({ type: 'user', id: `${turn.turnId}:prompt`, rev: 0, text: entry.prompt });
      return;
    case 'text':
    case 'reasoning':
      appendStream(turn, entry.kind, entry.delta);
      return;
    case 'toolCall':
      turn.items.push({
        type: 'tool',
        id: `${turn.turnId}:${turn.items.length}`,
        toolCallId: entry.toolCallId,
        rev: 0,
        name: entry.name,
        title: entry.title,
        arguments: entry.arguments,
        state: 'running',
        output: '',
        outputTotal: 0,
      });
      return;
    case 'toolOutput': {
      const tool = findTool(turn, entry.toolCallId);
      if (tool) {
        // Appended by the renderer as it comes; a new revision only when the first output
        // opens the card.
        if (tool.output === '' && entry.delta !== '') tool.rev++;
        tool.output = capped(tool.output + entry.delta);
        tool.outputTotal += entry.delta.length;
        noteWholeOutput(tool, entry.delta);
      }
      return;
    }
    case 'filesChanged': {
      const tool = findTool(turn, entry.toolCallId);
      if (tool) {
        tool.filesChanged = [...(tool.filesChanged ?? []), ...entry.changes].slice(0, MAX_FILES_CHANGED);
        tool.rev++;
      }
      return;
    }
    case 'toolResult': {
      const tool = findTool(turn, entry.toolCallId);
      if (tool) {
        tool.state = entry.status;
        tool.output = capped(entry.output);
        tool.outputTotal = entry.output.length;
        if (entry.diff != null) tool.diff = entry.diff;
        tool.stale = entry.errorKind === 'stale';
        tool.rev++;
      }
      return;
    }
    case 'rules':
      // A small note: which rules files the model was given.
      t.blocks.push({
        kind: 'notice',
        id: `notice:${t.blocks.length}`,
        level: 'info',
        text: `Rules in effect: ${entry.files.map((f) => f.path + (f.truncated ? ' (cut)' : '')).join(', ')}`,
      });
      return;
    case 'usage':
      t.usage = {
        promptTokens: entry.promptTokens,
        completionTokens: entry.completionTokens,
        ...(entry.contextWindow != null ? { contextWindow: entry.contextWindow } : {}),
      };
      return;
    case 'compaction':
      t.blocks.push({
        kind: 'notice',
        id: `notice:${t.blocks.length}`,
        level: 'info',
        text: `Context compacted to fit the model’s ${entry.contextWindow.toLocaleString('en-US')}-token window: ${entry.elided} old tool outputs shortened, ${entry.summarized} messages summarized (about ${entry.tokensBefore.toLocaleString('en-US')} → ${entry.tokensAfter.toLocaleString('en-US')} tokens). The full history stays in the transcript.`,
      });
      return;
    case 'modelNotice':
      t.blocks.push({ kind: 'notice', id: `notice:${t.blocks.length}`, level: 'info', text: entry.message });
      return;
    case 'subagent': {
      const parent = findTool(turn, entry.parentId);
      if (parent) applySubagent(parent, entry.agent, entry.update);
      return;
    }
    case 'turnEnded':
      turn.ended = {
        stopReason: entry.stopReason,
        ...(entry.error != null ? { error: entry.error } : {}),
        ...(entry.stopReason === 'error' ? { errorKind: entry.errorKind ?? 'other' } : {}),
      };
      // A tool still "running" when its turn ended was cut off (cancelled, or the sidecar died).
      for (const item of turn.items) {
        if (item.type !== 'tool') continue;
        for (const call of item.subagent?.calls ?? []) {
          if (call.state === 'running') {
            call.state = 'error';
            item.rev++;
          }
        }
        if (item.state === 'running') {
          item.state = 'error';
          item.rev++;
        }
      }
      return;
  }
}

/** "Server answered 500; retrying (2/5) in 1.2 s…" (or, without a status, what failed). */
export function retryText(r: { retry: number; maxRetries: number; status?: number | null; error: string; waitMs: number }): string {
  const what = r.status != null ? `Server answered ${r.status}` : `The request failed (${firstLine(r.error.trim(), 160)})`;
  return `${what}; retrying (${r.retry}/${r.maxRetries}) in ${(r.waitMs / 1000).toFixed(1)} s…`;
}

/** The first line of an error, cut to a readable length. */
export function firstLine(text: string, max = 200): string {
  const line = text.split('\n', 1)[0] ?? text;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The file a unified diff is about: its `+++ b/…` path, or `--- a/…` for a deleted file. */
export function diffPath(diff: string): string | undefined {
  const plus = /^\+\+\+ b\/(.+)$/m.exec(diff);
  if (plus) return plus[1];
  return /^--- a\/(.+)$/m.exec(diff)?.[1];
}

/** A call's changed files kept for its card: a command that rewrote a tree is not listed whole. */
export const MAX_FILES_CHANGED = 200;

/** The files a turn changed (its edits that were written, its commands' writes), in the order first changed. */
export function changedFiles(turn: Turn): string[] {
  const files: string[] = [];
  for (const item of turn.items) {
    if (item.type !== 'tool') continue;
    const file = item.state === 'ok' && item.diff ? diffPath(item.diff) : undefined;
    for (const f of [...(file ? [file] : []), ...(item.filesChanged ?? []).map((c) => c.path)]) {
      if (!files.includes(f)) files.push(f);
    }
  }
  return files;
}

export function buildTranscript(entries: readonly LogEntry[]): Transcript {
  const t = emptyTranscript();
  for (const e of entries) applyEntry(t, e);
  return t;
}

export interface UsageView {
  /** E.g. `12.3k / 128k tokens`. */
  text: string;
  /** Share of the context window in use, 0..1, when the window is known. */
  fraction?: number;
}

/** The usage line: tokens in the context against the window, when known. */
export function usageView(usage: Usage | undefined, fallbackWindow: number | undefined): UsageView | undefined {
  if (!usage) return undefined;
  const used = usage.promptTokens + usage.completionTokens;
  const window = usage.contextWindow ?? fallbackWindow;
  const fmt = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)}k` : String(n));
  return window ? { text: `${fmt(used)} / ${fmt(window)} tokens`, fraction: Math.min(1, used / window) } : { text: `${fmt(used)} tokens` };
}

/** The sidecar's note at its streaming cap names the file with the whole output. */
const WHOLE_OUTPUT = /\[The whole output: ([^\]\n]+)\]\n?$/;

function noteWholeOutput(tool: ToolItem, delta: string): void {
  const m = WHOLE_OUTPUT.exec(delta);
  if (m?.[1]) {
    tool.wholeOutput = m[1];
    tool.rev++;
  }
}
