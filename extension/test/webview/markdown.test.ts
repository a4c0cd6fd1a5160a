// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { renderCode, renderMarkdown } from '../../webview/markdown';

describe('renderMarkdown', () => {
  it('renders markdown with highlighted code', () => {
    const html = renderMarkdown('**bold** and `code`\n\n```rust\nfn main() {}\n```');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<span class="hljs-keyword">fn</span>');
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
      expect(doc.querySelectorAll('script, img, iframe, button, form, [onerror], [onclick], [data-action]')).toHaveLength(0);
      for (const link of doc.querySelectorAll('a')) expect(link.getAttribute('href') ?? '').toMatch(/^(https?:|mailto:|$)/);
    }
  });

  it('escapes code blocks and diffs', () => {
    expect(renderCode('<b>not bold</b>', 'plaintext')).toContain('&lt;b&gt;not bold&lt;/b&gt;');
    expect(renderCode('-a\n+b\n', 'diff')).toContain('hljs-addition');
  });
});
