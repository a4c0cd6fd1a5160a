import './dom';
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { UpdateParams } from '../../src/protocol';
import type { Decision, PendingApproval } from '../../src/shared/messages';
import { TranscriptView } from '../../webview/render';
import { renderContext } from './context';
import { applyEntry, buildTranscript } from '../../webview/transcript';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';

const u = (e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), ...e }) as UpdateParams;

function context(pending: PendingApproval[] = [], runningTurn: string | null = 't1') {
  const decide = mock.fn((_req: PendingApproval, _decision: Decision, _feedback?: string) => undefined);
  return { ctx: renderContext(pending, runningTurn === null ? null : turnIdFrom(runningTurn), { onDecide: decide }), decide };
}

const buttonNamed = (root: HTMLElement, name: string) => {
  const b = [...root.querySelectorAll('button')].find((x) => x.textContent === name);
  assert.ok(b, `no ${name} button`);
  return b;
};

describe('TranscriptView', () => {
  const entries = [
    u({ kind: 'turnStarted', prompt: 'run it' }),
    u({ kind: 'toolCall', toolCallId: toolCallIdFrom('c1'), name: 'execute_command', arguments: {}, title: 'npm test' }),
  ];
  const command: PendingApproval = { sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('c1'), kind: 'command', command: 'npm test', cwd: '/w' };

  it('shows a command approval with its working directory, and reports the decision with a note', () => {
    const root = document.createElement('div');
    const { ctx, decide } = context([command]);
    new TranscriptView(root).render(buildTranscript(entries), ctx);
    assert.equal(root.querySelector('.approval .command')?.textContent, 'npm test');
    assert.equal(root.querySelector('.approval .cwd')?.textContent, 'in /w');
    assert.equal(root.querySelector('.tool-state')?.textContent, 'awaiting approval');
    buttonNamed(root, 'Reject with note…').click();
    (root.querySelector('textarea.note') as HTMLTextAreaElement).value = ' use npm run test:unit ';
    buttonNamed(root, 'Send rejection').click();
    assert.deepEqual(decide.mock.calls.at(-1)?.arguments, [command, 'reject', 'use npm run test:unit']);
  });

  it('nests a subagent\'s calls in a foldable box under its task card, with its question', () => {
    const root = document.createElement('div');
    const asked: PendingApproval = { sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('s2'), kind: 'command', command: 'make', cwd: '/w' };
    const { ctx, decide } = context([asked]);
    const sub = (e: Record<string, unknown>) => u({ kind: 'subagent', parentId: 'k1', agent: 'runner', update: e });
    const t = buildTranscript([
      u({ kind: 'turnStarted', prompt: 'go' }),
      u({ kind: 'toolCall', toolCallId: toolCallIdFrom('k1'), name: 'task', arguments: {}, title: 'runner: build' }),
      sub({ kind: 'toolCall', toolCallId: 's1', name: 'read_file', arguments: {}, title: 'Read Makefile' }),
      sub({ kind: 'toolResult', toolCallId: 's1', status: 'ok', output: 'all:' }),
      sub({ kind: 'toolCall', toolCallId: 's2', name: 'execute_command', arguments: {}, title: 'make' }),
    ]);
    new TranscriptView(root).render(t, ctx);
    const box = root.querySelector('.tool details.subagent') as HTMLDetailsElement;
    assert.ok(box, 'the subagent box');
    assert.equal(box.open, true, 'open while the task runs');
    assert.match(box.querySelector('summary')?.textContent ?? '', /Subagent runner · 2 tool calls/);
    assert.deepEqual([...box.querySelectorAll('.subagent-call .tool-title')].map((e) => e.textContent), ['Read Makefile', 'make']);
    assert.match(box.textContent ?? '', /Subagent runner asks:/);
    buttonNamed(box as unknown as HTMLElement, 'Reject').click();
    assert.deepEqual(decide.mock.calls.at(-1)?.arguments.slice(0, 2), [asked, 'reject']);
  });

  it('keeps unchanged elements in place while a turn streams, so a typed note keeps its focus', () => {
    const root = document.createElement('div');
    document.body.append(root);
    const view = new TranscriptView(root);
    const { ctx } = context([command]);
    const t = buildTranscript(entries);
    view.render(t, ctx);
    const note = root.querySelector('textarea.note') as HTMLTextAreaElement;
    note.focus();
    t.blocks.push(...buildTranscript([{ kind: 'notice', level: 'info', text: 'x' }]).blocks);
    view.render(t, ctx);
    assert.equal(root.querySelector('textarea.note'), note);
    assert.equal(document.activeElement, note);
  });

  it('drops the approval box when the request is gone and shows the final state', () => {
    const root = document.createElement('div');
    const view = new TranscriptView(root);
    const t = buildTranscript([...entries, u({ kind: 'toolResult', toolCallId: toolCallIdFrom('c1'), status: 'rejected', output: 'no' }), u({ kind: 'turnEnded', stopReason: 'cancelled' })]);
    view.render(t, context([], null).ctx);
    assert.equal(root.querySelector('.approval'), null);
    assert.equal(root.querySelector('.tool-state')?.textContent, 'rejected');
    assert.equal(root.querySelector('.turn-end')?.textContent, 'Stopped.');
  });

  it('puts an approval on the card of its own turn when tool-call ids repeat across turns', () => {
    const root = document.createElement('div');
    const t = buildTranscript([
      ...entries,
      u({ kind: 'toolResult', toolCallId: toolCallIdFrom('c1'), status: 'ok', output: 'done' }),
      u({ kind: 'turnEnded', stopReason: 'endTurn' }),
      { ...u({ kind: 'turnStarted', prompt: 'again' }), turnId: turnIdFrom('t2') } as UpdateParams,
      { ...u({ kind: 'toolCall', toolCallId: toolCallIdFrom('c1'), name: 'execute_command', arguments: {}, title: 'npm test' }), turnId: turnIdFrom('t2') } as UpdateParams,
    ]);
    new TranscriptView(root).render(t, context([{ ...command, turnId: turnIdFrom('t2') }], 't2').ctx);
    const turns = root.querySelectorAll('.turn');
    assert.equal(turns[0]?.querySelector('.approval'), null);
    assert.ok(turns[1]?.querySelector('.approval'));
  });

  it('says while the model request is retried, and which retry, until the next update replaces the line', () => {
    const root = document.createElement('div');
    const view = new TranscriptView(root);
    const { ctx } = context();
    const t = buildTranscript([u({ kind: 'turnStarted', prompt: 'hi' })]);
    view.render(t, ctx);
    assert.equal(root.querySelector('.working')?.textContent, 'Working…');
    const retries = [
      u({ kind: 'retrying', retry: 1, maxRetries: 5, status: 500, error: 'HTTP 500: boom', waitMs: 480 }),
      u({ kind: 'retrying', retry: 2, maxRetries: 5, error: 'connection refused\n(os error 111)', waitMs: 1234 }),
    ];
    const said: string[] = [];
    for (const r of retries) {
      applyEntry(t, r);
      view.render(t, ctx);
      said.push(root.querySelector('.working.retrying')?.textContent ?? '');
    }
    assert.deepEqual(said, [
      'Server answered 500; retrying (1/5) in 0.5 s…',
      'The request failed (connection refused); retrying (2/5) in 1.2 s…',
    ]);
    applyEntry(t, u({ kind: 'text', delta: 'Hello' }));
    view.render(t, ctx);
    assert.equal(root.querySelector('.retrying'), null);
    assert.equal(root.querySelector('.working')?.textContent, 'Working…');
  });
});
