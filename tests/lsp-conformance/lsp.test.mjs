// `tandem lsp` as a plain language server (no `experimental.tandem`), driven by a generic LSP
// client library (vscode-jsonrpc, the one VS Code's language client is built on): the points of
// LSP 3.17 a client relies on.
//
// Run: cargo build -p tandem -p mock-model && npm ci --prefix tests/lsp-conformance &&
//      node --test tests/lsp-conformance/
// TANDEM_BIN / MOCK_MODEL_BIN override the binaries (default: target/debug).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import rpc from 'vscode-jsonrpc/node.js';

import { MockModel } from '../acp-sdk/support/mock.mjs';
import { binary } from '../acp-sdk/support/paths.mjs';

/** Nothing waits this long when things work. */
const SAFETY_MS = 20_000;
/** A test that hangs (a request never answered) fails after this. */
const TEST_MS = 40_000;

const FILE = 'hello.py';
const ORIGINAL = 'def greet():\n    return "hi"\n';
const EDIT = { path: FILE, diff: '------- SEARCH\n    return "hi"\n=======\n    return "hello"\n+++++++ REPLACE' };

/**
 * A workspace reached through a symlink (as macOS `/tmp` or a linked home is): the client names
 * files by the link, the server resolves them.
 */
function workspace(t) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tandem-lsp-')));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const real = join(base, 'real');
  mkdirSync(real);
  writeFileSync(join(real, FILE), ORIGINAL);
  const link = join(base, 'link');
  symlinkSync(real, link);
  return { base, real, link, data: join(base, 'data') };
}

/**
 * Starts `tandem lsp` against the mock and connects a client with `capabilities` (and
 * `initializationOptions`); `handlers.answer` answers approval questions (default: Accept).
 * @returns the connection, the process, and how it ended (a promise)
 */
function start(t, ws, mock, capabilities, handlers = {}, initializationOptions = undefined) {
  const args = ['lsp', '--base-url', mock.baseUrl, '--model', 'mock-coder', '--data-dir', ws.data];
  const child = spawn(binary('TANDEM_BIN', 'tandem'), args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  t.after(() => child.kill('SIGKILL'));
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  const seen = { messages: [], logs: [], questions: [], edits: [] };
  connection.onNotification('window/showMessage', (p) => seen.messages.push(p));
  connection.onNotification('window/logMessage', (p) => seen.logs.push(p));
  connection.onRequest('window/showMessageRequest', (p) => {
    seen.questions.push(p);
    return (handlers.answer ?? (() => ({ title: 'Accept' })))(p);
  });
  connection.onRequest('workspace/applyEdit', (p) => {
    seen.edits.push(p);
    return { applied: true };
  });
  connection.onError(() => {});
  connection.onClose(() => {});
  connection.listen();
  const rootUri = pathToFileURL(ws.link).href;
  const initialized = (async () => {
    const result = await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'ws' }],
      capabilities,
      initializationOptions,
    });
    await connection.sendNotification('initialized', {});
    return result;
  })();
  return { connection, child, exited, seen, initialized, stderr: () => stderr };
}

/** Waits for `predicate` to hold, or fails with `what`. */
async function until(what, predicate) {
  const deadline = Date.now() + SAFETY_MS;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function mockFor(t, ws, responses) {
  const mock = await MockModel.start(ws.base, { responses });
  t.after(() => mock.stop());
  return mock;
}

test('a $/ request the server does not implement is answered MethodNotFound; $/ notifications are ignored', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const mock = await mockFor(t, ws, []);
  const s = start(t, ws, mock, {});
  await s.initialized;
  await s.connection.sendNotification('$/setTrace', { value: 'off' });
  await assert.rejects(
    s.connection.sendRequest('$/tandem.unknown', {}),
    (e) => e.code === rpc.ErrorCodes.MethodNotFound,
  );
  // The server still answers after both.
  await assert.rejects(s.connection.sendRequest('no/such/method', {}), (e) => e.code === rpc.ErrorCodes.MethodNotFound);
});

test('exit after shutdown ends with code 0, exit without shutdown with code 1', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const mock = await mockFor(t, ws, []);
  const clean = start(t, ws, mock, {});
  await clean.initialized;
  await clean.connection.sendRequest('shutdown');
  await clean.connection.sendNotification('exit');
  assert.deepEqual(await clean.exited, { code: 0, signal: null });

  const abrupt = start(t, ws, mock, {});
  await abrupt.initialized;
  await abrupt.connection.sendNotification('exit');
  assert.deepEqual(await abrupt.exited, { code: 1, signal: null });
});

