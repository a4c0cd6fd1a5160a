import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Coverage, firstChange, toProtocol } from '../../src/diagnostics/collect';

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

describe('waiting for a report after an edit', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  /** Moves the fake clock, then lets the promise callbacks run. */
  async function advance(ms: number) {
    mock.timers.tick(ms);
    await new Promise<void>((r) => setImmediate(r));
  }

  it('ends at the first report on the file, not after a quiet period', async () => {
    let fire: () => void = () => undefined;
    let disposed = false;
    let result: boolean | undefined;
    void firstChange((cb) => ((fire = cb), { dispose: () => (disposed = true) }), 4000).then((r) => (result = r));
    await advance(50);
    assert.equal(result, undefined);
    fire();
    await advance(0);
    assert.equal(result, true);
    assert.equal(disposed, true);
  });

  it('gives up at its cap, and does not wait at all for a cap of 0', async () => {
    let result: boolean | undefined;
    void firstChange(() => ({ dispose: () => undefined }), 600).then((r) => (result = r));
    await advance(599);
    assert.equal(result, undefined);
    await advance(1);
    assert.equal(result, false);
    let subscribed = false;
    assert.equal(await firstChange(() => ((subscribed = true), { dispose: () => undefined }), 0), false);
    assert.equal(subscribed, false);
  });
});

describe('which languages are waited for', () => {
  it('waits the short probe for a language not seen, then nothing once nothing came; long once one reported', () => {
    const c = new Coverage();
    const opts = { coveredMs: 4000, unknownMs: 600 };
    assert.equal(c.waitMs(['plaintext'], opts), 600);
    c.sawNothing(['plaintext']);
    assert.equal(c.waitMs(['plaintext'], opts), 0, 'a .txt after the first costs nothing');
    c.saw('typescript');
    assert.equal(c.waitMs(['typescript'], opts), 4000);
    assert.equal(c.waitMs(['plaintext', 'typescript'], opts), 4000, 'any covered file waits');
    c.sawNothing(['typescript']);
    assert.equal(c.waitMs(['typescript'], opts), 4000, 'one silent wait does not undo what was seen');
    c.saw('plaintext');
    assert.equal(c.waitMs(['plaintext'], opts), 4000, 'a spell checker that reports later covers it');
  });
});
