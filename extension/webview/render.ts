// The transcript model to DOM. Each item's element is cached by id and revision, so a streamed
// delta redraws one paragraph, not the chat, and the user's open/closed details survive.

import type { ErrorKind, ToolCallId, TurnId } from '../src/protocol';
import type { ChatCommand, Decision, PendingApproval } from '../src/shared/messages';

/** The key of a pending approval within the shown session (the host sends only that session's). */
export const pendingKey = (turnId: TurnId, toolCallId: ToolCallId) => `${turnId}\u0000${toolCallId}`;
import { button, h, icon, sanitizedHtml } from './dom';
import { renderCode, renderMarkdown } from './markdown';
import { changedFiles, firstLine, OUTPUT_CAP, type Block, type Item, type ToolItem, type ToolState, type Transcript, type Turn } from './transcript';

export interface RenderContext {
  pending: ReadonlyMap<string, PendingApproval>;
  runningTurn: TurnId | null;
  expanded: Readonly<Record<string, boolean>>;
  onToggle(id: string, open: boolean): void;
  onDecide(request: PendingApproval, decision: Decision, feedback?: string): void;
  onOpenDiff(request: PendingApproval): void;
  /** A code block's Copy and Insert buttons. */
  onCopy(text: string): void;
  onInsert(text: string): void;
  /** A link in the model's text was clicked (the host decides whether to open it). */
  onOpenLink(href: string): void;
  /** An error card's buttons. */
  onRetry(): void;
  onCommand(command: ChatCommand): void;
  /** "Restore to here": the files as they were before this turn. */
  onRestore(turnId: TurnId): void;
  /** "Edit": the turn's prompt back in the box, to send as a fork from before it. */
  onEditPrompt?(turnId: TurnId, text: string): void;
  /** A turn's changes in the multi-diff editor. */
  onShowChanges?(turnId: TurnId): void;
  /** "Open Full Output": a command's whole output, kept by the sidecar, in an editor. */
  onOpenOutput?(turnId: TurnId, toolCallId: ToolCallId, path: string): void;
}

const STATE_LABEL: Record<ToolState, string> = {
  running: 'running',
  ok: 'done',
  error: 'failed',
  rejected: 'rejected',
};

/** The codicon of each state a tool card shows (VS Code's own icons, in the theme's colours). */
const STATE_ICON: Record<ToolState | 'waiting' | 'stale', string> = {
  running: 'codicon-loading codicon-modifier-spin',
  ok: 'codicon-check',
  error: 'codicon-error',
  rejected: 'codicon-circle-slash',
  waiting: 'codicon-question',
  stale: 'codicon-refresh',
};

/** What an approval is about, for the names of its buttons: "edit of src/a.rs". */
function approvalSubject(req: PendingApproval): string {
  const cut = (t: string) => (t.length > 60 ? `${t.slice(0, 59)}…` : t);
  switch (req.kind) {
    case 'edit':
      return `${req.original == null ? 'creation' : 'edit'} of ${req.displayPath ?? req.path ?? 'the file'}`;
    case 'command':
      return `command ${cut(req.command ?? '')}`;
    case 'mcp':
      return `MCP tool ${req.tool ?? ''}`;
    case 'mcpServer':
      return `${req.subject === 'hook' ? 'hook' : 'MCP server'} ${req.server ?? ''}`;
    case 'fetch':
      return `fetch of ${cut(req.url ?? '')}`;
  }
}

/**
 * Buttons repeated in the chat (Accept on every question, Copy on every code block) get
 * accessible names that say what they act on; the visible label stays short.
 */
