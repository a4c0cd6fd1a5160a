// Images attached to a prompt (pasted, dropped, or an `@` of an image file): the kinds models
// take, told by their first bytes, and the caps the sidecar enforces, checked here first so the
// user hears at once. Shared by the host and the webview: no `vscode`, no DOM.

/** An image waiting to go with the next prompt. */
export interface ImageAttachment {
  /** What the thumbnail is called: the file name, or `pasted image 1`. */
  name: string;
  mimeType: ImageType;
  /** The bytes in standard base64. */
  data: string;
  /** The workspace path it came from, when it was an `@` mention. */
  path?: string;
}

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

/** The sidecar's caps (docs/protocol.md): bytes of one image, images in one prompt. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_IMAGES = 10;

const EXTENSIONS: Record<string, ImageType> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

export function isImageType(x: unknown): x is ImageType {
  return typeof x === 'string' && (IMAGE_TYPES as readonly string[]).includes(x);
}

/** The type a file name says by its extension, if it is one models take. */
export function imageTypeOfName(name: string): ImageType | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : EXTENSIONS[name.slice(dot + 1).toLowerCase()];
}

const startsWith = (b: Uint8Array, sig: number[], at = 0) => sig.every((x, i) => b[at + i] === x);

/** The type the bytes are, by their signature. */
export function sniffImageType(b: Uint8Array): ImageType | undefined {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(b, [0x47, 0x49, 0x46, 0x38]) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61) return 'image/gif';
  if (startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

/** Why these bytes can't go as an image, or undefined when they can. */
export function imageProblem(name: string, bytes: Uint8Array): string | undefined {
  if (bytes.length > MAX_IMAGE_BYTES) {
    return `${name} is ${mib(bytes.length)}; one image may be at most ${mib(MAX_IMAGE_BYTES)}: scale it down or crop it.`;
  }
  if (!sniffImageType(bytes)) return `${name} is not a PNG, JPEG, WebP or GIF image: those are the kinds models take.`;
  return undefined;
}

/** Bytes as an attachment, or the reason they can't be one. */
export function toImageAttachment(name: string, bytes: Uint8Array, path?: string): ImageAttachment | string {
  const problem = imageProblem(name, bytes);
  if (problem) return problem;
  // The bytes decide the type, whatever the name or the clipboard said.
  const mimeType = sniffImageType(bytes) as ImageType;
  return { name, mimeType, data: toBase64(bytes), ...(path ? { path } : {}) };
}

/** Standard base64, in both bundles (no `Buffer` in the webview). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}

/** The bytes base64 of this length decodes to (about; padding aside). */
export function decodedLength(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}

/** Whether a message's image is well formed and within the cap (the host checks the webview). */
export function isImageAttachment(x: unknown): x is ImageAttachment {
  if (typeof x !== 'object' || x === null) return false;
  const r = x as Record<string, unknown>;
  return (
    typeof r.name === 'string' &&
    r.name.length <= 1024 &&
    isImageType(r.mimeType) &&
    typeof r.data === 'string' &&
    /^[A-Za-z0-9+/]*={0,2}$/.test(r.data) &&
    decodedLength(r.data) <= MAX_IMAGE_BYTES + 2 &&
    (r.path === undefined || typeof r.path === 'string')
  );
}

/** The text with the mention `@path` taken out (the user removed the image it attached). */
export function removeMention(text: string, path: string): string {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // The path ends at whitespace, or at punctuation that ends the sentence (`@a.png.` but not `@a.png.bak`).
  return text.replace(new RegExp(`(^|\\s)@${escaped}(?=[.,;:!?)\\]}'"]*(\\s|$)) ?`, 'g'), '$1');
}
