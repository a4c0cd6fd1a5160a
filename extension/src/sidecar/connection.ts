// The sidecar process and the JSON-RPC connection to it, through vscode-languageclient. Knows
// the transport, restarts and capabilities; what the messages mean is for the rest.

import { exitProblem, StderrTail } from './exitProblem';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { CancellationToken, CloseAction, CloseHandlerResult, ErrorHandlerResult, LanguageClient, StaticFeature } from 'vscode-languageclient/node';
import type {
  ApprovalReply,
  ApprovalRequest,
  FilesChangedParams,
  GetDiagnosticsParams,
  GetDiagnosticsResult,
  InitializationOptions,
  ParamsOf,
  RequestMethod,
  ResultOf,
  UpdateParams,
} from '../protocol';
import { Method } from '../protocol';
import type { SidecarState } from '../shared/messages';
import { changes, splitLines } from '../approvals/hunks';
import { applyAndSave, type Editor } from './applyEdit';
import { onFilesChanged } from './filesChanged';
import { resolveBinary } from './binary';

/** Declares `experimental.tandem`: this client answers approvals and diagnostics requests. */
const tandemCapabilities: StaticFeature = {
  fillClientCapabilities(capabilities) {
    capabilities.experimental = { ...(capabilities.experimental ?? {}), tandem: { approvals: true, diagnostics: true } };
  },
  initialize() {},
  getState: () => ({ kind: 'static' }),
  clear() {},
};

/**
 * vscode-languageclient, loaded when the sidecar starts rather than with the extension: it is
 * three quarters of the bundle, and evaluating it (about 70 ms on a busy 2-core machine) held up
 * the activation that the chat view's page waits for.
 */
const languageClient = () => import('vscode-languageclient/node');

/** A binary unpacked from a .vsix may have lost its executable bit; put it back if we may. */
function ensureExecutable(file: string): void {
  if (process.platform === 'win32') return;
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    try {
      fs.chmodSync(file, 0o755);
    } catch {
      // Starting it will fail and say why.
    }
  }
}

export interface SidecarHandlers {
  update(params: UpdateParams): void;
  approval(request: ApprovalRequest, token: CancellationToken): Promise<ApprovalReply>;
  diagnostics(params: GetDiagnosticsParams): Promise<GetDiagnosticsResult>;
}

/** What the sidecar starts with: its initializationOptions and its environment. */
export interface Launch {
  initializationOptions: InitializationOptions;
  env: Record<string, string>;
}

/** How long a stopping sidecar may take to exit after `shutdown`/`exit` before it is killed. */
const EXIT_GRACE_MS = 2000;

/** Resolves true when the process exits within `ms`, false if it is still running then. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** The user chose "Always Save" when an edit touched their unsaved lines. */
const SAVE_ALL_KEY = 'tandem.saveUnsavedWithEdits';

/** Makes the document's buffer `text` by line edits (the rest of the buffer, and the cursor, stay). */
async function setText(doc: vscode.TextDocument, text: string): Promise<boolean> {
  const now = doc.getText();
  if (now === text) return true;
  const at = (lines: string[]) => lines.reduce<number[]>((acc, l) => (acc.push((acc[acc.length - 1] ?? 0) + l.length), acc), [0]);
  const oldAt = at(splitLines(now));
  const newLines = splitLines(text);
  const edit = new vscode.WorkspaceEdit();
  for (const c of changes(now, text)) {
    const range = new vscode.Range(doc.positionAt(oldAt[c.oldStart] ?? now.length), doc.positionAt(oldAt[c.oldEnd] ?? now.length));
    edit.replace(doc.uri, range, newLines.slice(c.newStart, c.newEnd).join(''));
  }
  return vscode.workspace.applyEdit(edit);
}

