import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listCommands } from '../../src/chat/commands';
import { ChatMode, type Requester } from '../../src/chat/mode';
import { parseWebviewMessage } from '../../src/shared/messages';
import { sessionIdFrom } from '../../src/protocol';

/** A sidecar that records requests and answers from `answer`. */
function fake(answer: (method: string, params: object) => unknown = () => ({})): Requester & { sent: [string, object][] } {
  const sent: [string, object][] = [];
  return {
    sent,
    request<R>(method: string, params: object): Promise<R> {
      sent.push([method, params]);
      try {
        return Promise.resolve(answer(method, params) as R);
      } catch (e) {
        return Promise.reject(e);
      }
    },
  };
}

describe('the chat mode', () => {
  it('switches a session at once, and a new chat once its session is made', async () => {
    const sidecar = fake();
    const mode = new ChatMode(sidecar);
    await mode.pick(null, 'plan');
    assert.equal(mode.current, 'plan');
    assert.deepEqual(sidecar.sent, []);
    await mode.started(sessionIdFrom('s1'));
    assert.deepEqual(sidecar.sent, [['tandem/setMode', { sessionId: sessionIdFrom('s1'), mode: 'plan' }]]);
    await mode.pick(sessionIdFrom('s1'), 'default');
    assert.deepEqual(sidecar.sent[1], ['tandem/setMode', { sessionId: sessionIdFrom('s1'), mode: 'default' }]);
    // A new chat in the default mode asks nothing.
    await mode.started(sessionIdFrom('s2'));
    assert.equal(sidecar.sent.length, 2);
    mode.shown('plan');
    assert.equal(mode.current, 'plan');
    mode.shown(undefined);
    assert.equal(mode.current, 'default');
  });

  it('keeps the shown mode when the sidecar refuses', async () => {
    const mode = new ChatMode(
      fake(() => {
        throw new Error('no session s9');
      }),
    );
    await assert.rejects(mode.pick(sessionIdFrom('s9'), 'plan'), /no session/);
    assert.equal(mode.current, 'default');
  });
});

describe('the custom commands for the / menu', () => {
  it('asks by session, else by the workspace root, else not at all', async () => {
    const commands = [{ name: 'review', source: 'project', path: '/ws/.tandem/commands/review.md' }];
    const sidecar = fake(() => ({ commands, problems: [] }));
    assert.deepEqual(await listCommands(sidecar, sessionIdFrom('s1'), '/ws'), commands);
    assert.deepEqual(await listCommands(sidecar, null, '/ws'), commands);
    assert.deepEqual(await listCommands(sidecar, null, undefined), []);
    assert.deepEqual(sidecar.sent, [
      ['tandem/listCommands', { sessionId: sessionIdFrom('s1') }],
      ['tandem/listCommands', { root: '/ws' }],
    ]);
  });

  it('offers nothing when the sidecar fails', async () => {
    const sidecar = fake(() => {
      throw new Error('sidecar gone');
    });
    assert.deepEqual(await listCommands(sidecar, sessionIdFrom('s1'), '/ws'), []);
  });

  it('takes only well-formed mode and list messages from the webview', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'setMode', mode: 'plan' }), { type: 'setMode', mode: 'plan' });
    assert.equal(parseWebviewMessage({ type: 'setMode', mode: 'yolo' }), undefined);
    assert.deepEqual(parseWebviewMessage({ type: 'listCommands', extra: 1 }), { type: 'listCommands' });
  });
});
