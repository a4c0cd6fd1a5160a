// The schema checker itself: it must accept well-formed ACP messages and name what is wrong
// with bad ones, or the conformance tests would pass for nothing. No binaries needed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WireChecker } from './support/schema.mjs';

const rpc = (/** @type {object} */ m) => ({ jsonrpc: '2.0', ...m });

test('well-formed messages both ways pass, responses checked against the method they answer', () => {
  const w = new WireChecker();
  w.check('client', rpc({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } } }));
  w.check('agent', rpc({ id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } }));
  w.check('client', rpc({ id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] } }));
  w.check('agent', rpc({ method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } } } }));
  w.check('agent', rpc({ id: 0, method: 'fs/read_text_file', params: { sessionId: 's', path: '/ws/a.txt' } }));
  w.check('client', rpc({ id: 0, result: { content: 'text' } }));
  w.check('agent', rpc({ id: 1, result: { stopReason: 'end_turn' } }));
  w.check('client', rpc({ method: 'session/cancel', params: { sessionId: 's' } }));
  w.check('agent', rpc({ id: 7, error: { code: -32602, message: 'bad' } }));
  assert.deepEqual(w.violations().map((v) => v.problems), [[`response to unknown request id 7`]]);
});

test('bad messages are caught with the reason', () => {
  const w = new WireChecker();
  const problems = (/** @type {'agent' | 'client'} */ from, /** @type {object} */ m) => w.check(from, rpc(m)).join('\n');
  assert.match(
    problems('agent', { method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'running' } } }),
    /session\/update params are not a valid SessionNotification/,
  );
  assert.match(problems('agent', { method: 'session/explode', params: {} }), /not a notification the client handles/);
  w.check('agent', rpc({ id: 3, method: 'fs/read_text_file', params: { sessionId: 's', path: '/a' } }));
  assert.match(problems('client', { id: 3, result: {} }), /not a valid ReadTextFileResponse.*content/);
  w.check('client', rpc({ id: 4, method: 'session/new', params: { cwd: '/ws', mcpServers: [] } }));
  assert.match(problems('agent', { id: 4, result: {} }), /not a valid NewSessionResponse.*sessionId/);
  w.check('client', rpc({ id: 5, method: 'session/prompt', params: { sessionId: 's', prompt: [] } }));
  assert.match(problems('agent', { id: 5, result: { stopReason: 'done' } }), /not a valid PromptResponse/);
  assert.match(problems('agent', { id: 6, result: {}, error: { code: 1, message: 'x' } }), /exactly one of result and error/);
  assert.match(w.check('agent', { id: 9, method: 'session/update' }).join(), /union/);
  assert.match(w.check('agent', 'not an object').join(), /not a JSON-RPC message/);
});
