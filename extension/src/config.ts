// The user's settings as the sidecar's `initializationOptions`. The endpoint and its API key are
// not in there: they go in the sidecar's environment (secrets.ts `sidecarEnv`), so the sidecar
// takes a key only with the base URL it was stored for.

import type { InitializationOptions } from './protocol';

/** Reads one `tandem.*` setting (a WorkspaceConfiguration's `get`, or a stub in tests). */
export type SettingReader = <T>(key: string) => T | undefined;

const nonEmpty = (s: string | undefined) => (typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined);

/** `tandem.provider.baseUrl`, or undefined when empty (the sidecar finds a local server). */
export function configuredEndpoint(get: SettingReader): string | undefined {
  return nonEmpty(get<string>('provider.baseUrl'));
}

export function initializationOptions(get: SettingReader, pickedModel: string | undefined): InitializationOptions {
  const model = nonEmpty(pickedModel) ?? nonEmpty(get<string>('provider.model'));
  const maxSteps = get<number>('maxSteps');
  const contextWindow = get<number>('provider.contextWindow');
  const toolMode = get<string>('provider.toolMode');
  const maxOutputTokens = get<number | null>('provider.maxOutputTokens');
  const timeoutSeconds = get<number | null>('approval.timeoutSeconds');
  const commandWrites = get<string | null>('approval.commandWrites');
  return {
    provider: {
      ...(model ? { model } : {}),
      ...(typeof contextWindow === 'number' && contextWindow >= 256 ? { contextWindow: Math.floor(contextWindow) } : {}),
      ...(toolMode === 'native' || toolMode === 'text' ? { toolMode } : {}),
      ...(typeof maxOutputTokens === 'number' && maxOutputTokens >= 0 ? { maxOutputTokens: Math.floor(maxOutputTokens) } : {}),
    },
    approval: {
      autoApprove: {
        edit: get<boolean>('approval.autoApproveEdits') === true,
        command: get<boolean>('approval.autoApproveCommands') === true,
      },
      allowCommands: (get<string[]>('approval.allowCommands') ?? []).filter((c) => typeof c === 'string' && c.trim() !== ''),
      ...(typeof timeoutSeconds === 'number' && timeoutSeconds >= 1 ? { timeoutSeconds: Math.floor(timeoutSeconds) } : {}),
      ...(commandWrites === 'apply' || commandWrites === 'review' ? { commandWrites } : {}),
    },
    ...(typeof maxSteps === 'number' && maxSteps >= 1 ? { maxSteps: Math.floor(maxSteps) } : {}),
  };
}

/** Settings that are fixed when the sidecar starts: changing one restarts it. */
export const RESTART_SETTINGS = [
  'tandem.provider.baseUrl',
  'tandem.provider.contextWindow',
  'tandem.provider.toolMode',
  'tandem.provider.maxOutputTokens',
  'tandem.approval',
  'tandem.maxSteps',
  'tandem.serverPath',
] as const;