test('a client without workspace.applyEdit gets no applyEdit: the approved edit is written to disk', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const mock = await mockFor(t, ws, [
    { toolCalls: [{ id: 'call_edit', name: 'replace_in_file', arguments: EDIT }] },
    { text: 'Done.', expectLastToolResultContains: 'Applied the edit' },
  ]);
  const s = start(t, ws, mock, { window: { showMessage: {} } });
  await s.initialized;
  await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: ['Say hello'] });
  await until('the answer', () => s.seen.messages.length >= 1);
  assert.equal(s.seen.edits.length, 0, 'no workspace/applyEdit was sent');
  assert.equal(s.seen.questions.length, 1, 'the edit was put to the user first');
  assert.equal(s.seen.questions[0].actions[0].title, 'Reject', 'Reject comes first (the default)');
  assert.match(s.seen.questions[0].message, /^Tandem wants to edit hello\.py at line 2 \(\+1 −1 lines\)\./);
  assert.equal(readFileSync(join(ws.real, FILE), 'utf8'), ORIGINAL.replace('"hi"', '"hello"'));
  assert.equal(s.seen.messages[0].message, 'Done.');
  assert.deepEqual(await mock.failures(), []);
});

test('an open document is edited at its version, under the URI the client opened it by (symlinked workspace)', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const mock = await mockFor(t, ws, [
    { toolCalls: [{ id: 'call_edit', name: 'replace_in_file', arguments: EDIT }] },
    { text: 'Done.', expectLastToolResultContains: 'Applied the edit' },
  ]);
  const s = start(t, ws, mock, {
    workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } },
    window: { showDocument: { support: true } },
  });
  const shown = [];
  s.connection.onRequest('window/showDocument', (p) => {
    shown.push({ ...p, text: readFileSync(new URL(p.uri), 'utf8') });
    return { success: true };
  });
  await s.initialized;
  // The buffer, unsaved, differs from the disk: the edit must be made against it.
  const uri = pathToFileURL(join(ws.link, FILE)).href;
  const buffer = '# unsaved\n' + ORIGINAL;
  await s.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'python', version: 1, text: ORIGINAL },
  });
  await s.connection.sendNotification('textDocument/didChange', {
    textDocument: { uri, version: 5 },
    contentChanges: [{ text: buffer }],
  });
  await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: ['Say hello'] });
  await until('the answer', () => s.seen.messages.length >= 1);
  assert.equal(s.seen.edits.length, 1, s.stderr());
  const change = s.seen.edits[0].edit.documentChanges[0];
  assert.equal(change.textDocument.uri, uri, 'the URI the client knows the buffer by');
  assert.equal(change.textDocument.version, 5, 'the version the edit was computed against');
  // The proposal was shown before the question: a unified diff in the data dir, not focused.
  assert.equal(shown.length, 1);
  assert.equal(shown[0].takeFocus, false);
  assert.ok(new URL(shown[0].uri).pathname.startsWith(join(ws.data, 'proposals')), shown[0].uri);
  assert.match(shown[0].text, /^-    return "hi"$/m);
  assert.match(shown[0].text, /^\+    return "hello"$/m);
  // Shown, so the question need not name the file; it names the line, in the buffer's numbering.
  assert.match(s.seen.questions[0].message, /^Tandem wants to edit hello\.py at line 3 \(\+1 −1 lines\)\. Apply\?$/);
  assert.equal(readFileSync(join(ws.real, FILE), 'utf8'), ORIGINAL, 'the disk is left to the editor');
  assert.deepEqual(await mock.failures(), []);
});

test('the log comes a sentence at a time, a read logs its size, and a cancel sends no blank message', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const mock = await mockFor(t, ws, [
    { text: 'Let me look. ', toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: FILE } }] },
    // A paragraph with no line end, then silence: it must be logged before the turn ends.
    { text: 'The function greets. It returns hi', chunkSize: 100, stallAfterChunks: 2 },
  ]);
  const s = start(t, ws, mock, { workspace: { applyEdit: true } });
  await s.initialized;
  await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: ['What does it do?'] });
  await until('the stalled text in the log', () => s.seen.logs.some((l) => l.message.includes('It returns hi')));
  await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.cancel', arguments: [] });
  await until('the end of the turn', () => s.seen.messages.length >= 1);
  const logs = s.seen.logs.map((l) => l.message);
  assert.ok(logs.includes('Let me look.'), JSON.stringify(logs));
  assert.ok(logs.includes('Tandem: done: 2 lines'), JSON.stringify(logs));
  assert.ok(!logs.some((l) => l.includes('def greet')), 'a read does not log the file');
  assert.ok(logs.every((l) => l.trim() !== ''), 'no blank log message');
  assert.deepEqual(s.seen.messages[0], { type: 2, message: 'Tandem: cancelled.' });
});

