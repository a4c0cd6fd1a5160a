// The chat webview: renders what the host sends and forwards what the user does. It decides
// nothing; the host and the sidecar do.

import { turnAnnouncement } from './announce';
import { bannerText } from './banner';
import type { ModelInfo, TurnId } from '../src/protocol';
import type { ImageAttachment } from '../src/shared/images';
import { approvalRef, type Attachment, type HostMessage, type PendingApproval, type ServerState, type SidecarState, type WebviewMessage } from '../src/shared/messages';
import { Composer } from './composer';
import { ModePicker } from './modePicker';
import { nextPlan, planOf, PlanView, type PlanState } from './plan';
import { button, h, icon } from './dom';
import { installChatKeys } from './keys';
import { pendingKey, TranscriptView } from './render';
import { ShownChat } from './shownChat';
import { StateSaver } from './stateSaver';
import { usageView } from './transcript';
import { welcomeCard } from './welcome';

interface VsCodeApi<S> {
  postMessage(message: WebviewMessage): void;
  getState(): S | undefined;
  setState(state: S): void;
}
declare function acquireVsCodeApi<S>(): VsCodeApi<S>;

/** What survives the view being hidden and shown, or the window reloading. */
interface Persisted {
  draft: string;
  attachments: Attachment[];
  images: ImageAttachment[];
  expanded: Record<string, boolean>;
  /** The chat's last turns (savedChat.ts), shown at once after a reload. */
  chat?: string;
}

const vscode = acquireVsCodeApi<Persisted>();
const persisted: Persisted = { draft: '', attachments: [], images: [], expanded: {}, ...vscode.getState() };

// The saved copy is shown until the host's transcript confirms or replaces it.
const shown = new ShownChat(persisted.chat);
let pending = new Map<string, PendingApproval>();
let runningTurn: TurnId | null = null;
let sidecar: SidecarState = 'starting';
let sidecarProblem: string | null = null;
let models: ModelInfo[] = [];
let currentModel: string | null = null;
let endpoint: { baseUrl: string | null; hasKey: boolean } = { baseUrl: null, hasKey: false };
let plan: PlanState | null = null;
let server: ServerState = { problem: 'none' };

const post = (m: WebviewMessage) => vscode.postMessage(m);
/** The draft's keystrokes are written at most this often (stateSaver.ts). */
const DRAFT_SAVE_MS = 300;
const saver = new StateSaver(
  () => vscode.setState({ ...persisted, draft: composer.draft, attachments: [...composer.attached], images: [...composer.attachedImages] }),
  DRAFT_SAVE_MS,
);
const save = () => saver.now();
window.addEventListener('pagehide', () => saver.flush());
/** Writes the chat's saved copy: only at a turn's end or a new transcript, never per token. */
const saveChat = () => {
  const chat = shown.saved();
  if (chat === undefined) delete persisted.chat;
  else persisted.chat = chat;
  save();
};

