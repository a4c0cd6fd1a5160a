import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bannerText } from '../../webview/banner';

describe('the sidecar banner', () => {
  it('says why a sidecar that stopped unasked stopped, in its own words, and what to do', () => {
    const text = bannerText('stopped', '/home/u/.config/tandem/config.toml:2: `provider.maxOutputTokens`: unknown field (it exited with code 2)');
    assert.match(text, /stopped: \/home\/u\/\.config\/tandem\/config\.toml:2: `provider\.maxOutputTokens`: unknown field \(it exited with code 2\)\./);
    assert.match(text, /Restart Sidecar/);
  });

  it('keeps the plain line when there is no reason, and says nothing while it runs', () => {
    assert.match(bannerText('stopped', null), /is not running/);
    assert.equal(bannerText('starting', null), 'Starting Tandem…');
    assert.equal(bannerText('running', 'an old problem'), '');
  });
});
