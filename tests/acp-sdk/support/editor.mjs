// An ACP client playing an editor, built with the official TypeScript SDK
// (`@agentclientprotocol/sdk`, its client app: `client().onRequest(...).connect(stream)`, which
// replaced `ClientSideConnection` in 2.x), driving the real `tandem acp` over stdio.
//
// It answers `fs/read_text_file` from in-memory "unsaved buffers" (falling back to the disk), so
// a test can tell an editor read from a disk read; records `fs/write_text_file` into its buffers
// without touching the disk, as an editor does; and answers permission requests from a script.
// Every byte on the wire, both ways, is split into messages and checked against the SDK's JSON
// schema (support/schema.mjs) as it passes.

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { binary } from './paths.mjs';
import { WireChecker } from './schema.mjs';

/** Only for a test that would otherwise hang: nothing waits this long when things work. */
export const SAFETY_NET_MS = 30_000;

/** As a permission answer: leave the question open until the test answers it. */
export const HOLD = 'hold';

/**
 * @typedef {{from: 'agent' | 'client', message: any, problems: string[]}} WireEntry
 * @typedef {{params: any, answer: (outcome: any) => void}} HeldPermission
 */

/** Splits a byte stream into newline-delimited JSON messages and hands each on. */
class LineTap {
  /** @param {(message: any, line: string) => void} onMessage */
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.decoder = new TextDecoder('utf-8', { fatal: false });
    this.rest = '';
  }

  /** @param {Uint8Array} bytes */
  push(bytes) {
    this.rest += this.decoder.decode(bytes, { stream: true });
    let nl;
    while ((nl = this.rest.indexOf('\n')) >= 0) {
      const line = this.rest.slice(0, nl).replace(/\r$/, '');
      this.rest = this.rest.slice(nl + 1);
      if (line.trim() === '') continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        message = { notJson: line };
      }
      this.onMessage(message, line);
    }
  }
}

