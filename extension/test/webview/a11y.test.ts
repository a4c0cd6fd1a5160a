import './dom';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UpdateParams } from '../../src/protocol';
import type { PendingApproval } from '../../src/shared/messages';
import { TranscriptView, triedServers } from '../../webview/render';
import { renderContext } from './context';
import { buildTranscript } from '../../webview/transcript';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';

const u = (e: Record<string, unknown>, turnId = 't1'): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom(turnId), ...e }) as UpdateParams;

const ctx = (pending: PendingApproval[] = []) => renderContext(pending, null);

const names = (root: Element, label: string) => [...root.querySelectorAll('button')].filter((b) => b.textContent === label).map((b) => b.getAttribute('aria-label'));

describe('repeated buttons have distinct accessible names', () => {
  it('Copy and Insert name their code block; Restore names its prompt', () => {
    const root = document.createElement('div');
    new TranscriptView(root).render(
      buildTranscript([
        u({ kind: 'turnStarted', prompt: 'Show two samples' }),
        u({ kind: 'text', delta: '```js\nlet a;\n```\n\n```py\nb = 1\n```\n' }),
        u({ kind: 'turnEnded', stopReason: 'endTurn' }),
        u({ kind: 'turnStarted', prompt: 'And another' }, 't2'),
      ]),
      ctx(),
    );
    assert.deepEqual(names(root, 'Copy'), ['Copy js code block 1', 'Copy py code block 2']);
    assert.deepEqual(names(root, 'Insert'), ['Insert js code block 1', 'Insert py code block 2']);
    const restores = [...root.querySelectorAll('button.restore')].map((b) => b.getAttribute('aria-label'));
    assert.deepEqual(restores, ['Restore to here (before the prompt “Show two samples”)', 'Restore to here (before the prompt “And another”)']);
  });

  it('the answers of two questions say what each is about', () => {
    const root = document.createElement('div');
    const a = { kind: 'edit', sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('e1'), path: '/w/a.rs', displayPath: 'a.rs', original: 'x', proposed: 'y', diff: '' } as unknown as PendingApproval;
    const c = { kind: 'command', sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), toolCallId: toolCallIdFrom('c1'), command: 'cargo test', cwd: '/w' } as unknown as PendingApproval;
    new TranscriptView(root).render(
      buildTranscript([
        u({ kind: 'toolCall', toolCallId: 'e1', name: 'write_to_file', arguments: {}, title: 'Edit a.rs' }),
        u({ kind: 'toolCall', toolCallId: 'c1', name: 'execute_command', arguments: {}, title: 'Run cargo test' }),
      ]),
      ctx([a, c]),
    );
    assert.deepEqual(names(root, 'Reject'), ['Reject edit of a.rs', 'Reject command cargo test']);
  });
});

describe('the no-server card', () => {
  it('lists where it looked, without the command lines', () => {
    const raw =
      'no model server is configured, and none answered on this machine. Tried: LM Studio at http://127.0.0.1:1234/v1 (start it with `lms server start`); Ollama at http://127.0.0.1:11434/v1 (start it with `ollama serve`). Start one of them, or configure one: set TANDEM_BASE_URL';
    assert.deepEqual(triedServers(raw), ['LM Studio at http://127.0.0.1:1234/v1', 'Ollama at http://127.0.0.1:11434/v1']);
    assert.deepEqual(triedServers('something else'), []);
  });
});

describe("a command's whole output", () => {
  it('the card offers Open Full Output when the sidecar kept the output, and names the file', () => {
    const root = document.createElement('div');
    const opened: string[][] = [];
    const c = { ...ctx(), onOpenOutput: (t: string, id: string, path: string) => void opened.push([t, id, path]) };
    new TranscriptView(root).render(
      buildTranscript([
        u({ kind: 'toolCall', toolCallId: 'c1', name: 'execute_command', arguments: {}, title: 'Run yes' }),
        u({ kind: 'toolOutput', toolCallId: 'c1', delta: 'y\n'.repeat(10) }),
        u({ kind: 'toolOutput', toolCallId: 'c1', delta: 'y\n[output beyond 1 MiB is not shown here; the result shows how it ends]\n[The whole output: /d/outputs/s-t1-c1.log]\n' }),
        u({ kind: 'toolResult', toolCallId: 'c1', status: 'ok', output: 'y\n…\n[exit code 0]' }),
      ]),
      c,
    );
    const b = [...root.querySelectorAll('button')].find((x) => x.textContent === 'Open Full Output');
    assert.ok(b, root.innerHTML);
    assert.equal(b.getAttribute('aria-label'), 'Open Full Output of Run yes');
    b.click();
    assert.deepEqual(opened, [['t1', 'c1', '/d/outputs/s-t1-c1.log']]);
  });

  it('no button when all of the output was shown', () => {
    const root = document.createElement('div');
    new TranscriptView(root).render(
      buildTranscript([
        u({ kind: 'toolCall', toolCallId: 'c1', name: 'execute_command', arguments: {}, title: 'Run ls' }),
        u({ kind: 'toolOutput', toolCallId: 'c1', delta: 'a\nb\n' }),
        u({ kind: 'toolResult', toolCallId: 'c1', status: 'ok', output: 'a\nb\n[exit code 0]' }),
      ]),
      { ...ctx(), onOpenOutput: () => undefined },
    );
    assert.equal([...root.querySelectorAll('button')].filter((x) => x.textContent === 'Open Full Output').length, 0);
  });
});

describe('icons', () => {
  it('a tool card shows its state as a codicon beside the state in words', () => {
    const root = document.createElement('div');
    const call = (id: string) => u({ kind: 'toolCall', toolCallId: id, name: 'execute_command', arguments: {}, title: `run ${id}` });
    new TranscriptView(root).render(
      buildTranscript([
        call('a'),
        u({ kind: 'toolResult', toolCallId: 'a', status: 'ok', output: '' }),
        call('b'),
        u({ kind: 'toolResult', toolCallId: 'b', status: 'error', output: 'exit 1' }),
        call('c'),
        u({ kind: 'toolResult', toolCallId: 'c', status: 'rejected', output: '' }),
        call('d'),
      ]),
      ctx(),
    );
    const shown = [...root.querySelectorAll('.tool')].map((card) => {
      const i = card.querySelector('.tool-icon');
      return [[...(i?.classList ?? [])].filter((c) => c.startsWith('codicon-')).join(' '), i?.textContent, i?.getAttribute('aria-hidden'), card.querySelector('.tool-state')?.textContent];
    });
    assert.deepEqual(shown, [
      ['codicon-check', '', 'true', 'done'],
      ['codicon-error', '', 'true', 'failed'],
      ['codicon-circle-slash', '', 'true', 'rejected'],
      ['codicon-loading codicon-modifier-spin', '', 'true', 'running'],
    ]);
  });
});

