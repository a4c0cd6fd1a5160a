import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { settled, toProtocol } from '../../src/diagnostics/collect';

describe('toProtocol', () => {
  it('keeps errors and warnings, one-based lines', () => {
    assert.deepEqual(
      toProtocol('/w/a.rs', [
        { line: 0, severity: 0, message: 'mismatched types' },
        { line: 4, severity: 1, message: 'unused variable' },
        { line: 5, severity: 2, message: 'info' },
        { line: 6, severity: 3, message: 'hint' },
      ]),
      [
        { path: '/w/a.rs', line: 1, severity: 'error', message: 'mismatched types' },
        { path: '/w/a.rs', line: 5, severity: 'warning', message: 'unused variable' },
      ],
    );
  });
});

describe('settled', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  /** Moves the fake clock, then lets the promise callbacks run. */
  async function advance(ms: number) {
    mock.timers.tick(ms);
    await new Promise<void>((r) => setImmediate(r));
  }

  it('waits until the changes stop for the quiet period', async () => {
    let fire: () => void = () => undefined;
    let disposed = false;
    let done = false;
    void settled((cb) => ((fire = cb), { dispose: () => (disposed = true) }), { quietMs: 100, maxMs: 1000 }).then(() => (done = true));
    await advance(80);
    fire();
    await advance(80);
    assert.equal(done, false);
    await advance(30);
    assert.equal(done, true);
    assert.equal(disposed, true);
  });

  it('gives up at the deadline when changes keep coming', async () => {
    let fire: () => void = () => undefined;
    let done = false;
    void settled((cb) => ((fire = cb), { dispose: () => undefined }), { quietMs: 100, maxMs: 300 }).then(() => (done = true));
    for (let i = 0; i < 5; i++) {
      await advance(50);
      fire();
    }
    assert.equal(done, false);
    await advance(60);
    assert.equal(done, true);
  });
});
