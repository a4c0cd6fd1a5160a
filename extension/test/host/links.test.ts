import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { externalLink } from '../../src/shared/links';

describe('externalLink', () => {
  it('opens http, https and mailto only', () => {
    assert.equal(externalLink('https://example.com/a b'), 'https://example.com/a%20b');
    assert.equal(externalLink('mailto:me@example.com'), 'mailto:me@example.com');
    for (const bad of ['command:workbench.action.terminal.new', 'javascript:alert(1)', 'file:///etc/passwd', 'vscode://x', '/relative', 'data:text/html,x', '']) {
      assert.equal(externalLink(bad), undefined, bad);
    }
  });
});
