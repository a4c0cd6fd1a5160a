// The transcript model to DOM. Each item's element is cached by id and revision, so a streamed
// delta redraws one paragraph, not the chat, and the user's open/closed details survive.

import type { Decision, PendingApproval } from '../src/shared/messages';

/** The key of a pending approval within the shown session (the host sends only that session's). */
export const pendingKey = (turnId: string, toolCallId: string) => `${turnId}\u0000${toolCallId}`;
import { button, h, sanitizedHtml } from './dom';
import { renderCode, renderMarkdown } from './markdown';
import type { Block, Item, ToolItem, ToolState, Transcript, Turn } from './transcript';

export interface RenderContext {
  pending: ReadonlyMap<string, PendingApproval>;
  runningTurn: string | null;
  expanded: Readonly<Record<string, boolean>>;
  onToggle(id: string, open: boolean): void;
  onDecide(request: PendingApproval, decision: Decision, feedback?: string): void;
  onOpenDiff(request: PendingApproval): void;
}

const STATE_LABEL: Record<ToolState, string> = {
  running: 'running',
  ok: 'done',
  error: 'failed',
  rejected: 'rejected',
};

const STATE_ICON: Record<ToolState, string> = {
  running: '',
  ok: '✓',
  error: '✕',
  rejected: '⊘',
};

/** A `<details>` whose open state is remembered by `id`. */
function details(ctx: RenderContext, id: string, defaultOpen: boolean, cls: string, summary: Node[], body: Node): HTMLDetailsElement {
  const d = h('details', { class: cls }, h('summary', {}, ...summary), body);
  const initial = ctx.expanded[id] ?? defaultOpen;
  d.open = initial;
  // Only the user's own toggles are remembered (setting the default fires a toggle event too).
  d.addEventListener('toggle', () => {
    if (d.open !== initial || id in ctx.expanded) ctx.onToggle(id, d.open);
  });
  return d;
}

function approvalBox(req: PendingApproval, ctx: RenderContext): HTMLElement {
  const note = h('textarea', { class: 'note', attrs: { rows: '2', placeholder: 'Tell the model why, or what to do instead', 'aria-label': 'Rejection note' } });
  const noteRow = h(
    'div',
    { class: 'note-row hidden' },
    note,
    button('Send rejection', () => ctx.onDecide(req, 'reject', note.value.trim() || undefined), 'secondary'),
  );
  const withNote = button('Reject with note…', () => {
    noteRow.classList.remove('hidden');
    noteRow.scrollIntoView({ block: 'nearest' });
    note.focus();
  }, 'secondary');
  const accept = button(req.kind === 'command' ? 'Run' : 'Accept', () => ctx.onDecide(req, 'accept'), 'primary');
  const reject = button('Reject', () => ctx.onDecide(req, 'reject'), 'secondary');
  const what =
    req.kind === 'command'
      ? [
          h('div', { class: 'approval-q' }, 'Run this command?'),
          h('pre', { class: 'command' }, req.command ?? ''),
          h('div', { class: 'cwd' }, 'in ', h('code', {}, req.cwd ?? '')),
        ]
      : [
          h('div', { class: 'approval-q' }, req.original == null ? 'Create ' : 'Edit ', h('code', {}, req.displayPath ?? req.path ?? ''), '?'),
          h('div', { class: 'hint' }, 'The proposal is open in a diff editor; what you leave on its right side is what gets written.'),
        ];
  const buttons = h('div', { class: 'buttons' }, accept, reject, withNote);
  if (req.kind === 'edit') buttons.append(button('Show diff', () => ctx.onOpenDiff(req), 'link'));
  return h('div', { class: `approval approval-${req.kind}` }, ...what, buttons, noteRow);
}

/**
 * The approval waiting for this card. Tool-call ids repeat (local models reuse them), so it goes
 * to the last card of its turn with that id: the one still running.
 */
function pendingFor(item: Item, turn: Turn, ctx: RenderContext): PendingApproval | undefined {
  if (item.type !== 'tool') return undefined;
  const req = ctx.pending.get(pendingKey(turn.turnId, item.toolCallId));
  if (!req) return undefined;
  const same = turn.items.filter((i) => i.type === 'tool' && i.toolCallId === item.toolCallId);
  return same[same.length - 1] === item ? req : undefined;
}

function toolCard(item: ToolItem, turn: Turn, ctx: RenderContext): HTMLElement {
  const req = pendingFor(item, turn, ctx);
  const state: ToolState | 'waiting' = req && item.state === 'running' ? 'waiting' : item.state;
  const icon = h('span', { class: `tool-icon state-${state}`, attrs: { 'aria-hidden': 'true' } }, state === 'waiting' ? '?' : STATE_ICON[item.state]);
  const label = h('span', { class: 'tool-state' }, state === 'waiting' ? 'awaiting approval' : STATE_LABEL[item.state]);
  const summary = [icon, h('span', { class: 'tool-title' }, item.title || item.name), label];
  const body = h('div', { class: 'tool-body' });
  if (item.diff) body.append(sanitizedHtml(h('div'), renderCode(item.diff, 'diff')));
  if (item.output) body.append(sanitizedHtml(h('div', { class: 'output' }), renderCode(item.output, 'plaintext')));
  if (!item.diff && !item.output) body.append(h('div', { class: 'hint' }, item.state === 'running' ? 'No output yet.' : 'No output.'));
  // A running command's output is shown as it streams; finished cards stay compact.
  const card = h('div', { class: `tool state-${state}` }, details(ctx, item.id, item.state === 'running' && item.output !== '', 'tool-details', summary, body));
  if (req) card.append(approvalBox(req, ctx));
  return card;
}

