// Where the binaries under test are: `TANDEM_BIN` / `MOCK_MODEL_BIN`, else the repository's
// debug build (`cargo build -p tandem -p mock-model`).

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is tests/acp-sdk/support/paths.mjs). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The binary named by `variable`, else `target/debug/<name>`; an error naming both when absent.
 * @param {string} variable @param {string} name
 */
export function binary(variable, name) {
  const path = process.env[variable] || resolve(REPO, 'target', 'debug', name);
  if (!existsSync(path)) {
    throw new Error(`${path} does not exist: build it (cargo build -p ${name === 'tandem' ? 'tandem' : 'mock-model'}) or set ${variable}`);
  }
  return path;
}
