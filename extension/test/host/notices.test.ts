import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LONG_TURN_MS, notifyTurnEnd, waitingSigns } from '../../src/chat/noticeSigns';

describe('signs of a waiting approval', () => {
  it('badges the view while one waits, and adds the status-bar item only while the chat is hidden', () => {
    assert.deepEqual(waitingSigns(1, false), { badge: { value: 1, tooltip: 'An approval waits in Tandem' }, status: '$(bell-dot) Tandem: an approval waits' });
    assert.deepEqual(waitingSigns(2, true), { badge: { value: 2, tooltip: '2 approvals wait in Tandem' }, status: undefined });
  });

  it('shows nothing once none waits', () => {
    assert.deepEqual(waitingSigns(0, false), { badge: undefined, status: undefined });
  });
});

describe('the notification at the end of a turn', () => {
  it('comes for a long turn that ends while the chat is hidden, if the setting is on', () => {
    assert.equal(notifyTurnEnd(LONG_TURN_MS, false, true), true);
    assert.equal(notifyTurnEnd(LONG_TURN_MS - 1, false, true), false);
    assert.equal(notifyTurnEnd(10 * LONG_TURN_MS, true, true), false);
    assert.equal(notifyTurnEnd(10 * LONG_TURN_MS, false, false), false);
  });
});
