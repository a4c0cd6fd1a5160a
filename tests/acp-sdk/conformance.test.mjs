// `tandem acp` against the official ACP TypeScript SDK: the real binary, the SDK's client app,
// the scripted mock model. Every message in both directions is checked against the SDK's JSON
// schema (see support/), and each test ends with `finish`, which fails on any violation.
//
// Run: npm ci --prefix tests/acp-sdk && node --test tests/acp-sdk/

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { HOLD } from './support/editor.mjs';
import { chunks, finish, lastUpdatePosition, responsePosition, setup } from './support/fixture.mjs';
import { MockModel, messageText } from './support/mock.mjs';

/** @param {any} update @param {string} kind */
const isToolCall = (update, kind) => update.sessionUpdate === 'tool_call' && update.kind === kind;

test('an answer cut at its output limit ends max_tokens, keeps what came, and says how to allow more', async (t) => {
  const f = await setup(t, { responses: [{ text: 'On and on and on', finishReason: 'length' }] });
  const response = await f.editor.prompt(f.session, 'Tell me everything');
  assert.equal(response.stopReason, 'max_tokens');
  const said = chunks(f.editor.updatesOf(f.session), 'agent_message_chunk');
  assert.ok(said.startsWith('On and on and on'), said);
  assert.match(said, /the answer was cut at [\d,]+ tokens/);
  assert.match(said, /maxOutputTokens/);
  assert.ok(lastUpdatePosition(f.editor) < responsePosition(f.editor, 'session/prompt'), 'the message comes before the answer');
  await finish(f.editor, f.mock);
});

test('initialize: protocol v1 and the capabilities tandem implements', async (t) => {
  const f = await setup(t, { responses: [] });
  const init = /** @type {any} */ (f.init);
  assert.equal(init.protocolVersion, 1);
  const caps = init.agentCapabilities;
  assert.equal(caps.loadSession, true, 'session/load is implemented');
  assert.equal(caps.promptCapabilities.embeddedContext, true, 'embedded resources are read');
  assert.equal(caps.promptCapabilities.image, true, 'images are sent to the model');
  // Audio is not read: it must not be advertised.
  assert.notEqual(caps.promptCapabilities.audio, true);
  assert.ok(caps.sessionCapabilities?.list, 'session/list is implemented');
  assert.equal(init.agentInfo.name, 'tandem');
  assert.ok(Array.isArray(init.authMethods ?? []), 'authMethods, when present, is a list');
  await finish(f.editor, f.mock);
});

/** Every capability `initialize` sets to true (or to an object), as dotted paths. */
function advertised(caps, prefix = '') {
  return Object.entries(caps ?? {}).flatMap(([key, value]) => {
    const path = prefix + key;
    if (value === true) return [path];
    if (value && typeof value === 'object') {
      const inner = advertised(value, `${path}.`);
      // A session capability is advertised by its presence (`sessionCapabilities.list: {}`);
      // other empty objects (`auth: {}`) advertise nothing.
      return inner.length > 0 || !prefix.startsWith('sessionCapabilities') ? inner : [path];
    }
    return [];
  });
}

test('docs/acp.md names exactly the capabilities initialize advertises, and lists none of them as unsupported', async (t) => {
  const f = await setup(t, { responses: [] });
  const caps = /** @type {any} */ (f.init).agentCapabilities;
  const doc = readFileSync(new URL('../../docs/acp.md', import.meta.url), 'utf8');
  const row = doc.split('\n').find((l) => l.startsWith('| `initialize` |'));
  assert.ok(row, 'docs/acp.md has an `initialize` row');
  // The capability paths the row names: backticked, dotted or camelCase (not method names).
  const named = [...row.matchAll(/`([A-Za-z.]+)`/g)].map((m) => m[1]).filter((n) => n !== 'initialize' && !n.includes('/'));
  assert.deepEqual([...new Set(named)].sort(), advertised(caps).sort(), row);
  // What the agent does advertise is not listed as unsupported.
  const unsupported = doc.slice(doc.indexOf('Not supported:')).split('\n\n')[0];
  if (caps.mcpCapabilities?.http) {
    assert.doesNotMatch(unsupported, /MCP servers(,| and|\.)/, 'MCP servers are advertised (http) but listed as unsupported');
    assert.match(doc, /\| `session\/new` \|[^\n]*`http`/, 'session/new documents http MCP servers');
  }
  if (!caps.mcpCapabilities?.sse) assert.match(unsupported, /SSE/, 'SSE MCP servers are not advertised: the doc says so');
  if (!caps.promptCapabilities?.image) assert.match(row, /no images/);
  await finish(f.editor, f.mock);
});