// Header: the model picker and the context in use (New Chat and History are in the view's title bar).
const modelSelect = h('select', { class: 'model', title: 'Model for the next prompts', attrs: { 'aria-label': 'Model' } });
modelSelect.addEventListener('change', () => post({ type: 'setModel', model: modelSelect.value }));
// Whether the configured endpoint has a key; a click sets one.
const keyStatus = button('', () => post({ type: 'command', command: 'setApiKey' }), 'link key-status hidden');
const usage = h('span', { class: 'usage', title: 'Tokens in the context of the last request, against the model’s context window' });
const usageFill = h('div', { class: 'usage-fill' });
const modePicker = new ModePicker((mode) => post({ type: 'setMode', mode }));
const planView = new PlanView();
const header = h('div', { class: 'header' }, h('div', { class: 'header-row' }, modePicker.el, modelSelect, keyStatus, usage), h('div', { class: 'usage-bar' }, usageFill));
const banner = h('div', { class: 'banner hidden', attrs: { role: 'alert' } });
// The "Get Started" card while no model server answers (welcome.ts).
const welcome = h('div', { class: 'welcome' });
const log = h('div', { class: 'log', attrs: { role: 'log', 'aria-live': 'polite', 'aria-busy': 'false' } });
// One polite line when a turn ends (announce.ts); the log itself is busy while a turn streams.
const announcer = h('div', { class: 'sr-only', attrs: { role: 'status', 'aria-live': 'polite' } });
const view = new TranscriptView(log);
const composer = new Composer({
  send: (text, attachments, images, forkBefore) => post({ type: 'send', text, attachments, images, ...(forkBefore ? { forkBefore } : {}) }),
  attachImage: (path) => post({ type: 'attachImage', path }),
  stop: () => post({ type: 'stop' }),
  findFiles: (query) => post({ type: 'findFiles', query }),
  listCommands: () => post({ type: 'listCommands' }),
  changed: () => saver.soon(),
});
composer.restore(persisted.draft, persisted.attachments, persisted.images);
document.body.append(header, banner, welcome, planView.el, log, announcer, composer.el);

function renderHeader(): void {
  const ids = models.map((m) => m.id);
  if (currentModel && !ids.includes(currentModel)) ids.unshift(currentModel);
  modelSelect.replaceChildren(...ids.map((id) => h('option', { attrs: { value: id } }, id)));
  if (ids.length === 0) modelSelect.append(h('option', { attrs: { value: '' } }, 'No models'));
  modelSelect.value = currentModel ?? '';
  modelSelect.title = endpoint.baseUrl ? `Model for the next prompts, at ${endpoint.baseUrl}` : 'Model for the next prompts, at the model server found on this machine';
  keyStatus.classList.toggle('hidden', endpoint.baseUrl === null);
  keyStatus.replaceChildren(icon(endpoint.hasKey ? 'codicon-pass' : 'codicon-key'), endpoint.hasKey ? ' key' : ' no key');
  keyStatus.title = endpoint.hasKey
    ? `An API key is stored for ${endpoint.baseUrl}. Click to change or remove it.`
    : `No API key is stored for ${endpoint.baseUrl}. Click to set one (local servers need none).`;
  const window = models.find((m) => m.id === currentModel)?.contextWindow ?? undefined;
  const u = usageView(shown.transcript.usage, window);
  usage.textContent = u?.text ?? '';
  // Through the CSSOM: the CSP allows no style attributes.
  usageFill.style.width = `${Math.round((u?.fraction ?? 0) * 100)}%`;
  usageFill.classList.toggle('high', (u?.fraction ?? 0) > 0.8);
}

let shownServer: ServerState | undefined;
let shownCompact = false;
function renderWelcome(): void {
  // Redrawn only when the state changes: a focused button keeps its focus through other updates.
  const compact = shown.transcript.blocks.some((b) => b.kind === 'turn');
  if (shownServer === server && shownCompact === compact) return;
  shownServer = server;
  shownCompact = compact;
  const card = welcomeCard(server, { command: (command) => post({ type: 'command', command }), openLink: (href) => post({ type: 'openLink', href }) }, compact);
  welcome.replaceChildren(...(card ? [card] : []));
}

/** Says how the turn ended, once its end is in the transcript (it may arrive after the status). */
function announceEnd(turnId: TurnId, tries = 20): void {
  const text = turnAnnouncement(shown.transcript, turnId);
  if (text !== null) announcer.textContent = text;
  else if (tries > 0) setTimeout(() => announceEnd(turnId, tries - 1), 100);
}

function renderBanner(): void {
  const text = bannerText(sidecar, sidecarProblem);
  banner.textContent = text;
  banner.classList.toggle('hidden', text === '');
}