test('typing in the buffer while the user decides: the edit is re-matched; a stale one says the buffer changed', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const gone = { path: FILE, diff: '------- SEARCH\ndef greet():\n=======\ndef greet(name):\n+++++++ REPLACE' };
  const mock = await mockFor(t, ws, [
    { toolCalls: [{ id: 'call_1', name: 'replace_in_file', arguments: EDIT }] },
    { toolCalls: [{ id: 'call_2', name: 'replace_in_file', arguments: gone }], expectLastToolResultContains: 'Applied the edit' },
    { text: 'Done.', expectLastToolResultContains: 'changed in the editor' },
  ]);
  const uri = pathToFileURL(join(ws.link, FILE)).href;
  let version = 1;
  /** The user's keystrokes, sent while the question is open. */
  const type = async (text) => {
    version += 1;
    await s.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
    // A request behind the notification: once it is answered, the server has taken the change.
    const here = { line: 0, character: 0 };
    await s.connection.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: here, end: here },
      context: { diagnostics: [] },
    });
  };
  const buffers = ['# a comment typed meanwhile\n' + ORIGINAL, '# a comment typed meanwhile\ndef welcome():\n    return "hello"\n'];
  const s = start(t, ws, mock, { workspace: { applyEdit: true } }, {
    answer: async () => {
      await type(buffers.shift());
      return { title: 'Accept' };
    },
  });
  // The client applies edits to its buffer: it answers applied, and the buffer is what it says.
  await s.initialized;
  await s.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'python', version, text: ORIGINAL },
  });
  await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: ['Say hello'] });
  await until('the answer', () => s.seen.messages.length >= 1);
  // The first edit was made against the buffer as it was at Accept: its line moved down by one.
  assert.equal(s.seen.edits.length, 1, JSON.stringify(s.seen.logs));
  const [edit] = s.seen.edits[0].edit.changes[uri];
  assert.equal(edit.range.start.line, 2);
  assert.equal(edit.newText, '    return "hello"\n');
  assert.equal(s.seen.messages[0].message, 'Done.');
  assert.deepEqual(await mock.failures(), []);
});

test('deferQuestions: a null answer waits for tandem.answer; after a cancel, a late answer changes nothing', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const edit = { toolCalls: [{ id: 'call_edit', name: 'replace_in_file', arguments: EDIT }] };
  const mock = await mockFor(t, ws, [
    edit,
    { text: 'Applied.', expectLastToolResultContains: 'Applied the edit' },
    edit,
    { text: 'Nothing to do.' },
  ]);
  const s = start(t, ws, mock, { workspace: { applyEdit: true } }, { answer: () => null }, { deferQuestions: true });
  await s.initialized;
  const ask = (text) => s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: [text] });
  const answer = (title) => s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.answer', arguments: [title] });
  // Nothing waits yet.
  assert.deepEqual(await answer('Accept'), { answered: false });
  await ask('Say hello');
  await until('the question', () => s.seen.questions.length >= 1);
  // Answered null: the turn waits (no rejection) until the user answers by command; a question
  // that had been settled already would answer `answered: false`.
  assert.equal(s.seen.messages.length, 0, 'the turn still waits');
  assert.deepEqual(await answer('Accept'), { answered: true }, 'the question was still open');
  await until('the first answer', () => s.seen.messages.length >= 1);
  assert.equal(s.seen.messages[0].message, 'Applied.');
  assert.equal(s.seen.edits.length, 1);

  await ask('Again');
  await until('the second question', () => s.seen.questions.length >= 2);
  await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.cancel', arguments: [] });
  await until('the cancelled turn', () => s.seen.messages.length >= 2);
  assert.deepEqual(s.seen.messages[1], { type: 2, message: 'Tandem: cancelled.' });
  assert.deepEqual(await answer('Accept'), { answered: false }, 'the question went with its turn');
  // A turn after the late answer: once it has ended, anything that answer set off has happened.
  await ask('Anything else?');
  await until('the next turn', () => s.seen.messages.length >= 3);
  assert.equal(s.seen.messages[2].message, 'Nothing to do.');
  assert.equal(s.seen.edits.length, 1, 'nothing more was applied');
});

