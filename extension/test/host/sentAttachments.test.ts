import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_IMAGE_CHARS, SentAttachments } from '../../src/chat/sentAttachments';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';
import type { Attachment } from '../../src/shared/messages';

const s1 = sessionIdFrom('s1');
const s2 = sessionIdFrom('s2');
const t = (n: number) => turnIdFrom(`t${n}`);
const chip = (label: string): Attachment => ({ label, item: { path: label } });
const labels = (sent: SentAttachments, s: typeof s1, n: number) => sent.of(s, t(n)).attachments.map((a) => a.label);

describe('what each prompt was sent with, for Edit', () => {
  it('gives back a prompt’s chips and images; nothing for a prompt it did not see', () => {
    const sent = new SentAttachments();
    const image = { name: 'pasted image 1', mimeType: 'image/png' as const, data: 'AAAA' };
    sent.remember(s1, t(1), { attachments: [chip('a.js:1-3')], images: [image] });
    assert.deepEqual(sent.of(s1, t(1)), { attachments: [chip('a.js:1-3')], images: [image] });
    assert.deepEqual(sent.of(s1, t(2)), { attachments: [], images: [] });
    assert.deepEqual(sent.of(s2, t(1)), { attachments: [], images: [] });
  });

  it('a fork keeps the attachments of the turns before the edited one, under the fork’s id', () => {
    const sent = new SentAttachments();
    for (const n of [1, 2, 3]) sent.remember(s1, t(n), { attachments: [chip(`f${n}`)], images: [] });
    sent.forked(s1, s2, t(3));
    assert.deepEqual(labels(sent, s2, 1), ['f1']);
    assert.deepEqual(labels(sent, s2, 2), ['f2']);
    assert.deepEqual(labels(sent, s2, 3), []);
    assert.deepEqual(labels(sent, s1, 3), ['f3'], 'the original keeps its own');
  });

  it('remembers the last 200 prompts with attachments, forgetting the oldest', () => {
    const sent = new SentAttachments();
    for (let n = 1; n <= 201; n++) sent.remember(s1, t(n), { attachments: [chip(`f${n}`)], images: [] });
    assert.deepEqual(labels(sent, s1, 1), []);
    assert.deepEqual(labels(sent, s1, 2), ['f2']);
    assert.deepEqual(labels(sent, s1, 201), ['f201']);
  });

  it('keeps at most MAX_IMAGE_CHARS of image data, forgetting the oldest prompts first', () => {
    const sent = new SentAttachments();
    const big = { name: 'shot', mimeType: 'image/png' as const, data: 'A'.repeat(MAX_IMAGE_CHARS / 4) };
    for (let n = 1; n <= 5; n++) sent.remember(s1, t(n), { attachments: [], images: [big] });
    assert.equal(sent.of(s1, t(1)).images.length, 0, 'the oldest went');
    for (let n = 2; n <= 5; n++) assert.equal(sent.of(s1, t(n)).images.length, 1, `t${n} kept`);
  });
});