test('session/new: an id for an absolute cwd; a relative cwd and an unknown session are errors', async (t) => {
  const f = await setup(t, { responses: [] });
  assert.equal(typeof f.session, 'string');
  assert.ok(f.session.length > 0);
  const other = await f.editor.newSession(f.ws);
  assert.notEqual(other, f.session, 'each session/new makes a new session');
  await assert.rejects(f.editor.newSession('relative/dir'), (/** @type {any} */ e) => e.code === -32602);
  await assert.rejects(f.editor.prompt('no-such-session', 'hi'), (/** @type {any} */ e) => e.code === -32002);
  await finish(f.editor, f.mock);
});

test('prompt answered with plain text: chunks stream, then end_turn after the last update', async (t) => {
  const answer = 'Hello from the mock model. It streams in small pieces.';
  const f = await setup(t, { responses: [{ text: answer, chunkSize: 5, delayMs: 2 }] });
  const response = await f.editor.prompt(f.session, 'Say hello');
  assert.equal(response.stopReason, 'end_turn');
  const updates = f.editor.updatesOf(f.session);
  assert.ok(updates.length >= 1);
  assert.equal(chunks(updates, 'agent_message_chunk'), answer);
  // The live prompt is the client's own: it is not echoed back.
  assert.equal(updates.filter((u) => u.sessionUpdate === 'user_message_chunk').length, 0);
  assert.ok(lastUpdatePosition(f.editor) < responsePosition(f.editor, 'session/prompt'), 'the answer comes after every update of the turn');
  // The SDK handed every update over, parsed.
  assert.equal(f.editor.updates.filter((p) => p.sessionId === f.session).length, updates.length);
  const [request] = await f.mock.chatRequests();
  const user = request.body.messages.filter((/** @type {any} */ m) => m.role === 'user').at(-1);
  assert.match(messageText(user), /Say hello/);
  await finish(f.editor, f.mock);
});

for (const fs of [true, false]) {
  const where = fs ? 'through fs/write_text_file (the client offers fs)' : 'on disk (the client offers no fs)';
  test(`edit allowed: the file is written ${where}`, async (t) => {
    const f = await setup(t, {
      fs,
      responses: [
        { text: 'Changing it.', toolCalls: [{ id: 'call_edit', name: 'write_to_file', arguments: { path: 'a.txt', content: 'one\nthree\n' } }] },
        { expectLastToolResultContains: 'a.txt', text: 'Done: two is now three.' },
      ],
    });
    f.write('a.txt', 'one\ntwo\n');
    f.editor.answers.push('allow_once');
    const response = await f.editor.prompt(f.session, 'Change two to three in a.txt');
    assert.equal(response.stopReason, 'end_turn');
    const file = f.path('a.txt');

    const updates = f.editor.updatesOf(f.session);
    const call = updates.find((u) => isToolCall(u, 'edit'));
    assert.ok(call, 'an edit tool call is reported');
    assert.deepEqual(call.locations?.map((/** @type {any} */ l) => l.path), [file], 'locations are absolute');
    const asked = f.editor.wire.log.find((e) => e.message.method === 'session/request_permission');
    assert.ok(asked, 'permission was asked');
    const { params } = asked.message;
    assert.equal(params.sessionId, f.session);
    assert.equal(params.toolCall.toolCallId, call.toolCallId);
    const kinds = params.options.map((/** @type {any} */ o) => o.kind);
    assert.ok(kinds.includes('allow_once') && kinds.includes('reject_once'), `options: ${kinds}`);
    const diff = params.toolCall.content?.find((/** @type {any} */ c) => c.type === 'diff');
    assert.ok(diff, 'the permission request shows the diff');
    assert.equal(diff.path, file);
    assert.equal(diff.newText, 'one\nthree\n');
    assert.equal(diff.oldText, 'one\ntwo\n');
    assert.ok(
      f.editor.position((e) => e.message.params?.update?.toolCallId === call.toolCallId) < f.editor.position((e) => e === asked),
      'the tool call is reported before permission is asked for it',
    );

    if (fs) {
      assert.deepEqual(f.editor.writes, [{ path: file, content: 'one\nthree\n' }]);
      assert.equal(readFileSync(file, 'utf8'), 'one\ntwo\n', 'the editor writes its buffer; the agent left the disk alone');
    } else {
      assert.equal(readFileSync(file, 'utf8'), 'one\nthree\n');
      const fsCalls = f.editor.fromAgent().filter((m) => m.method?.startsWith('fs/'));
      assert.deepEqual(fsCalls, [], 'no fs/* request to a client that did not offer it');
    }
    const final = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === call.toolCallId).at(-1);
    assert.equal(final.status, 'completed');
    assert.equal(chunks(updates, 'agent_message_chunk'), 'Changing it.Done: two is now three.');
    await finish(f.editor, f.mock);
  });

  test(`edit rejected: nothing is written (${fs ? 'client offers fs' : 'no fs'})`, async (t) => {
    const f = await setup(t, {
      fs,
      responses: [
        { toolCalls: [{ id: 'call_edit', name: 'write_to_file', arguments: { path: 'a.txt', content: 'overwritten\n' } }] },
        { expectLastToolResultContains: 'rejected', text: 'OK, leaving it.' },
      ],
    });
    f.write('a.txt', 'original\n');
    f.editor.answers.push('reject_once');
    const response = await f.editor.prompt(f.session, 'Overwrite a.txt');
    assert.equal(response.stopReason, 'end_turn');
    assert.deepEqual(f.editor.writes, []);
    assert.equal(readFileSync(f.path('a.txt'), 'utf8'), 'original\n');
    const updates = f.editor.updatesOf(f.session);
    const call = updates.find((u) => isToolCall(u, 'edit'));
    const statuses = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === call.toolCallId).map((u) => u.status);
    assert.equal(statuses.at(-1), 'failed');
    assert.ok(!statuses.includes('in_progress') && !statuses.includes('completed'), `a rejected call never runs: ${statuses}`);
    await finish(f.editor, f.mock);
  });
}

