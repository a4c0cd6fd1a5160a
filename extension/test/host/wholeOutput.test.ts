import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWholeOutputPath, wholeOutputName } from '../../src/chat/wholeOutput';
import { parseWebviewMessage } from '../../src/shared/messages';
import { sessionIdFrom, toolCallIdFrom, turnIdFrom } from '../../src/protocol';

describe("a command's whole output", () => {
  it('is named as the sidecar names it, with only the safe characters of the model’s call id', () => {
    assert.equal(wholeOutputName(sessionIdFrom('s1'), turnIdFrom('t2'), toolCallIdFrom('../../etc/passwd')), 's1-t2-etcpasswd.log');
  });

  it('opens only the output file of that card', () => {
    const ok = '/home/me/.local/share/tandem/outputs/s1-t2-call_0.log';
    assert.equal(isWholeOutputPath(ok, sessionIdFrom('s1'), turnIdFrom('t2'), toolCallIdFrom('call_0')), true);
    assert.equal(isWholeOutputPath('C:\\Users\\me\\AppData\\Local\\tandem\\outputs\\s1-t2-call_0.log', sessionIdFrom('s1'), turnIdFrom('t2'), toolCallIdFrom('call_0')), true);
    // Another card's, another folder, or a file a command printed the name of.
    assert.equal(isWholeOutputPath(ok, sessionIdFrom('s1'), turnIdFrom('t3'), toolCallIdFrom('call_0')), false);
    assert.equal(isWholeOutputPath('/home/me/.ssh/id_rsa', sessionIdFrom('s1'), turnIdFrom('t2'), toolCallIdFrom('call_0')), false);
    assert.equal(isWholeOutputPath('/w/logs/s1-t2-call_0.log', sessionIdFrom('s1'), turnIdFrom('t2'), toolCallIdFrom('call_0')), false);
    assert.equal(isWholeOutputPath('/w/outputs/../outputs/s1-t2-call_0.log', sessionIdFrom('s1'), turnIdFrom('t2'), toolCallIdFrom('call_0')), false);
  });

  it("the webview's Open Full Output reaches the host, and only with its three strings", () => {
    const m = { type: 'openOutput', turnId: 't2', toolCallId: 'call_0', path: '/d/outputs/s1-t2-call_0.log' };
    assert.deepEqual(parseWebviewMessage(m), m);
    assert.equal(parseWebviewMessage({ ...m, path: 42 }), undefined);
    assert.equal(parseWebviewMessage({ ...m, toolCallId: undefined }), undefined);
  });
});
