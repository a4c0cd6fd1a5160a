import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EndpointKeys, LEGACY_KEY_CHECKED, LEGACY_SECRET, migrateLegacyOnce, normalizeBaseUrl, secretName, sidecarEnv, type SecretStore } from '../../src/secrets';

/** An in-memory SecretStorage. */
class Secrets implements SecretStore {
  readonly map = new Map<string, string>();
  async get(k: string) {
    return this.map.get(k);
  }
  async store(k: string, v: string) {
    this.map.set(k, v);
  }
  async delete(k: string) {
    this.map.delete(k);
  }
}

describe('API keys per endpoint', () => {
  it('normalizes the base URL the key is stored under', () => {
    assert.equal(normalizeBaseUrl(' HTTPS://API.OpenAI.com:443/v1/ '), 'https://api.openai.com/v1');
    assert.equal(normalizeBaseUrl('http://127.0.0.1:1234/v1'), 'http://127.0.0.1:1234/v1');
    assert.equal(normalizeBaseUrl('http://user:pw@host/v1#x'), 'http://host/v1');
    assert.equal(normalizeBaseUrl('file:///etc/passwd'), undefined);
    assert.equal(normalizeBaseUrl('not a url'), undefined);
    assert.equal(secretName('https://api.openai.com/v1/'), secretName('https://API.openai.com/v1'));
    assert.notEqual(secretName('https://api.openai.com/v1'), secretName('https://openrouter.ai/api/v1'));
  });

  it('gives each endpoint its own key, and none to an endpoint it was not set for', async () => {
    const keys = new EndpointKeys(new Secrets());
    await keys.set('https://api.openai.com/v1', ' sk-openai ');
    await keys.set('https://openrouter.ai/api/v1', 'sk-or');
    assert.equal(await keys.get('https://api.openai.com/v1/'), 'sk-openai');
    assert.equal(await keys.get('https://openrouter.ai/api/v1'), 'sk-or');
    assert.equal(await keys.get('http://127.0.0.1:1234/v1'), undefined);
    assert.equal(await keys.get('https://api.openai.com/v2'), undefined);
    assert.equal(await keys.get(undefined), undefined);
    assert.equal(await keys.has('https://openrouter.ai/api/v1'), true);
    await keys.set('https://openrouter.ai/api/v1', '  ');
    assert.equal(await keys.has('https://openrouter.ai/api/v1'), false);
    assert.equal(await keys.set('ftp://x', 'k'), false);
  });

  it('moves an earlier version’s single key to the configured endpoint once, and drops it without one', async () => {
    const s = new Secrets();
    s.map.set(LEGACY_SECRET, 'sk-old');
    const keys = new EndpointKeys(s);
    assert.equal(await keys.migrateLegacy('https://api.openai.com/v1'), 'migrated');
    assert.equal(await keys.get('https://api.openai.com/v1'), 'sk-old');
    assert.equal(s.map.has(LEGACY_SECRET), false);
    assert.equal(await keys.migrateLegacy('https://api.openai.com/v1'), 'none');

    s.map.set(LEGACY_SECRET, 'sk-older');
    assert.equal(await keys.migrateLegacy('https://api.openai.com/v1'), 'superseded');
    assert.equal(await keys.get('https://api.openai.com/v1'), 'sk-old');

    s.map.set(LEGACY_SECRET, 'sk-old');
    assert.equal(await keys.migrateLegacy(undefined), 'dropped');
    assert.equal(s.map.has(LEGACY_SECRET), false);
    assert.deepEqual([...s.map.keys()], [secretName('https://api.openai.com/v1')]);
  });
});

describe('sidecarEnv', () => {
  const parent = {
    PATH: '/usr/bin',
    HOME: '/home/me',
    TANDEM_API_KEY: 'sk-from-shell',
    TANDEM_BASE_URL: 'https://elsewhere/v1',
    OPENAI_API_KEY: 'sk-openai-shell',
    OPENAI_BASE_URL: 'https://other/v1',
    UNSET: undefined,
  };

  it('gives a configured endpoint its own key and removes inherited ones', () => {
    const env = sidecarEnv(parent, 'https://api.example/v1', 'sk-mine');
    assert.deepEqual(env, { PATH: '/usr/bin', HOME: '/home/me', TANDEM_BASE_URL: 'https://api.example/v1', TANDEM_API_KEY: 'sk-mine' });
  });

  it('sends no key to a configured endpoint that has none stored', () => {
    const env = sidecarEnv(parent, 'http://127.0.0.1:1234/v1', undefined);
    assert.deepEqual(env, { PATH: '/usr/bin', HOME: '/home/me', TANDEM_BASE_URL: 'http://127.0.0.1:1234/v1' });
  });

  it('leaves the environment to the sidecar when no endpoint is configured', () => {
    const env = sidecarEnv(parent, undefined, undefined);
    assert.equal(env.TANDEM_API_KEY, 'sk-from-shell');
    assert.equal(env.TANDEM_BASE_URL, 'https://elsewhere/v1');
    assert.equal('UNSET' in env, false);
  });
});

describe('the earlier versions’ key is looked for once', () => {
  /** A Memento in memory. */
  const flags = () => {
    const map = new Map<string, unknown>();
    return { map, get: <T>(k: string) => map.get(k) as T | undefined, update: async (k: string, v: unknown) => void map.set(k, v) };
  };
  /** A secret store that counts its reads. */
  class Counted extends Secrets {
    reads = 0;
    override async get(k: string) {
      this.reads++;
      return super.get(k);
    }
  }

  it('reads the secret store at the first start only', async () => {
    const s = new Counted();
    const f = flags();
    const keys = new EndpointKeys(s);
    s.map.set(LEGACY_SECRET, 'sk-old');
    assert.equal(await migrateLegacyOnce(keys, f, 'https://api.openai.com/v1'), 'migrated');
    const reads = s.reads;
    assert.equal(f.map.get(LEGACY_KEY_CHECKED), true);
    assert.equal(await migrateLegacyOnce(keys, f, 'https://api.openai.com/v1'), 'none');
    assert.equal(s.reads, reads, 'no secret was read at the second start');
  });

  it('looks again at the next start when the look failed', async () => {
    const s = new Secrets();
    s.get = async () => {
      throw new Error('the keychain is locked');
    };
    const f = flags();
    assert.equal(await migrateLegacyOnce(new EndpointKeys(s), f, undefined), 'none');
    assert.equal(f.map.has(LEGACY_KEY_CHECKED), false);
  });
});
