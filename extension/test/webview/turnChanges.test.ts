import './dom';
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { UpdateParams } from '../../src/protocol';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';
import { parseWebviewMessage } from '../../src/shared/messages';
import { TranscriptView } from '../../webview/render';
import { buildTranscript, changedFiles, MAX_FILES_CHANGED, type ToolItem, type Turn } from '../../webview/transcript';
import { renderContext } from './context';

const u = (e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), ...e }) as UpdateParams;

const hostile = '<img src=x onerror=alert(1)>.txt';
const command = [
  u({ kind: 'turnStarted', prompt: 'format' }),
  u({ kind: 'toolCall', toolCallId: 'c1', name: 'execute_command', arguments: { command: 'fmt' }, title: 'Run fmt' }),
  u({
    kind: 'filesChanged',
    toolCallId: 'c1',
    changes: [
      { path: 'src/a.rs', kind: 'modified', added: 2, removed: 1 },
      { path: 'src/b.rs', kind: 'renamed', from: 'src/old.rs', added: 0, removed: 0 },
      { path: hostile, kind: 'created', added: 1, removed: 0 },
    ],
  }),
  u({ kind: 'toolResult', toolCallId: 'c1', status: 'ok', output: '[exit code 0]' }),
];
const ended = u({ kind: 'turnEnded', stopReason: 'endTurn' });

describe("a command's changed files in the chat", () => {
  it('its card lists them with counts, and the turn counts them among its changes', () => {
    const t = buildTranscript(command);
    const turn = t.blocks[0] as Turn;
    assert.deepEqual(changedFiles(turn), ['src/a.rs', 'src/b.rs', hostile]);
    const root = document.createElement('div');
    new TranscriptView(root).render(t, renderContext([], turnIdFrom('t1')));
    const items = [...root.querySelectorAll('.files-changed li')].map((li) => li.textContent);
    assert.deepEqual(items, ['src/a.rs modified (+2 −1)', 'src/b.rs renamed from src/old.rs (+0 −0)', `${hostile} created (+1 −0)`]);
    // The model named the file: it is text, not markup.
    assert.equal(root.querySelector('img'), null);
    // While the turn runs there is nothing to open yet.
    assert.equal(root.querySelector('button.review-changes'), null);
  });

  it('once the turn is over, the turn and each file open the turn\'s changes', () => {
    const show = mock.fn((_turnId: string) => undefined);
    const root = document.createElement('div');
    const view = new TranscriptView(root);
    view.render(buildTranscript(command), renderContext([], turnIdFrom('t1'), { onShowChanges: show }));
    view.render(buildTranscript([...command, ended]), renderContext([], null, { onShowChanges: show }));
    (root.querySelector('button.review-changes') as HTMLButtonElement).click();
    (root.querySelector('.files-changed button.changed-file') as HTMLButtonElement).click();
    assert.deepEqual(show.mock.calls.map((c) => c.arguments[0]), ['t1', 't1']);
  });

  it('a command that rewrote a tree keeps a bounded list', () => {
    const many = Array.from({ length: MAX_FILES_CHANGED + 50 }, (_, i) => ({ path: `f${i}`, kind: 'modified', added: 1, removed: 1 }));
    const t = buildTranscript([command[0]!, command[1]!, u({ kind: 'filesChanged', toolCallId: 'c1', changes: many })]);
    const tool = (t.blocks[0] as Turn).items.find((i) => i.type === 'tool') as ToolItem;
    assert.equal(tool.filesChanged?.length, MAX_FILES_CHANGED);
  });

  it('the host takes a showChanges message only with a sane turn id', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'showChanges', turnId: 't3' }), { type: 'showChanges', turnId: 't3' });
    assert.equal(parseWebviewMessage({ type: 'showChanges', turnId: '' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'showChanges', turnId: 'x'.repeat(300) }), undefined);
  });
});
