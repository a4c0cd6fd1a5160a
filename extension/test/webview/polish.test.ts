import './dom';
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { UpdateParams } from '../../src/protocol';
import type { ChatCommand } from '../../src/shared/messages';
import { TranscriptView, type RenderContext } from '../../webview/render';
import { applyEntry, buildTranscript, OUTPUT_CAP, type ToolItem, type Turn } from '../../webview/transcript';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';

const u = (e: Record<string, unknown>): UpdateParams => ({ sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), ...e }) as UpdateParams;

function context(runningTurn: string | null = null) {
  const calls = {
    copy: mock.fn((_t: string) => undefined),
    insert: mock.fn((_t: string) => undefined),
    link: mock.fn((_h: string) => undefined),
    retry: mock.fn(() => undefined),
    command: mock.fn((_c: ChatCommand) => undefined),
  };
  const ctx: RenderContext = {
    pending: new Map(),
    runningTurn: runningTurn === null ? null : turnIdFrom(runningTurn),
    expanded: {},
    onToggle: () => undefined,
    onDecide: () => undefined,
    onOpenDiff: () => undefined,
    onCopy: calls.copy,
    onInsert: calls.insert,
    onOpenLink: calls.link,
    onRetry: calls.retry,
    onCommand: calls.command,
    onRestore: () => undefined,
  };
  return { ctx, calls };
}

const buttons = (root: Element) => [...root.querySelectorAll('button')].map((b) => b.textContent);
const click = (root: Element, name: string) => {
  const b = [...root.querySelectorAll('button')].find((x) => x.textContent === name);
  assert.ok(b, `no ${name} button in ${root.innerHTML}`);
  b.click();
};

describe('code blocks and links in answers', () => {
  it('gives each code block Copy and Insert, with the code as plain text', () => {
    const root = document.createElement('div');
    const { ctx, calls } = context();
    const code = 'fn main() {\n    println!("<hi>");\n}';
    new TranscriptView(root).render(buildTranscript([u({ kind: 'turnStarted', prompt: 'p' }), u({ kind: 'text', delta: `Here:\n\n\`\`\`rust\n${code}\n\`\`\`\n` })]), ctx);
    const block = root.querySelector('.answer .code-block');
    assert.ok(block);
    assert.equal(block.querySelector('.code-lang')?.textContent, 'rust');
    assert.ok(block.querySelector('pre.code .hljs-keyword'), 'still highlighted');
    click(block, 'Copy');
    click(block, 'Insert');
    assert.equal(calls.copy.mock.calls[0]?.arguments[0], `${code}\n`);
    assert.equal(calls.insert.mock.calls[0]?.arguments[0], `${code}\n`);
    assert.equal(block.querySelector('button')?.textContent, 'Copied');
  });

  it('hands link clicks to the host instead of following them, and the click goes no further', () => {
    const root = document.createElement('div');
    document.body.append(root);
    const { ctx, calls } = context();
    new TranscriptView(root).render(buildTranscript([u({ kind: 'text', delta: 'See [the docs](https://example.com/x?a=1) and <https://b.example>.' })]), ctx);
    const outside = mock.fn(() => undefined);
    document.body.addEventListener('click', outside);
    const links = [...root.querySelectorAll('a')];
    assert.equal(links.length, 2);
    for (const a of links) {
      const event = new window.MouseEvent('click', { bubbles: true, cancelable: true });
      a.dispatchEvent(event);
      assert.equal(event.defaultPrevented, true);
    }
    assert.deepEqual(calls.link.mock.calls.map((c) => c.arguments[0]), ['https://example.com/x?a=1', 'https://b.example']);
    assert.equal(outside.mock.callCount(), 0);
    document.body.removeEventListener('click', outside);
    root.remove();
  });
});

