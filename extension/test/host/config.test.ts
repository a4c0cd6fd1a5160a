import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configuredEndpoint, initializationOptions, type SettingReader } from '../../src/config';

function reader(values: Record<string, unknown>): SettingReader {
  return <T>(key: string) => values[key] as T | undefined;
}

describe('initializationOptions', () => {
  it('maps the settings to what the sidecar reads, without the endpoint or any key', () => {
    const get = reader({
      'provider.baseUrl': ' http://127.0.0.1:1234/v1 ',
      'provider.model': 'qwen',
      'approval.autoApproveEdits': false,
      'approval.autoApproveCommands': true,
      'approval.allowCommands': ['cargo test', ' ', 'git status'],
      maxSteps: 12,
    });
    assert.deepEqual(initializationOptions(get, undefined), {
      provider: { model: 'qwen' },
      approval: { autoApprove: { edit: false, command: true }, allowCommands: ['cargo test', 'git status'] },
      maxSteps: 12,
    });
    assert.equal(configuredEndpoint(get), 'http://127.0.0.1:1234/v1');
  });

  it('leaves unset values to the sidecar, and the picked model wins over the setting', () => {
    const get = reader({ 'provider.model': 'a', 'provider.baseUrl': '' });
    const o = initializationOptions(get, 'b');
    assert.deepEqual(o.provider, { model: 'b' });
    assert.deepEqual(o.approval, { autoApprove: { edit: false, command: false }, allowCommands: [] });
    assert.equal(o.maxSteps, undefined);
    assert.equal(configuredEndpoint(get), undefined);
  });

  it('passes the approval timeout only when set (empty: the config file or 600)', () => {
    const set = initializationOptions(reader({ 'approval.timeoutSeconds': 120.5 }), undefined);
    assert.equal(set.approval?.timeoutSeconds, 120);
    for (const value of [null, 0, undefined]) {
      const o = initializationOptions(reader({ 'approval.timeoutSeconds': value }), undefined);
      assert.equal(o.approval?.timeoutSeconds, undefined, String(value));
    }
  });

  it('passes the context window and the tool mode, leaving the defaults to the sidecar', () => {
    const o = initializationOptions(reader({ 'provider.contextWindow': 4096.7, 'provider.toolMode': 'text' }), undefined);
    assert.deepEqual(o.provider, { contextWindow: 4096, toolMode: 'text' });
    const limited = initializationOptions(reader({ 'provider.maxOutputTokens': 2048.5 }), undefined);
    assert.deepEqual(limited.provider, { maxOutputTokens: 2048 });
    assert.deepEqual(initializationOptions(reader({ 'provider.maxOutputTokens': 0 }), undefined).provider, { maxOutputTokens: 0 });
    assert.deepEqual(initializationOptions(reader({ 'provider.maxOutputTokens': null }), undefined).provider, {});
    const d = initializationOptions(reader({ 'provider.contextWindow': 0, 'provider.toolMode': 'auto' }), undefined);
    assert.deepEqual(d.provider, {});
  });

  it('never reads the API key from settings', () => {
    const o = initializationOptions(reader({ 'provider.apiKey': 'leaked', apiKey: 'leaked' }), undefined);
    assert.doesNotMatch(JSON.stringify(o), /leaked/);
  });
});
