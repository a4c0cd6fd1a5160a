// The chat's state on the host: which session is shown, its transcript (the sidecar's updates as
// they came), the running turn and the model list. The webview renders what this posts.

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApprovalController } from '../approvals/controller';
import type {
  ListModelsResult,
  ListSessionsResult,
  LoadSessionResult,
  ModelInfo,
  NewSessionResult,
  PromptParams,
  PromptResult,
  SetModelParams,
  UndoResult,
  UpdateParams,
} from '../protocol';
import { ErrorCode, Method } from '../protocol';
import type { Attachment, HostMessage, LogEntry, Notice } from '../shared/messages';
import { type ImageAttachment, imageTypeOfName, MAX_IMAGES } from '../shared/images';
import { readWorkspaceImage } from './images';
import type { Sidecar } from '../sidecar/connection';
import { historyPicks } from './history';
import { restoreNotice, restoreTo } from './restore';
import { extractMentions } from './mentions';
import { binaryByName, isTextFile } from './textFiles';
import { reconcileModel } from './models';

/** The configured endpoint (null: the sidecar finds a local server) and whether it has a key. */
export interface EndpointStatus {
  baseUrl: string | null;
  hasKey: boolean;
}

const SESSION_KEY = 'tandem.sessionId';
const MODEL_KEY = 'tandem.pickedModel';
const RESTORE_ANYWAY = 'Restore Anyway';

function errorText(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e && typeof e.message === 'string') return e.message;
  return String(e);
}

function errorCode(e: unknown): number | undefined {
  return e && typeof e === 'object' && 'code' in e && typeof e.code === 'number' ? e.code : undefined;
}

export class ChatSession {
  private sessionId: string | null;
  private log: LogEntry[] = [];
  private runningTurn: string | null = null;
  /** Turns whose `turnEnded` came before their `prompt` reply. */
  private readonly ended = new Set<string>();
  private models: ModelInfo[] = [];
  private currentModel: string | null = null;
  private post: ((m: HostMessage) => void) | undefined;
  /** The images of the last prompt sent, for Retry. */
  private lastImages: ImageAttachment[] = [];
  /** Attachments added before the chat view first opened. */
  private readonly queued: Attachment[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly sidecar: Sidecar,
    private readonly approvals: ApprovalController,
    private readonly endpoint: () => Promise<EndpointStatus>,
  ) {
    this.sessionId = context.workspaceState.get<string>(SESSION_KEY) ?? null;
  }

  /** The model picked in the chat, which wins over `tandem.provider.model`. */
  get pickedModel(): string | undefined {
    return this.context.globalState.get<string>(MODEL_KEY);
  }

  /** Connects a (new) webview and sends it everything. */
  attach(post: (m: HostMessage) => void): void {
    this.post = post;
    post({ type: 'reset', sessionId: this.sessionId, entries: this.log });
    this.postStatus();
    this.postApprovals();
    post({ type: 'models', models: this.models, current: this.currentModel });
    void this.postEndpoint();
    for (const attachment of this.queued.splice(0)) post({ type: 'attach', attachment });
  }

  /** To the webview, if one is open (a new one gets everything in `attach`). */
  private toView(m: HostMessage): void {
    this.post?.(m);
  }

  /** The session the chat shows (null: a new chat, not yet sent). */
  get shownSessionId(): string | null {
    return this.sessionId;
  }

  /** The endpoint and whether a key is stored for it, for the header. */
  async postEndpoint(): Promise<void> {
    const status = await this.endpoint();
    this.toView({ type: 'endpoint', ...status });
  }

  postApprovals(): void {
    const pending = this.approvals.pending.filter((r) => r.sessionId === this.sessionId).map((r) => (r.kind === 'edit' ? { ...r, displayPath: vscode.workspace.asRelativePath(r.path, false) } : r));
    this.toView({ type: 'approvals', pending });
  }

  postStatus(): void {
    this.toView({ type: 'status', runningTurn: this.runningTurn, sidecar: this.sidecar.state });
    void vscode.commands.executeCommand('setContext', 'tandem.turnRunning', this.runningTurn !== null);
  }

