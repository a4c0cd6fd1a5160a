// One test's world: a temp workspace, data dir and home, the mock model serving a scenario,
// and the SDK editor connected to `tandem acp`, initialized, with a session on the workspace.
// Everything is torn down after the test.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Editor } from './editor.mjs';
import { MockModel } from './mock.mjs';

/**
 * @param {import('node:test').TestContext} t
 * @param {{responses: object[], fs?: boolean}} options
 */
export async function setup(t, { responses, fs = false }) {
  // Canonical: session roots are, and so are the paths the agent sends.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tandem-acp-sdk-')));
  const ws = join(dir, 'ws');
  const dataDir = join(dir, 'data');
  const home = join(dir, 'home');
  for (const d of [ws, dataDir, home]) mkdirSync(d, { recursive: true });
  /** @type {Editor[]} */
  const editors = [];
  /** @type {MockModel | undefined} */
  let started;
  t.after(async () => {
    for (const e of editors) {
      if (e.child.exitCode === null && e.child.signalCode === null) await e.close();
    }
    started?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const mock = (started = await MockModel.start(dir, { responses }));
  const start = (/** @type {{fs?: boolean, baseUrl?: string}} */ o = {}) => {
    const editor = Editor.start({ baseUrl: o.baseUrl ?? mock.baseUrl, dataDir, home, fs: o.fs ?? fs });
    editors.push(editor);
    return editor;
  };
  const editor = start();
  const init = await editor.initialize();
  const session = await editor.newSession(ws);
  return {
    dir,
    ws,
    dataDir,
    mock,
    editor,
    init,
    session,
    /** Another editor process on the same data dir (a restart), not yet initialized. */
    start,
    /** @param {string} rel */
    path: (rel) => join(ws, rel),
    /** @param {string} rel @param {string} text */
    write: (rel, text) => {
      mkdirSync(dirname(join(ws, rel)), { recursive: true });
      writeFileSync(join(ws, rel), text);
    },
  };
}

/**
 * What every test ends with: no message either way broke the schema, the mock had no failed
 * expectation, and the agent exits cleanly when the editor closes stdin.
 * @param {Editor} editor @param {MockModel} [mock]
 */
export async function finish(editor, mock) {
  assert.deepEqual(editor.violations(), [], `messages that break the ACP schema:\n${JSON.stringify(editor.violations(), null, 2)}`);
  if (mock) assert.deepEqual(await mock.failures(), [], 'the mock model saw requests it did not expect');
  const code = await editor.close();
  assert.equal(code, 0, `tandem acp exited with ${code}; stderr:\n${editor.stderr}`);
  // Closing may have flushed a last message: check those too.
  assert.deepEqual(editor.violations(), []);
}

/** The concatenated text of the updates of one kind. @param {any[]} updates @param {string} kind */
export function chunks(updates, kind) {
  return updates
    .filter((u) => u.sessionUpdate === kind && u.content?.type === 'text')
    .map((u) => u.content.text)
    .join('');
}

/** The position of the response to the client's request with this method (the last one). @param {Editor} editor @param {string} method */
export function responsePosition(editor, method) {
  const log = editor.wire.log;
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i];
    if (e.from === 'client' && e.message.method === method && 'id' in e.message) {
      return log.findIndex((r, j) => j > i && r.from === 'agent' && !r.message.method && r.message.id === e.message.id);
    }
  }
  return -1;
}

/** The last position of an update from the agent. @param {Editor} editor */
export function lastUpdatePosition(editor) {
  return editor.wire.log.findLastIndex((e) => e.from === 'agent' && e.message.method === 'session/update');
}