function nameButtons(subject: string, ...buttons: HTMLElement[]): void {
  for (const b of buttons) b.setAttribute('aria-label', `${b.textContent ?? ''} ${subject}`.trim());
}

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
  const accept = button(req.kind === 'command' ? 'Run' : req.kind === 'mcp' || req.kind === 'mcpServer' || req.kind === 'fetch' ? 'Allow' : 'Accept', () => ctx.onDecide(req, 'accept'), 'primary');
  const reject = button('Reject', () => ctx.onDecide(req, 'reject'), 'secondary');
  const what =
    req.kind === 'mcp'
      ? [
          h('div', { class: 'approval-q' }, 'Call the MCP tool ', h('code', {}, req.tool ?? ''), ' of server ', h('code', {}, req.server ?? ''), '?'),
          h('pre', { class: 'command' }, JSON.stringify(req.arguments ?? {}, null, 2)),
        ]
      : req.kind === 'mcpServer'
      ? [
          h('div', { class: 'approval-q' }, req.subject === 'hook' ? 'Run the hook ' : 'Start the MCP server ', h('code', {}, req.server ?? ''), ' that ', h('code', {}, req.source ?? ''), ' names?'),
          h('pre', { class: 'command' }, req.target ?? ''),
          h('div', { class: 'hint' }, req.whyNotAlways
            ? `A project file cannot start programs by itself. Allow starts it for this session; it can't be trusted for good, since ${req.whyNotAlways}.`
            : 'A project file cannot start programs by itself. Allow starts it for this session.'),
        ]
      : req.kind === 'fetch'
      ? [
          h('div', { class: 'approval-q' }, 'Fetch this URL?'),
          h('pre', { class: 'command' }, req.url ?? ''),
          h('div', { class: 'hint' }, req.redirectedFrom ? `Redirected from ${req.redirectedFrom}.` : 'The page goes to the model; nothing of yours is sent.'),
        ]
      : req.kind === 'command'
      ? [
          h('div', { class: 'approval-q' }, 'Run this command?'),
          h('pre', { class: 'command' }, req.command ?? ''),
          h('div', { class: 'cwd' }, 'in ', h('code', {}, req.cwd ?? '')),
          ...(req.reason ? [h('div', { class: 'hint reason' }, `Asked because ${req.reason}.`)] : []),
        ]
      : [
          h('div', { class: 'approval-q' }, req.original == null ? 'Create ' : 'Edit ', h('code', {}, req.displayPath ?? req.path ?? ''), '?'),
          h('div', { class: 'hint' }, 'The proposal is open in a diff editor; what you leave on its right side is what gets written.'),
        ];
  nameButtons(approvalSubject(req), accept, reject, withNote);
  const buttons = h('div', { class: 'buttons' }, accept, reject, withNote);
  // A command outside the sandbox is asked every time, whatever was said before; a project's
  // MCP server whose trust can't be bound to what runs is trusted for this session only.
  // A command's "always" adds the rules the sidecar offers (none: not offered).
  const rules = req.kind === 'command' ? (req.always ?? []) : [];
  if ((req.kind !== 'command' || (!req.outsideSandbox && rules.length > 0)) && (req.kind !== 'mcpServer' || !req.whyNotAlways)) {
    const always =
      req.kind === 'edit'
        ? button('Accept always for this session', () => ctx.onDecide(req, 'acceptAlways'), 'secondary', 'Write this edit, and the later edits of this chat without asking')
        : req.kind === 'mcp'
        ? button('Always allow this tool for this session', () => ctx.onDecide(req, 'acceptAlways'), 'secondary', 'Call this MCP tool now and later in this chat without asking')
        : req.kind === 'mcpServer'
        ? button('Always trust it in this project', () => ctx.onDecide(req, 'acceptAlways'), 'secondary', req.subject === 'hook' ? 'Run this hook now and in later sessions of this project (a changed command line or script asks again)' : 'Start this server now and in later sessions of this project (a changed command line asks again)')
        : button(
            `Always allow ${rules.map((r) => `\`${r}\``).join(', ')}`,
            () => ctx.onDecide(req, 'acceptAlways'),
            'secondary',
            `Run this command, and from now on ${rules.join(', ')} with any further words but the options that load code or write elsewhere, inside the sandbox without asking (saved in your Tandem config; commands outside the sandbox still ask)`,
          );
    buttons.insertBefore(always, withNote);
  }
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

/**
 * A command's output, appended as it streams: new text goes in as a text node (no re-render, no
 * re-sanitizing of what is there), and the DOM keeps only the last OUTPUT_CAP characters.
 */
export class OutputView {
  readonly el: HTMLElement;
  private readonly code: HTMLElement;
  private readonly note: HTMLElement;
  /** `outputTotal` of the item as last shown. */
  private shown = 0;
  /** Characters in the DOM. */
  private length = 0;

  constructor() {
    this.code = h('code', { class: 'hljs' });
    this.note = h('div', { class: 'output-note hidden' });
    this.el = h('div', { class: 'output' }, this.note, h('pre', { class: 'code' }, this.code));
  }

  sync(item: ToolItem): void {
    const fresh = item.outputTotal - this.shown;
    if (fresh <= 0) return;
    if (fresh > item.output.length || this.shown === 0) {
      this.code.replaceChildren(item.output);
      this.length = item.output.length;
    } else {
      this.code.append(item.output.slice(item.output.length - fresh));
      this.length += fresh;
    }
    this.shown = item.outputTotal;
    this.trim();
    const hidden = item.outputTotal - this.length;
    this.note.textContent = hidden > 0 ? `Earlier output hidden (${Math.ceil(hidden / 1024)} KB); the last ${OUTPUT_CAP / 1024} KB are shown.` : '';
    this.note.classList.toggle('hidden', hidden <= 0);
  }

  /** Drops text from the front until at most OUTPUT_CAP characters are left. */
  private trim(): void {
    while (this.length > OUTPUT_CAP) {
      const first = this.code.firstChild as Text | null;
      if (!first || first.nodeType !== Node.TEXT_NODE) break;
      const excess = this.length - OUTPUT_CAP;
      if (first.data.length <= excess) {
        first.remove();
        this.length -= first.data.length;
      } else {
        first.data = first.data.slice(excess);
        this.length -= excess;
      }
    }
    // One text node per frame adds up over a long run; merge them now and then.
    if (this.code.childNodes.length > 500) this.code.normalize();
  }
}

/**
 * Why a stale edit wrote nothing: the user typed in the file's buffer (unsaved) or something
 * changed it on disk, as the sidecar's message says.
 */
export function staleNote(output: string): string {
  const where = /changed in the editor/.test(output)
    ? 'You changed the file in the editor (unsaved)'
    : /was deleted/.test(output)
    ? 'The file was deleted'
    : 'The file changed on disk';
  return `${where} after the model read it, so nothing was written. The model will read it again before it retries the edit.`;
}

function toolCard(item: ToolItem, turn: Turn, ctx: RenderContext): { el: HTMLElement; output: OutputView } {
  const req = pendingFor(item, turn, ctx);
  const state: ToolState | 'waiting' | 'stale' = req && item.state === 'running' ? 'waiting' : item.stale ? 'stale' : item.state;
  const stateIcon = h('span', { class: `tool-icon state-${state} codicon ${STATE_ICON[state]}`, attrs: { 'aria-hidden': 'true' } });
  const label = h('span', { class: 'tool-state' }, state === 'waiting' ? 'awaiting approval' : state === 'stale' ? 'file changed' : STATE_LABEL[item.state]);
  const title = item.title || item.name;
  const summary = [stateIcon, h('span', { class: 'tool-title', title }, title), label];
  const body = h('div', { class: 'tool-body' });
  const output = new OutputView();
  if (item.diff) body.append(sanitizedHtml(h('div', { class: 'diff' }), renderCode(item.diff, 'diff')));
  if (item.output) body.append(output.el);
  if (!item.diff && !item.output) body.append(h('div', { class: 'hint' }, item.state === 'running' ? 'No output yet.' : 'No output.'));
  // A running command's output is shown as it streams; finished cards stay compact.
  const card = h('div', { class: `tool state-${state}` }, details(ctx, item.id, item.state === 'running' && item.output !== '', 'tool-details', summary, body));
  // A stale edit is no failure of the model's: say what happens next, outside the folded body.
  if (state === 'stale') card.append(h('div', { class: 'tool-note' }, staleNote(item.output)));
  if (req) card.append(approvalBox(req, ctx));
  if (item.subagent) card.append(subagentBox(item, turn, ctx));
  const whole = wholeOutputButton(item, turn, ctx);
  if (whole) card.append(whole);
  const changedNote = filesChangedNote(item, turn, ctx);
  if (changedNote) card.append(changedNote);
  return { el: card, output };
}

/** A subagent's approval waiting, by its call (its ids are its own, asked in the same turn). */
function subagentPending(call: ToolItem, turn: Turn, ctx: RenderContext): PendingApproval | undefined {
  return call.state === 'running' ? ctx.pending.get(pendingKey(turn.turnId, call.toolCallId)) : undefined;
}

/**
 * A `task` card's subagent: its calls, nested and foldable (open while it works), each with its
 * state; a question it asks is answered here, saying which subagent asks.
 */
function subagentBox(item: ToolItem, turn: Turn, ctx: RenderContext): HTMLElement {
  const sub = item.subagent!;
  const rows = sub.calls.map((call) => {
    const row = h(
      'li',
      { class: `subagent-call state-${call.state}` },
      h('span', { class: `tool-icon state-${call.state} codicon ${STATE_ICON[call.state]}`, attrs: { 'aria-hidden': 'true' } }),
      h('span', { class: 'tool-title', title: call.title || call.name }, call.title || call.name),
      h('span', { class: 'tool-state' }, STATE_LABEL[call.state]),
    );
    const req = subagentPending(call, turn, ctx);
    if (req) row.append(h('div', { class: 'tool-note' }, `Subagent ${sub.agent} asks:`), approvalBox(req, ctx));
    return row;
  });
  const count = `${sub.calls.length} tool call${sub.calls.length === 1 ? '' : 's'}`;
  const summary = [h('span', { class: 'codicon codicon-hubot', attrs: { 'aria-hidden': 'true' } }), h('span', {}, `Subagent ${sub.agent} · ${count}`)];
  return details(ctx, `${item.id}:sub`, item.state === 'running', 'subagent', summary, h('ul', { class: 'subagent-calls' }, ...rows));
}

/** "Open Full Output" under a command whose output was more than the chat was sent. */
function wholeOutputButton(item: ToolItem, turn: Turn, ctx: RenderContext): HTMLElement | null {
  const path = item.wholeOutput;
  const open = ctx.onOpenOutput;
  if (!path || !open) return null;
  const b = button('Open Full Output', () => open(turn.turnId, item.toolCallId, path), 'link open-output', 'The chat shows the beginning and the end; open all of the output in an editor');
  nameButtons(`of ${item.title || item.name}`, b);
  return h('div', { class: 'tool-note' }, b);
}

/** Puts a label, Copy and Insert on each code block of rendered markdown. */
function decorateCodeBlocks(root: HTMLElement, ctx: RenderContext): HTMLElement {
  let blocks = 0;
  for (const pre of root.querySelectorAll('pre.code')) {
    const code = pre.querySelector('code');
    const text = () => code?.textContent ?? '';
    const lang = [...(code?.classList ?? [])].find((c) => c.startsWith('language-'))?.slice('language-'.length) ?? '';
    const copy = button('Copy', () => {
      ctx.onCopy(text());
      copy.textContent = 'Copied';
      setTimeout(() => (copy.textContent = 'Copy'), 1500);
    }, 'code-action', 'Copy to the clipboard');
    const insert = button('Insert', () => ctx.onInsert(text()), 'code-action', 'Insert at the cursor in the editor');
    nameButtons(`${lang ? `${lang} ` : ''}code block ${++blocks}`, copy, insert);
    const bar = h('div', { class: 'code-toolbar' }, h('span', { class: 'code-lang' }, lang), copy, insert);
    const block = h('div', { class: 'code-block' });
    pre.replaceWith(block);
    block.append(bar, pre);
  }
  return root;
}

function itemElement(item: Exclude<Item, ToolItem>, ctx: RenderContext): HTMLElement {
  switch (item.type) {
    case 'user':
      return h('div', { class: 'user' }, item.text);
    case 'text':
      return decorateCodeBlocks(sanitizedHtml(h('div', { class: 'answer markdown' }), renderMarkdown(item.text)), ctx);
    case 'reasoning':
      return details(ctx, item.id, false, 'reasoning', [h('span', {}, 'Reasoning')], sanitizedHtml(h('div', { class: 'markdown' }), renderMarkdown(item.text)));
  }
}

/** What a failed turn says, by its kind, with the button that helps; every one can be retried. */
function errorFooter(error: string | undefined, kind: ErrorKind | undefined, ctx: RenderContext): HTMLElement {
  const raw = error ?? 'The turn failed.';
  const retry = () => button('Retry', () => ctx.onRetry(), 'secondary', 'Send the last prompt again');
  const details = (text: string) => h('details', { class: 'error-details' }, h('summary', {}, 'Details'), h('div', { class: 'error-text' }, text));
  const box = (cls: string, text: string, detail: string | null, ...buttons: HTMLElement[]) =>
    h('div', { class: `turn-end ${cls}`, attrs: { role: 'alert' } }, h('div', {}, text), detail ? details(detail) : null, buttons.length > 0 ? h('div', { class: 'buttons' }, ...buttons) : null);
  switch (kind) {
    case 'noServer': {
      const tried = triedServers(raw);
      return box(
        'error-box',
        'No model server found. Start LM Studio, Ollama or llama.cpp’s llama-server on this machine, or set tandem.provider.baseUrl to your OpenAI-compatible endpoint (Open Settings).',
        tried.length > 0 ? `Looked for: ${tried.join('; ')}.` : null,
        button('Open Settings', () => ctx.onCommand('openSettings'), 'primary'),
        button('Set API Key', () => ctx.onCommand('setApiKey'), 'secondary', 'For a hosted endpoint'),
        retry(),
      );
    }
    case 'auth':
      return box('error-box', 'The model server did not accept the API key (or got none).', raw, button('Set API Key', () => ctx.onCommand('setApiKey'), 'primary'), retry());
    case 'connection':
      return box('error-box', 'Could not reach the model server.', raw, retry());
    case 'contextOverflow':
      return box('error-box', 'The conversation no longer fits in the model’s context window. Start a new chat, or pick a model with a larger window.', raw, button('New Chat', () => ctx.onCommand('newChat'), 'secondary'), retry());
    case 'answerCut':
      return box('error-box', 'The answer reached its length limit and was cut; what came is kept. Ask for a shorter answer, or raise the setting Tandem › Provider: Max Output Tokens (or max_output_tokens under [provider] in the config file; 0 sends no limit).', raw, button('Open Config File', () => ctx.onCommand('openConfigFile'), 'secondary'), retry());
    default:
      return box('error-box', firstLine(raw), raw.includes('\n') || raw.length > 200 ? raw : null, retry());
  }
}

/** "LM Studio at http://…" for each server the sidecar looked for, without its command-line advice. */
export function triedServers(raw: string): string[] {
  const m = /Tried: (.*?)\. Start one/s.exec(raw);
  if (!m?.[1]) return [];
  return m[1].split('; ').map((s) => s.replace(/ \(start it with `[^`]*`\)/, '').trim()).filter((s) => s !== '');
}

