import './dom';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ImageAttachment } from '../../src/shared/images';
import type { Attachment } from '../../src/shared/messages';
import { Composer } from '../../webview/composer';
import { addImages, droppedImageUris, imageFiles } from '../../webview/images';

const fixtures = join(__dirname, '..', '..', '..', '..', 'tests', 'fixtures', 'images');
const png = readFileSync(join(fixtures, 'shot.png'));
const gif = readFileSync(join(fixtures, 'icon.gif'));

interface Sent {
  text: string;
  attachments: Attachment[];
  images: ImageAttachment[];
}

function composer() {
  const sent: Sent[] = [];
  const asked: string[] = [];
  let changes = 0;
  const c = new Composer({
    send: (text, attachments, images) => sent.push({ text, attachments, images: [...images] }),
    stop: () => undefined,
    listCommands: () => undefined,
    findFiles: () => undefined,
    attachImage: (path) => asked.push(path),
    changed: () => changes++,
  });
  document.body.replaceChildren(c.el);
  return { c, sent, asked, changes: () => changes };
}

/** An event carrying `clipboardData` or `dataTransfer` (jsdom has neither kind). */
function event(type: string, field: 'clipboardData' | 'dataTransfer', data: unknown): Event {
  const e = new window.Event(type, { bubbles: true, cancelable: true });
  Object.defineProperty(e, field, { value: data });
  return e;
}

function transfer(files: File[], uriList = '') {
  return {
    files,
    types: [...(files.length > 0 ? ['Files'] : []), ...(uriList ? ['text/uri-list'] : [])],
    getData: (kind: string) => (kind === 'text/uri-list' ? uriList : ''),
  };
}

/** Waits (a bounded number of turns of the event loop) until `ok` holds. */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(ok(), 'condition not reached');
}

const prompt = () => document.querySelector('textarea') as HTMLTextAreaElement;
const thumbs = () => Array.from(document.querySelectorAll('img.thumb')) as HTMLImageElement[];

describe('images in the composer', () => {
  it('a pasted image becomes a thumbnail and goes with the prompt', async () => {
    const { c, sent } = composer();
    const e = event('paste', 'clipboardData', transfer([new File([png], 'image.png', { type: 'image/png' })]));
    prompt().dispatchEvent(e);
    assert.equal(e.defaultPrevented, true, 'the image is not pasted as text');
    await until(() => c.attachedImages.length === 1);
    const [image] = c.attachedImages;
    assert.equal(image?.mimeType, 'image/png');
    assert.equal(image?.data, png.toString('base64'));
    assert.equal(thumbs()[0]?.getAttribute('src'), `data:image/png;base64,${png.toString('base64')}`);
    prompt().value = 'What is wrong here?';
    (document.querySelector('button.send') as HTMLButtonElement).click();
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.text, 'What is wrong here?');
    assert.deepEqual(sent[0]?.images.map((i) => i.data), [png.toString('base64')]);
    assert.equal(c.attachedImages.length, 0, 'sent images leave the composer');
    assert.equal(thumbs().length, 0);
  });

  it('an image alone may be sent, and a paste of text is left to the text box', async () => {
    const { c, sent } = composer();
    const text = event('paste', 'clipboardData', transfer([]));
    prompt().dispatchEvent(text);
    assert.equal(text.defaultPrevented, false);
    prompt().dispatchEvent(event('paste', 'clipboardData', transfer([new File([gif], '', { type: 'image/gif' })])));
    await until(() => c.attachedImages.length === 1);
    assert.equal(c.attachedImages[0]?.name, 'pasted image 1');
    (document.querySelector('button.send') as HTMLButtonElement).click();
    assert.equal(sent[0]?.text, '');
    assert.equal(sent[0]?.images[0]?.mimeType, 'image/gif');
  });

  it('bytes that are no image are refused, whatever the clipboard says they are', async () => {
    const { c } = composer();
    prompt().dispatchEvent(event('paste', 'clipboardData', transfer([new File(['#!/bin/sh\n'], 'x.png', { type: 'image/png' })])));
    const problem = document.querySelector('.composer-problem') as HTMLElement;
    await until(() => problem.textContent !== '');
    assert.match(problem.textContent ?? '', /x\.png is not a PNG, JPEG, WebP or GIF image/);
    assert.equal(c.attachedImages.length, 0);
  });

  it('a dropped file is read; a drop from the explorer asks the host for the image files it names', async () => {
    const { c, asked } = composer();
    c.el.dispatchEvent(event('drop', 'dataTransfer', transfer([new File([png], 'shot.png', { type: 'image/png' })])));
    await until(() => c.attachedImages.length === 1);
    const drop = event('drop', 'dataTransfer', transfer([], 'file:///ws/ui/shot.png\r\n# a comment\r\nfile:///ws/src/main.rs\r\n'));
    c.el.dispatchEvent(drop);
    assert.equal(drop.defaultPrevented, true);
    assert.deepEqual(asked, ['file:///ws/ui/shot.png']);
  });

  it('removing a thumbnail from an @ mention takes the mention out of the prompt too', () => {
    const { c } = composer();
    prompt().value = 'Compare @ui/a.png with @ui/b.png please';
    c.addImages([
      { name: 'a.png', mimeType: 'image/png', data: png.toString('base64'), path: 'ui/a.png' },
      { name: 'b.gif', mimeType: 'image/gif', data: gif.toString('base64'), path: 'ui/b.png' },
    ]);
    assert.equal(thumbs().length, 2);
    (document.querySelector('button[title="Remove a.png"]') as HTMLButtonElement).click();
    assert.equal(prompt().value, 'Compare with @ui/b.png please');
    assert.deepEqual(c.attachedImages.map((i) => i.name), ['b.gif']);
  });

  it('at most ten images, each once', () => {
    const one: ImageAttachment = { name: 'a', mimeType: 'image/png', data: 'AAAA' };
    const many = Array.from({ length: 12 }, (_, i) => ({ ...one, data: `BBB${String.fromCharCode(65 + i)}` }));
    const { images, refused } = addImages([one], [one, ...many]);
    assert.equal(images.length, 10);
    assert.match(refused ?? '', /At most 10 images go with one prompt; 3 more not attached/);
  });

  it('which files and URIs are images', () => {
    const files = [new File(['x'], 'a.png', { type: 'image/png' }), new File(['x'], 'b.txt', { type: 'text/plain' }), new File(['x'], 'c.webp')];
    assert.deepEqual(imageFiles(files).map((f) => f.name), ['a.png', 'c.webp']);
    assert.deepEqual(droppedImageUris('file:///a%20b.JPG\nhttps://x/y.png\nfile:///c.svg'), ['file:///a%20b.JPG']);
  });
});