test('cancel while permission is pending: the client answers cancelled, the prompt answers cancelled', async (t) => {
  const f = await setup(t, {
    responses: [
      { toolCalls: [{ id: 'call_edit', name: 'write_to_file', arguments: { path: 'b.txt', content: 'b\n' } }] },
      { text: 'Back again.' },
    ],
  });
  f.editor.answers.push(HOLD);
  const prompt = f.editor.prompt(f.session, 'Write b.txt');
  await f.editor.waitFor((e) => e.message.method === 'session/request_permission', 'the permission request');
  await f.editor.cancel(f.session);
  // As ACP asks of a client: every pending permission request is answered `cancelled`.
  f.editor.held.shift()?.answer({ outcome: 'cancelled' });
  const response = await prompt;
  assert.equal(response.stopReason, 'cancelled');
  assert.equal(existsSync(f.path('b.txt')), false, 'nothing was written');

  const updates = f.editor.updatesOf(f.session).filter((u) => u.toolCallId === 'call_edit');
  const statuses = updates.filter((u) => u.sessionUpdate === 'tool_call_update').map((u) => u.status);
  assert.equal(statuses.at(-1), 'failed', `the call ends failed: ${statuses}`);
  assert.ok(!statuses.includes('in_progress'), `a cancelled call never runs: ${statuses}`);

  // The session goes on.
  const next = await f.editor.prompt(f.session, 'Again');
  assert.equal(next.stopReason, 'end_turn');
  assert.ok(chunks(f.editor.updatesOf(f.session), 'agent_message_chunk').endsWith('Back again.'));
  await finish(f.editor, f.mock);
});

test('session/load after a restart replays the history as valid updates, then answers', async (t) => {
  const f = await setup(t, {
    responses: [
      { text: 'Reading.', toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'a.txt' } }] },
      { expectLastToolResultContains: 'two', text: 'It says one, two.' },
    ],
  });
  f.write('a.txt', 'one\ntwo\n');
  assert.equal((await f.editor.prompt(f.session, 'What is in a.txt?')).stopReason, 'end_turn');
  await finish(f.editor, f.mock);

  // A new process on the same data dir, with a model that must see the whole conversation.
  const mock = await MockModel.start(f.dir, {
    responses: [{ expectMessagesContain: ['What is in a.txt?', 'It says one, two.'], text: 'Still here.' }],
  });
  t.after(() => mock.stop());
  const editor = f.start({ baseUrl: mock.baseUrl });
  const init = /** @type {any} */ (await editor.initialize());
  assert.equal(init.agentCapabilities.loadSession, true);
  const listed = await editor.agent.request('session/list', { cwd: f.ws });
  const entry = listed.sessions.find((s) => s.sessionId === f.session);
  assert.ok(entry, 'the earlier session is listed');
  assert.equal(entry.title, 'What is in a.txt?');
  assert.equal(entry.cwd, f.ws);

  await editor.agent.request('session/load', { sessionId: f.session, cwd: f.ws, mcpServers: [] });
  // The offered commands (the built-in /undo) follow the load; they are no part of the history.
  const replayed = editor.updatesOf(f.session).filter((u) => u.sessionUpdate !== 'available_commands_update');
  assert.deepEqual(
    replayed.map((u) => u.sessionUpdate),
    ['user_message_chunk', 'agent_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk'],
    JSON.stringify(replayed, null, 1),
  );
  assert.deepEqual(replayed[0].content, { type: 'text', text: 'What is in a.txt?' });
  assert.equal(replayed[1].content.text, 'Reading.');
  assert.equal(replayed[2].toolCallId, 'call_read');
  assert.equal(replayed[2].kind, 'read');
  assert.equal(replayed[3].status, 'completed');
  assert.equal(replayed[4].content.text, 'It says one, two.');
  const lastReplayed = editor.wire.log.findLastIndex(
    (e) => e.from === 'agent' && e.message.method === 'session/update' && e.message.params.update.sessionUpdate !== 'available_commands_update',
  );
  assert.ok(lastReplayed < responsePosition(editor, 'session/load'), 'the replay comes before the answer');

  assert.equal((await editor.prompt(f.session, 'And now?')).stopReason, 'end_turn');
  await finish(editor, mock);
});

