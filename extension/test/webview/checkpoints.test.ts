import './dom';
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { UpdateParams } from '../../src/protocol';
import type { Decision, PendingApproval } from '../../src/shared/messages';
import { TranscriptView } from '../../webview/render';
import { renderContext } from './context';
import { buildTranscript, changedFiles, diffPath, type Turn } from '../../webview/transcript';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';

const u = (turnId: string, e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom(turnId), ...e }) as UpdateParams;

function context(runningTurn: string | null, pending: PendingApproval[] = []) {
  const restore = mock.fn((_turnId: string) => undefined);
  const decide = mock.fn((_r: PendingApproval, _d: Decision) => undefined);
  return { ctx: renderContext(pending, runningTurn === null ? null : turnIdFrom(runningTurn), { onDecide: decide, onRestore: restore }), restore, decide };
}

const edit = (turnId: string, id: string, path: string, status = 'ok') => [
  u(turnId, { kind: 'toolCall', toolCallId: id, name: 'write_to_file', arguments: {}, title: `Edit ${path}` }),
  u(turnId, { kind: 'toolResult', toolCallId: id, status, output: 'done', ...(status === 'ok' ? { diff: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n` } : {}) }),
];

const entries = [
  u('t1', { kind: 'turnStarted', prompt: 'first' }),
  ...edit('t1', 'c1', 'src/a.ts'),
  ...edit('t1', 'c2', 'src/b.ts'),
  ...edit('t1', 'c3', 'src/a.ts'),
  u('t1', { kind: 'turnEnded', stopReason: 'endTurn' }),
  u('t2', { kind: 'turnStarted', prompt: 'second' }),
  ...edit('t2', 'c1', 'README.md', 'rejected'),
  u('t2', { kind: 'turnEnded', stopReason: 'endTurn' }),
];

describe('checkpoints in the chat', () => {
  it('reads the file of a diff, created or deleted', () => {
    assert.equal(diffPath('--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n'), 'new.txt');
    assert.equal(diffPath('--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-hi\n'), 'old.txt');
    assert.equal(diffPath('no diff'), undefined);
  });

  it('a turn lists the files its written edits changed, once each; a rejected edit changed nothing', () => {
    const t = buildTranscript(entries);
    const [first, second] = t.blocks as Turn[];
    assert.deepEqual(changedFiles(first!), ['src/a.ts', 'src/b.ts']);
    assert.deepEqual(changedFiles(second!), []);
    const root = document.createElement('div');
    new TranscriptView(root).render(t, context(null).ctx);
    const turns = root.querySelectorAll('.turn');
    assert.equal(turns[0]?.querySelector('.changes')?.textContent, 'Changed 2 files: src/a.ts, src/b.ts');
    assert.equal(turns[1]?.querySelector('.changes'), null);
  });

  it('every turn has "Restore to here" above its prompt, naming its turn', () => {
    const root = document.createElement('div');
    const { ctx, restore } = context(null);
    new TranscriptView(root).render(buildTranscript(entries), ctx);
    const turns = [...root.querySelectorAll('.turn')];
    assert.equal(turns.length, 2);
    for (const turn of turns) assert.equal(turn.firstElementChild?.className, 'checkpoint');
    (turns[1]?.querySelector('button.restore') as HTMLButtonElement).click();
    (turns[0]?.querySelector('button.restore') as HTMLButtonElement).click();
    assert.deepEqual(restore.mock.calls.map((c) => c.arguments[0]), ['t2', 't1']);
  });

  it('"Restore to here" is off while a turn runs, and on again after', () => {
    const root = document.createElement('div');
    const view = new TranscriptView(root);
    const t = buildTranscript(entries);
    view.render(t, context('t3').ctx);
    assert.ok([...root.querySelectorAll<HTMLButtonElement>('button.restore')].every((b) => b.disabled));
    view.render(t, context(null).ctx);
    assert.ok([...root.querySelectorAll<HTMLButtonElement>('button.restore')].every((b) => !b.disabled));
  });

  it('offers accept always for an edit and a sandboxed command with rules to add (naming them), not for a command outside the sandbox; the reason shows', () => {
    const base = { sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t3') };
    const ed: PendingApproval = { ...base, toolCallId: toolCallIdFrom('e'), kind: 'edit', path: '/w/a.ts', original: 'a', proposed: 'b', diff: '' };
    const cmd: PendingApproval = { ...base, toolCallId: toolCallIdFrom('c'), kind: 'command', command: 'cargo test -p core', cwd: '/w', reason: '`cargo test -p core`: no rule admits this command', always: ['cargo test'] };
    const outside: PendingApproval = { ...base, toolCallId: toolCallIdFrom('o'), kind: 'command', command: 'curl x', cwd: '/w', outsideSandbox: true };
    const t = buildTranscript([
      u('t3', { kind: 'turnStarted', prompt: 'p' }),
      u('t3', { kind: 'toolCall', toolCallId: toolCallIdFrom('e'), name: 'write_to_file', arguments: {}, title: 'Edit a.ts' }),
      u('t3', { kind: 'toolCall', toolCallId: toolCallIdFrom('c'), name: 'execute_command', arguments: {}, title: 'ls' }),
      u('t3', { kind: 'toolCall', toolCallId: toolCallIdFrom('o'), name: 'execute_command', arguments: {}, title: 'curl x' }),
    ]);
    const root = document.createElement('div');
    const { ctx, decide } = context('t3', [ed, cmd, outside]);
    new TranscriptView(root).render(t, ctx);
    const boxes = [...root.querySelectorAll('.approval')];
    const names = (el: Element | undefined) => [...(el?.querySelectorAll('button') ?? [])].map((b) => b.textContent);
    assert.ok(names(boxes[0]).includes('Accept always for this session'));
    assert.ok(names(boxes[1]).includes('Always allow `cargo test`'));
    assert.ok(boxes[1]?.querySelector('.reason')?.textContent?.includes('no rule admits this command'));
    assert.ok(!names(boxes[2]).some((n) => n?.includes('Always')));
    ([...(boxes[0]?.querySelectorAll('button') ?? [])].find((b) => b.textContent === 'Accept always for this session') as HTMLButtonElement).click();
    assert.deepEqual(decide.mock.calls[0]?.arguments, [ed, 'acceptAlways']);
  });

  it('offers "always trust" for a project MCP server only when the trust can be bound, and says why not', () => {
    const base = { sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t3'), kind: 'mcpServer' as const, server: 'proj', source: '/w/.tandem/config.toml' };
    const bound: PendingApproval = { ...base, toolCallId: toolCallIdFrom('a'), target: 'python3 tools/srv.py' };
    const unbound: PendingApproval = { ...base, toolCallId: toolCallIdFrom('b'), target: 'node .', whyNotAlways: 'its command line names the workspace itself (`.`)' };
    const t = buildTranscript([
      u('t3', { kind: 'turnStarted', prompt: 'p' }),
      u('t3', { kind: 'toolCall', toolCallId: toolCallIdFrom('a'), name: 'start_mcp_server', arguments: {}, title: 'Start MCP server `proj`?' }),
      u('t3', { kind: 'toolCall', toolCallId: toolCallIdFrom('b'), name: 'start_mcp_server', arguments: {}, title: 'Start MCP server `proj`?' }),
    ]);
    const root = document.createElement('div');
    const { ctx } = context('t3', [bound, unbound]);
    new TranscriptView(root).render(t, ctx);
    const boxes = [...root.querySelectorAll('.approval')];
    const names = (el: Element | undefined) => [...(el?.querySelectorAll('button') ?? [])].map((b) => b.textContent);
    assert.ok(names(boxes[0]).includes('Always trust it in this project'));
    assert.ok(!names(boxes[1]).some((n) => n?.includes('Always')));
    assert.ok(boxes[1]?.textContent?.includes("can't be trusted for good, since its command line names the workspace itself"));
  });
});
