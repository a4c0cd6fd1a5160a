import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatPage, contentSecurityPolicy, makeNonce } from '../../src/chat/html';

describe('the chat page', () => {
  it('allows only our nonce-tagged script and nothing inline or remote', () => {
    const csp = contentSecurityPolicy('vscode-webview://x', 'abc');
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https:|\*/);
  });

  it('tags the one script with the nonce', () => {
    const nonce = makeNonce();
    assert.match(nonce, /^[A-Za-z0-9]{16,}$/);
    assert.notEqual(makeNonce(), nonce);
    const page = chatPage({ cspSource: 'vscode-webview://x', nonce, scriptUri: 'vscode-webview://x/main.js', styleUri: 'vscode-webview://x/style.css' });
    assert.equal(page.match(/<script/g)?.length, 1);
    assert.ok(page.includes(`<script nonce="${nonce}" src="vscode-webview://x/main.js">`));
  });
});