test('fs/read_text_file: offered, the agent reads the editor buffer, not the disk', async (t) => {
  const f = await setup(t, {
    fs: true,
    responses: [
      { toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'a.txt' } }] },
      // The model must see the unsaved text.
      { expectLastToolResultContains: 'unsaved buffer text', text: 'The buffer says so.' },
    ],
  });
  f.write('a.txt', 'text on disk\n');
  const file = f.path('a.txt');
  f.editor.buffers.set(file, 'unsaved buffer text\n');
  assert.equal((await f.editor.prompt(f.session, 'Read a.txt')).stopReason, 'end_turn');
  assert.deepEqual(f.editor.reads, [file]);
  const read = f.editor.wire.log.find((e) => e.message.method === 'fs/read_text_file');
  assert.ok(read);
  assert.equal(read.message.params.sessionId, f.session);
  assert.equal(read.message.params.path, file, 'the path is absolute');
  assert.ok(
    f.editor.position((e) => e.message.params?.update?.toolCallId === 'call_read') < f.editor.position((e) => e === read),
    'the read comes after the tool call it serves',
  );
  const [, second] = await f.mock.chatRequests();
  const tool = second.body.messages.filter((/** @type {any} */ m) => m.role === 'tool').at(-1);
  assert.match(messageText(tool), /unsaved buffer text/);
  assert.doesNotMatch(messageText(tool), /text on disk/);
  await finish(f.editor, f.mock);
});

test('every message tandem sends conforms: reasoning, command output, a failing tool, a model error, session/list', async (t) => {
  const f = await setup(t, {
    responses: [
      { reasoning: 'I should run it.', text: 'Running.', toolCalls: [{ id: 'call_cmd', name: 'execute_command', arguments: { command: "printf 'alpha\\nbeta\\n'" } }] },
      { expectLastToolResultContains: 'beta', toolCalls: [{ id: 'call_missing', name: 'read_file', arguments: { path: 'missing.txt' } }] },
      { text: 'Done.' },
      { status: 400, body: { error: { message: 'no such model here' } } },
    ],
  });
  f.editor.answers.push('allow_once');
  assert.equal((await f.editor.prompt(f.session, 'Run it, then read missing.txt')).stopReason, 'end_turn');
  const updates = f.editor.updatesOf(f.session);
  assert.equal(chunks(updates, 'agent_thought_chunk'), 'I should run it.');
  const cmd = updates.filter((u) => u.toolCallId === 'call_cmd');
  assert.equal(cmd[0].kind, 'execute');
  assert.equal(cmd.at(-1).status, 'completed');
  assert.match(JSON.stringify(cmd.at(-1).content), /alpha\\nbeta/);
  assert.equal(updates.filter((u) => u.toolCallId === 'call_missing').at(-1).status, 'failed');

  // A failed turn answers with a JSON-RPC error whose message is the reason.
  await assert.rejects(f.editor.prompt(f.session, 'Again'), (/** @type {any} */ e) => e.code === -32603 && /no such model here/.test(e.message));
  const listed = await f.editor.agent.request('session/list', {});
  assert.ok(listed.sessions.some((s) => s.sessionId === f.session));
  // Every message of all this passed the schema (checked in finish); make sure there were many.
  assert.ok(f.editor.fromAgent().length >= 10, `only ${f.editor.fromAgent().length} messages`);
  await finish(f.editor, f.mock);
});

// Regressions: these failed against the committed ee9238b source and pass with the fixes in the
// lead's restructured tree (server/acp/src/convert.rs).

