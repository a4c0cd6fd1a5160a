// Known bugs in `tandem acp`, written as they SHOULD pass. They fail until the bug is fixed;
// then move them into conformance.test.mjs. Same harness: every message both ways is checked
// against the SDK's JSON schema.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { finish, setup } from './support/fixture.mjs';
import { messageText } from './support/mock.mjs';

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