/** What makes an item look different besides its own revision. */
function itemKey(item: Item, turn: Turn, ctx: RenderContext): string {
  const approval = pendingFor(item, turn, ctx) ? 'A' : '';
  // A command's changed files become buttons once its turn is over.
  const ended = item.type === 'tool' && item.filesChanged && turn.ended ? 'E' : '';
  // A subagent's question shows in its task card, and its fold is the card's too.
  const sub = item.type === 'tool' && item.subagent ? `${item.subagent.calls.filter((c) => subagentPending(c, turn, ctx)).length}:${ctx.expanded[`${item.id}:sub`] ?? ''}` : '';
  return `${item.rev}:${approval}:${ctx.expanded[item.id] ?? ''}:${ended}:${sub}`;
}

/**
 * The checkpoint above a turn's prompt: "Restore to here" puts every file the agent changed from
 * this turn on back as it was before it. Off while a turn runs (the sidecar refuses then).
 */
function checkpoint(turn: Turn, ctx: RenderContext): HTMLElement {
  const restore = button('Restore to here', () => ctx.onRestore(turn.turnId), 'link restore', 'Put the files back as they were before this prompt: undoes the edits of this turn and every later one. Asks first if you changed any of them since.');
  const asked = turn.items.find((i) => i.type === 'user')?.text ?? '';
  const prompt = asked.length > 40 ? `${asked.slice(0, 39)}…` : asked;
  const onEdit = ctx.onEditPrompt;
  const edit = onEdit
    ? button('Edit', () => onEdit(turn.turnId, asked), 'link edit-prompt', 'Edit this prompt and send it again: the chat continues, as a new chat, from before it (this one stays in the history)')
    : null;
  const buttons = edit ? [restore, edit] : [restore];
  nameButtons(`(before the prompt “${prompt}”)`, restore);
  if (edit) nameButtons(`the prompt “${prompt}”`, edit);
  for (const b of buttons) b.disabled = ctx.runningTurn !== null;
  return h('div', { class: 'checkpoint' }, h('span', { class: 'checkpoint-line', attrs: { 'aria-hidden': 'true' } }), ...buttons);
}

