// Before the first prompt: is there a model server? The chat asks the sidecar for the models
// when it opens (and on "Check Again"); when that fails, the "Get Started" view above the chat
// (VS Code's `viewsWelcome`, package.json) says what is wrong and offers the ways forward: start
// a local server and check again, set the endpoint, set a key. It hides once a server answers.

import * as vscode from 'vscode';

export const WELCOME_VIEW_ID = 'tandem.welcome';
const CONTEXT_KEY = 'tandem.serverProblem';

/** What keeps the first prompt from working; '' when a server answered. */
export type ServerProblem = '' | 'noServer' | 'auth' | 'unreachable';

/** The problem a failed model listing shows, by the kind the sidecar gives in the error's
 * `data.errorKind` (never guessed from its text). */
export function serverProblem(error: unknown): ServerProblem {
  const data = error && typeof error === 'object' && 'data' in error ? error.data : undefined;
  const kind = data && typeof data === 'object' && 'errorKind' in data ? data.errorKind : undefined;
  switch (kind) {
    case 'noServer':
      return 'noServer';
    case 'auth':
      return 'auth';
    default:
      return 'unreachable';
  }
}

/** Shows or hides the view (its `when` and its welcome content read the context key). */
export function reportServer(problem: ServerProblem): void {
  void vscode.commands.executeCommand('setContext', CONTEXT_KEY, problem);
}

/** The view has no items of its own: VS Code shows its welcome content. */
export function registerWelcome(): vscode.Disposable {
  const empty: vscode.TreeDataProvider<never> = { getTreeItem: (e) => e, getChildren: () => [] };
  return vscode.window.registerTreeDataProvider(WELCOME_VIEW_ID, empty);
}
