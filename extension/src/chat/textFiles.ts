// Which files an `@` mention may offer: text only. A name that says binary (.pyc, images,
// archives …) is skipped without reading; any other file is skipped when its first 8 KB hold a
// NUL byte, the test git and grep use.

import * as fs from 'node:fs/promises';
import * as path from 'node:path';

const BINARY_EXTENSIONS = new Set([
  // compiled code and objects
  'pyc', 'pyo', 'pyd', 'class', 'jar', 'war', 'ear', 'o', 'obj', 'a', 'lib', 'so', 'dylib', 'dll', 'exe', 'bin', 'wasm', 'rlib', 'rmeta', 'node',
  // images and media
  'png', 'jpg', 'jpeg', 'gif', 'bmp', 'ico', 'icns', 'webp', 'tif', 'tiff', 'psd', 'heic', 'avif',
  'mp3', 'mp4', 'm4a', 'wav', 'ogg', 'flac', 'mov', 'avi', 'mkv', 'webm',
  // archives and packages
  'zip', 'gz', 'tgz', 'bz2', 'xz', 'zst', '7z', 'rar', 'tar', 'vsix', 'deb', 'rpm', 'dmg', 'iso', 'whl', 'egg', 'crate',
  // documents, fonts, databases
  'pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'woff', 'woff2', 'ttf', 'otf', 'eot',
  'sqlite', 'sqlite3', 'db', 'mdb', 'parquet', 'pkl', 'pickle', 'npy', 'npz', 'pt', 'onnx', 'safetensors', 'gguf',
]);

const SNIFF_BYTES = 8192;

/** True when the file name alone says binary. */
export function binaryByName(file: string): boolean {
  const ext = path.extname(file).slice(1).toLowerCase();
  return ext !== '' && BINARY_EXTENSIONS.has(ext);
}

/** True when these first bytes of a file hold a NUL. */
export function hasNul(head: Uint8Array): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0);
}

/** Whether the file at `abs` is text by both tests; false when it can't be read. */
export async function isTextFile(abs: string): Promise<boolean> {
  if (binaryByName(abs)) return false;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(abs, 'r');
    const buf = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buf, 0, SNIFF_BYTES, 0);
    return !hasNul(buf.subarray(0, bytesRead));
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}
