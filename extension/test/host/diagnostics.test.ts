import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settled, toProtocol } from '../../src/diagnostics/collect';

describe('toProtocol', () => {
  it('keeps errors and warnings, one-based lines', () => {
    expect(
      toProtocol('/w/a.rs', [
        { line: 0, severity: 0, message: 'mismatched types' },
        { line: 4, severity: 1, message: 'unused variable' },
        { line: 5, severity: 2, message: 'info' },
        { line: 6, severity: 3, message: 'hint' },
      ]),
    ).toEqual([
      { path: '/w/a.rs', line: 1, severity: 'error', message: 'mismatched types' },
      { path: '/w/a.rs', line: 5, severity: 'warning', message: 'unused variable' },
    ]);
  });
});

describe('settled', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('waits until the changes stop for the quiet period', async () => {
    let fire: () => void = () => undefined;
    let disposed = false;
    let done = false;
    void settled((cb) => ((fire = cb), { dispose: () => (disposed = true) }), { quietMs: 100, maxMs: 1000 }).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(80);
    fire();
    await vi.advanceTimersByTimeAsync(80);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(30);
    expect(done).toBe(true);
    expect(disposed).toBe(true);
  });

  it('gives up at the deadline when changes keep coming', async () => {
    let fire: () => void = () => undefined;
    let done = false;
    void settled((cb) => ((fire = cb), { dispose: () => undefined }), { quietMs: 100, maxMs: 300 }).then(() => (done = true));
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(50);
      fire();
    }
    await vi.advanceTimersByTimeAsync(60);
    expect(done).toBe(true);
  });
});
