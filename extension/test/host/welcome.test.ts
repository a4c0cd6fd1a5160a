import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serverState } from '../../src/chat/welcome';
import { userConfigFile } from '../../src/chat/configPath';
import { parseWebviewMessage } from '../../src/shared/messages';

describe('the check for a model server', () => {
  const failed = (errorKind: string | undefined, message: string) => Object.assign(new Error(message), { data: errorKind ? { errorKind } : undefined });

  it('takes the problem from the error kind the sidecar gives, and keeps its words as details', () => {
    assert.deepEqual(serverState(failed('noServer', 'no model server is configured'), null), { problem: 'noServer', baseUrl: null, detail: 'no model server is configured' });
    assert.deepEqual(serverState(failed('auth', 'HTTP 401'), 'https://x/v1'), { problem: 'auth', baseUrl: 'https://x/v1', detail: 'HTTP 401' });
    // Whatever the text says: the kind decides, and an unknown kind is an endpoint that did not answer.
    assert.equal(serverState(failed('connection', 'no model server is configured (a proxy said)'), 'http://h/v1').problem, 'unreachable');
    assert.equal(serverState(failed(undefined, 'HTTP 401'), 'http://h/v1').problem, 'unreachable');
  });

  it('the card’s commands are ones the host takes', () => {
    for (const command of ['checkServer', 'openConfigFile', 'showOutput', 'openSettings', 'setApiKey']) {
      assert.deepEqual(parseWebviewMessage({ type: 'command', command }), { type: 'command', command });
    }
    assert.equal(parseWebviewMessage({ type: 'command', command: 'deleteEverything' }), undefined);
  });

  it('opens the config file where the sidecar reads it on each platform', () => {
    assert.equal(userConfigFile('linux', {}, '/home/me'), '/home/me/.config/tandem/config.toml');
    assert.equal(userConfigFile('linux', { XDG_CONFIG_HOME: '/x' }, '/home/me'), '/x/tandem/config.toml');
    assert.equal(userConfigFile('darwin', {}, '/Users/me'), '/Users/me/Library/Application Support/tandem/config.toml');
    assert.equal(userConfigFile('win32', { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'C:\\Users\\me'), 'C:\\Users\\me\\AppData\\Roaming\\tandem\\config.toml');
    assert.equal(userConfigFile('linux', { TANDEM_CONFIG: '/etc/t.toml' }, '/home/me'), '/etc/t.toml');
  });
});
