import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exitProblem, StderrTail } from '../../src/sidecar/exitProblem';

describe('why the sidecar stopped', () => {
  it("takes the sidecar's own last error line, without its prefix, and how it exited", () => {
    const stderr = 'INFO starting\ntandem: /c/config.toml:2: `provider.maxOutputTokens`: unknown field `maxOutputTokens`, expected one of `max_output_tokens`\n';
    assert.equal(exitProblem(stderr, 2, null), '/c/config.toml:2: `provider.maxOutputTokens`: unknown field `maxOutputTokens`, expected one of `max_output_tokens` (it exited with code 2)');
  });

  it('says how it exited when it said nothing of its own', () => {
    assert.equal(exitProblem('', 101, null), 'It exited with code 101');
    assert.equal(exitProblem('thread panicked\n', null, 'SIGKILL'), 'It was killed by SIGKILL');
  });

  it('keeps the last lines of a stream that arrives in pieces, across line breaks', () => {
    const tail = new StderrTail();
    for (let i = 0; i < 100; i++) tail.push(`line ${i}\n`);
    tail.push('tandem: bad ');
    tail.push('config\r\n');
    const text = tail.text();
    assert.ok(!text.includes('line 50\n'), 'old lines are dropped');
    assert.match(text, /line 99\ntandem: bad config\n?$/);
    assert.equal(exitProblem(text, 2, null), 'bad config (it exited with code 2)');
  });
});
