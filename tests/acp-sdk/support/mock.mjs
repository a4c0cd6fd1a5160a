// The scripted OpenAI-compatible mock model (`tests/mock-model`), run as its binary:
// `mock-model --scenario FILE.json`, which prints `listening on http://127.0.0.1:PORT/v1` once
// ready. The scenario format is the one of `tests/scenarios/*.json` (see tests/mock-model/README.md).

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { binary } from './paths.mjs';

/** Nothing waits this long when things work. */
const READY_TIMEOUT_MS = 15_000;

export class MockModel {
  /**
   * Starts the mock on a free port, serving `scenario` (written into `dir`).
   * @param {string} dir @param {{responses: object[], models?: object[]}} scenario
   */
  static async start(dir, scenario) {
    const file = join(dir, `scenario-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(scenario, null, 2));
    const child = spawn(binary('MOCK_MODEL_BIN', 'mock-model'), ['--scenario', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const baseUrl = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mock-model did not report its port in ${READY_TIMEOUT_MS} ms; stderr: ${stderr}`)), READY_TIMEOUT_MS);
      const lines = createInterface({ input: child.stdout });
      lines.once('line', (line) => {
        clearTimeout(timer);
        const m = /^listening on (http:\/\/\S+)$/.exec(line);
        m ? resolve(m[1]) : reject(new Error(`unexpected first line from mock-model: ${line}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`mock-model exited (${code}) before it was ready; stderr: ${stderr}`));
      });
    });
    return new MockModel(child, baseUrl);
  }

  /** @param {import('node:child_process').ChildProcess} child @param {string} baseUrl */
  constructor(child, baseUrl) {
    this.child = child;
    /** `http://127.0.0.1:PORT/v1` */
    this.baseUrl = baseUrl;
  }

  /** @param {string} route */
  async get(route) {
    const response = await fetch(new URL(route, this.baseUrl));
    if (!response.ok) throw new Error(`mock-model ${route}: HTTP ${response.status}`);
    return response.json();
  }

  /** The chat completion requests received, in order (`{method, path, headers, body}`). */
  async chatRequests() {
    const all = /** @type {any[]} */ (await this.get('/__mock/requests'));
    return all.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'));
  }

  /** Failed `expect…` checks and requests that found no reply left. */
  async failures() {
    return /** @type {string[]} */ (await this.get('/__mock/failures'));
  }

  stop() {
    this.child.kill();
  }
}

/**
 * The text of a chat message's content (a string, or the text parts of a list).
 * @param {any} message
 */
export function messageText(message) {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}
