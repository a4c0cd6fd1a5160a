// What each prompt was sent with (its chips and pasted images), so "Edit" on an earlier prompt
// puts them back in the box with its text. The sidecar's `turnStarted` carries the text alone, so
// this window remembers them: a chat reopened after a reload has its prompts' text only.

import type { SessionId, TurnId } from '../protocol';
import type { Attachment } from '../shared/messages';
import type { ImageAttachment } from '../shared/images';
import { turnNumber } from './fork';

export interface SentWith {
  attachments: Attachment[];
  images: ImageAttachment[];
}

/** The most prompts remembered; the oldest goes first. */
const MAX_PROMPTS = 200;
/** The most image data (base64 characters) kept for them: a prompt may carry 10 images of 5 MiB. */
export const MAX_IMAGE_CHARS = 64 * 1024 * 1024;

export class SentAttachments {
  private readonly sent = new Map<string, SentWith>();

  /** Remembers a prompt's attachments; one with none is not kept. */
  remember(sessionId: SessionId, turnId: TurnId, sent: SentWith): void {
    if (sent.attachments.length === 0 && sent.images.length === 0) return;
    const key = keyOf(sessionId, turnId);
    this.sent.delete(key);
    this.sent.set(key, { attachments: [...sent.attachments], images: [...sent.images] });
    let chars = 0;
    for (const kept of this.sent.values()) chars += imageChars(kept);
    for (const [oldest, kept] of this.sent) {
      if (this.sent.size <= MAX_PROMPTS && chars <= MAX_IMAGE_CHARS) break;
      this.sent.delete(oldest);
      chars -= imageChars(kept);
    }
  }

  /** What the prompt of `turnId` was sent with (none when this window did not send it). */
  of(sessionId: SessionId, turnId: TurnId): SentWith {
    const found = this.sent.get(keyOf(sessionId, turnId));
    return found ? { attachments: [...found.attachments], images: [...found.images] } : { attachments: [], images: [] };
  }

  /**
   * A fork of `from` before `beforeTurn` keeps the turns before it under the same ids: their
   * prompts keep their attachments in the fork too.
   */
  forked(from: SessionId, to: SessionId, beforeTurn: TurnId): void {
    const before = turnNumber(beforeTurn);
    if (before === undefined) return;
    const prefix = `${from}\u0000`;
    for (const [key, sent] of [...this.sent]) {
      if (!key.startsWith(prefix)) continue;
      const n = turnNumber(key.slice(prefix.length) as TurnId);
      if (n !== undefined && n < before) this.sent.set(`${to}\u0000${key.slice(prefix.length)}`, sent);
    }
  }
}

const imageChars = (sent: SentWith) => sent.images.reduce((n, image) => n + image.data.length, 0);

const keyOf = (sessionId: SessionId, turnId: TurnId) => `${sessionId}\u0000${turnId}`;
