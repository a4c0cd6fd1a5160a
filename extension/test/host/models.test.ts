import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reconcileModel } from '../../src/chat/models';

describe('reconcileModel', () => {
  it('keeps a model the endpoint lists', () => {
    assert.deepEqual(reconcileModel(['a', 'b'], 'b'), { model: 'b', replaced: false });
    assert.deepEqual(reconcileModel(['llama3:latest'], 'llama3'), { model: 'llama3', replaced: false });
  });

  it('replaces a model the new endpoint does not list by its first', () => {
    assert.deepEqual(reconcileModel(['qwen2.5-coder', 'llama'], 'gpt-4o'), { model: 'qwen2.5-coder', replaced: true });
  });

  it('takes the first model when none was named, and keeps the name when the endpoint lists nothing', () => {
    assert.deepEqual(reconcileModel(['a'], null), { model: 'a', replaced: false });
    assert.deepEqual(reconcileModel([], 'gpt-4o'), { model: 'gpt-4o', replaced: false });
  });
});
