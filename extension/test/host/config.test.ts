import { describe, expect, it } from 'vitest';
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
    expect(o).toEqual({
      provider: { baseUrl: 'http://127.0.0.1:1234/v1', model: 'qwen', apiKey: 'sk-1' },
      approval: { autoApprove: { edit: false, command: true }, allowCommands: ['cargo test', 'git status'] },
      maxSteps: 12,
    });
  });

  it('leaves unset values to the sidecar, and the picked model wins over the setting', () => {
    const o = initializationOptions(reader({ 'provider.model': 'a', 'provider.baseUrl': '' }), '', 'b');
    expect(o.provider).toEqual({ model: 'b' });
    expect(o.approval).toEqual({ autoApprove: { edit: false, command: false }, allowCommands: [] });
    expect(o.maxSteps).toBeUndefined();
  });

  it('never reads the API key from settings', () => {
    const o = initializationOptions(reader({ 'provider.apiKey': 'leaked', apiKey: 'leaked' }), undefined, undefined);
    expect(JSON.stringify(o)).not.toContain('leaked');
  });
});