/** The files a turn changed, under it; once the turn is over, a button opens them as one diff. */
function changes(files: readonly string[], turn: Turn, ctx: RenderContext): HTMLElement {
  const show = ctx.onShowChanges;
  const review = show && turn.ended ? button('Review Changes', () => show(turn.turnId), 'link review-changes', 'Every file this turn changed, by edits and commands alike, as one multi-file diff') : null;
  return h(
    'div',
    { class: 'changes' },
    h('span', { class: 'changes-label' }, files.length === 1 ? 'Changed 1 file: ' : `Changed ${files.length} files: `),
    ...files.flatMap((f, i) => [i > 0 ? ', ' : '', h('code', { class: 'changed-file', title: f }, f)]),
    ...(review ? [' ', review] : []),
  );
}

/** A command's changed files in its card: each with what happened and its line counts. */
function filesChangedNote(item: ToolItem, turn: Turn, ctx: RenderContext): HTMLElement | null {
  const changed = item.filesChanged;
  if (!changed || changed.length === 0) return null;
  const show = ctx.onShowChanges;
  const rows = changed.map((c) => {
    const what = c.kind === 'renamed' && c.from ? `renamed from ${c.from}` : c.kind === 'modeChanged' ? 'mode changed' : c.kind;
    const name = show && turn.ended ? button(c.path, () => show(turn.turnId), 'link changed-file', `${what}: open the turn's changes`) : h('code', { class: 'changed-file' }, c.path);
    return h('li', {}, name, h('span', { class: 'hint' }, ` ${what} (+${c.added} −${c.removed})`));
  });
  return h('div', { class: 'tool-note files-changed' }, h('span', {}, changed.length === 1 ? 'Changed 1 file:' : `Changed ${changed.length} files:`), h('ul', {}, ...rows));
}