describe('command output', () => {
  const call = u({ kind: 'toolCall', toolCallId: toolCallIdFrom('c1'), name: 'execute_command', arguments: {}, title: 'make' });

  it('appends new output to the same element instead of re-rendering it', () => {
    const root = document.createElement('div');
    const view = new TranscriptView(root);
    const { ctx } = context('t1');
    const t = buildTranscript([call, u({ kind: 'toolOutput', toolCallId: toolCallIdFrom('c1'), delta: 'line 1\n' })]);
    view.render(t, ctx);
    const code = root.querySelector('.output code');
    assert.ok(code);
    const firstNode = code.firstChild;
    applyEntry(t, u({ kind: 'toolOutput', toolCallId: toolCallIdFrom('c1'), delta: 'line 2\n' }));
    applyEntry(t, u({ kind: 'toolOutput', toolCallId: toolCallIdFrom('c1'), delta: '<b>3</b>\n' }));
    view.render(t, ctx);
    assert.equal(root.querySelector('.output code'), code, 'the same element');
    assert.equal(code.firstChild, firstNode, 'what was there is untouched');
    assert.equal(code.textContent, 'line 1\nline 2\n<b>3</b>\n');
    assert.equal(code.querySelector('b'), null, 'output is text, never markup');
    assert.equal(code.childNodes.length, 2);
  });

  it('keeps the last 256 KB in the view and says that earlier output is hidden', () => {
    const root = document.createElement('div');
    const view = new TranscriptView(root);
    const { ctx } = context('t1');
    const t = buildTranscript([call]);
    const chunk = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 300; i++) {
      applyEntry(t, u({ kind: 'toolOutput', toolCallId: toolCallIdFrom('c1'), delta: i === 299 ? 'the end\n' : chunk }));
      if (i % 50 === 0 || i === 299) view.render(t, ctx);
    }
    const tool = (t.blocks[0] as Turn).items[0] as ToolItem;
    assert.equal(tool.output.length, OUTPUT_CAP);
    const text = root.querySelector('.output code')?.textContent ?? '';
    assert.equal(text.length, OUTPUT_CAP);
    assert.ok(text.endsWith('the end\n'));
    const note = root.querySelector('.output-note');
    assert.ok(note && !note.classList.contains('hidden'));
    assert.match(note.textContent ?? '', /Earlier output hidden \(44 KB\)/);
  });
});

