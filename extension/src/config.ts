// The user's settings as the sidecar's `initializationOptions`. The API key comes from
// SecretStorage, never from settings.

import type { InitializationOptions } from './protocol';

/** Reads one `tandem.*` setting (a WorkspaceConfiguration's `get`, or a stub in tests). */
export type SettingReader = <T>(key: string) => T | undefined;

const nonEmpty = (s: string | undefined) => (s && s.trim() !== '' ? s.trim() : undefined);

export function initializationOptions(
  get: SettingReader,
  apiKey: string | undefined,
  pickedModel: string | undefined,
): InitializationOptions {
  const baseUrl = nonEmpty(get<string>('provider.baseUrl'));
  const model = nonEmpty(pickedModel) ?? nonEmpty(get<string>('provider.model'));
  const key = nonEmpty(apiKey);
  const maxSteps = get<number>('maxSteps');
  return {
    provider: {
      ...(baseUrl ? { baseUrl } : {}),
      ...(model ? { model } : {}),
      ...(key ? { apiKey: key } : {}),
    },
    approval: {
      autoApprove: {
        edit: get<boolean>('approval.autoApproveEdits') === true,
        command: get<boolean>('approval.autoApproveCommands') === true,
      },
      allowCommands: (get<string[]>('approval.allowCommands') ?? []).filter((c) => typeof c === 'string' && c.trim() !== ''),
    },
    ...(typeof maxSteps === 'number' && maxSteps >= 1 ? { maxSteps: Math.floor(maxSteps) } : {}),
  };
}

/** Settings that are fixed when the sidecar starts: changing one restarts it. */
export const RESTART_SETTINGS = [
  'tandem.provider.baseUrl',
  'tandem.approval',
  'tandem.maxSteps',
  'tandem.serverPath',
] as const;
