import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historyPicks } from '../../src/chat/history';
import { sessionIdFrom } from '../../src/protocol';

describe('historyPicks', () => {
  it('tells apart chats with the same first prompt by date, and by id when the dates match', () => {
    const s = (sessionId: string, createdAt: string, updatedAt: string) => ({ sessionId: sessionIdFrom(sessionId), title: 'Fix the tests', root: '/w', additionalRoots: [], createdAt, updatedAt });
    const picks = historyPicks(
      [
        s('aaaaaaaa11', '2026-11-20T10:00:00Z', '2026-11-20T10:05:00Z'),
        s('bbbbbbbb22', '2026-11-21T09:00:00Z', '2026-11-21T09:30:00Z'),
        s('cccccccc33', '2026-11-21T09:00:00Z', '2026-11-21T09:30:00Z'),
      ],
      sessionIdFrom('bbbbbbbb22'),
      (iso) => iso.slice(0, 16).replace('T', ' '),
    );
    assert.deepEqual(picks.map((p) => p.label), ['Fix the tests', 'Fix the tests', 'Fix the tests']);
    assert.deepEqual(picks.map((p) => p.sessionId), ['bbbbbbbb22', 'cccccccc33', 'aaaaaaaa11']);
    assert.equal(picks[2]?.description, '2026-11-20 10:00');
    assert.equal(picks[0]?.detail, 'last active 2026-11-21 09:30 · #bbbbbbbb · current chat');
    assert.equal(new Set(picks.map((p) => `${p.label}|${p.description}|${p.detail}`)).size, 3);
  });

  it("names a multi-root chat's other folders, on any OS's paths", () => {
    const [pick] = historyPicks(
      [{ sessionId: sessionIdFrom('dddddddd44'), title: 'Wire the client', root: '/w/app', additionalRoots: ['/w/lib', 'C:\\src\\docs\\'], createdAt: '2026-11-22T08:00:00Z', updatedAt: '2026-11-22T08:10:00Z' }],
      null,
      (iso) => iso.slice(0, 16).replace('T', ' '),
    );
    assert.equal(pick?.detail, 'last active 2026-11-22 08:10 · also lib, docs · #dddddddd');
  });
});