describe('failed turns', () => {
  const render = (ended: Record<string, unknown>) => {
    const root = document.createElement('div');
    const { ctx, calls } = context();
    new TranscriptView(root).render(buildTranscript([u({ kind: 'turnStarted', prompt: 'p' }), u({ kind: 'turnEnded', stopReason: 'error', ...ended })]), ctx);
    return { root, calls };
  };

  it('no model server: in VS Code’s words, with Open Settings and Retry', () => {
    const { root, calls } = render({
      errorKind: 'noServer',
      error: 'no model server is configured, and none answered on this machine. Tried: LM Studio at http://127.0.0.1:1234/v1 (start it with `lms server start`). Start one of them, or configure one: set TANDEM_BASE_URL …, pass --base-url',
    });
    const end = root.querySelector('.turn-end');
    assert.ok(end);
    const shown = end.firstElementChild?.textContent ?? '';
    assert.match(shown, /tandem\.provider\.baseUrl/);
    assert.doesNotMatch(shown, /TANDEM_BASE_URL|--base-url/);
    assert.deepEqual(buttons(end), ['Open Settings', 'Set API Key', 'Retry']);
    // The details list where it looked, without command-line advice.
    const details = end.querySelector('.error-details')?.textContent ?? '';
    assert.match(details, /Looked for: LM Studio at http:\/\/127\.0\.0\.1:1234\/v1\./);
    assert.doesNotMatch(details, /TANDEM_BASE_URL|--base-url|start it with/);
    click(end, 'Open Settings');
    click(end, 'Retry');
    assert.deepEqual(calls.command.mock.calls[0]?.arguments, ['openSettings']);
    assert.equal(calls.retry.mock.callCount(), 1);
  });

  it('follows errorKind, never the text', () => {
    const endButtons = (root: Element) => buttons(root.querySelector('.turn-end') ?? root);
    assert.deepEqual(endButtons(render({ error: 'whatever', errorKind: 'auth' }).root), ['Set API Key', 'Retry']);
    assert.deepEqual(endButtons(render({ error: 'could not connect', errorKind: 'connection' }).root), ['Retry']);
    const cut = render({ error: 'the answer was cut at 1,024 tokens', errorKind: 'answerCut' }).root;
    assert.deepEqual(endButtons(cut), ['Open Config File', 'Retry']);
    // The key it names is the config file's (config.toml's [provider] table), which a user can follow.
    assert.match(cut.textContent ?? '', /max_output_tokens under \[provider\]/);
    assert.doesNotMatch(cut.textContent ?? '', /maxOutputTokens/);
    // Words that look like a kind are not one: without errorKind the error is shown as it is, and can be retried.
    for (const error of ['model server returned 401 Unauthorized: bad key', 'no model server is configured', 'the output limit was hit']) {
      const shown = render({ error }).root;
      assert.deepEqual(endButtons(shown), ['Retry'], error);
      assert.equal(shown.querySelector('.turn-end div')?.textContent, error);
    }
    // Any other failure (a 500 after the retries) can be retried too.
    const other = render({ error: 'the model server answered 500 Internal Server Error after 5 tries' });
    assert.deepEqual(endButtons(other.root), ['Retry']);
    assert.equal(other.root.querySelector('.turn-end div')?.textContent, 'the model server answered 500 Internal Server Error after 5 tries');
    click(other.root.querySelector('.turn-end') ?? other.root, 'Retry');
    assert.equal(other.calls.retry.mock.callCount(), 1);
  });

  it('shows an edit refused as stale as a notice, not as a failed card', () => {
    const root = document.createElement('div');
    new TranscriptView(root).render(
      buildTranscript([
        u({ kind: 'toolCall', toolCallId: toolCallIdFrom('e1'), name: 'write_to_file', arguments: {}, title: 'Edit src/a.ts' }),
        u({ kind: 'toolResult', toolCallId: toolCallIdFrom('e1'), status: 'error', errorKind: 'stale', output: 'Error (stale): src/a.ts changed since the edit was proposed; nothing was written.' }),
      ]),
      context().ctx,
    );
    const card = root.querySelector('.tool');
    assert.ok(card);
    assert.ok(!card.classList.contains('state-error'));
    assert.equal(card.querySelector('.tool-state')?.textContent, 'file changed');
    assert.match(card.querySelector('.tool-note')?.textContent ?? '', /changed on disk .* will read it again/);
  });

  it('takes a tool error as stale by its kind only', () => {
    const root = document.createElement('div');
    new TranscriptView(root).render(
      buildTranscript([
        u({ kind: 'toolCall', toolCallId: toolCallIdFrom('e1'), name: 'read_file', arguments: {}, title: 'Read notes.md' }),
        // A file whose text says so is not a stale edit.
        u({ kind: 'toolResult', toolCallId: toolCallIdFrom('e1'), status: 'error', errorKind: 'noSuchFile', output: 'Error (stale): changed since you last read it' }),
      ]),
      context().ctx,
    );
    const card = root.querySelector('.tool');
    assert.ok(card?.classList.contains('state-error'));
    assert.equal(card?.querySelector('.tool-note'), null);
  });

  it('an edit refused because of unsaved text in the editor says so, not "changed on disk"', () => {
    const root = document.createElement('div');
    new TranscriptView(root).render(
      buildTranscript([
        u({ kind: 'toolCall', toolCallId: toolCallIdFrom('e1'), name: 'write_to_file', arguments: {}, title: 'Edit src/a.ts' }),
        u({ kind: 'toolResult', toolCallId: toolCallIdFrom('e1'), status: 'error', errorKind: 'stale', output: 'Error (stale): src/a.ts changed in the editor (unsaved changes in its buffer) since the edit was proposed; nothing was written.' }),
      ]),
      context().ctx,
    );
    const note = root.querySelector('.tool-note')?.textContent ?? '';
    assert.match(note, /You changed the file in the editor \(unsaved\)/);
    assert.doesNotMatch(note, /on disk/);
  });
});
