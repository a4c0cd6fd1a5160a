// Before the first prompt: is there a model server? The chat asks the sidecar for the models
// when it opens (and on Retry); when that fails, the chat itself shows a card that says what was
// tried and offers the ways forward (start LM Studio, Ollama or llama.cpp, set the endpoint, open
// the config file, set a key, retry). It goes once a server answers.
//
// In the chat, not in VS Code's `viewsWelcome`: that contribution applies to tree views only
// (microsoft/vscode#105832), so it needed a second, empty view beside the chat, shown by a
// context key; the chat is where the user looks and types the prompt that would fail.

import type { ServerState } from '../shared/messages';

/** The state a failed model listing shows, by the kind the sidecar gives in the error's
 * `data.errorKind` (never guessed from its text); the message is shown as the details. */
export function serverState(error: unknown, baseUrl: string | null): ServerState {
  const data = error && typeof error === 'object' && 'data' in error ? error.data : undefined;
  const kind = data && typeof data === 'object' && 'errorKind' in data ? data.errorKind : undefined;
  const message = error && typeof error === 'object' && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
  switch (kind) {
    case 'noServer':
      return { problem: 'noServer', baseUrl, detail: message };
    case 'auth':
      return { problem: 'auth', baseUrl, detail: message };
    default:
      return { problem: 'unreachable', baseUrl, detail: message };
  }
}
