// API keys, one per endpoint: kept in VS Code's SecretStorage (the OS keychain where there is
// one) under the endpoint's normalized base URL, never in settings, never in
// initializationOptions. A key goes to the sidecar only in its environment, next to the base URL
// it was set for (see `sidecarEnv`), so it is never sent to another endpoint.

/** The part of vscode.SecretStorage this uses. */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** Where versions before 0.2 kept one key for every endpoint. */
export const LEGACY_SECRET = 'tandem.apiKey';
const PREFIX = 'tandem.apiKey@';

/**
 * The endpoint's identity: scheme, host and port as URL parsing gives them (lower case, default
 * port dropped), the path without trailing slashes, the query; no credentials, no fragment.
 * Undefined when it is not an http(s) URL.
 */
export function normalizeBaseUrl(baseUrl: string): string | undefined {
  let u: URL;
  try {
    u = new URL(baseUrl.trim());
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
}

/** The secret's name for an endpoint, or undefined when the URL is not one. */
export function secretName(baseUrl: string): string | undefined {
  const n = normalizeBaseUrl(baseUrl);
  return n === undefined ? undefined : PREFIX + n;
}

/**
 * What became of an earlier version's key: none there, moved to the configured endpoint, dropped
 * because no endpoint is configured, or dropped because the endpoint has its own already.
 */
export type Migration = 'none' | 'migrated' | 'dropped' | 'superseded';

export class EndpointKeys {
  constructor(private readonly secrets: SecretStore) {}

  async get(baseUrl: string | undefined): Promise<string | undefined> {
    const name = baseUrl && secretName(baseUrl);
    if (!name) return undefined;
    const key = (await this.secrets.get(name))?.trim();
    return key ? key : undefined;
  }

  async has(baseUrl: string | undefined): Promise<boolean> {
    return (await this.get(baseUrl)) !== undefined;
  }

  /** Stores the key for the endpoint; an empty key removes it. False if the URL is not one. */
  async set(baseUrl: string, key: string): Promise<boolean> {
    const name = secretName(baseUrl);
    if (!name) return false;
    if (key.trim() === '') await this.secrets.delete(name);
    else await this.secrets.store(name, key.trim());
    return true;
  }

  /** Whether a changed secret (SecretStorage's change event) is this endpoint's key. */
  isKeyOf(secret: string, baseUrl: string | undefined): boolean {
    return baseUrl !== undefined && secret === secretName(baseUrl);
  }

  /**
   * The one key of earlier versions: it goes to the configured endpoint (unless that has its
   * own already), once; without a configured endpoint it is dropped, since nobody can say which
   * endpoint it was for. Either way the old secret is deleted.
   */
  async migrateLegacy(baseUrl: string | undefined): Promise<Migration> {
    const old = (await this.secrets.get(LEGACY_SECRET))?.trim();
    if (old === undefined) return 'none';
    let result: Migration = 'dropped';
    if (old !== '' && baseUrl && secretName(baseUrl)) {
      if (await this.has(baseUrl)) {
        result = 'superseded';
      } else {
        await this.set(baseUrl, old);
        result = 'migrated';
      }
    }
    await this.secrets.delete(LEGACY_SECRET);
    return result;
  }
}

/** Variables that name an endpoint or a key the sidecar would read from its environment. */
const PROVIDER_VARIABLES = ['TANDEM_BASE_URL', 'TANDEM_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'];

/**
 * The sidecar's environment. With an endpoint configured in the settings, the base URL and its
 * own stored key (if any) are the only provider variables it gets: an inherited key, meant for
 * whatever endpoint the shell had, is removed. Without one, the sidecar reads the inherited
 * environment and looks for a local server as it does on the command line.
 */
export function sidecarEnv(
  parent: Readonly<Record<string, string | undefined>>,
  baseUrl: string | undefined,
  key: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent)) {
    if (v !== undefined) env[k] = v;
  }
  if (baseUrl === undefined) return env;
  for (const k of PROVIDER_VARIABLES) delete env[k];
  env.TANDEM_BASE_URL = baseUrl;
  if (key) env.TANDEM_API_KEY = key;
  return env;
}

/** The part of vscode.Memento this uses. */
export interface Flags {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** Set once the earlier versions' key was looked for (and moved, if there was one). */
export const LEGACY_KEY_CHECKED = 'tandem.legacyKeyChecked';

/**
 * `migrateLegacy`, once per install: the look is a round trip to the secret store that the
 * sidecar's start waits for, and a reloaded window's chat waits for the sidecar. A look that
 * failed is tried again at the next start.
 */
export async function migrateLegacyOnce(keys: EndpointKeys, flags: Flags, baseUrl: string | undefined): Promise<Migration> {
  if (flags.get<boolean>(LEGACY_KEY_CHECKED) === true) return 'none';
  let result: Migration;
  try {
    result = await keys.migrateLegacy(baseUrl);
  } catch {
    return 'none';
  }
  void flags.update(LEGACY_KEY_CHECKED, true);
  return result;
}
