// Where the user's Tandem config file is (docs/configuration.md), and what a new one starts
// with. No vscode here: the unit tests load it.

import * as path from 'node:path';

/** Where the sidecar looks for the user's config file on this platform (TANDEM_CONFIG wins). */
export function userConfigFile(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string {
  if (env.TANDEM_CONFIG) return env.TANDEM_CONFIG;
  switch (platform) {
    case 'win32':
      return path.win32.join(env.APPDATA ?? path.win32.join(home, 'AppData', 'Roaming'), 'tandem', 'config.toml');
    case 'darwin':
      return path.posix.join(home, 'Library', 'Application Support', 'tandem', 'config.toml');
    default:
      return path.posix.join(env.XDG_CONFIG_HOME || path.posix.join(home, '.config'), 'tandem', 'config.toml');
  }
}

/** What a new config file starts with: the keys the "no server" card is about. */
export const NEW_CONFIG = `# Tandem's configuration (every key: docs/configuration.md). The editor's settings
# (tandem.provider.*) win over this file.
[provider]
# An OpenAI-compatible endpoint, e.g. LM Studio, Ollama or llama.cpp's llama-server.
base_url = "http://127.0.0.1:1234/v1"
# The model, by the name the server lists it under.
# model = "qwen2.5-coder-7b-instruct"
`;
