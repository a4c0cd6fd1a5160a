import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { readWorkspaceImage } from '../../src/chat/images';
import { imageTypeOfName, removeMention, sniffImageType, toBase64 } from '../../src/shared/images';
import { parseWebviewMessage } from '../../src/shared/messages';

const fixtures = join(__dirname, '..', '..', '..', '..', 'tests', 'fixtures', 'images');
const fixture = (name: string) => new Uint8Array(readFileSync(join(fixtures, name)));

describe('image kinds', () => {
  it('are told by their bytes', () => {
    assert.equal(sniffImageType(fixture('shot.png')), 'image/png');
    assert.equal(sniffImageType(fixture('photo.jpg')), 'image/jpeg');
    assert.equal(sniffImageType(fixture('diagram.webp')), 'image/webp');
    assert.equal(sniffImageType(fixture('icon.gif')), 'image/gif');
    assert.equal(sniffImageType(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
    assert.equal(imageTypeOfName('a/B.JPEG'), 'image/jpeg');
    assert.equal(imageTypeOfName('a.svg'), undefined);
    assert.equal(toBase64(fixture('shot.png')), readFileSync(join(fixtures, 'shot.png')).toString('base64'));
  });

  it('a mention is taken out of a prompt whole', () => {
    assert.equal(removeMention('see @a.png, and @a.png.bak', 'a.png'), 'see , and @a.png.bak');
    assert.equal(removeMention('@x/y.gif what is it', 'x/y.gif'), 'what is it');
  });
});

describe('workspace images read on the host', () => {
  const outer = mkdtempSync(join(tmpdir(), 'tandem-images-'));
  const root = join(outer, 'ws');
  mkdirSync(join(root, 'ui'), { recursive: true });
  writeFileSync(join(root, 'ui', 'shot.png'), fixture('shot.png'));
  writeFileSync(join(root, 'notes.png'), 'not an image');
  writeFileSync(join(outer, 'secret.png'), fixture('shot.png'));
  symlinkSync(join(outer, 'secret.png'), join(root, 'link.png'));
  const big = new Uint8Array(6 * 1024 * 1024);
  big.set(fixture('shot.png'));
  writeFileSync(join(root, 'big.png'), big);

  it('an image in the workspace, by path or by file: URI', async () => {
    const byPath = await readWorkspaceImage(root, 'ui/shot.png');
    assert.ok(typeof byPath !== 'string', String(byPath));
    assert.equal(byPath.mimeType, 'image/png');
    assert.equal(byPath.path, 'ui/shot.png');
    const byUri = await readWorkspaceImage(root, pathToFileURL(join(root, 'ui', 'shot.png')).href);
    assert.ok(typeof byUri !== 'string', String(byUri));
    assert.equal(byUri.data, byPath.data);
  });

  it('outside the workspace, through a link, not an image, or too large: refused with why', async () => {
    assert.match(String(await readWorkspaceImage(root, '../secret.png')), /outside the workspace/);
    assert.match(String(await readWorkspaceImage(root, 'link.png')), /outside the workspace/);
    assert.match(String(await readWorkspaceImage(root, 'notes.png')), /not a PNG, JPEG, WebP or GIF/);
    assert.match(String(await readWorkspaceImage(root, 'big.png')), /big\.png is 6\.0 MiB; one image may be at most 5\.0 MiB/);
    assert.match(String(await readWorkspaceImage(root, 'gone.png')), /does not exist/);
  });
});

describe('send messages with images', () => {
  const image = { name: 'a.png', mimeType: 'image/png', data: toBase64(fixture('shot.png')) };
  it('are checked field by field', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'send', text: 'x', attachments: [], images: [image] }), { type: 'send', text: 'x', attachments: [], images: [image] });
    assert.deepEqual(parseWebviewMessage({ type: 'send', text: 'x', attachments: [] }), { type: 'send', text: 'x', attachments: [], images: [] });
    assert.equal(parseWebviewMessage({ type: 'send', text: 'x', attachments: [], images: [{ ...image, mimeType: 'image/svg+xml' }] }), undefined);
    assert.equal(parseWebviewMessage({ type: 'send', text: 'x', attachments: [], images: [{ ...image, data: 'not base64!' }] }), undefined);
    assert.equal(parseWebviewMessage({ type: 'send', text: 'x', attachments: [], images: Array(11).fill(image) }), undefined);
    assert.equal(parseWebviewMessage({ type: 'send', text: 'x', attachments: [], images: [{ ...image, data: 'A'.repeat(8 * 1024 * 1024) }] }), undefined);
    assert.deepEqual(parseWebviewMessage({ type: 'attachImage', path: 'ui/a.png' }), { type: 'attachImage', path: 'ui/a.png' });
  });
});
