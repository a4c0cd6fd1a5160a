import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { StateSaver } from '../../webview/stateSaver';

describe('StateSaver', () => {
  it('writes a burst of keystrokes once, after the delay', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let writes = 0;
      const saver = new StateSaver(() => writes++, 300);
      for (let i = 0; i < 50; i++) saver.soon();
      assert.equal(writes, 0);
      mock.timers.tick(299);
      assert.equal(writes, 0);
      mock.timers.tick(1);
      assert.equal(writes, 1);
      mock.timers.tick(1000);
      assert.equal(writes, 1);
    } finally {
      mock.timers.reset();
    }
  });

  it('writes at once for any other change, taking the pending draft with it', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let writes = 0;
      const saver = new StateSaver(() => writes++, 300);
      saver.soon();
      saver.now();
      assert.equal(writes, 1);
      mock.timers.tick(300);
      assert.equal(writes, 1, 'the pending write went with the immediate one');
    } finally {
      mock.timers.reset();
    }
  });

  it('flushes a pending draft when the page goes away, and writes nothing when none is pending', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let writes = 0;
      const saver = new StateSaver(() => writes++, 300);
      saver.flush();
      assert.equal(writes, 0);
      saver.soon();
      saver.flush();
      assert.equal(writes, 1);
      mock.timers.tick(300);
      assert.equal(writes, 1);
    } finally {
      mock.timers.reset();
    }
  });
});