test('the plan: the checklist in the log, the step under way in the progress report', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const plan = [
    { step: 'Read hello.py', status: 'completed' },
    { step: 'Change the greeting', status: 'in_progress' },
    { step: 'Run the tests', status: 'pending' },
  ];
  const mock = await mockFor(t, ws, [
    { toolCalls: [{ id: 'call_plan', name: 'update_plan', arguments: { plan } }] },
    { expectLastToolResultContains: 'Plan updated', text: 'Planned.' },
  ]);
  const s = start(t, ws, mock, { window: { workDoneProgress: true } });
  /** @type {any[]} */
  const progress = [];
  s.connection.onRequest('window/workDoneProgress/create', () => null);
  s.connection.onNotification('$/progress', (p) => progress.push(p));
  await s.initialized;
  await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: ['Plan it'] });
  await until('the end of the turn', () => s.seen.messages.length >= 1);
  const logs = s.seen.logs.map((l) => l.message);
  assert.ok(
    logs.includes('Tandem: plan\n[x] Read hello.py\n[>] Change the greeting\n[ ] Run the tests'),
    JSON.stringify(logs),
  );
  const reports = progress.filter((p) => p.value?.kind === 'report').map((p) => p.value.message);
  assert.ok(reports.some((r) => /^Step 1\b.* · Plan 1\/3 done: Change the greeting( · |$)/.test(r)), JSON.stringify(reports));
  assert.ok(!logs.some((l) => l.includes('update_plan')), 'a plan is not shown as a tool call');
});

test('progress: created, begun, a report per step with the tool and the tokens, ended before the answer; cancellable', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const mock = await mockFor(t, ws, [
    { text: 'Let me look. ', toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: FILE } }] },
    { text: 'It greets.', expectLastToolResultContains: 'def greet' },
    { text: 'Thinking it over', chunkSize: 4, stallAfterChunks: 2 },
  ]);
  const s = start(t, ws, mock, { window: { workDoneProgress: true } });
  /** Everything the client got, in order. */
  const seen = [];
  s.connection.onRequest('window/workDoneProgress/create', (p) => {
    seen.push({ create: p.token });
    return null;
  });
  s.connection.onNotification('$/progress', (p) => seen.push({ token: p.token, ...p.value }));
  s.connection.onNotification('window/showMessage', (p) => {
    s.seen.messages.push(p);
    seen.push({ message: p.message });
  });
  await s.initialized;
  const { sessionId, turnId } = await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: ['What does it do?\nBe brief.'] });
  await until('the answer', () => s.seen.messages.length >= 1);
  const token = `tandem/${sessionId}/${turnId}`;
  assert.deepEqual(seen[0], { create: token }, JSON.stringify(seen));
  assert.deepEqual(seen[1], { token, kind: 'begin', title: 'Tandem', message: 'What does it do?', cancellable: true });
  const reports = seen.filter((e) => e.kind === 'report');
  assert.ok(reports.every((r) => r.token === token && r.cancellable === true), JSON.stringify(reports));
  const messages = reports.map((r) => r.message);
  // Step 1 reads (after its request ended, with its tokens); step 2 answers.
  assert.ok(messages.some((m) => /^Step 1 · [\d,]+ (of [\d,]+ )?tokens$/.test(m)), JSON.stringify(messages));
  assert.ok(messages.some((m) => /^Step 1: Read hello\.py · [\d,]+ (of [\d,]+ )?tokens$/.test(m)), JSON.stringify(messages));
  assert.ok(messages.some((m) => /^Step 2 · [\d,]+ (of [\d,]+ )?tokens$/.test(m)), JSON.stringify(messages));
  assert.deepEqual(seen.at(-2), { token, kind: 'end' }, 'the progress ends before the answer');
  assert.deepEqual(seen.at(-1), { message: 'Let me look. \nIt greets.' });

  // Cancelled from the progress UI: the turn stops.
  const second = await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: ['Think'] });
  const secondToken = `tandem/${second.sessionId}/${second.turnId}`;
  await until('the second turn to begin', () => seen.some((e) => e.token === secondToken && e.kind === 'begin'));
  await s.connection.sendNotification('window/workDoneProgress/cancel', { token: secondToken });
  await until('the cancelled turn', () => s.seen.messages.length >= 2);
  assert.deepEqual(s.seen.messages[1], { type: 2, message: 'Tandem: cancelled.' });
  assert.ok(seen.some((e) => e.token === secondToken && e.kind === 'end'));
  assert.deepEqual(await mock.failures(), []);
});

