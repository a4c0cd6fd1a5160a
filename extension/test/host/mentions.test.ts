import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractMentions } from '../../src/chat/mentions';

describe('extractMentions', () => {
  it('finds @paths at the start or after whitespace, once each', () => {
    assert.deepEqual(extractMentions('@src/a.ts explain, then compare with @lib/b.rs and @src/a.ts'), ['src/a.ts', 'lib/b.rs']);
  });

  it('drops sentence punctuation and ignores e-mail addresses', () => {
    assert.deepEqual(extractMentions('look at @README.md. Mail me@example.com (see @docs/x.md)'), ['README.md', 'docs/x.md']);
  });

  it('finds nothing in a bare @', () => {
    assert.deepEqual(extractMentions('@ alone'), []);
  });
});