function itemElement(item: Item, turn: Turn, ctx: RenderContext): HTMLElement {
  switch (item.type) {
    case 'user':
      return h('div', { class: 'user' }, item.text);
    case 'text':
      return sanitizedHtml(h('div', { class: 'answer markdown' }), renderMarkdown(item.text));
    case 'reasoning':
      return details(ctx, item.id, false, 'reasoning', [h('span', {}, 'Reasoning')], sanitizedHtml(h('div', { class: 'markdown' }), renderMarkdown(item.text)));
    case 'tool':
      return toolCard(item, turn, ctx);
  }
}

/** What makes an item look different besides its own revision. */
function itemKey(item: Item, turn: Turn, ctx: RenderContext): string {
  const approval = pendingFor(item, turn, ctx) ? 'A' : '';
  return `${item.rev}:${approval}:${ctx.expanded[item.id] ?? ''}`;
}

function turnFooter(turn: Turn, ctx: RenderContext): HTMLElement | null {
  if (ctx.runningTurn === turn.turnId && !turn.ended) {
    return h('div', { class: 'working' }, h('span', { class: 'spinner', attrs: { 'aria-hidden': 'true' } }), 'Working…');
  }
  const ended = turn.ended;
  if (!ended) return null;
  switch (ended.stopReason) {
    case 'endTurn':
      return null;
    case 'cancelled':
      return h('div', { class: 'turn-end' }, 'Stopped.');
    case 'maxSteps':
      return h('div', { class: 'turn-end' }, 'Stopped at the step limit (tandem.maxSteps).');
    case 'error':
      return h('div', { class: 'turn-end error' }, ended.error ?? 'The turn failed.');
  }
}

/**
 * Makes `parent`'s children exactly `desired`, touching only what differs: an element that stays
 * is never moved, so a half-typed rejection note keeps its focus while other parts update.
 */
export function syncChildren(parent: HTMLElement, desired: readonly Node[]): void {
  desired.forEach((node, i) => {
    const current = parent.childNodes[i];
    if (current !== node) parent.insertBefore(node, current ?? null);
  });
  while (parent.childNodes.length > desired.length) parent.lastChild?.remove();
}

export class TranscriptView {
  private readonly items = new Map<string, { key: string; el: HTMLElement }>();
  private readonly blocks = new Map<string, HTMLElement>();
  private shownBlocks = 0;

  constructor(private readonly root: HTMLElement) {}

  private item(item: Item, turn: Turn, ctx: RenderContext): HTMLElement {
    const key = itemKey(item, turn, ctx);
    const hit = this.items.get(item.id);
    if (hit && hit.key === key) return hit.el;
    const el = itemElement(item, turn, ctx);
    this.items.set(item.id, { key, el });
    return el;
  }

  private footer(turn: Turn, ctx: RenderContext): HTMLElement | null {
    const id = `footer:${turn.turnId}`;
    const key = `${ctx.runningTurn === turn.turnId}:${turn.ended?.stopReason ?? ''}`;
    const hit = this.items.get(id);
    if (hit && hit.key === key) return hit.el;
    const el = turnFooter(turn, ctx);
    if (el) this.items.set(id, { key, el });
    else this.items.delete(id);
    return el;
  }

  private block(b: Block, ctx: RenderContext): HTMLElement {
    const id = b.kind === 'notice' ? b.id : `turn:${b.turnId}`;
    let el = this.blocks.get(id);
    if (b.kind === 'notice') {
      el ??= h('div', { class: `notice notice-${b.level}`, attrs: { role: 'status' } }, b.text);
    } else {
      el ??= h('div', { class: 'turn' });
      const footer = this.footer(b, ctx);
      syncChildren(el, [...b.items.map((item) => this.item(item, b, ctx)), ...(footer ? [footer] : [])]);
    }
    this.blocks.set(id, el);
    return el;
  }

  render(t: Transcript, ctx: RenderContext): void {
    const atBottom = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 40;
    if (t.blocks.length === 0) {
      this.clear();
      this.root.replaceChildren(
        h('div', { class: 'empty' },
          h('p', {}, 'Ask Tandem to explain, change or test code in this workspace.'),
          h('p', { class: 'hint' }, 'Type @ to attach a file; “Add Selection to Chat” attaches the selected lines. Every edit and command waits for your approval.')),
      );
      return;
    }
    syncChildren(this.root, t.blocks.map((b) => this.block(b, ctx)));
    // Follow the stream while the user is at the end, and jump to a new turn or notice.
    if (atBottom || t.blocks.length > this.shownBlocks) this.root.scrollTop = this.root.scrollHeight;
    this.shownBlocks = t.blocks.length;
  }

  /** Forgets cached elements, e.g. when another session is shown. */
  clear(): void {
    this.items.clear();
    this.blocks.clear();
    this.shownBlocks = 0;
  }
}
