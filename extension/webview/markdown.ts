// Model text to safe HTML: markdown-it with raw HTML off, highlight.js for code, and DOMPurify
// over the result, so nothing the model writes can become script, an event handler, a form or a
// remote load (the CSP is the second wall).

import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/common';
import MarkdownIt from 'markdown-it';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const md = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight(code: string, lang: string): string {
    const language = lang && hljs.getLanguage(lang) ? lang : undefined;
    try {
      const html = language
        ? hljs.highlight(code, { language, ignoreIllegals: true }).value
        : escapeHtml(code);
      // The language rides in a class (data attributes are sanitized away) for the block's label.
      const label = language ?? (/^[\w+#.-]{1,20}$/.test(lang) ? lang : '');
      return `<pre class="code"><code class="hljs${label ? ` language-${label}` : ''}">${html}</code></pre>`;
    } catch {
      return '';
    }
  },
});

const purifier = DOMPurify(window);
const SANITIZE = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'img', 'svg', 'math'],
  FORBID_ATTR: ['style', 'id', 'name'],
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

/** Renders model markdown to sanitized HTML. */
export function renderMarkdown(text: string): string {
  return purifier.sanitize(md.render(text), SANITIZE);
}

/** Highlights a whole block (a diff, a command's output) as sanitized HTML. */
export function renderCode(text: string, language: 'diff' | 'plaintext'): string {
  const html =
    language === 'diff'
      ? hljs.highlight(text, { language: 'diff', ignoreIllegals: true }).value
      : escapeHtml(text);
  return purifier.sanitize(`<pre class="code"><code class="hljs">${html}</code></pre>`, SANITIZE);
}