  postAttachment(attachment: Attachment): void {
    if (this.post) this.post({ type: 'attach', attachment });
    else this.queued.push(attachment);
  }

  private append(...entries: LogEntry[]): void {
    this.log.push(...entries);
    this.toView({ type: 'append', entries });
  }

  private notice(level: Notice['level'], text: string): void {
    this.append({ kind: 'notice', level, text });
  }

  private setSession(id: string | null, entries: LogEntry[]): void {
    this.sessionId = id;
    // Another chat's questions close with it: nobody would see them.
    this.approvals.keepOnly(id);
    this.log = entries;
    this.runningTurn = null;
    this.ended.clear();
    void this.context.workspaceState.update(SESSION_KEY, id ?? undefined);
    this.toView({ type: 'reset', sessionId: id, entries });
    this.postStatus();
  }

  /** `tandem/update`. */
  onUpdate(u: UpdateParams): void {
    // A turn's end closes its diffs whichever session is shown.
    if (u.kind === 'turnEnded') this.approvals.turnEnded(u.sessionId, u.turnId);
    // Its question timed out on the sidecar's side: the diff closes too.
    if (u.kind === 'toolResult') this.approvals.toolFinished(u);
    if (u.sessionId !== this.sessionId) return;
    this.append(u);
    if (u.kind === 'turnEnded') {
      this.ended.add(u.turnId);
      if (this.runningTurn === u.turnId) {
        this.runningTurn = null;
        this.postStatus();
      }
    }
  }

