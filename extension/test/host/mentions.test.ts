import { describe, expect, it } from 'vitest';
import { extractMentions } from '../../src/chat/mentions';

describe('extractMentions', () => {
  it('finds @paths at the start or after whitespace, once each', () => {
    expect(extractMentions('@src/a.ts explain, then compare with @lib/b.rs and @src/a.ts')).toEqual(['src/a.ts', 'lib/b.rs']);
  });

  it('drops sentence punctuation and ignores e-mail addresses', () => {
    expect(extractMentions('look at @README.md. Mail me@example.com (see @docs/x.md)')).toEqual(['README.md', 'docs/x.md']);
  });

  it('finds nothing in a bare @', () => {
    expect(extractMentions('@ alone')).toEqual([]);
  });
});
