import { describe, expect, it } from 'vitest';
import { chatPage, contentSecurityPolicy, makeNonce } from '../../src/chat/html';

describe('the chat page', () => {
  it('allows only our nonce-tagged script and nothing inline or remote', () => {
    const csp = contentSecurityPolicy('vscode-webview://x', 'abc');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'nonce-abc'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https:|\*/);
  });

  it('tags the one script with the nonce', () => {
    const nonce = makeNonce();
    expect(nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(makeNonce()).not.toBe(nonce);
    const page = chatPage({ cspSource: 'vscode-webview://x', nonce, scriptUri: 'vscode-webview://x/main.js', styleUri: 'vscode-webview://x/style.css' });
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).toContain(`<script nonce="${nonce}" src="vscode-webview://x/main.js">`);
  });
});
