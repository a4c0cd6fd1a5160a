// Image files the user names in the chat (an `@` mention, a drop from the explorer), read on the
// host: inside the workspace (after following links), a regular file, within the size cap, and
// an image by its bytes. The sidecar checks the bytes again; this is so the user hears at once.

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ImageAttachment, MAX_IMAGE_BYTES, toImageAttachment } from '../shared/images';

const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

/** Whether `abs` is `root` or inside it. */
function inside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The image at `given` (relative to `root`, absolute, or a `file:` URI), or why it can't be attached. */
export async function readWorkspaceImage(root: string, given: string): Promise<ImageAttachment | string> {
  let abs: string;
  try {
    abs = given.startsWith('file:') ? fileURLToPath(given) : path.resolve(root, given);
  } catch {
    return `${given} is not a file path.`;
  }
  const shown = inside(root, abs) ? path.relative(root, abs).split(path.sep).join('/') : abs;
  const realRoot = await fs.realpath(root).catch(() => root);
  const real = await fs.realpath(abs).catch(() => undefined);
  if (real === undefined) return `${shown} can't be attached: it does not exist.`;
  if (!inside(realRoot, real)) return `${shown} can't be attached: it is outside the workspace (${root}).`;
  const stat = await fs.stat(real);
  if (!stat.isFile()) return `${shown} can't be attached: it is not a regular file.`;
  if (stat.size > MAX_IMAGE_BYTES) {
    return `${shown} is ${mib(stat.size)}; one image may be at most ${mib(MAX_IMAGE_BYTES)}: scale it down or crop it.`;
  }
  const bytes = new Uint8Array(await fs.readFile(real));
  return toImageAttachment(path.basename(shown), bytes, shown);
}
