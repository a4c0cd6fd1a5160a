import './dom';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderCode, renderMarkdown } from '../../webview/markdown';

describe('renderMarkdown', () => {
  it('renders markdown with highlighted code', () => {
    const html = renderMarkdown('**bold** and `code`\n\n```rust\nfn main() {}\n```');
    assert.ok(html.includes('<strong>bold</strong>'), html);
    assert.ok(html.includes('<code>code</code>'), html);
    assert.ok(html.includes('<span class="hljs-keyword">fn</span>'), html);
  });

  it('lets nothing the model writes run script or post messages', () => {
    const attacks = [
      '<script>acquireVsCodeApi().postMessage({type:"decide"})</script>',
      '<img src=x onerror="alert(1)">',
      '[click](javascript:alert(1))',
      '<a href="command:workbench.action.terminal.new">x</a>',
      '[run](command:workbench.action.terminal.sendSequence)',
      '![x](https://evil.example/leak.png)',
      '<iframe src="https://evil.example"></iframe>',
      '<button data-action="accept">Accept</button>',
    ];
    for (const a of attacks) {
      const html = renderMarkdown(a);
      const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
      assert.equal(doc.querySelectorAll('script, img, iframe, button, form, [onerror], [onclick], [data-action]').length, 0, html);
      for (const link of doc.querySelectorAll('a')) assert.match(link.getAttribute('href') ?? '', /^(https?:|mailto:|$)/, html);
    }
  });

  it('escapes code blocks and diffs', () => {
    assert.ok(renderCode('<b>not bold</b>', 'plaintext').includes('&lt;b&gt;not bold&lt;/b&gt;'));
    assert.ok(renderCode('-a\n+b\n', 'diff').includes('hljs-addition'));
  });
});
