import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initializationOptions, type SettingReader } from '../../src/config';

function reader(values: Record<string, unknown>): SettingReader {
  return <T>(key: string) => values[key] as T | undefined;
}

describe('initializationOptions', () => {
  it('maps the settings and the secret key to what the sidecar reads', () => {
    const o = initializationOptions(
      reader({
        'provider.baseUrl': ' http://127.0.0.1:1234/v1 ',
        'provider.model': 'qwen',
        'approval.autoApproveEdits': false,
        'approval.autoApproveCommands': true,
        'approval.allowCommands': ['cargo test', ' ', 'git status'],
        maxSteps: 12,
      }),
      'sk-1',
      undefined,
    );
    assert.deepEqual(o, {
      provider: { baseUrl: 'http://127.0.0.1:1234/v1', model: 'qwen', apiKey: 'sk-1' },
      approval: { autoApprove: { edit: false, command: true }, allowCommands: ['cargo test', 'git status'] },
      maxSteps: 12,
    });
  });

  it('leaves unset values to the sidecar, and the picked model wins over the setting', () => {
    const o = initializationOptions(reader({ 'provider.model': 'a', 'provider.baseUrl': '' }), '', 'b');
    assert.deepEqual(o.provider, { model: 'b' });
    assert.deepEqual(o.approval, { autoApprove: { edit: false, command: false }, allowCommands: [] });
    assert.equal(o.maxSteps, undefined);
  });

  it('never reads the API key from settings', () => {
    const o = initializationOptions(reader({ 'provider.apiKey': 'leaked', apiKey: 'leaked' }), undefined, undefined);
    assert.doesNotMatch(JSON.stringify(o), /leaked/);
  });
});