export class Editor {
  /**
   * Starts `tandem acp` against the mock and connects the SDK client to it.
   * @param {{baseUrl: string, dataDir: string, home: string, fs?: boolean}} options
   *   `fs`: offer `fs/read_text_file` and `fs/write_text_file` in `initialize`.
   */
  static start({ baseUrl, dataDir, home, fs = false }) {
    /** @type {Record<string, string>} */
    const env = {};
    for (const [k, v] of Object.entries(process.env)) {
      // Nothing from the machine running the tests configures the agent.
      if (v !== undefined && !k.startsWith('TANDEM_') && !k.startsWith('OPENAI_')) env[k] = v;
    }
    mkdirSync(home, { recursive: true });
    Object.assign(env, {
      HOME: home,
      XDG_DATA_HOME: join(home, '.local/share'),
      XDG_CONFIG_HOME: join(home, '.config'),
      NO_COLOR: '1',
    });
    const args = ['acp', '--base-url', baseUrl, '--model', 'mock-coder', '--data-dir', dataDir];
    const child = spawn(binary('TANDEM_BIN', 'tandem'), args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    return new Editor(child, fs);
  }

  /** @param {import('node:child_process').ChildProcessWithoutNullStreams} child @param {boolean} fs */
  constructor(child, fs) {
    this.child = child;
    this.fs = fs;
    this.wire = new WireChecker();
    /** The agent's stderr, for failure messages. */
    this.stderr = '';
    child.stderr.on('data', (d) => (this.stderr += d));
    /** @type {Promise<number | null>} */
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ? -1 : code)));
    /** The editor's unsaved text, by absolute path. @type {Map<string, string>} */
    this.buffers = new Map();
    /** Paths read through `fs/read_text_file`. @type {string[]} */
    this.reads = [];
    /** `fs/write_text_file` calls. @type {{path: string, content: string}[]} */
    this.writes = [];
    /** Option ids to pick, in order, for permission requests (or HOLD). @type {string[]} */
    this.answers = [];
    /** Permission requests left open (HOLD). @type {HeldPermission[]} */
    this.held = [];
    /** `session/update` params as the SDK handed them over, in order. @type {any[]} */
    this.updates = [];
    /** @type {Set<{test: (e: WireEntry) => boolean, resolve: (e: WireEntry) => void}>} */
    this.waiters = new Set();

    const record = (/** @type {'agent' | 'client'} */ from) => new LineTap((message) => {
      this.wire.check(from, message);
      const entry = this.wire.log[this.wire.log.length - 1];
      for (const w of this.waiters) {
        if (w.test(entry)) {
          this.waiters.delete(w);
          w.resolve(entry);
        }
      }
    });
    const fromAgent = record('agent');
    const fromClient = record('client');
    const input = /** @type {ReadableStream<Uint8Array>} */ (Readable.toWeb(child.stdout)).pipeThrough(
      new TransformStream({
        transform(chunk, controller) {
          fromAgent.push(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
    const output = new WritableStream({
      write(chunk) {
        fromClient.push(chunk);
        return new Promise((resolve, reject) => child.stdin.write(chunk, (e) => (e ? reject(e) : resolve())));
      },
      close() {
        child.stdin.end();
      },
    });

    const app = acp
      .client({ name: 'acp-sdk-conformance' })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.updates.push(params);
      })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => this.permission(params))
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => this.readTextFile(params))
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        this.writes.push({ path: params.path, content: params.content });
        this.buffers.set(params.path, params.content);
        return {};
      });
    this.connection = app.connect(acp.ndJsonStream(output, input));
    /** The SDK's context for calling the agent. */
    this.agent = this.connection.agent;
  }

  /** @param {any} params */
  permission(params) {
    const choice = this.answers.shift();
    if (choice === undefined) {
      throw new acp.RequestError(-32603, `the test did not expect a permission request: ${JSON.stringify(params)}`);
    }
    if (choice === HOLD) {
      return new Promise((resolve) => this.held.push({ params, answer: (outcome) => resolve({ outcome }) }));
    }
    return { outcome: { outcome: 'selected', optionId: choice } };
  }

  /** The buffer when the editor has one, else the disk; `line` (1-based) and `limit` as ACP says. @param {any} params */
  readTextFile(params) {
    this.reads.push(params.path);
    let content = this.buffers.get(params.path);
    if (content === undefined) {
      try {
        content = readFileSync(params.path, 'utf8');
      } catch (e) {
        throw acp.RequestError.resourceNotFound(params.path);
      }
    }
    if (params.line != null || params.limit != null) {
      const lines = content.split(/(?<=\n)/);
      const start = Math.max((params.line ?? 1) - 1, 0);
      content = lines.slice(start, params.limit != null ? start + params.limit : undefined).join('');
    }
    return { content };
  }

  /** `initialize` with protocol v1 and the fs capabilities this editor was started with. */
  initialize() {
    return this.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: this.fs, writeTextFile: this.fs }, terminal: false },
      clientInfo: { name: 'acp-sdk-conformance', version: '0.0.0' },
    });
  }

  /** @param {string} cwd */
  async newSession(cwd) {
    const { sessionId } = await this.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    return sessionId;
  }

  /** @param {string} sessionId @param {string} modeId */
  setMode(sessionId, modeId) {
    return this.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId });
  }

  /** @param {string} sessionId @param {string | any[]} prompt text, or content blocks */
  prompt(sessionId, prompt) {
    const blocks = typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt;
    return this.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks });
  }

  /** @param {string} sessionId */
  cancel(sessionId) {
    return this.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  }

  /** The `session/update` payloads for `sessionId` as they came on the wire, in order. @param {string} sessionId */
  updatesOf(sessionId) {
    return this.wire.log
      .filter((e) => e.from === 'agent' && e.message.method === 'session/update' && e.message.params?.sessionId === sessionId)
      .map((e) => e.message.params.update);
  }

  /** The messages the agent sent, in order. */
  fromAgent() {
    return this.wire.log.filter((e) => e.from === 'agent').map((e) => e.message);
  }

  /**
   * The first wire entry (already seen, or still to come) satisfying `test`.
   * @param {(e: WireEntry) => boolean} test @param {string} what for the timeout message
   * @returns {Promise<WireEntry>}
   */
  waitFor(test, what) {
    const seen = this.wire.log.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = { test, resolve: (/** @type {WireEntry} */ e) => (clearTimeout(timer), resolve(e)) };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out waiting for ${what}; the agent sent:\n${this.transcript()}\nstderr:\n${this.stderr}`));
      }, SAFETY_NET_MS);
      this.waiters.add(waiter);
    });
  }

  /** Where in the wire log the first entry satisfying `test` is (-1 when absent). @param {(e: WireEntry) => boolean} test */
  position(test) {
    return this.wire.log.findIndex(test);
  }

  /** The wire log, one message a line, for failure messages. */
  transcript() {
    return this.wire.log.map((e) => `${e.from === 'agent' ? '<-' : '->'} ${JSON.stringify(e.message)}`).join('\n');
  }

  /** Messages that broke the schema, both ways. */
  violations() {
    return this.wire.violations();
  }

  /** Closes stdin, as an editor does, and waits for the agent to exit; its exit code (-1: killed). */
  async close() {
    this.connection.close();
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