/** Restarts allowed after crashes within RESTART_WINDOW_MS before giving up. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60_000;

export class Sidecar implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** The running sidecar process (a crash restart spawns a new one). */
  private process: ChildProcess | undefined;
  /** Processes we asked to stop: their exit is no news. */
  private readonly planned = new WeakSet<ChildProcess>();
  private stopping: Promise<void> | undefined;
  private crashes: number[] = [];
  private crashed = false;
  private readonly stateEmitter = new vscode.EventEmitter<SidecarState>();
  private readonly recoveredEmitter = new vscode.EventEmitter<void>();
  /** The sidecar's state as the chat shows it. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** The sidecar is running again after it died: the chat reloads its session. */
  readonly onDidRecover = this.recoveredEmitter.event;
  private current: SidecarState = 'stopped';
  /** Why the sidecar last stopped unasked, in its own words; null while it runs. */
  private stopProblem: string | null = null;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
    private readonly launch: () => Promise<Launch>,
    private readonly handlers: SidecarHandlers,
  ) {}

  /** Why the sidecar stopped without being asked to (its last error line), or null. */
  get problem(): string | null {
    return this.current === 'running' ? null : this.stopProblem;
  }

  get state(): SidecarState {
    return this.current;
  }

  private setState(s: SidecarState): void {
    this.current = s;
    this.stateEmitter.fire(s);
  }

  /** Starts the sidecar with the settings as they are now. */
  async start(): Promise<void> {
    const serverPath = vscode.workspace.getConfiguration('tandem').get<string>('serverPath');
    const binary = resolveBinary(serverPath, this.context.extensionPath, process.platform, process.arch, (p) => {
      try {
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    });
    if ('error' in binary) {
      this.setState('stopped');
      this.output.appendLine(binary.error);
      void vscode.window.showErrorMessage(binary.error);
      return;
    }
    ensureExecutable(binary.path);
    const { initializationOptions, env } = await this.launch();
    const { ApplyWorkspaceEditRequest, CloseAction, ErrorAction, LanguageClient, State } = await languageClient();
    const command = binary.path;
    const client = new LanguageClient(
      'tandem',
      'Tandem',
      // We spawn the process ourselves: for its environment, and because the client, when it
      // spawns, logs every exit as an error ("Server process exited with code 0") even when it
      // was asked to stop. A crash restart calls this again.
      () => this.spawn(command, env),
      {
        // Every open file is synchronised (full text): the agent reads what the editor holds,
        // unsaved changes included, and its edits of open files come back as applyEdit.
        documentSelector: [{ scheme: 'file' }],
        outputChannel: this.output,
        initializationOptions,
        errorHandler: {
          error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue, handled: true }),
          closed: () => this.onClosed(CloseAction),
        },
      },
    );
    client.registerFeature(tandemCapabilities);
    client.onNotification(Method.update, (p: UpdateParams) => this.handlers.update(p));
    client.onRequest(Method.requestApproval, (r: ApprovalRequest, token: CancellationToken) => this.handlers.approval(r, token));
    client.onRequest(Method.getDiagnostics, (p: GetDiagnosticsParams) => this.handlers.diagnostics(p));
    client.onNotification(Method.filesChanged, (p: FilesChangedParams) => void onFilesChanged(p).catch((e: unknown) => this.output.appendLine(`Closing the editors of deleted files: ${String(e)}`)));
    // Replaces the client's own handler (registered before ours): ours also saves, and does not
    // ask again for an edit the user approved.
    client.onRequest(ApplyWorkspaceEditRequest.type, (p) => applyAndSave(p, this.editor(client)));
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.setState('running');
        if (this.crashed) {
          this.crashed = false;
          this.recoveredEmitter.fire();
        }
      } else {
        this.setState(e.newState === State.Starting ? 'starting' : 'stopped');
      }
    });
    this.client = client;
    this.setState('starting');
    try {
      await client.start();
    } catch (e) {
      this.output.appendLine(`Starting the sidecar failed: ${String(e)}`);
      this.setState('stopped');
    }
  }

  /** VS Code, as the applyEdit handler uses it. */
  private editor(client: LanguageClient): Editor {
    const open = (uri: string) => {
      const target = vscode.Uri.parse(uri, true).toString();
      return vscode.workspace.textDocuments.find((d) => d.uri.toString() === target);
    };
    return {
      apply: async (edit) => vscode.workspace.applyEdit(await client.protocol2CodeConverter.asWorkspaceEdit(edit)),
      buffer: (uri) => {
        const doc = open(uri);
        return doc && { text: doc.getText(), dirty: doc.isDirty };
      },
      disk: async (uri) => {
        try {
          return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.parse(uri, true)));
        } catch {
          return undefined;
        }
      },
      save: async (uri) => {
        const doc = open(uri) ?? (await vscode.workspace.openTextDocument(vscode.Uri.parse(uri, true)));
        return !doc.isDirty || (await doc.save());
      },
      saveOnly: async (uri, saved) => {
        // Saved through the document (the buffer briefly holds `saved`), so VS Code knows the
        // file's new state and the user's later save is no "file is newer" conflict.
        const doc = open(uri);
        if (!doc) return false;
        const keep = doc.getText();
        if (!(await setText(doc, saved))) return false;
        const ok = await doc.save();
        await setText(doc, keep);
        return ok;
      },
      askSaveAll: async (file) => {
        if (this.context.globalState.get<boolean>(SAVE_ALL_KEY)) return true;
        const leave = { title: 'Leave Unsaved' };
        const save = { title: 'Save' };
        const always = { title: 'Always Save' };
        const answer = await vscode.window.showWarningMessage(
          `Tandem's edit of ${file} touches lines you have not saved. Save the file with your unsaved changes?`,
          { modal: true, detail: 'Leave Unsaved keeps the file on disk as it was: commands the agent runs do not see the edit until you save.' },
          leave,
          save,
          always,
        );
        if (answer === always) await this.context.globalState.update(SAVE_ALL_KEY, true);
        return answer === save || answer === always;
      },
      warn: (message) => {
        this.output.appendLine(message);
        void vscode.window.showWarningMessage(message);
      },
    };
  }

  private async spawn(command: string, env: Record<string, string>): Promise<ChildProcess> {
    const child = spawn(command, ['lsp'], {
      env,
      cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      stdio: 'pipe',
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
    child.on('error', (e) => this.output.appendLine(`The sidecar process: ${String(e)}`));
    const stderr = new StderrTail();
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
    child.on('exit', (code, signal) => {
      if (this.planned.has(child) && code === 0) return;
      if (!this.planned.has(child)) {
        this.stopProblem = exitProblem(stderr.text(), code, signal);
        this.stateEmitter.fire(this.current);
      }
      const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
      this.output.appendLine(this.planned.has(child) ? `The sidecar ${how} while stopping.` : `The sidecar ${how}.`);
    });
    this.process = child;
    return child;
  }

  /** The connection closed without us asking: tell the user, and restart unless it keeps dying. */
  private onClosed(actions: typeof CloseAction): CloseHandlerResult {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < RESTART_WINDOW_MS), now];
    if (this.crashes.length > MAX_RESTARTS) {
      return {
        action: actions.DoNotRestart,
        message: `Tandem's sidecar stopped ${this.crashes.length} times in 3 minutes and will not be restarted. See the Tandem output; "Tandem: Restart Sidecar" tries again.`,
      };
    }
    this.crashed = true;
    void vscode.window.showWarningMessage("Tandem's sidecar stopped unexpectedly. It is being restarted and the chat reloaded.");
    return { action: actions.Restart, handled: true };
  }

  /** Stops and starts again, e.g. after a setting it reads at start changed. */
  async restart(): Promise<void> {
    await this.stop();
    this.crashes = [];
    await this.start();
  }

  /**
   * Stops the sidecar cleanly: `shutdown` and `exit` through the client, then waits for the
   * process, and kills it if it lingers. Calls while a stop runs share it.
   */
  stop(): Promise<void> {
    this.stopping ??= this.doStop().finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    const child = this.process;
    this.client = undefined;
    this.process = undefined;
    if (child) this.planned.add(child);
    if (client) {
      try {
        await client.stop(EXIT_GRACE_MS);
      } catch (e) {
        this.output.appendLine(`Stopping the sidecar: ${String(e)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    if (child && !(await exited(child, EXIT_GRACE_MS))) {
      this.output.appendLine(`The sidecar did not exit within ${EXIT_GRACE_MS / 1000} s of shutdown; killing it.`);
      child.kill();
    }
    this.setState('stopped');
  }

  /** Resolves when the sidecar is running (it may be starting or restarting), or fails after a while. */
  private whenRunning(timeoutMs = 30_000): Promise<void> {
    if (this.current === 'running') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error("Tandem's sidecar is not running. See the Tandem output."));
      }, timeoutMs);
      const sub = this.onDidChangeState((s) => {
        if (s === 'running') {
          clearTimeout(timer);
          sub.dispose();
          resolve();
        }
      });
    });
  }

  /**
   * Sends a `tandem/*` request, waiting for a sidecar that is still starting. The method names
   * its params and result (the generated `Requests`), so a mismatch does not compile.
   */
  async request<M extends RequestMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (!this.client) throw new Error("Tandem's sidecar is not running. See the Tandem output.");
    await this.whenRunning();
    const client = this.client;
    if (!client || !client.isRunning()) {
      throw new Error("Tandem's sidecar is not running.");
    }
    return client.sendRequest<ResultOf<M>>(method, params);
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.recoveredEmitter.dispose();
  }
}
