// Tandem's VS Code face: wires the sidecar, the chat view, the approval UI and the commands.
// It renders and forwards; the sidecar decides.

import { accessibilityHelp } from './chat/accessibilityHelp';
import { Notices } from './chat/notices';
import { turnIdFrom, type UpdateParams } from './protocol';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { ApprovalController } from './approvals/controller';
import { ChatSession } from './chat/session';
import { CHAT_VIEW_ID, ChatView } from './chat/view';
import { editSelectionPrompt, selectionToEdit } from './context/inlineEdit';
import { configuredEndpoint, initializationOptions, RESTART_SETTINGS } from './config';
import { openConfigFile } from './chat/configFile';
import { userConfigFile } from './chat/configPath';
import { selectionAttachment } from './context/selection';
import { getDiagnostics, watchCoverage } from './diagnostics/handler';
import { EndpointKeys, migrateLegacyOnce, normalizeBaseUrl, sidecarEnv } from './secrets';
import { externalLink } from './shared/links';
import type { WebviewMessage } from './shared/messages';
import { Sidecar, type Launch } from './sidecar/connection';

/** The running sidecar, for `deactivate`. */
let running: Sidecar | undefined;

const settings = () => vscode.workspace.getConfiguration('tandem');
const endpoint = () => configuredEndpoint((key) => settings().get(key));

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Tandem');
  const keys = new EndpointKeys(context.secrets);
  // The pieces call each other only after activation, so their order here does not matter.
  const view = new ChatView(
    context.extensionUri,
    (post) => {
      chat.attach(post);
      void chat.refreshModels();
    },
    (m) => onMessage(m),
  );
  const approvals = new ApprovalController(
    () => view.reveal(),
    () => chat.shownSessionId,
  );
  const sidecar: Sidecar = new Sidecar(
    context,
    output,
    async (): Promise<Launch> => {
      const baseUrl = endpoint();
      return {
        initializationOptions: initializationOptions((key) => settings().get(key), chat.pickedModel),
        env: sidecarEnv(process.env, baseUrl, await keys.get(baseUrl)),
      };
    },
    {
      update: (u) => {
        turnClock(u);
        chat.onUpdate(u);
      },
      approval: (r, token) => approvals.request(r, token),
      diagnostics: getDiagnostics,
    },
  );
  running = sidecar;
  const notices = new Notices(view, `${CHAT_VIEW_ID}.focus`);
  // When each turn started, for the notification at the end of a long one.
  const turnStarts = new Map<string, number>();
  const turnClock = (u: UpdateParams) => {
    if (u.kind === 'turnStarted') turnStarts.set(`${u.sessionId}/${u.turnId}`, Date.now());
    if (u.kind !== 'turnEnded') return;
    const key = `${u.sessionId}/${u.turnId}`;
    const started = turnStarts.get(key);
    turnStarts.delete(key);
    if (started !== undefined) notices.turnEnded(Date.now() - started, u.error ? `error: ${u.error.split('\n')[0]}` : u.stopReason);
  };
  const chat: ChatSession = new ChatSession(context, sidecar, approvals, async () => {
    const baseUrl = endpoint() ?? null;
    return { baseUrl, hasKey: await keys.has(baseUrl ?? undefined) };
  });

  const onMessage = (m: WebviewMessage): void => {
    switch (m.type) {
      case 'send':
        void chat.send(m.text, m.attachments, m.images, m.forkBefore);
        return;
      case 'attachImage':
        void chat.attachImage(m.path);
        return;
      case 'stop':
        void chat.stop();
        return;
      case 'decide':
        void approvals.decide(m.ref, m.decision, m.feedback);
        return;
      case 'openDiff':
        void approvals.showDiff(m.ref);
        return;
      case 'setModel':
        void chat.setModel(m.model);
        return;
      case 'findFiles':
        void chat.findFiles(m.query);
        return;
      case 'command':
        void vscode.commands.executeCommand(`tandem.${m.command}`);
        return;
      case 'copy':
        void vscode.env.clipboard.writeText(m.text);
        return;
      case 'insert':
        void insertAtCursor(m.text);
        return;
      case 'openLink': {
        // Checked again here: the webview is ours, but the link came from the model.
        const href = externalLink(m.href);
        if (href) void vscode.env.openExternal(vscode.Uri.parse(href, true));
        return;
      }
      case 'retry':
        void chat.retry();
        return;
      case 'restore':
        void chat.restore(m.turnId);
        return;
      case 'showChanges':
        void chat.showChanges(m.turnId);
        return;
      case 'openOutput':
        void chat.openOutput(m.turnId, m.toolCallId, m.path);
        return;
      case 'setMode':
        void chat.setMode(m.mode);
        return;
      case 'listCommands':
        void chat.postCommands();
        return;
      case 'editPromptOf':
        chat.postEditAttachments(m.turnId);
        return;
      case 'ready':
        return;
    }
  };
  const command = (id: string, run: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, run);
  context.subscriptions.push(
    output,
    approvals,
    sidecar,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: true } }),
    notices,
    watchCoverage(),
    approvals.onDidChange(() => {
      chat.postApprovals();
      notices.setWaiting(approvals.pending.length);
    }),
    view.onDidChangeVisibility(() => notices.refresh()),
    sidecar.onDidChangeState(() => chat.postStatus()),
    sidecar.onDidRecover(() => void chat.reload(true)),
    command('tandem.newChat', () => chat.newChat()),
    command('tandem.stop', () => chat.stop()),
    command('tandem.acceptEdit', (uri?: unknown) => approvals.decideEdit('accept', uri)),
    command('tandem.rejectEdit', (uri?: unknown) => approvals.decideEdit('reject', uri)),
    command('tandem.acceptAlwaysEdit', (uri?: unknown) => approvals.decideEdit('acceptAlways', uri)),
    // Restore to before the last turn that changed files; "Restore to here" in the chat picks any turn.
    command('tandem.undoLastTurn', () => chat.restore()),
    // The last turn that changed files (or the turn the chat's card names) as one multi-file diff.
    command('tandem.showTurnChanges', (turnId?: unknown) => chat.showChanges(typeof turnId === 'string' && turnId !== '' ? turnIdFrom(turnId) : undefined)),
    command('tandem.showHistory', () => chat.pickSession()),
    command('tandem.addSelectionToChat', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
      chat.postAttachment(selectionAttachment(editor));
    }),
    command('tandem.editSelection', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const selection = selectionToEdit(editor, (start, end) => new vscode.Selection(start, 0, end, 0));
      if (!selection) return;
      editor.selection = selection;
      const attachment = selectionAttachment(editor);
      const instruction = await vscode.window.showInputBox({
        title: `Tandem: Edit ${attachment.label}`,
        prompt: 'What should change? The edit comes back as a diff to accept or reject.',
        placeHolder: 'e.g. handle an empty list',
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'Say what should change'),
      });
      if (!instruction?.trim()) return;
      // The turn shows in the chat; the focus stays with the editor, where the diff opens.
      if (!view.visible) {
        await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
        await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, selection });
      }
      await chat.send(editSelectionPrompt(instruction), [attachment]);
    }),
    command('tandem.setApiKey', () => setApiKey()),
    command('tandem.openSettings', () => vscode.commands.executeCommand('workbench.action.openSettings', 'tandem.provider')),
    context.secrets.onDidChange((e) => {
      if (keys.isKeyOf(e.key, endpoint())) void chat.postEndpoint();
    }),
    command('tandem.restartSidecar', () => restart()),
    command('tandem.checkServer', () => chat.refreshModels()),
    command('tandem.openConfigFile', () => openConfigFile(userConfigFile(process.platform, process.env, os.homedir()))),
    command('tandem.showOutput', () => output.show()),
    command('tandem.accessibilityHelp', () => {
      const help = accessibilityHelp(process.platform === 'darwin');
      void vscode.window.showInformationMessage(help.message, { modal: true, detail: help.detail });
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (RESTART_SETTINGS.some((s) => e.affectsConfiguration(s))) void restart();
      else if (e.affectsConfiguration('tandem.provider.model')) void chat.clearPickedModel();
    }),
  );

  /** Settings the sidecar reads at start changed: start it again and reload the chat. */
  async function restart(): Promise<void> {
    approvals.dropAll('The sidecar is restarting.');
    await sidecar.restart();
    await chat.reload(false);
  }

  /**
   * Asks for the key of the configured endpoint and restarts the sidecar with it. Without an
   * endpoint it asks for one first: a key is kept, and sent, only for the endpoint it was set for.
   */
  async function setApiKey(): Promise<void> {
    const configured = endpoint();
    const baseUrl =
      configured ??
      (await vscode.window.showInputBox({
        title: 'Tandem: API endpoint',
        prompt: 'tandem.provider.baseUrl is empty. Which OpenAI-compatible endpoint is the key for? It becomes the setting.',
        value: 'https://api.openai.com/v1',
        ignoreFocusOut: true,
        validateInput: (v) => (normalizeBaseUrl(v) ? undefined : 'An http:// or https:// URL, e.g. https://api.openai.com/v1'),
      }))?.trim();
    if (!baseUrl) return;
    if (!normalizeBaseUrl(baseUrl)) {
      void vscode.window.showErrorMessage(`tandem.provider.baseUrl (${baseUrl}) is not an http(s) URL; fix it before setting a key for it.`);
      return;
    }
    const key = await vscode.window.showInputBox({
      title: `Tandem: API key for ${baseUrl}`,
      prompt: 'Kept in VS Code’s secret storage and sent only to this endpoint. Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    await keys.set(baseUrl, key);
    // A new endpoint setting restarts the sidecar through the configuration listener.
    if (configured) await restart();
    else await settings().update('provider.baseUrl', baseUrl, vscode.ConfigurationTarget.Global);
    await chat.postEndpoint();
  }

  // Not awaited: the chat view opens while the sidecar starts, and says so.
  void (async () => {
    const migration = await migrateLegacyOnce(keys, context.globalState, endpoint());
    if (migration === 'migrated') output.appendLine(`Moved the API key of an earlier version to the key of ${endpoint()}.`);
    if (migration === 'superseded') output.appendLine(`Removed the API key of an earlier version: ${endpoint()} has its own.`);
    if (migration === 'dropped') {
      output.appendLine('Removed the API key of an earlier version: keys are now kept per endpoint, and no tandem.provider.baseUrl is set.');
      void vscode.window.showInformationMessage('Tandem now keeps API keys per endpoint. Set tandem.provider.baseUrl, then run “Tandem: Set API Key”.');
    }
    await sidecar.start();
    await chat.reload(false);
  })();
}

/** A code block from the chat, into the editor the user last typed in, replacing its selections. */
async function insertAtCursor(text: string): Promise<void> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!editor) {
    void vscode.window.showInformationMessage('Open a file to insert the code into.');
    return;
  }
  const done = await editor.edit((b) => {
    for (const sel of editor.selections) b.replace(sel, text);
  });
  if (done) await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
}

/** Stops the sidecar: VS Code waits for it (shutdown, exit, and a kill if it lingers). */
export function deactivate(): Promise<void> | undefined {
  const sidecar = running;
  running = undefined;
  return sidecar?.stop();
}
