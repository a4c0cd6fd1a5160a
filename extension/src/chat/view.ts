// The chat view in the activity bar: a webview that runs only the bundled chat script, and a
// message pump that passes the checked messages on.

import * as vscode from 'vscode';
import { parseWebviewMessage, type HostMessage, type WebviewMessage } from '../shared/messages';
import { chatPage, makeNonce } from './html';

export const CHAT_VIEW_ID = 'tandem.chat';

export class ChatView implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private badge: vscode.ViewBadge | undefined;
  private readonly visibility = new vscode.EventEmitter<void>();
  /** The view was shown or hidden (or went away). */
  readonly onDidChangeVisibility = this.visibility.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onReady: (post: (m: HostMessage) => void) => void,
    private readonly onMessage: (m: WebviewMessage) => void,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'out', 'webview');
    view.webview.options = {
      enableScripts: true,
      // Command links stay off: a link in the model's text must not run a VS Code command.
      enableCommandUris: false,
      localResourceRoots: [media],
    };
    view.webview.html = chatPage({
      cspSource: view.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'main.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'style.css')).toString(),
      codiconUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'codicon.css')).toString(),
    });
    // A disposed view (the user moved or closed it) takes no more messages; a new one gets all.
    const post = (m: HostMessage) => {
      if (this.view === view) view.webview.postMessage(m).then(undefined, () => undefined);
    };
    view.webview.onDidReceiveMessage((raw: unknown) => {
      const m = parseWebviewMessage(raw);
      if (!m) return;
      if (m.type === 'ready') this.onReady(post);
      else this.onMessage(m);
    });
    view.badge = this.badge;
    view.onDidChangeVisibility(() => this.visibility.fire());
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
      this.visibility.fire();
    });
    this.visibility.fire();
  }

  /** Whether the chat is on screen. */
  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** The number on the view's icon (kept for a view not yet made). */
  setBadge(badge: vscode.ViewBadge | undefined): void {
    this.badge = badge;
    if (this.view) this.view.badge = badge;
  }

  /** Brings the chat into view without taking the focus (an approval is waiting there). */
  reveal(): void {
    this.view?.show(true);
  }
}
