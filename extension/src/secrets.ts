// The API key: kept in VS Code's SecretStorage (the OS keychain where there is one), never in
// settings, and handed to the sidecar only in its initializationOptions.

import * as vscode from 'vscode';

const KEY = 'tandem.apiKey';

export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  get(): Promise<string | undefined> {
    return Promise.resolve(this.secrets.get(KEY));
  }

  readonly onDidChange = (listener: () => void): vscode.Disposable =>
    this.secrets.onDidChange((e) => {
      if (e.key === KEY) listener();
    });

  /** Asks for the key; an empty answer removes it. False if the user cancelled. */
  async prompt(): Promise<boolean> {
    const value = await vscode.window.showInputBox({
      title: 'Tandem: API key',
      prompt: 'The key for your model endpoint (stored in VS Code’s secret storage). Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return false;
    if (value.trim() === '') await this.secrets.delete(KEY);
    else await this.secrets.store(KEY, value.trim());
    return true;
  }
}