function turnFooter(turn: Turn, ctx: RenderContext): HTMLElement | null {
  if (ctx.runningTurn === turn.turnId && !turn.ended) {
    if (turn.retrying) {
      return h('div', { class: 'working retrying', attrs: { role: 'status' } }, icon('codicon-sync codicon-modifier-spin'), turn.retrying);
    }
    return h('div', { class: 'working' }, icon('spinner codicon-loading codicon-modifier-spin'), 'Working…');
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
      return errorFooter(ended.error, ended.errorKind, ctx);
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

/** How near the end counts as at the end, for following the stream. */
const FOLLOW_SLACK_PX = 40;

export class TranscriptView {
  private readonly items = new Map<string, { key: string; el: HTMLElement; output?: OutputView }>();
  private readonly blocks = new Map<string, HTMLElement>();
  private shownBlocks = 0;
  private ctx: RenderContext | undefined;
  /**
   * Whether the view follows the stream: the user's scrolling decides it (to the end: follow;
   * away from it: stay), not a measure taken at each redraw, which a plan appearing above the
   * log or a reload's late layout would read as "the user scrolled away".
   */
  private following = true;

  constructor(private readonly root: HTMLElement) {
    root.addEventListener('scroll', () => {
      this.following = root.scrollHeight - root.scrollTop - root.clientHeight < FOLLOW_SLACK_PX;
    });
    // The log shrank or grew (a plan pinned above it, the panel resized): keep the end in view.
    if (typeof ResizeObserver !== 'undefined') {
      new ResizeObserver(() => {
        if (this.following) root.scrollTop = root.scrollHeight;
      }).observe(root);
    }
    // Links in the model's text open through the host, which allows http(s) and mailto only.
    // Stopped here, so the webview's own link handling never sees the click.
    root.addEventListener('click', (e) => {
      const target = e.target;
      const a = target instanceof Element ? target.closest('a') : null;
      if (!a || !root.contains(a)) return;
      e.preventDefault();
      e.stopPropagation();
      const href = a.getAttribute('href');
      if (href) this.ctx?.onOpenLink(href);
    });
  }

  private item(item: Item, turn: Turn, ctx: RenderContext): HTMLElement {
    const key = itemKey(item, turn, ctx);
    let hit = this.items.get(item.id);
    if (!hit || hit.key !== key) {
      hit = item.type === 'tool' ? { key, ...toolCard(item, turn, ctx) } : { key, el: itemElement(item, ctx) };
      this.items.set(item.id, hit);
    }
    if (item.type === 'tool') hit.output?.sync(item);
    return hit.el;
  }

  private footer(turn: Turn, ctx: RenderContext): HTMLElement | null {
    const id = `footer:${turn.turnId}`;
    const key = `${ctx.runningTurn === turn.turnId}:${turn.ended?.stopReason ?? ''}:${turn.retrying ?? ''}`;
    const hit = this.items.get(id);
    if (hit && hit.key === key) return hit.el;
    const el = turnFooter(turn, ctx);
    if (el) this.items.set(id, { key, el });
    else this.items.delete(id);
    return el;
  }

  /** An element cached under `id` while `key` stays the same. */
  private cached(id: string, key: string, make: () => HTMLElement): HTMLElement {
    const hit = this.items.get(id);
    if (hit && hit.key === key) return hit.el;
    const el = make();
    this.items.set(id, { key, el });
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
      const head = this.cached(`checkpoint:${b.turnId}`, String(ctx.runningTurn !== null), () => checkpoint(b, ctx));
      const files = changedFiles(b);
      const changed = files.length > 0 ? this.cached(`changes:${b.turnId}`, `${files.join('\u0000')}:${String(Boolean(b.ended))}`, () => changes(files, b, ctx)) : null;
      syncChildren(el, [head, ...b.items.map((item) => this.item(item, b, ctx)), ...(changed ? [changed] : []), ...(footer ? [footer] : [])]);
    }
    this.blocks.set(id, el);
    return el;
  }

  render(t: Transcript, ctx: RenderContext): void {
    this.ctx = ctx;
    if (t.blocks.length === 0) {
      this.clear();
      this.root.replaceChildren(
        h('div', { class: 'empty' },
          h('p', {}, 'Ask Tandem to explain, change or test code in this workspace.'),
          h('p', { class: 'hint' }, 'Type @ to attach a file; “Add Selection to Chat” attaches the selected lines. Every edit and command waits for your approval.'),
          h('p', { class: 'hint' }, 'Tandem uses LM Studio or Ollama when one runs on this machine. For another model server, set tandem.provider.baseUrl in the settings, and “Tandem: Set API Key” if it needs one.')),
      );
      return;
    }
    syncChildren(this.root, t.blocks.map((b) => this.block(b, ctx)));
    // Follow the stream while the user is at the end, and jump to a new turn or notice.
    if (t.blocks.length > this.shownBlocks) this.following = true;
    if (this.following) this.root.scrollTop = this.root.scrollHeight;
    this.shownBlocks = t.blocks.length;
  }

  /** Forgets cached elements, e.g. when another session is shown. */
  clear(): void {
    this.items.clear();
    this.blocks.clear();
    this.shownBlocks = 0;
  }
}
