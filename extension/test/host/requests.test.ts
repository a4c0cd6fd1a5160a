import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Method, type ParamsOf, type ResultOf } from '../../src/protocol';
import type { Sidecar } from '../../src/sidecar/connection';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';

// What `Sidecar.request` accepts is checked by the compiler: each `@ts-expect-error` below fails
// `npm run typecheck` the day the mismatch under it compiles. Never called.
export async function mismatches(sidecar: Sidecar): Promise<void> {
  // @ts-expect-error prompt's params need a sessionId
  await sidecar.request(Method.prompt, { text: 'hi', context: [] });
  // @ts-expect-error newSession's result has no turnId
  void (await sidecar.request(Method.newSession, {})).turnId;
  // @ts-expect-error not a tandem/* request the sidecar answers
  await sidecar.request('tandem/update', {});
  // @ts-expect-error setModel takes a model name, not a number
  await sidecar.request(Method.setModel, { model: 42 });
  // The right pairs compile, their results typed.
  const { turnId } = await sidecar.request(Method.prompt, { sessionId: sessionIdFrom('s'), text: 'hi', context: [] });
  const { sessions } = await sidecar.request(Method.listSessions, {});
  void [turnId satisfies string, sessions.length satisfies number];
}

describe('request types', () => {
  it('pair each method with its params and result', () => {
    const params: ParamsOf<typeof Method.loadSession> = { sessionId: sessionIdFrom('s') };
    const result: ResultOf<typeof Method.prompt> = { turnId: turnIdFrom('t1') };
    assert.deepEqual([params, result], [{ sessionId: sessionIdFrom('s') }, { turnId: turnIdFrom('t1') }]);
    assert.equal(typeof mismatches, 'function');
  });
});
