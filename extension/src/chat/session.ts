// The chat's state on the host: which session is shown, its transcript (the sidecar's updates as
// they came), the running turn and the model list. The webview renders what this posts.

import { realpath } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { ApprovalController } from '../approvals/controller';
import type {
  ListSessionsResult,
  Mode,
  ModelInfo,
  NewSessionParams,
  PromptParams,
  SessionId,
  SetModelParams,
  ToolCallId,
  TurnId,
  UpdateParams,
} from '../protocol';
import { ErrorCode, Method, sessionIdFrom } from '../protocol';
import type { Attachment, HostMessage, LogEntry, Notice, ServerState } from '../shared/messages';
import { type ImageAttachment, imageTypeOfName, MAX_IMAGES } from '../shared/images';
import { readWorkspaceImage } from './images';
import type { Sidecar } from '../sidecar/connection';
import { historyPicks } from './history';
import { restoreNotice, restoreTo, type RestoreOutcome } from './restore';
import { forkBefore, KEEP_FILES, RESTORE_FILES } from './fork';
import { SentAttachments, type SentWith } from './sentAttachments';
import { extractMentions } from './mentions';
import { FileSearch, isText } from './fileSearch';
import { EDITOR_MENTIONS, editorContext, editorMentionsMatching, TerminalOutputs } from '../context/editorContext';
import { ChangesView } from './changesView';
import { LossView } from './lossView';
import { reconcileModel } from './models';
import { serverState } from './welcome';
import { isWholeOutputPath } from './wholeOutput';
import { ChatMode } from './mode';
import { listCommands } from './commands';
import { foldersChangedNotice, sessionRoots } from './roots';
import { type MentionFolder, mentionTarget, sidecarPath } from './mentionFolders';

/** The configured endpoint (null: the sidecar finds a local server) and whether it has a key. */
export interface EndpointStatus {
  baseUrl: string | null;
  hasKey: boolean;
}

const SESSION_KEY = 'tandem.sessionId';
const MODEL_KEY = 'tandem.pickedModel';

function errorText(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e && typeof e.message === 'string') return e.message;
  return String(e);
}

function errorCode(e: unknown): number | undefined {
  return e && typeof e === 'object' && 'code' in e && typeof e.code === 'number' ? e.code : undefined;
}