  private root(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** Reads a workspace image for the composer's thumbnails; a notice says why it can't be. */
  async attachImage(given: string): Promise<void> {
    const root = this.root();
    if (!root) return;
    const image = await readWorkspaceImage(root, given);
    if (typeof image === 'string') this.notice('error', image);
    else this.toView({ type: 'image', image });
  }

  /** Images named as `@path` in the prompt and not attached as thumbnails already. */
  private async mentionedImages(text: string, images: ImageAttachment[]): Promise<ImageAttachment[]> {
    const root = this.root();
    if (!root) return [];
    const found: ImageAttachment[] = [];
    for (const rel of extractMentions(text)) {
      if (!imageTypeOfName(rel) || images.some((i) => i.path === rel)) continue;
      const image = await readWorkspaceImage(root, rel);
      if (typeof image === 'string') throw new Error(image);
      found.push(image);
    }
    return found;
  }

  /** Workspace files named as `@path` in the prompt, as context. */
  private async mentioned(text: string): Promise<Attachment[]> {
    const root = this.root();
    if (!root) return [];
    const found: Attachment[] = [];
    for (const rel of extractMentions(text)) {
      if (imageTypeOfName(rel)) continue;
      const abs = path.resolve(root, rel);
      if (!abs.startsWith(root + path.sep)) continue;
      const stat = await fs.stat(abs).catch(() => undefined);
      if (stat?.isFile() && (await isTextFile(abs))) found.push({ label: rel, item: { path: rel } });
    }
    return found;
  }

  async send(text: string, attachments: Attachment[], images: ImageAttachment[] = []): Promise<void> {
    if (this.runningTurn) return;
    try {
      if (!this.sessionId) {
        const root = this.root();
        if (!root) {
          this.notice('error', 'Open a folder first: Tandem works in a workspace folder.');
          return;
        }
        const created = await this.sidecar.request<NewSessionResult>(Method.newSession, { root });
        this.setSession(created.sessionId, []);
      }
      const mentioned = await this.mentioned(text);
      const context = [...attachments, ...mentioned.filter((m) => !attachments.some((a) => a.item.path === m.item.path))].map((a) => a.item);
      const all = [...images, ...(await this.mentionedImages(text, images))];
      if (all.length > MAX_IMAGES) throw new Error(`the prompt has ${all.length} images; at most ${MAX_IMAGES} go with one prompt`);
      const sessionId = this.sessionId;
      if (!sessionId) return;
      const params: PromptParams = { sessionId, text, context, images: all.map((i) => ({ mimeType: i.mimeType, data: i.data })) };
      this.lastImages = images;
      const { turnId } = await this.sidecar.request<PromptResult>(Method.prompt, params);
      if (!this.ended.has(turnId)) {
        this.runningTurn = turnId;
        this.postStatus();
      }
    } catch (e) {
      const code = errorCode(e);
      if (code === ErrorCode.unknownSession) {
        this.setSession(null, []);
        this.notice('error', 'That chat is gone from the sidecar; starting a new one. Send the prompt again.');
      } else if (code === ErrorCode.turnRunning) {
        this.notice('error', 'A turn is still running in this chat; stop it first.');
      } else {
        this.notice('error', `Could not send the prompt: ${errorText(e)}`);
      }
    }
  }

  /** Sends the last prompt of this chat again (the error card's Retry). */
  async retry(): Promise<void> {
    const last = [...this.log].reverse().find((e) => e.kind === 'turnStarted');
    if (last?.kind === 'turnStarted') await this.send(last.prompt, [], this.lastImages);
  }

  async stop(): Promise<void> {
    if (!this.sessionId) return;
    try {
      await this.sidecar.request(Method.cancel, { sessionId: this.sessionId });
    } catch (e) {
      this.notice('error', `Could not stop the turn: ${errorText(e)}`);
    }
  }

  async newChat(): Promise<void> {
    if (this.runningTurn) await this.stop();
    this.setSession(null, []);
  }

  /** Shows a stored session. */
  async open(sessionId: string): Promise<void> {
    if (this.runningTurn && sessionId !== this.sessionId) await this.stop();
    const loaded = await this.sidecar.request<LoadSessionResult>(Method.loadSession, { sessionId });
    this.setSession(loaded.sessionId, loaded.entries);
  }

  /**
   * The sidecar restarted, after dying (`crashed`) or because a setting changed: reload the
   * session from its transcript; a turn that was running is gone.
   */
  async reload(crashed: boolean): Promise<void> {
    this.approvals.dropAll('The sidecar restarted.');
    const notices: Notice[] = crashed
      ? [{ kind: 'notice', level: 'error', text: 'Tandem’s sidecar stopped unexpectedly and was restarted; the chat was reloaded from its transcript.' }]
      : [];
    const id = this.sessionId;
    let entries: LogEntry[] = [];
    if (id) {
      try {
        entries = (await this.sidecar.request<LoadSessionResult>(Method.loadSession, { sessionId: id })).entries;
      } catch {
        // Nothing was stored yet: the chat starts over.
      }
    }
    this.setSession(entries.length > 0 ? id : null, [...entries, ...notices]);
    // The endpoint may have changed (that restarts the sidecar): its key status and models too.
    await this.postEndpoint();
    await this.refreshModels();
  }

  async pickSession(): Promise<void> {
    let sessions: ListSessionsResult['sessions'];
    try {
      sessions = (await this.sidecar.request<ListSessionsResult>(Method.listSessions, {})).sessions;
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not list sessions: ${errorText(e)}`);
      return;
    }
    const root = this.root();
    // The sidecar keeps the root it resolved (symlinks followed).
    const roots = root ? [root, await fs.realpath(root).catch(() => root)] : [];
    const picks = historyPicks(
      sessions.filter((s) => roots.length === 0 || roots.includes(s.root)),
      this.sessionId,
    );
    if (picks.length === 0) {
      void vscode.window.showInformationMessage('No past chats in this workspace yet.');
      return;
    }
    const pick = await vscode.window.showQuickPick(picks, { title: 'Tandem: reopen a chat', placeHolder: 'Past chats in this workspace, newest first', matchOnDescription: true, matchOnDetail: true });
    if (!pick) return;
    try {
      await this.open(pick.sessionId);
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not open that chat: ${errorText(e)}`);
    }
  }

