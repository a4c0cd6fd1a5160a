// Signs for a user who isn't looking at the chat: a badge on the Tandem view and a status-bar
// item while an approval waits (the agent is stopped until it is answered, and after the timeout
// it counts as rejected), and a notification when a long turn ends while the view is hidden.
// The decisions are pure (noticeSigns.ts, unit-tested); `Notices` applies them to VS Code.

import * as vscode from 'vscode';
import { notifyTurnEnd, waitingSigns, type WaitingSigns } from './noticeSigns';

/** The view as the notices use it (`ChatView`). */
export interface NoticeView {
  readonly visible: boolean;
  setBadge(badge: WaitingSigns['badge']): void;
}

export class Notices implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tandem.approvalWaiting', vscode.StatusBarAlignment.Left, 100);
  private waiting = 0;

  constructor(
    private readonly view: NoticeView,
    private readonly focusCommand: string,
  ) {
    this.item.name = 'Tandem: approval waiting';
    this.item.command = focusCommand;
  }

  /** The number of pending approvals changed. */
  setWaiting(n: number): void {
    this.waiting = n;
    this.refresh();
  }

  /** The view was shown or hidden. */
  refresh(): void {
    const signs = waitingSigns(this.waiting, this.view.visible);
    this.view.setBadge(signs.badge);
    if (signs.status) {
      this.item.text = signs.status;
      this.item.tooltip = 'Show the Tandem chat, where the question is';
      this.item.show();
    } else {
      this.item.hide();
    }
  }

  /** A turn ended after `tookMs`; `summary` says how (the stop reason, an error). */
  turnEnded(tookMs: number, summary: string): void {
    const enabled = vscode.workspace.getConfiguration('tandem').get<boolean>('notifications.turnEnded', true);
    if (!notifyTurnEnd(tookMs, this.view.visible, enabled)) return;
    const seconds = Math.round(tookMs / 1000);
    void vscode.window.showInformationMessage(`Tandem: the turn ended after ${seconds} s (${summary}).`, 'Show Chat').then((pick) => {
      if (pick) void vscode.commands.executeCommand(this.focusCommand);
    });
  }

  dispose(): void {
    this.item.dispose();
  }
}
