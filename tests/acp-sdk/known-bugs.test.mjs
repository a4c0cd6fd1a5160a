// Known bugs in `tandem acp`, written as they SHOULD pass (what the ACP spec asks). They fail
// until the bug is fixed; then move them into conformance.test.mjs. Same harness: every message
// both ways is checked against the SDK's JSON schema.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { HOLD } from './support/editor.mjs';
import { finish, setup } from './support/fixture.mjs';
import { messageText } from './support/mock.mjs';

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
  // every real editor has between its cancel and the permission dialog.
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

test('a resource_link block: the model gets the text and the file apart, the title and the replay are not glued', async (t) => {
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
  assert.match(user, /explain the code/);
  assert.match(user, /print\("hello"\)/, 'the linked file is attached');
  assert.doesNotMatch(user, /code@|@hello\.py@hello\.py/, `the mention is glued onto the prompt text:\n${user}`);

  // The session's title.
  const listed = await f.editor.agent.request('session/list', { cwd: f.ws });
  const title = listed.sessions.find((s) => s.sessionId === f.session)?.title ?? '';
  assert.match(title, /^explain the code/);
  assert.doesNotMatch(title, /code@|@hello\.py@hello\.py/, `title: ${title}`);
  await finish(f.editor, f.mock);

  // The replayed user message is the one the user sent: the text, and the link as a link.
  const editor = f.start();
  await editor.initialize();
  await editor.agent.request('session/load', { sessionId: f.session, cwd: f.ws, mcpServers: [] });
  const user_chunks = editor.updatesOf(f.session).filter((u) => u.sessionUpdate === 'user_message_chunk').map((u) => u.content);
  const text = user_chunks.filter((c) => c.type === 'text').map((c) => c.text).join('');
  assert.match(text, /explain the code/);
  assert.doesNotMatch(text, /code@|@hello\.py@hello\.py/, `replayed user text: ${text}`);
  assert.ok(
    user_chunks.some((c) => c.type === 'resource_link' && c.uri === uri),
    `the link is replayed as a resource_link: ${JSON.stringify(user_chunks)}`,
  );
  await finish(editor);
});

test('an image block while promptCapabilities.image is not advertised is refused with an error', async (t) => {
  const f = await setup(t, { responses: [{ text: 'I cannot see images.' }] });
  const advertised = /** @type {any} */ (f.init).agentCapabilities.promptCapabilities?.image === true;
  // A 1x1 transparent PNG.
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
  const prompt = f.editor.prompt(f.session, [
    { type: 'text', text: 'what is in this picture?' },
    { type: 'image', mimeType: 'image/png', data: png },
  ]);
  if (advertised) {
    // Then it must reach the model as an image.
    assert.equal((await prompt).stopReason, 'end_turn');
    const [request] = await f.mock.chatRequests();
    assert.match(JSON.stringify(request.body.messages), /image_url|data:image\/png/);
  } else {
    await assert.rejects(prompt, (/** @type {any} */ e) => e.code === -32602, 'refused as invalid params');
    assert.deepEqual(await f.mock.chatRequests(), [], 'nothing reached the model');
    assert.equal(f.editor.updatesOf(f.session).length, 0, 'no turn started');
  }
  // The mock's one reply stays unused when the prompt is refused: that is not a failure.
  assert.deepEqual(f.editor.violations(), []);
  assert.equal(await f.editor.close(), 0);
});
