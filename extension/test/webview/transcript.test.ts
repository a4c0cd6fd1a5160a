import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UpdateParams } from '../../src/protocol';
import type { LogEntry } from '../../src/shared/messages';
import { buildTranscript, usageView, type ToolItem, type Turn } from '../../webview/transcript';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';

const u = (turnId: string, e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom(turnId), ...e }) as UpdateParams;

describe('the transcript', () => {
  it('folds a streamed turn into a prompt, reasoning, text and tool cards', () => {
    const entries: LogEntry[] = [
      u('t1', { kind: 'turnStarted', prompt: 'fix it' }),
      u('t1', { kind: 'reasoning', delta: 'Let me ' }),
      u('t1', { kind: 'reasoning', delta: 'look.' }),
      u('t1', { kind: 'text', delta: 'I will ' }),
      u('t1', { kind: 'text', delta: 'run the tests.' }),
      u('t1', { kind: 'toolCall', toolCallId: 'c1', name: 'execute_command', arguments: { command: 'cargo test' }, title: 'cargo test' }),
      u('t1', { kind: 'toolOutput', toolCallId: 'c1', delta: 'running 3 tests\n' }),
      u('t1', { kind: 'toolOutput', toolCallId: 'c1', delta: 'ok\n' }),
      u('t1', { kind: 'toolResult', toolCallId: 'c1', status: 'ok', output: 'running 3 tests\nok\n' }),
      u('t1', { kind: 'text', delta: 'All green.' }),
      u('t1', { kind: 'usage', promptTokens: 1200, completionTokens: 80, contextWindow: 32768 }),
      u('t1', { kind: 'turnEnded', stopReason: 'endTurn' }),
    ];
    const t = buildTranscript(entries);
    const turn = t.blocks[0] as Turn;
    assert.deepEqual(turn.items.map((i) => i.type), ['user', 'reasoning', 'text', 'tool', 'text']);
    assert.deepEqual(turn.items.map((i) => ('text' in i ? i.text : '')), ['fix it', 'Let me look.', 'I will run the tests.', '', 'All green.']);
    const tool = turn.items[3] as ToolItem;
    assert.equal(tool.state, 'ok');
    assert.equal(tool.output, 'running 3 tests\nok\n');
    assert.equal(tool.title, 'cargo test');
    assert.deepEqual(turn.ended, { stopReason: 'endTurn' });
    assert.deepEqual(t.usage, { promptTokens: 1200, completionTokens: 80, contextWindow: 32768 });
  });

  it('nests a subagent\'s calls under its task card, and ends the ones left running', () => {
    const sub = (e: Record<string, unknown>) => u('t1', { kind: 'subagent', parentId: 'k1', agent: 'explore', update: e });
    const t = buildTranscript([
      u('t1', { kind: 'turnStarted', prompt: 'find it' }),
      u('t1', { kind: 'toolCall', toolCallId: 'k1', name: 'task', arguments: {}, title: 'explore: find' }),
      // The subagent's own ids may repeat the parent's.
      sub({ kind: 'toolCall', toolCallId: 'k1', name: 'read_file', arguments: { path: 'a.rs' }, title: 'Read a.rs' }),
      sub({ kind: 'text', delta: 'alpha is at a.rs:1' }),
      sub({ kind: 'toolResult', toolCallId: 'k1', status: 'ok', output: 'fn alpha' }),
      sub({ kind: 'toolCall', toolCallId: 'k2', name: 'list_files', arguments: {}, title: 'List' }),
      u('t1', { kind: 'turnEnded', stopReason: 'cancelled' }),
    ]);
    const turn = t.blocks[0] as Turn;
    assert.deepEqual(turn.items.map((i) => i.type), ['user', 'tool'], 'nothing of the subagent at the top level');
    const task = turn.items[1] as ToolItem;
    assert.equal(task.subagent?.agent, 'explore');
    assert.deepEqual(task.subagent?.calls.map((c) => [c.title, c.state, c.output]), [
      ['Read a.rs', 'ok', 'fn alpha'],
      ['List', 'error', ''],
    ]);
    assert.equal(task.state, 'error');
  });

  it('shows the rules files in effect and the sidecar\'s notices as small notes', () => {
    const t = buildTranscript([
      u('t1', { kind: 'turnStarted', prompt: 'hi' }),
      u('t1', { kind: 'rules', files: [{ path: '/p/AGENTS.md', bytes: 10, truncated: false }, { path: '/p/CLAUDE.md', bytes: 99999, truncated: true }] }),
      u('t1', { kind: 'modelNotice', message: 'MCP server `web` did not start' }),
      u('t1', { kind: 'turnEnded', stopReason: 'endTurn' }),
    ]);
    const notes = t.blocks.filter((b) => b.kind === 'notice');
    assert.deepEqual(
      notes.map((n) => (n.kind === 'notice' ? [n.level, n.text] : [])),
      [
        ['info', 'Rules in effect: /p/AGENTS.md, /p/CLAUDE.md (cut)'],
        ['info', 'MCP server `web` did not start'],
      ],
    );
  });

  it('streams a command output into its card and bumps the revision', () => {
    const t = buildTranscript([
      u('t1', { kind: 'toolCall', toolCallId: 'c1', name: 'execute_command', arguments: {}, title: 'make' }),
      u('t1', { kind: 'toolOutput', toolCallId: 'c1', delta: 'a' }),
    ]);
    const tool = (t.blocks[0] as Turn).items[0] as ToolItem;
    assert.equal(tool.state, 'running');
    assert.equal(tool.output, 'a');
    assert.equal(tool.rev, 1);
  });

  it('marks tools cut off by the end of a turn as failed, and keeps a rejected one rejected', () => {
    const t = buildTranscript([
      u('t1', { kind: 'toolCall', toolCallId: 'e1', name: 'write_to_file', arguments: {}, title: 'Edit a.ts' }),
      u('t1', { kind: 'toolResult', toolCallId: 'e1', status: 'rejected', output: 'The user rejected the edit: use a constant' }),
      u('t1', { kind: 'toolCall', toolCallId: 'c2', name: 'execute_command', arguments: {}, title: 'sleep 100' }),
      u('t1', { kind: 'turnEnded', stopReason: 'cancelled' }),
    ]);
    const items = (t.blocks[0] as Turn).items as ToolItem[];
    assert.deepEqual(items.map((i) => i.state), ['rejected', 'error']);
  });

  it('keeps notices between turns and separates turns', () => {
    const t = buildTranscript([
      u('t1', { kind: 'turnStarted', prompt: 'a' }),
      { kind: 'notice', level: 'error', text: 'The sidecar restarted.' },
      u('t2', { kind: 'turnStarted', prompt: 'b' }),
      u('t2', { kind: 'turnEnded', stopReason: 'error', error: 'model unreachable' }),
    ]);
    assert.deepEqual(t.blocks.map((b) => b.kind), ['turn', 'notice', 'turn']);
    assert.deepEqual((t.blocks[2] as Turn).ended, { stopReason: 'error', error: 'model unreachable', errorKind: 'other' });
  });
});

describe('usageView', () => {
  it('shows the tokens against the window, from the model list when the update has none', () => {
    assert.deepEqual(usageView({ promptTokens: 12000, completionTokens: 345 }, 128000), { text: '12.3k / 128k tokens', fraction: 12345 / 128000 });
    assert.deepEqual(usageView({ promptTokens: 900, completionTokens: 100, contextWindow: 4000 }, undefined), { text: '1.0k / 4.0k tokens', fraction: 0.25 });
    assert.deepEqual(usageView({ promptTokens: 900, completionTokens: 50 }, undefined), { text: '950 tokens' });
    assert.equal(usageView(undefined, 100), undefined);
  });
});
