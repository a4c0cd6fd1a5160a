import './dom';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UpdateParams } from '../../src/protocol';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';
import { TranscriptView } from '../../webview/render';
import { buildTranscript } from '../../webview/transcript';
import { renderContext } from './context';

const u = (e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), ...e }) as UpdateParams;

/** A log element with the geometry jsdom lacks: its content height, its own height, a scroll position. */
function scroller(content: number, height: number) {
  const el = document.createElement('div');
  const box = { content, height, top: 0 };
  Object.defineProperty(el, 'scrollHeight', { get: () => box.content });
  Object.defineProperty(el, 'clientHeight', { get: () => box.height });
  Object.defineProperty(el, 'scrollTop', {
    get: () => box.top,
    set: (v: number) => (box.top = Math.max(0, Math.min(v, box.content - box.height))),
  });
  return { el, box };
}

describe('following the stream', () => {
  const entries = [u({ kind: 'turnStarted', prompt: 'Go' }), u({ kind: 'text', delta: 'Some text' })];
  const ctx = renderContext([], turnIdFrom('t1'));

  it('keeps following when the log shrinks under it (a plan pinned above), without a scroll by the user', () => {
    const { el, box } = scroller(1000, 200);
    const view = new TranscriptView(el);
    view.render(buildTranscript(entries), ctx);
    assert.equal(box.top, 800, 'a new turn is shown at its end');
    // The plan appears above the log: the log is 100 px shorter; the answer grows.
    box.height = 100;
    box.content = 1200;
    view.render(buildTranscript([...entries, u({ kind: 'text', delta: ' and more' })]), ctx);
    assert.equal(box.top, 1100, 'still at the end');
  });

  it('stays where the user scrolled to, and follows again once they scroll back to the end', () => {
    const { el, box } = scroller(1000, 200);
    const view = new TranscriptView(el);
    view.render(buildTranscript(entries), ctx);
    box.top = 300;
    el.dispatchEvent(new el.ownerDocument.defaultView!.Event('scroll'));
    box.content = 1500;
    view.render(buildTranscript([...entries, u({ kind: 'text', delta: ' more' })]), ctx);
    assert.equal(box.top, 300, 'the user reads above: left alone');
    box.top = 1300;
    el.dispatchEvent(new el.ownerDocument.defaultView!.Event('scroll'));
    box.content = 1600;
    view.render(buildTranscript([...entries, u({ kind: 'text', delta: ' more still' })]), ctx);
    assert.equal(box.top, 1400, 'back at the end: followed');
  });
});
