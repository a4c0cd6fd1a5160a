import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyError, externalLink } from '../../src/shared/errors';

describe('classifyError', () => {
  it('takes a known errorKind from the sidecar over the text', () => {
    assert.equal(classifyError('contextOverflow', 'could not connect'), 'contextOverflow');
    assert.equal(classifyError('somethingNew', 'model server returned 401 Unauthorized'), 'auth');
  });

  it('reads the sidecar’s own messages when no kind came', () => {
    const cases: [string, string][] = [
      ['no model server is configured, and none answered at http://127.0.0.1:1234/v1 (LM Studio) or http://127.0.0.1:11434/v1 (Ollama).', 'noServer'],
      ['model server returned 401 Unauthorized: Incorrect API key provided', 'auth'],
      ['could not connect to the model server at http://127.0.0.1:9/v1: Connection refused (os error 111)', 'connection'],
      ['Error (stale): src/a.ts changed since you last read it; nothing was written.', 'stale'],
      ["model server returned 400 Bad Request: This model's maximum context length is 8192 tokens", 'contextOverflow'],
      ['the model stopped: output limit', 'other'],
    ];
    for (const [text, kind] of cases) assert.equal(classifyError(undefined, text), kind, text);
    assert.equal(classifyError(undefined, undefined), 'other');
  });
});

describe('externalLink', () => {
  it('opens http, https and mailto only', () => {
    assert.equal(externalLink('https://example.com/a b'), 'https://example.com/a%20b');
    assert.equal(externalLink('mailto:me@example.com'), 'mailto:me@example.com');
    for (const bad of ['command:workbench.action.terminal.new', 'javascript:alert(1)', 'file:///etc/passwd', 'vscode://x', '/relative', 'data:text/html,x', '']) {
      assert.equal(externalLink(bad), undefined, bad);
    }
  });
});