test('cancel while permission is pending, then a late "allow": the call never goes back to in_progress', async (t) => {
  const f = await setup(t, {
    responses: [
      { toolCalls: [{ id: 'call_edit', name: 'write_to_file', arguments: { path: 'b.txt', content: 'b\n' } }] },
      { text: 'Back again.' },
    ],
  });
  f.editor.answers.push(HOLD);
  const prompt = f.editor.prompt(f.session, 'Write b.txt');
  await f.editor.waitFor((e) => e.message.method === 'session/request_permission', 'the permission request');
  await f.editor.cancel(f.session);
  assert.equal((await prompt).stopReason, 'cancelled');
  const failedAt = f.editor.position(
    (e) => e.message.params?.update?.toolCallId === 'call_edit' && e.message.params.update.status === 'failed',
  );
  assert.ok(failedAt >= 0, 'the call is reported failed when the turn is cancelled');

  // The user clicks "Allow" on the (stale) question just after the cancel went out: the race
  // every real editor has between its cancel and its permission dialog.
  f.editor.held.shift()?.answer({ outcome: 'selected', optionId: 'allow_once' });
  // A next turn, so anything the late answer set off has had its turn on the wire.
  assert.equal((await f.editor.prompt(f.session, 'Again')).stopReason, 'end_turn');
  const after = f.editor.wire.log
    .slice(failedAt + 1)
    .map((e) => e.message.params?.update)
    .filter((u) => u?.toolCallId === 'call_edit');
  assert.deepEqual(after, [], 'no update for a call after it was reported failed');
  assert.equal(existsSync(f.path('b.txt')), false, 'nothing was written');
  await finish(f.editor, f.mock);
});