export class ChatSession {
  private sessionId: SessionId | null;
  private log: LogEntry[] = [];
  private runningTurn: TurnId | null = null;
  /** Turns whose `turnEnded` came before their `prompt` reply. */
  private readonly ended = new Set<TurnId>();
  private models: ModelInfo[] = [];
  private currentModel: string | null = null;
  private post: ((m: HostMessage) => void) | undefined;
  /** The images of the last prompt sent, for Retry. */
  private lastImages: ImageAttachment[] = [];
  /** Attachments added before the chat view first opened. */
  private readonly queued: Attachment[] = [];
  private readonly loss = new LossView();
  private readonly changesView = new ChangesView();
  private readonly files = new FileSearch();
  private readonly terminals = new TerminalOutputs();
  private readonly mode: ChatMode;
  /** Each prompt's chips and images, for Edit. */
  private readonly sentWith = new SentAttachments();
  /**
   * Whether `log` is the sidecar's transcript of `sessionId`: not before the first `reload` after
   * the window opened. The webview shows its saved copy meanwhile and sends nothing.
   */
  private loaded: boolean;
  private readonly firstLoad: Promise<void>;
  private markLoaded: () => void = () => undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly sidecar: Sidecar,
    private readonly approvals: ApprovalController,
    private readonly endpoint: () => Promise<EndpointStatus>,
  ) {
    const stored = context.workspaceState.get<string>(SESSION_KEY);
    this.sessionId = stored === undefined ? null : sessionIdFrom(stored);
    this.firstLoad = new Promise((resolve) => {
      this.markLoaded = resolve;
    });
    // A new chat has nothing to load.
    this.loaded = this.sessionId === null;
    if (this.loaded) this.markLoaded();
    context.subscriptions.push(this.loss, this.changesView, this.files, this.terminals);
    this.mode = new ChatMode(sidecar);
    // A session's roots are fixed when it starts: say so when the window's folders change.
    context.subscriptions.push(
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        if (this.sessionId !== null) this.notice('info', foldersChangedNotice(e.added.length, e.removed.length));
      }),
    );
  }

  /** The model picked in the chat, which wins over `tandem.provider.model`. */
  get pickedModel(): string | undefined {
    return this.context.globalState.get<string>(MODEL_KEY);
  }

  /** Connects a (new) webview and sends it everything. */
  attach(post: (m: HostMessage) => void): void {
    this.post = post;
    post({ type: 'reset', sessionId: this.sessionId, entries: this.log, loaded: this.loaded });
    this.postStatus();
    this.postApprovals();
    post({ type: 'models', models: this.models, current: this.currentModel });
    post({ type: 'mode', mode: this.mode.current });
    post({ type: 'server', state: this.server });
    void this.postEndpoint();
    for (const attachment of this.queued.splice(0)) post({ type: 'attach', attachment });
  }

  /** To the webview, if one is open (a new one gets everything in `attach`). */
  private toView(m: HostMessage): void {
    this.post?.(m);
  }

  /** The session the chat shows (null: a new chat, not yet sent). */
  get shownSessionId(): SessionId | null {
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
    this.toView({ type: 'status', runningTurn: this.runningTurn, sidecar: this.sidecar.state, sidecarProblem: this.sidecar.problem });
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

  private setSession(id: SessionId | null, entries: LogEntry[], mode?: Mode): void {
    this.sessionId = id;
    // A session made from a new chat keeps the mode picked for it.
    if (mode !== undefined || id === null) this.mode.shown(mode);
    this.toView({ type: 'mode', mode: this.mode.current });
    // Another chat's questions close with it: nobody would see them.
    this.approvals.keepOnly(id);
    this.log = entries;
    this.loaded = true;
    this.markLoaded();
    this.runningTurn = null;
    this.ended.clear();
    void this.context.workspaceState.update(SESSION_KEY, id ?? undefined);
    this.toView({ type: 'reset', sessionId: id, entries, loaded: true });
    this.postStatus();
  }

  /** `tandem/update`. */
  onUpdate(u: UpdateParams): void {
    // A turn's end closes its diffs whichever session is shown.
    if (u.kind === 'turnEnded') this.approvals.turnEnded(u.sessionId, u.turnId);
    // Its question timed out on the sidecar's side: the diff closes too.
    if (u.kind === 'toolResult') this.approvals.toolFinished(u);
    // A model request went through: a server answers now, so the card goes (and the models come).
    if (u.kind === 'usage' && this.server.problem !== 'none' && this.server.problem !== 'checking') void this.refreshModels();
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

  /** Every folder of the window, the first one the primary root. */
  private roots(): NewSessionParams | undefined {
    const folders = vscode.workspace.workspaceFolders ?? [];
    return sessionRoots(folders.map((f) => ({ fsPath: f.uri.fsPath, onDisk: f.uri.scheme === 'file' })));
  }

  /** The window's folders as `@` mentions name them (mentionFolders.ts). */
  private mentionFolders(): (MentionFolder & { uri: vscode.Uri; onDisk: boolean })[] {
    return (vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, fsPath: f.uri.fsPath, uri: f.uri, onDisk: f.uri.scheme === 'file' }));
  }

  /**
   * Reads an image for the composer's thumbnails: a `file:` URI (a drop) in the first folder, or
   * an `@` pick in any folder. A notice says why it can't be.
   */
  async attachImage(given: string): Promise<void> {
    const image = await this.readImage(given);
    if (image === undefined) return;
    if (typeof image === 'string') this.notice('error', image);
    else this.toView({ type: 'image', image });
  }

  /** An image as `@given` names it; its `path` is `given`, so a later `@given` finds it attached. */
  private async readImage(given: string): Promise<ImageAttachment | string | undefined> {
    const folders = this.mentionFolders();
    const root = folders[0]?.fsPath;
    if (root === undefined) return undefined;
    if (given.startsWith('file:')) return readWorkspaceImage(root, given);
    const target = mentionTarget(given, folders);
    const folder = target && folders[target.folder];
    if (!target || !folder) return `${given} can't be attached: it is outside the workspace (${root}).`;
    const image = await readWorkspaceImage(folder.fsPath, target.rel);
    return typeof image === 'string' || target.folder === 0 ? image : { ...image, path: given };
  }

  /** Images named as `@path` in the prompt and not attached as thumbnails already. */
  private async mentionedImages(text: string, images: ImageAttachment[]): Promise<ImageAttachment[]> {
    const found: ImageAttachment[] = [];
    for (const rel of extractMentions(text)) {
      if (!imageTypeOfName(rel) || images.some((i) => i.path === rel)) continue;
      const image = await this.readImage(rel);
      if (image === undefined) return [];
      if (typeof image === 'string') throw new Error(image);
      found.push(image);
    }
    return found;
  }

  /**
   * What the prompt's `@` words attach: workspace files and folders (`@src/`), the editor's own
   * context (`@problems`, `@terminal`, `@changes`) and pages (`@https://…`, fetched by the
   * sidecar with `fetch_url`'s approval). A word of the editor's that can't be had throws, so
   * nothing is sent without it.
   */
  private async mentioned(text: string): Promise<Attachment[]> {
    const folders = this.mentionFolders();
    const first = folders[0];
    if (!first) return [];
    const found: Attachment[] = [];
    for (const rel of extractMentions(text)) {
      if (EDITOR_MENTIONS.some((m) => m.word === rel)) {
        found.push({ label: `@${rel}`, item: await editorContext(rel, first.uri, this.terminals) });
        continue;
      }
      if (/^https?:\/\/\S+$/i.test(rel)) {
        found.push({ label: rel, item: { kind: 'url', path: rel } });
        continue;
      }
      if (imageTypeOfName(rel)) continue;
      // In one of the folders (no `..` climbs out), and one the session has as a root: another
      // file system's folder is none (roots.ts).
      const target = mentionTarget(rel, folders);
      const folder = target && folders[target.folder];
      const path = target && sidecarPath(target, folders);
      if (!target || !folder || path === undefined || (target.folder > 0 && !folder.onDisk)) continue;
      const uri = target.rel === '' ? folder.uri : vscode.Uri.joinPath(folder.uri, target.rel);
      if (await isFolder(uri)) found.push({ label: rel, item: { kind: 'folder', path } });
      else if (await isText(uri)) found.push({ label: rel, item: { path } });
    }
    return found;
  }

  /**
   * Sends a prompt; with `fork`, it is an earlier prompt edited, sent to a fork of this chat from
   * before that turn (fork.ts), and nothing is sent when the user cancels the files question.
   */
  async send(text: string, attachments: Attachment[], images: ImageAttachment[] = [], fork?: TurnId): Promise<void> {
    // The webview sends nothing before the chat is loaded; a prompt from elsewhere (Edit
    // Selection) waits for it, and then goes to the chat that is shown.
    if (!this.loaded) await this.firstLoad;
    if (this.runningTurn) return;
    if (fork !== undefined && !(await this.forkAt(fork, text, { attachments, images }))) return;
    try {
      if (!this.sessionId) {
        const roots = this.roots();
        if (!roots) {
          this.notice('error', 'Open a folder first: Tandem works in a workspace folder.');
          return;
        }
        const created = await this.sidecar.request(Method.newSession, roots);
        this.setSession(created.sessionId, []);
        await this.mode.started(created.sessionId);
      }
      const mentioned = await this.mentioned(text);
      const context = [...attachments, ...mentioned.filter((m) => !attachments.some((a) => a.item.path === m.item.path))].map((a) => a.item);
      // Set above when there was none; the type cannot follow that through the awaits.
      const all = [...images, ...(await this.mentionedImages(text, images))];
      if (all.length > MAX_IMAGES) throw new Error(`the prompt has ${all.length} images; at most ${MAX_IMAGES} go with one prompt`);
      const sessionId = this.sessionId;
      if (!sessionId) return;
      const params: PromptParams = { sessionId, text, context, images: all.map((i) => ({ mimeType: i.mimeType, data: i.data })) };
      this.lastImages = images;
      const { turnId } = await this.sidecar.request(Method.prompt, params);
      this.sentWith.remember(sessionId, turnId, { attachments, images });
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

  /**
   * Forks the shown chat before `turnId` and shows the fork; false when nothing was forked (the
   * edited prompt goes back in the box, with what it was to be sent with).
   */
  private async forkAt(turnId: TurnId, text: string, sent: SentWith): Promise<boolean> {
    const sessionId = this.sessionId;
    if (!sessionId) return false;
    const again = () => this.toView({ type: 'editPrompt', turnId, text, ...sent });
    try {
      const outcome = await forkBefore(
        {
          turnChanges: (params) => this.sidecar.request(Method.turnChanges, params),
          askFiles: async (message, detail) => {
            // "Keep Files" first: Enter leaves the workspace alone. VS Code adds Cancel (Escape).
            const answer = await vscode.window.showWarningMessage(message, { modal: true, detail }, { title: KEEP_FILES }, { title: RESTORE_FILES });
            return answer?.title === KEEP_FILES ? 'keep' : answer?.title === RESTORE_FILES ? 'restore' : undefined;
          },
          restore: (id, turn): Promise<RestoreOutcome> =>
            restoreTo(
              {
                undo: (params) => this.sidecar.request(Method.undo, params),
                confirm: (message, detail, conflicts) => this.loss.confirm(vscode.Uri.file(this.root() ?? '/'), message, detail, conflicts),
              },
              id,
              turn,
            ),
          fork: (params) => this.sidecar.request(Method.forkSession, params),
        },
        sessionId,
        turnId,
      );
      if (outcome.kind === 'cancelled') {
        again();
        return false;
      }
      if (outcome.kind === 'declined') {
        this.notice('info', `${restoreNotice(outcome.restore, turnId)} The edited prompt was not sent.`);
        again();
        return false;
      }
      const { loaded } = outcome;
      this.sentWith.forked(sessionId, loaded.sessionId, turnId);
      const notices: Notice[] = [{ kind: 'notice', level: 'info', text: 'Continued as a new chat from before the edited prompt; the earlier chat is in the history, unchanged.' }];
      if (outcome.restore) notices.push({ kind: 'notice', level: 'info', text: restoreNotice(outcome.restore, turnId) });
      this.setSession(loaded.sessionId, [...loaded.entries, ...notices], loaded.mode);
      return true;
    } catch (e) {
      const code = errorCode(e);
      this.notice('error', code === ErrorCode.turnRunning ? 'A turn is still running in this chat; stop it before editing a prompt.' : `Could not edit the prompt: ${errorText(e)}`);
      again();
      return false;
    }
  }

  /** Edit on an earlier prompt: what it was sent with, for the box (none when not known). */
  postEditAttachments(turnId: TurnId): void {
    if (!this.sessionId) return;
    this.toView({ type: 'editAttachments', turnId, ...this.sentWith.of(this.sessionId, turnId) });
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
  async open(sessionId: SessionId): Promise<void> {
    if (this.runningTurn && sessionId !== this.sessionId) await this.stop();
    const loaded = await this.sidecar.request(Method.loadSession, { sessionId });
    this.setSession(loaded.sessionId, loaded.entries, loaded.mode);
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
    let mode: Mode | undefined;
    if (id) {
      try {
        const loaded = await this.sidecar.request(Method.loadSession, { sessionId: id });
        entries = loaded.entries;
        mode = loaded.mode;
      } catch {
        // Nothing was stored yet: the chat starts over.
      }
    }
    // A chat the user opened or started while this one loaded (New Chat right after a setting
    // restarted the sidecar) stands: putting the old one back would undo their click.
    if (this.sessionId === id) {
      this.setSession(entries.length > 0 ? id : null, [...entries, ...notices], mode);
    } else {
      for (const n of notices) this.notice(n.level, n.text);
    }
    // The endpoint may have changed (that restarts the sidecar): its key status and models too.
    await this.postEndpoint();
    await this.refreshModels();
  }

  async pickSession(): Promise<void> {
    let sessions: ListSessionsResult['sessions'];
    try {
      sessions = (await this.sidecar.request(Method.listSessions, {})).sessions;
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not list sessions: ${errorText(e)}`);
      return;
    }
    const root = this.root();
    // The sidecar keeps the root it resolved (symlinks followed).
    // (workspace.fs has no realpath.)
    const roots = root ? [root, await realpath(root).catch(() => root)] : [];
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
  async restore(turnId?: TurnId): Promise<void> {
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
          undo: (params) => this.sidecar.request(Method.undo, params),
          confirm: (message, detail, conflicts) => this.loss.confirm(vscode.Uri.file(this.root() ?? '/'), message, detail, conflicts),
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

  /**
   * A turn's changes (`turnId`, or the last turn that changed files), edits and commands alike,
   * in the multi-diff editor.
   */
  async showChanges(turnId?: TurnId): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) {
      void vscode.window.showInformationMessage('No changes to show: this chat has no turns yet.');
      return;
    }
    try {
      const result = await this.sidecar.request(Method.turnChanges, { sessionId, ...(turnId ? { turnId } : {}) });
      if (!(await this.changesView.show(result))) {
        void vscode.window.showInformationMessage(turnId ? 'That turn has no changes left (it changed nothing, or it was undone).' : 'No changes to show.');
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not show the changes: ${errorText(e)}`);
    }
  }

  /** The mode picker: the session's mode from its next request on. */
  async setMode(mode: Mode): Promise<void> {
    try {
      await this.mode.pick(this.sessionId, mode);
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not switch the mode: ${errorText(e)}`);
    }
    this.toView({ type: 'mode', mode: this.mode.current });
  }

  /** The composer's `/` menu: the custom commands, read from their files now. */
  async postCommands(): Promise<void> {
    this.toView({ type: 'commands', commands: await listCommands(this.sidecar, this.sessionId, this.root()) });
  }

  private refreshing: Promise<void> | undefined;
  /** What the last check for a model server found; the chat shows a card while it failed. */
  private server: ServerState = { problem: 'none' };

  private setServer(state: ServerState): void {
    this.server = state;
    this.toView({ type: 'server', state });
  }

  /** Asks the sidecar for the models (calls while one runs share it) and posts them. */
  refreshModels(): Promise<void> {
    this.refreshing ??= this.doRefreshModels().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async doRefreshModels(): Promise<void> {
    // Retry shows that it is checking (a dead endpoint takes seconds of retries to say so).
    if (this.server.problem !== 'none') this.setServer({ problem: 'checking' });
    try {
      const r = await this.sidecar.request(Method.listModels, {});
      this.setServer({ problem: 'none' });
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
    } catch (e) {
      // A sidecar still starting or restarting says nothing about the server.
      if (this.sidecar.state === 'running') this.setServer(serverState(e, (await this.endpoint()).baseUrl));
      else if (this.server.problem === 'checking') this.setServer({ problem: 'none' });
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

  /** Opens a command's whole output (read-only, as the sidecar kept it) in an editor. */
  async openOutput(turnId: TurnId, toolCallId: ToolCallId, path: string): Promise<void> {
    if (!this.sessionId || !isWholeOutputPath(path, this.sessionId, turnId, toolCallId)) {
      void vscode.window.showErrorMessage(`Tandem does not open ${path}: it is not the output file of that command.`);
      return;
    }
    try {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
      await vscode.window.showTextDocument(doc, { preview: false });
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not open the command's output (${path}): ${errorText(e)}. Tandem keeps the last 20 outputs.`);
    }
  }

  async findFiles(query: string): Promise<void> {
    // The editor's own words first; a URL being typed is no file.
    const words = editorMentionsMatching(query);
    const paths = /^https?:/i.test(query) ? [] : await this.files.find(query).catch(() => []);
    this.toView({ type: 'fileMatches', query, paths: [...words, ...paths] });
  }
}

/** Whether `uri` is a folder (a missing path is not). */
async function isFolder(uri: vscode.Uri): Promise<boolean> {
  try {
    return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
  } catch {
    return false;
  }
}