  /**
   * "Restore to here" (`turnId`: to before that turn) or Undo Last Turn (none: to before the
   * last turn that changed files). Asks before overwriting what the user changed since.
   */
  async restore(turnId?: string): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) {
      void vscode.window.showInformationMessage('Nothing to restore: this chat has no turns yet.');
      return;
    }
    if (this.runningTurn) {
      void vscode.window.showInformationMessage('A turn is running; stop it before restoring files.');
      return;
    }
    try {
      const outcome = await restoreTo(
        {
          undo: (params) => this.sidecar.request<UndoResult>(Method.undo, params),
          confirm: async (message, detail) => (await vscode.window.showWarningMessage(message, { modal: true, detail }, RESTORE_ANYWAY)) === RESTORE_ANYWAY,
        },
        sessionId,
        turnId,
      );
      // The user may have opened another chat while the dialog was up; the notice belongs to this one.
      if (this.sessionId === sessionId) this.notice('info', restoreNotice(outcome, turnId));
    } catch (e) {
      const text = errorCode(e) === ErrorCode.turnRunning ? 'A turn is running; stop it before restoring files.' : `Could not restore: ${errorText(e)}`;
      if (this.sessionId === sessionId) this.notice('error', text);
    }
  }

  private refreshing: Promise<void> | undefined;

  /** Asks the sidecar for the models (calls while one runs share it) and posts them. */
  refreshModels(): Promise<void> {
    this.refreshing ??= this.doRefreshModels().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async doRefreshModels(): Promise<void> {
    try {
      const r = await this.sidecar.request<ListModelsResult>(Method.listModels, {});
      this.models = r.models;
      this.currentModel = r.current || null;
      const { model, replaced } = reconcileModel(r.models.map((m) => m.id), this.currentModel);
      if (replaced && model) {
        // The endpoint changed (or the model went away): keep no model it doesn't offer.
        const stale = this.currentModel;
        await this.sidecar.request(Method.setModel, { model } satisfies SetModelParams);
        this.currentModel = model;
        await this.context.globalState.update(MODEL_KEY, model);
        const where = (await this.endpoint()).baseUrl ?? 'The model server';
        this.notice('info', `${where} does not list the model “${stale}”; switched to “${model}”, its first model.`);
      }
    } catch {
      // No endpoint reachable yet: the picker shows the configured model alone.
      this.models = [];
      this.currentModel = this.pickedModel ?? (vscode.workspace.getConfiguration('tandem').get<string>('provider.model') || null);
    }
    this.toView({ type: 'models', models: this.models, current: this.currentModel });
  }

  async setModel(model: string): Promise<void> {
    try {
      await this.sidecar.request(Method.setModel, { model } satisfies SetModelParams);
      this.currentModel = model;
      await this.context.globalState.update(MODEL_KEY, model);
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not switch the model: ${errorText(e)}`);
    }
    this.toView({ type: 'models', models: this.models, current: this.currentModel });
  }

  /** The configured model changed: it replaces the one picked in the chat. */
  async clearPickedModel(): Promise<void> {
    await this.context.globalState.update(MODEL_KEY, undefined);
    const model = vscode.workspace.getConfiguration('tandem').get<string>('provider.model');
    if (model) await this.setModel(model);
  }

  async findFiles(query: string): Promise<void> {
    const q = query.replace(/[[\]{}*?!]/g, '');
    const uris = await vscode.workspace.findFiles(q ? `**/*${q}*` : '**/*', '**/{node_modules,target,.git,dist,out}/**', 200);
    // Text files, and images (which go as images).
    const ranked = uris
      .filter((u) => !binaryByName(u.path) || imageTypeOfName(u.path))
      .map((u) => ({ uri: u, rel: vscode.workspace.asRelativePath(u, false) }))
      .sort((a, b) => rank(a.rel, q) - rank(b.rel, q) || a.rel.length - b.rel.length || a.rel.localeCompare(b.rel));
    // Text files only: a binary one would reach the model as noise, or not at all.
    const paths: string[] = [];
    for (const { uri, rel } of ranked) {
      if (paths.length >= 12) break;
      if (uri.scheme !== 'file' || imageTypeOfName(rel) || (await isTextFile(uri.fsPath))) paths.push(rel);
    }
    this.toView({ type: 'fileMatches', query, paths });
  }
}

/** Files whose name starts with the query come first, then whose name contains it. */
function rank(rel: string, q: string): number {
  const name = path.basename(rel).toLowerCase();
  const lq = q.toLowerCase();
  return name.startsWith(lq) ? 0 : name.includes(lq) ? 1 : 2;
}
