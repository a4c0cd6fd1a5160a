// Images pasted or dropped into the prompt box: which of the clipboard's or the drop's items are
// images, read into attachments (the bytes decide the type; the caps are checked at once), and
// the workspace files a drop from the explorer names. Pure but for reading a `File`.

import { type ImageAttachment, imageTypeOfName, MAX_IMAGES, toImageAttachment } from '../src/shared/images';

/** The files among a paste's or a drop's that may be images (by type, or by name when untyped). */
export function imageFiles(files: ArrayLike<File>): File[] {
  return Array.from(files).filter((f) => f.type.startsWith('image/') || (f.type === '' && imageTypeOfName(f.name) !== undefined));
}

/** Reads a pasted or dropped file: an attachment, or why it can't be one. */
export async function readImageFile(file: File, fallbackName: string): Promise<ImageAttachment | string> {
  const name = file.name || fallbackName;
  const bytes = new Uint8Array(await file.arrayBuffer());
  return toImageAttachment(name, bytes);
}

/** The `file:` URIs of image files in a drop's `text/uri-list` (VS Code's explorer drops these). */
export function droppedImageUris(uriList: string): string[] {
  return uriList
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && l.startsWith('file:') && imageTypeOfName(decodeURIComponent(l)) !== undefined);
}

/** Adds images to those attached, each once, up to the cap; says what did not fit. */
export function addImages(attached: ImageAttachment[], more: ImageAttachment[]): { images: ImageAttachment[]; refused?: string } {
  const images = [...attached];
  let dropped = 0;
  for (const image of more) {
    if (images.some((i) => i.data === image.data)) continue;
    if (images.length >= MAX_IMAGES) dropped++;
    else images.push(image);
  }
  return dropped > 0 ? { images, refused: `At most ${MAX_IMAGES} images go with one prompt; ${dropped} more not attached.` } : { images };
}
