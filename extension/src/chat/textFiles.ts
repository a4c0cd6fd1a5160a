// Which files an `@` mention may offer: text only, by content (a NUL byte in the first 8 KB, the
// test git and grep use), not by a list of file-name extensions.

const SNIFF_BYTES = 8192;

/** Bigger files are not offered as mentions: the sidecar would read only their beginning. */
export const MAX_MENTION_BYTES = 4 * 1024 * 1024;

/** True when these first bytes of a file hold a NUL. */
export function hasNul(head: Uint8Array): boolean {
  return head.subarray(0, SNIFF_BYTES).includes(0);
}

/** Whether a file's bytes are text. */
export function isTextContent(bytes: Uint8Array): boolean {
  return !hasNul(bytes);
}