test('progress: none to a client that does not declare window.workDoneProgress, nor when it refuses the token', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const mock = await mockFor(t, ws, [{ text: 'One.' }, { text: 'Two.' }]);
  for (const [capabilities, create] of [[{}, () => null], [{ window: { workDoneProgress: true } }, () => new rpc.ResponseError(-32603, 'no')]]) {
    const s = start(t, ws, mock, capabilities);
    const progress = [];
    let created = 0;
    s.connection.onRequest('window/workDoneProgress/create', () => {
      created += 1;
      return create();
    });
    s.connection.onNotification('$/progress', (p) => progress.push(p));
    await s.initialized;
    await s.connection.sendRequest('workspace/executeCommand', { command: 'tandem.ask', arguments: ['Hi'] });
    await until('the answer', () => s.seen.messages.length >= 1);
    assert.equal(created, capabilities.window ? 1 : 0);
    assert.deepEqual(progress, []);
  }
});

test('sessions: tandem.sessions lists the workspace\'s newest first; tandem.resume shows the turns and continues them after a restart', { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t);
  const mock = await mockFor(t, ws, [
    { text: 'First answer.' },
    { text: 'Second answer.' },
    { text: 'Continued.', expectMessagesContain: ['First question', 'First answer.', 'Go on'] },
  ]);
  const command = (s, name, args = []) => s.connection.sendRequest('workspace/executeCommand', { command: name, arguments: args });
  const s1 = start(t, ws, mock, {});
  const init = await s1.initialized;
  for (const name of ['tandem.sessions', 'tandem.resume', 'tandem.new']) {
    assert.ok(init.capabilities.executeCommandProvider.commands.includes(name), name);
  }
  assert.deepEqual(await command(s1, 'tandem.sessions'), []);
  const first = await command(s1, 'tandem.ask', ['First question']);
  await until('the first answer', () => s1.seen.messages.length >= 1);
  const { sessionId: secondId } = await command(s1, 'tandem.new');
  assert.notEqual(secondId, first.sessionId);
  const told = 'Tandem: new session started; earlier ones can be resumed.';
  await until('the new session\'s note', () => s1.seen.messages.some((m) => m.message === told));
  await command(s1, 'tandem.ask', ['Second question']);
  await until('the second answer', () => s1.seen.messages.some((m) => m.message === 'Second answer.'));
  const listed = await command(s1, 'tandem.sessions');
  assert.deepEqual(listed.map((x) => [x.sessionId, x.title, x.current]), [[secondId, 'Second question', true], [first.sessionId, 'First question', false]]);
  assert.ok(listed.every((x) => !Number.isNaN(Date.parse(x.time))), JSON.stringify(listed));
  await s1.connection.sendRequest('shutdown');
  await s1.connection.sendNotification('exit');
  await s1.exited;

  // A new sidecar (the editor restarted): the sessions are still there; the first one reopens.
  const s2 = start(t, ws, mock, {});
  await s2.initialized;
  assert.deepEqual((await command(s2, 'tandem.sessions')).map((x) => x.sessionId), [secondId, first.sessionId]);
  const resumed = await command(s2, 'tandem.resume', [first.sessionId]);
  assert.deepEqual(resumed, { sessionId: first.sessionId, title: 'First question', turns: [{ prompt: 'First question', answer: 'First answer.' }] });
  await until('the resumed turns shown', () => s2.seen.messages.length >= 1);
  assert.deepEqual(s2.seen.messages[0], { type: 3, message: 'Tandem: resumed "First question" (1 earlier turn):\n\n> First question\n\nFirst answer.' });
  const next = await command(s2, 'tandem.ask', ['Go on']);
  assert.equal(next.sessionId, first.sessionId, 'tandem.ask continues the resumed session');
  await until('the continued answer', () => s2.seen.messages.length >= 2);
  assert.equal(s2.seen.messages[1].message, 'Continued.');
  const requests = await mock.chatRequests();
  const sent = JSON.stringify(requests.at(-1).body.messages);
  assert.ok(!sent.includes('Second question'), 'only the resumed session\'s history is sent');
  assert.deepEqual(await mock.failures(), []);

  // Refused: no id, an unknown one, and a session of another workspace.
  await assert.rejects(command(s2, 'tandem.resume', []), (e) => e.code === rpc.ErrorCodes.InvalidParams);
  await assert.rejects(command(s2, 'tandem.resume', ['nosuchsession']), (e) => e.code === 1001);
  const other = join(ws.base, 'other');
  mkdirSync(other);
  const s3 = start(t, { ...ws, link: other }, mock, {});
  await s3.initialized;
  assert.deepEqual(await command(s3, 'tandem.sessions'), []);
  await assert.rejects(command(s3, 'tandem.resume', [first.sessionId]), (e) => e.code === rpc.ErrorCodes.InvalidParams && /another workspace|not to this workspace/.test(e.message));
});