// Redraws are batched to one per frame: a fast stream sends many small updates.
let scheduled = false;
function render(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    view.render(shown.transcript, {
      pending,
      runningTurn,
      expanded: persisted.expanded,
      onToggle(id, open) {
        persisted.expanded[id] = open;
        save();
      },
      onDecide(req, decision, feedback) {
        post({ type: 'decide', ref: approvalRef(req), decision, ...(feedback ? { feedback } : {}) });
      },
      onOpenDiff(req) {
        post({ type: 'openDiff', ref: approvalRef(req) });
      },
      onCopy: (text) => post({ type: 'copy', text }),
      onInsert: (text) => post({ type: 'insert', text }),
      onOpenLink: (href) => post({ type: 'openLink', href }),
      onRetry: () => post({ type: 'retry' }),
      onCommand: (command) => post({ type: 'command', command }),
      onRestore: (turnId) => post({ type: 'restore', turnId }),
      onEditPrompt: (turnId, text) => {
        composer.editPrompt(turnId, text);
        post({ type: 'editPromptOf', turnId });
      },
      onShowChanges: (turnId) => post({ type: 'showChanges', turnId }),
      onOpenOutput: (turnId, toolCallId, path) => post({ type: 'openOutput', turnId, toolCallId, path }),
    });
    renderHeader();
    renderBanner();
    renderWelcome();
    planView.render(plan, runningTurn);
    composer.setRunning(runningTurn !== null, !shown.sendable);
    // For the reader of the page (and the reload test): whose transcript this is.
    log.dataset.source = shown.source;
    markShown();
  });
}

/**
 * A performance mark the first time the saved copy, then the sidecar's transcript, is on screen
 * (with how many turns): what a reload costs, in the devtools and in the reload test.
 */
const marked = new Set<string>();
function markShown(): void {
  if (shown.source === 'loading' || marked.has(shown.source)) return;
  marked.add(shown.source);
  performance.mark(`tandem-chat-${shown.source}`, { detail: { turns: log.querySelectorAll('.turn').length } });
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  switch (m.type) {
    case 'reset':
      // Another chat: an edit of this one's prompt has nothing to fork.
      if (m.sessionId !== shown.sessionId) composer.cancelEdit();
      if (shown.reset(m.sessionId, m.entries, m.loaded) === 'replaced') {
        view.clear();
        plan = planOf(m.entries);
      }
      if (m.loaded) saveChat();
      break;
    case 'append':
      for (const e of m.entries) plan = nextPlan(plan, e);
      if (shown.append(m.entries)) saveChat();
      break;
    case 'status':
      if (runningTurn !== null && m.runningTurn !== runningTurn) announceEnd(runningTurn);
      runningTurn = m.runningTurn;
      log.setAttribute('aria-busy', String(runningTurn !== null));
      sidecar = m.sidecar;
      sidecarProblem = m.sidecarProblem;
      break;
    case 'approvals':
      pending = new Map(m.pending.map((r) => [pendingKey(r.turnId, r.toolCallId), r]));
      break;
    case 'models':
      models = m.models;
      currentModel = m.current;
      break;
    case 'endpoint':
      endpoint = { baseUrl: m.baseUrl, hasKey: m.hasKey };
      break;
    case 'attach':
      composer.attach(m.attachment);
      break;
    case 'image':
      composer.addImages([m.image]);
      break;
    case 'fileMatches':
      composer.showMatches(m.query, m.paths);
      return;
    case 'commands':
      composer.showCommands(m.commands);
      return;
    case 'mode':
      modePicker.set(m.mode);
      return;
    case 'editPrompt':
      composer.editPrompt(m.turnId, m.text, m.attachments, m.images);
      return;
    case 'editAttachments':
      composer.editAttachments(m.turnId, m.attachments, m.images);
      return;
    case 'server':
      server = m.state;
      break;
  }
  render();
});

plan = planOf(shown.entries);
installChatKeys(window, {
  pending: () => pending.values(),
  running: () => runningTurn !== null,
  decide: (req, decision) => post({ type: 'decide', ref: approvalRef(req), decision }),
  stop: () => post({ type: 'stop' }),
});
render();
post({ type: 'ready' });
