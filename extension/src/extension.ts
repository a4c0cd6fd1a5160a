// Tandem's VS Code face: wires the sidecar, the chat view, the approval UI and the commands.
// It renders and forwards; the sidecar decides.

import * as vscode from 'vscode';
import { ApprovalController } from './approvals/controller';
import { ChatSession } from './chat/session';
import { CHAT_VIEW_ID, ChatView } from './chat/view';
import { initializationOptions, RESTART_SETTINGS } from './config';
import { selectionAttachment } from './context/selection';
import { getDiagnostics } from './diagnostics/handler';
import { ApiKeyStore } from './secrets';
import type { InitializationOptions } from './protocol';
import type { WebviewMessage } from './shared/messages';
import { Sidecar } from './sidecar/connection';

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Tandem');
  const apiKey = new ApiKeyStore(context.secrets);
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
    async (): Promise<InitializationOptions> => initializationOptions((key) => vscode.workspace.getConfiguration('tandem').get(key), await apiKey.get(), chat.pickedModel),
    {
      update: (u) => chat.onUpdate(u),
      approval: (r, token) => approvals.request(r, token),
      diagnostics: getDiagnostics,
    },
  );
  const chat: ChatSession = new ChatSession(context, sidecar, approvals);

  const onMessage = (m: WebviewMessage): void => {
    switch (m.type) {
      case 'send':
        void chat.send(m.text, m.attachments);
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
    approvals.onDidChange(() => chat.postApprovals()),
    sidecar.onDidChangeState(() => chat.postStatus()),
    sidecar.onDidRecover(() => void chat.reload(true)),
    command('tandem.newChat', () => chat.newChat()),
    command('tandem.stop', () => chat.stop()),
    command('tandem.acceptEdit', (uri?: unknown) => approvals.decideEdit('accept', uri)),
    command('tandem.rejectEdit', (uri?: unknown) => approvals.decideEdit('reject', uri)),
    command('tandem.undoLastTurn', () => chat.undoLastTurn()),
    command('tandem.showHistory', () => chat.pickSession()),
    command('tandem.addSelectionToChat', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
      chat.postAttachment(selectionAttachment(editor));
    }),
    command('tandem.setApiKey', async () => {
      if (await apiKey.prompt()) await restart();
    }),
    command('tandem.restartSidecar', () => restart()),
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

  // Not awaited: the chat view opens while the sidecar starts, and says so.
  void sidecar.start().then(() => chat.reload(false));
}

export function deactivate(): void {
  // The subscriptions stop the sidecar.
}