test('a resource_link block: the model gets the text and the file apart; the title is the text', async (t) => {
  const f = await setup(t, { responses: [{ text: 'It prints hello.' }] });
  f.write('hello.py', 'print("hello")\n');
  const uri = `file://${f.path('hello.py')}`;
  const prompt = [
    { type: 'text', text: 'explain the code' },
    { type: 'resource_link', uri, name: 'hello.py' },
  ];
  assert.equal((await f.editor.prompt(f.session, prompt)).stopReason, 'end_turn');

  // What the model received.
  const [request] = await f.mock.chatRequests();
  const user = messageText(request.body.messages.filter((/** @type {any} */ m) => m.role === 'user').at(-1));
  assert.match(user, /^explain the code/);
  assert.match(user, /print\("hello"\)/, 'the linked file is attached');
  assert.doesNotMatch(user, /code@|@hello\.py@hello\.py/, `the mention is glued onto the prompt text:\n${user}`);

  // The session's title.
  const listed = await f.editor.agent.request('session/list', { cwd: f.ws });
  const title = listed.sessions.find((s) => s.sessionId === f.session)?.title ?? '';
  assert.equal(title, 'explain the code');

  // The replayed user message keeps the text as the user typed it.
  await finish(f.editor, f.mock);
  const editor = f.start();
  await editor.initialize();
  await editor.agent.request('session/load', { sessionId: f.session, cwd: f.ws, mcpServers: [] });
  const text = editor
    .updatesOf(f.session)
    .filter((u) => u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text')
    .map((u) => u.content.text)
    .join('');
  assert.equal(text, 'explain the code');
  await finish(editor);
});

test('image blocks reach the model as data URLs after the text, and go again with the conversation', async (t) => {
  const f = await setup(t, { responses: [{ text: 'A gradient and a square.' }, { text: 'Still.' }] });
  const png = readFileSync(new URL('../fixtures/images/shot.png', import.meta.url)).toString('base64');
  const gif = readFileSync(new URL('../fixtures/images/icon.gif', import.meta.url)).toString('base64');
  const response = await f.editor.prompt(f.session, [
    { type: 'text', text: 'what is in these pictures?' },
    { type: 'image', mimeType: 'image/png', data: png },
    { type: 'image', mimeType: 'image/gif', data: gif, uri: 'file:///elsewhere/icon.gif' },
  ]);
  assert.equal(response.stopReason, 'end_turn');
  const expected = [
    { type: 'text', text: 'what is in these pictures?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
    { type: 'image_url', image_url: { url: `data:image/gif;base64,${gif}` } },
  ];
  const [request] = await f.mock.chatRequests();
  const user = request.body.messages.filter((/** @type {any} */ m) => m.role === 'user').at(-1);
  assert.deepEqual(user.content, expected);
  // The next turn sends them again with the conversation.
  assert.equal((await f.editor.prompt(f.session, 'and now?')).stopReason, 'end_turn');
  const second = (await f.mock.chatRequests())[1];
  assert.deepEqual(second.body.messages.filter((/** @type {any} */ m) => m.role === 'user')[0].content, expected);
  await finish(f.editor, f.mock);
});

test('image blocks that are not images, or too large, are refused with an error and start no turn', async (t) => {
  const f = await setup(t, { responses: [{ text: 'Text only.' }] });
  const script = Buffer.from('#!/bin/sh\necho owned\n').toString('base64');
  await assert.rejects(
    f.editor.prompt(f.session, [{ type: 'text', text: 'look' }, { type: 'image', mimeType: 'image/png', data: script }]),
    (/** @type {any} */ e) => e.code === -32602 && /image 1 is not a PNG, JPEG, WebP or GIF/.test(e.message),
  );
  const jpeg = readFileSync(new URL('../fixtures/images/photo.jpg', import.meta.url)).toString('base64');
  await assert.rejects(
    f.editor.prompt(f.session, [{ type: 'text', text: 'look' }, { type: 'image', mimeType: 'image/png', data: jpeg }]),
    (/** @type {any} */ e) => e.code === -32602 && /declared as image\/png but its bytes are image\/jpeg/.test(e.message),
  );
  const big = Buffer.alloc(6 * 1024 * 1024);
  readFileSync(new URL('../fixtures/images/shot.png', import.meta.url)).copy(big);
  await assert.rejects(
    f.editor.prompt(f.session, [{ type: 'text', text: 'look' }, { type: 'image', mimeType: 'image/png', data: big.toString('base64') }]),
    (/** @type {any} */ e) => e.code === -32602 && /6\.0 MiB/.test(e.message) && /at most 5\.0 MiB/.test(e.message),
  );
  assert.deepEqual(await f.mock.chatRequests(), [], 'nothing reached the model');
  // Only the commands offered after session/new (the built-in /undo).
  assert.deepEqual(f.editor.updatesOf(f.session).map((u) => u.sessionUpdate).filter((k) => k !== 'available_commands_update'), [], 'no turn started');
  assert.equal((await f.editor.prompt(f.session, 'just text then')).stopReason, 'end_turn');
  await finish(f.editor, f.mock);
});

test('cancel while a command runs: the prompt answers cancelled, the call ends failed, nothing follows the answer', async (t) => {
  const f = await setup(t, {
    responses: [
      { toolCalls: [{ id: 'call_cmd', name: 'execute_command', arguments: { command: "printf 'started\\n'; sleep 30" } }] },
      { text: 'Back again.' },
    ],
  });
  f.editor.answers.push('allow_once');
  const started = Date.now();
  const prompt = f.editor.prompt(f.session, 'Run the slow thing');
  await f.editor.waitFor(
    (e) => e.message.params?.update?.toolCallId === 'call_cmd' && JSON.stringify(e.message.params.update.content ?? '').includes('started'),
    'the command output',
  );
  await f.editor.cancel(f.session);
  assert.equal((await prompt).stopReason, 'cancelled');
  assert.ok(Date.now() - started < 20_000, 'the command was stopped, not waited for');
  const answeredAt = responsePosition(f.editor, 'session/prompt');
  const statuses = f.editor.updatesOf(f.session).filter((u) => u.toolCallId === 'call_cmd' && u.status).map((u) => u.status);
  assert.equal(statuses.at(-1), 'failed', `statuses: ${statuses}`);

  assert.equal((await f.editor.prompt(f.session, 'Again')).stopReason, 'end_turn');
  const late = f.editor.wire.log.slice(answeredAt + 1).filter((e) => e.message.params?.update?.toolCallId === 'call_cmd');
  assert.deepEqual(late, [], 'no update for the cancelled turn after its answer');
  await finish(f.editor, f.mock);
});

test('cancel mid-stream: the prompt answers cancelled and the session goes on', async (t) => {
  const f = await setup(t, {
    responses: [
      // One piece of text, then the stream stalls until the agent hangs up.
      { text: 'Thinking about it for a long while', stallAfterChunks: 2 },
      { text: 'Back again.' },
    ],
  });
  const prompt = f.editor.prompt(f.session, 'Think');
  await f.editor.waitFor((e) => e.message.params?.update?.sessionUpdate === 'agent_message_chunk', 'the first chunk');
  await f.editor.cancel(f.session);
  assert.equal((await prompt).stopReason, 'cancelled');
  assert.equal((await f.editor.prompt(f.session, 'Again')).stopReason, 'end_turn');
  assert.ok(chunks(f.editor.updatesOf(f.session), 'agent_message_chunk').endsWith('Back again.'));
  await finish(f.editor, f.mock);
});

// session/load: "The Agent MUST replay the entire conversation to the Client in the form of
// session/update notifications". The user's message was a text block and a resource_link block;
// the replay must carry both, or the client shows a different conversation than the one held.
test('session/load replays a prompt\'s resource_link as a resource_link, not only its text', async (t) => {
  const f = await setup(t, { responses: [{ text: 'It prints hello.' }] });
  f.write('hello.py', 'print("hello")\n');
  const uri = `file://${f.path('hello.py')}`;
  const prompt = [
    { type: 'text', text: 'explain the code' },
    { type: 'resource_link', uri, name: 'hello.py' },
  ];
  assert.equal((await f.editor.prompt(f.session, prompt)).stopReason, 'end_turn');
  await finish(f.editor, f.mock);

  const editor = f.start();
  await editor.initialize();
  await editor.agent.request('session/load', { sessionId: f.session, cwd: f.ws, mcpServers: [] });
  const user = editor
    .updatesOf(f.session)
    .filter((u) => u.sessionUpdate === 'user_message_chunk')
    .map((u) => u.content);
  assert.equal(user.filter((c) => c.type === 'text').map((c) => c.text).join(''), 'explain the code');
  assert.ok(
    user.some((c) => c.type === 'resource_link' && c.uri === uri),
    `the link is replayed as a resource_link; the replayed user message was: ${JSON.stringify(user)}`,
  );
  await finish(editor);
});

// A client that offers fs/read_text_file holds unsaved text the disk doesn't have; tandem reads
// tool calls' files through it (docs/acp.md), so a file the user mentions in the prompt must be
// read the same way, or the model answers about a stale file. (ACP does not oblige an agent to use
// fs/read_text_file; this is about tandem being consistent with itself and its docs.)
test('a resource_link prompt with fs offered: the model sees the editor buffer, not the disk', async (t) => {
  const f = await setup(t, { fs: true, responses: [{ text: 'It prints bye.' }] });
  f.write('hello.py', 'print("on disk")\n');
  const file = f.path('hello.py');
  f.editor.buffers.set(file, 'print("unsaved")\n');
  const prompt = [
    { type: 'text', text: 'explain the code' },
    { type: 'resource_link', uri: `file://${file}`, name: 'hello.py' },
  ];
  assert.equal((await f.editor.prompt(f.session, prompt)).stopReason, 'end_turn');
  const [request] = await f.mock.chatRequests();
  const user = messageText(request.body.messages.filter((/** @type {any} */ m) => m.role === 'user').at(-1));
  assert.match(user, /print\("unsaved"\)/, `the model was sent:\n${user}`);
  assert.doesNotMatch(user, /on disk/);
  await finish(f.editor, f.mock);
});

test('plan and modes: update_plan is a plan update; plan mode (session/set_mode) refuses an edit without asking', async (t) => {
  const f = await setup(t, {
    responses: [
      { toolCalls: [{ id: 'call_plan', name: 'update_plan', arguments: { explanation: 'Looked first.', plan: [{ step: 'Read a.txt', status: 'completed' }, { step: 'Change it', status: 'in_progress' }] } }] },
      { toolCalls: [{ id: 'call_edit', name: 'write_to_file', arguments: { path: 'a.txt', content: 'gone\n' } }] },
      { expectLastToolResultContains: 'read-only', text: 'Plan mode: I only read.' },
    ],
  });
  f.write('a.txt', 'one\n');
  const created = f.editor.wire.log.find((e) => e.message.result?.sessionId === f.session);
  assert.equal(created?.message.result.modes?.currentModeId, 'default');
  assert.deepEqual(created.message.result.modes.availableModes.map((/** @type {any} */ m) => m.id), ['default', 'plan']);
  await assert.rejects(f.editor.setMode(f.session, 'yolo'), (/** @type {any} */ e) => e.code === -32602 && /yolo/.test(e.message));
  await f.editor.setMode(f.session, 'plan');

  const response = await f.editor.prompt(f.session, 'Plan the change to a.txt');
  assert.equal(response.stopReason, 'end_turn');
  const updates = f.editor.updatesOf(f.session);
  const plans = updates.filter((u) => u.sessionUpdate === 'plan');
  assert.equal(plans.length, 1);
  assert.deepEqual(
    plans[0].entries.map((/** @type {any} */ e) => [e.content, e.status]),
    [['Read a.txt', 'completed'], ['Change it', 'in_progress']],
  );
  assert.equal(updates.filter((u) => u.toolCallId === 'call_plan').length, 0, 'a plan is not a tool call');
  assert.equal(f.editor.wire.log.filter((e) => e.message.method === 'session/request_permission').length, 0, 'nothing was asked');
  const edit = updates.filter((u) => u.toolCallId === 'call_edit').at(-1);
  assert.equal(edit.status, 'failed');
  assert.equal(readFileSync(f.path('a.txt'), 'utf8'), 'one\n');
  const [first] = await f.mock.chatRequests();
  const offered = first.body.tools.map((/** @type {any} */ d) => d.function.name);
  assert.ok(offered.includes('update_plan') && !offered.includes('write_to_file') && !offered.includes('execute_command'), `${offered}`);
  await finish(f.editor, f.mock);

  // The mode and the plan are in the transcript: a new process reopens the session in plan mode
  // and replays the plan.
  const mock = await MockModel.start(f.dir, { responses: [] });
  t.after(() => mock.stop());
  const editor = f.start({ baseUrl: mock.baseUrl });
  await editor.initialize();
  const loaded = await editor.agent.request('session/load', { sessionId: f.session, cwd: f.ws, mcpServers: [] });
  assert.equal(loaded.modes?.currentModeId, 'plan');
  const replayed = editor.updatesOf(f.session).filter((u) => u.sessionUpdate === 'plan');
  assert.deepEqual(replayed.map((u) => u.entries), plans.map((u) => u.entries));
  await finish(editor, mock);
});

test('custom commands: available_commands_update (schema-checked) and /name runs the file with its arguments', async (t) => {
  const f = await setup(t, { responses: [{ expectMessagesContain: ['Review a.txt for speed.'], text: 'Reviewed.' }] });
  f.write('.tandem/commands/review.md', '---\ndescription: Review a file\nargument-hint: <file> <quality>\n---\nReview $1 for $2.\n');
  const response = await f.editor.prompt(f.session, '/review a.txt speed');
  assert.equal(response.stopReason, 'end_turn');
  const offered = f.editor.updatesOf(f.session).filter((u) => u.sessionUpdate === 'available_commands_update');
  // After session/new, before the file: only the built-in /undo.
  assert.equal(offered.length, 2, 'the new file is offered before the turn');
  assert.deepEqual(offered[0].availableCommands.map((/** @type {any} */ c) => c.name), ['undo']);
  assert.deepEqual(offered[1].availableCommands.slice(1), [
    { name: 'review', description: 'Review a file (project command, .tandem/commands/review.md)', input: { hint: '<file> <quality>' } },
  ]);
  assert.equal(offered[1].availableCommands[0].name, 'undo');
  await finish(f.editor, f.mock);
});

test("a command's changes: diff content on its tool call, then the offered /undo asks before overwriting the user's change and puts every file back", async (t) => {
  const f = await setup(t, {
    responses: [
      { toolCalls: [{ id: 'call_cmd', name: 'execute_command', arguments: { command: "sed -i s/one/ONE/ a.txt && printf 'new\\n' > b.txt && rm c.txt && echo done" } }] },
      { expectLastToolResultContains: 'done', text: 'Changed them.' },
    ],
  });
  f.write('a.txt', 'one\n');
  f.write('c.txt', 'gone\n');
  f.editor.answers.push('allow_once');
  assert.equal((await f.editor.prompt(f.session, 'Change them')).stopReason, 'end_turn');
  assert.deepEqual(f.editor.answers, [], 'the command asked');
  assert.equal(readFileSync(f.path('a.txt'), 'utf8'), 'ONE\n');
  const updates = f.editor.updatesOf(f.session);
  const diffs = updates
    .filter((u) => u.toolCallId === 'call_cmd')
    .at(-1)
    .content.filter((/** @type {any} */ c) => c.type === 'diff')
    .map((/** @type {any} */ d) => ({ path: d.path, oldText: d.oldText ?? null, newText: d.newText }))
    .sort((/** @type {any} */ a, /** @type {any} */ b) => a.path.localeCompare(b.path));
  assert.deepEqual(diffs, [
    { path: f.path('a.txt'), oldText: 'one\n', newText: 'ONE\n' },
    { path: f.path('b.txt'), oldText: null, newText: 'new\n' },
    { path: f.path('c.txt'), oldText: 'gone\n', newText: '' },
  ]);
  const offered = updates.filter((u) => u.sessionUpdate === 'available_commands_update').at(-1);
  assert.ok(offered.availableCommands.some((/** @type {any} */ c) => c.name === 'undo'), JSON.stringify(offered));

  // The user changes a.txt; /undo asks, and "keep" restores nothing.
  f.write('a.txt', 'mine\n');
  f.editor.answers.push('keep');
  const before = f.editor.updatesOf(f.session).length;
  assert.equal((await f.editor.prompt(f.session, '/undo')).stopReason, 'end_turn');
  assert.deepEqual(f.editor.answers, [], 'undo did not ask');
  const asked = f.editor.wire.log.filter((e) => e.message.method === 'session/request_permission').at(-1).message.params;
  assert.deepEqual(asked.options.map((/** @type {any} */ o) => o.optionId), ['restore', 'keep']);
  assert.match(chunks(f.editor.updatesOf(f.session).slice(before), 'agent_message_chunk'), /^Nothing restored: you changed a\.txt since the turn/);
  assert.equal(readFileSync(f.path('a.txt'), 'utf8'), 'mine\n');
  assert.ok(existsSync(f.path('b.txt')));

  // Asked again, "restore": every file as before the turn.
  f.editor.answers.push('restore');
  const again = f.editor.updatesOf(f.session).length;
  assert.equal((await f.editor.prompt(f.session, '/undo')).stopReason, 'end_turn');
  assert.match(chunks(f.editor.updatesOf(f.session).slice(again), 'agent_message_chunk'), /^Restored 3 files: /);
  assert.equal(readFileSync(f.path('a.txt'), 'utf8'), 'one\n');
  assert.equal(readFileSync(f.path('c.txt'), 'utf8'), 'gone\n');
  assert.ok(!existsSync(f.path('b.txt')));
  assert.equal((await f.mock.chatRequests()).length, 2, 'undo asked the model');
  await finish(f.editor, f.mock);
});
