// The prompt box: text, attached context chips, image thumbnails (pasted, dropped, or an `@` of
// an image file), `@file` completion, Send and Stop.

import { type ImageAttachment, imageTypeOfName, removeMention } from '../src/shared/images';
import type { Attachment } from '../src/shared/messages';
import { button, h } from './dom';
import { addImages, droppedImageUris, imageFiles, readImageFile } from './images';
import { completeMention, mentionAtCaret, type MentionQuery } from './mentions';
import { SlashMenu } from './slashMenu';
import type { CustomCommand, TurnId } from '../src/protocol';

/** Said when Send is pressed before the chat is back from the sidecar. */
const LOADING = 'Tandem is still loading this chat; your prompt stays here until it is back.';

export interface ComposerEvents {
  /** `forkBefore`: the text is an earlier prompt edited, sent as a fork from before its turn. */
  send(text: string, attachments: Attachment[], images: ImageAttachment[], forkBefore?: TurnId): void;
  stop(): void;
  findFiles(query: string): void;
  /** The `/` menu opened: the custom commands are wanted (see `showCommands`). */
  listCommands(): void;
  /** Ask the host for a workspace image (an `@` pick, a drop from the explorer). */
  attachImage(path: string): void;
  /** The draft or the attachments changed (to persist them). */
  changed(): void;
}

export class Composer {
  readonly el: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly chips: HTMLElement;
  private readonly popup: HTMLElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private attachments: Attachment[] = [];
  private images: ImageAttachment[] = [];
  private readonly problem: HTMLElement;
  private pasted = 0;
  private mention: MentionQuery | null = null;
  private matches: string[] = [];
  private selected = 0;
  private findTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly slash: SlashMenu;
  /** The earlier prompt being edited (its turn), shown above the box; null: a new prompt. */
  private editing: { turnId: TurnId; draft: string; attachments: Attachment[]; images: ImageAttachment[] } | null = null;
  private readonly editRow: HTMLElement;
  /** The chat is still loading (see `setRunning`). */
  private loading = false;

  constructor(private readonly events: ComposerEvents) {
    this.input = h('textarea', {
      class: 'prompt',
      attrs: { rows: '3', placeholder: 'Ask Tandem… (@ to attach a file, Enter to send, Shift+Enter for a new line)', 'aria-label': 'Prompt' },
    });
    this.chips = h('div', { class: 'chips' });
    this.problem = h('div', { class: 'composer-problem hidden', attrs: { role: 'alert' } });
    this.popup = h('div', { class: 'mentions hidden', attrs: { role: 'listbox' } });
    this.sendButton = button('Send', () => this.submit(), 'primary send');
    this.stopButton = button('Stop', () => this.events.stop(), 'secondary stop hidden', 'Stop the running turn (Escape)');
    this.slash = new SlashMenu(this.input, () => this.events.listCommands(), () => this.events.changed());
    this.editRow = h('div', { class: 'editing hidden', attrs: { role: 'status' } });
    this.el = h('div', { class: 'composer' }, this.editRow, this.chips, this.problem, this.popup, this.slash.el, this.input, h('div', { class: 'composer-buttons' }, this.stopButton, this.sendButton));
    this.input.addEventListener('paste', (e) => this.onPaste(e));
    this.el.addEventListener('dragover', (e) => {
      const types = Array.from(e.dataTransfer?.types ?? []);
      if (types.includes('Files') || types.includes('text/uri-list')) e.preventDefault();
    });
    this.el.addEventListener('drop', (e) => this.onDrop(e));

    this.input.addEventListener('keydown', (e) => this.onKey(e));
    this.input.addEventListener('input', () => {
      this.slash.update();
      this.updateMention();
      this.events.changed();
    });
    this.input.addEventListener('click', () => this.updateMention());
  }

  get draft(): string {
    return this.input.value;
  }

  get attached(): readonly Attachment[] {
    return this.attachments;
  }

  get attachedImages(): readonly ImageAttachment[] {
    return this.images;
  }

  restore(draft: string, attachments: Attachment[], images: ImageAttachment[] = []): void {
    this.input.value = draft;
    this.attachments = attachments;
    this.images = images;
    this.renderChips();
  }

  /** Adds images (read by the host, or from a paste or a drop) as thumbnails. */
  addImages(more: ImageAttachment[]): void {
    const { images, refused } = addImages(this.images, more);
    this.images = images;
    this.showProblem(refused);
    this.renderChips();
    this.events.changed();
  }

  /** Says why something could not be attached, under the thumbnails, until the next change. */
  showProblem(text: string | undefined): void {
    this.problem.textContent = text ?? '';
    this.problem.classList.toggle('hidden', !text);
  }

  private onPaste(e: ClipboardEvent): void {
    const files = imageFiles(e.clipboardData?.files ?? []);
    if (files.length === 0) return;
    // An image on the clipboard is attached; its text form (a file name, nothing) is not typed.
    e.preventDefault();
    void this.readFiles(files);
  }

  private onDrop(e: DragEvent): void {
    const data = e.dataTransfer;
    if (!data) return;
    const files = imageFiles(data.files);
    const uris = files.length === 0 ? droppedImageUris(data.getData('text/uri-list')) : [];
    if (files.length === 0 && uris.length === 0) return;
    e.preventDefault();
    if (files.length > 0) void this.readFiles(files);
    for (const uri of uris) this.events.attachImage(uri);
  }

  private async readFiles(files: File[]): Promise<void> {
    const read = await Promise.all(files.map((f) => readImageFile(f, `pasted image ${++this.pasted}`)));
    const problems = read.filter((r): r is string => typeof r === 'string');
    this.addImages(read.filter((r): r is ImageAttachment => typeof r !== 'string'));
    if (problems.length > 0) this.showProblem(problems.join(' '));
  }

  attach(a: Attachment): void {
    if (!this.attachments.some((x) => x.label === a.label)) this.attachments.push(a);
    this.renderChips();
    this.events.changed();
    this.input.focus();
  }

  /** `loading`: the chat is not back from the sidecar yet, so Send waits (the draft stays). */
  setRunning(running: boolean, loading = false): void {
    this.stopButton.classList.toggle('hidden', !running);
    this.sendButton.disabled = running || loading;
    this.loading = loading;
    this.sendButton.title = loading ? 'Tandem is loading this chat; Send works once it is back' : '';
    if (!loading && this.problem.textContent === LOADING) this.showProblem(undefined);
  }

  showMatches(query: string, paths: string[]): void {
    if (!this.mention || this.mention.query !== query) return;
    this.matches = paths;
    this.selected = 0;
    this.renderPopup();
  }

  /**
   * Puts an earlier prompt's text in the box to edit, with what it was sent with when given
   * (else `editAttachments` brings it); Send then forks the chat from before its turn. The
   * draft that was in the box, chips and images included, comes back on Cancel.
   */
  editPrompt(turnId: TurnId, text: string, attachments: Attachment[] = [], images: ImageAttachment[] = []): void {
    const draft = this.editing ?? { draft: this.input.value, attachments: this.attachments, images: this.images };
    this.editing = { turnId, draft: draft.draft, attachments: draft.attachments, images: draft.images };
    this.input.value = text;
    this.attachments = [...attachments];
    this.images = [...images];
    this.showProblem(undefined);
    this.renderChips();
    this.editRow.replaceChildren(
      h('span', {}, 'Editing an earlier prompt: Send continues a new chat from before it (this chat stays in the history).'),
      button('Cancel', () => this.cancelEdit(), 'link cancel-edit', 'Stop editing; the draft you had comes back'),
    );
    this.editRow.classList.remove('hidden');
    this.input.focus();
    this.input.setSelectionRange(text.length, text.length);
    this.events.changed();
  }

  /**
   * The chips and images the prompt being edited was sent with, as the host remembers them;
   * for another turn than the one being edited (the user moved on), nothing happens.
   */
  editAttachments(turnId: TurnId, attachments: Attachment[], images: ImageAttachment[]): void {
    if (this.editing?.turnId !== turnId) return;
    for (const a of attachments) if (!this.attachments.some((x) => x.label === a.label)) this.attachments.push(a);
    this.addImages(images.filter((i) => !this.images.some((x) => x.data === i.data)));
  }

  /** The turn whose prompt is being edited, if one is. */
  get editingTurn(): TurnId | null {
    return this.editing?.turnId ?? null;
  }

  cancelEdit(): void {
    if (!this.editing) return;
    this.input.value = this.editing.draft;
    this.attachments = this.editing.attachments;
    this.images = this.editing.images;
    this.showProblem(undefined);
    this.renderChips();
    this.stopEditing();
    this.events.changed();
  }

  private stopEditing(): void {
    this.editing = null;
    this.editRow.classList.add('hidden');
    this.editRow.replaceChildren();
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text && this.images.length === 0) return;
    if (this.loading) {
      this.showProblem(LOADING);
      return;
    }
    if (this.sendButton.disabled) return;
    const fork = this.editing?.turnId;
    if (fork === undefined) this.events.send(text, this.attachments, this.images);
    else this.events.send(text, this.attachments, this.images, fork);
    this.stopEditing();
    this.input.value = '';
    this.attachments = [];
    this.images = [];
    this.showProblem(undefined);
    this.renderChips();
    this.closePopup();
    this.events.changed();
  }

  /** The custom commands, for the `/` menu. */
  showCommands(commands: CustomCommand[]): void {
    this.slash.setCommands(commands);
  }

  private onKey(e: KeyboardEvent): void {
    if (this.slash.onKey(e)) return;
    if (this.matches.length > 0 && this.mention) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = this.matches.length;
        this.selected = (this.selected + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
        this.renderPopup();
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        this.pick(this.matches[this.selected]);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        this.closePopup();
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit();
    }
  }

  private updateMention(): void {
    this.mention = mentionAtCaret(this.input.value, this.input.selectionStart);
    if (!this.mention) {
      this.closePopup();
      return;
    }
    const query = this.mention.query;
    clearTimeout(this.findTimer);
    this.findTimer = setTimeout(() => this.events.findFiles(query), 80);
  }

  private pick(path: string | undefined): void {
    if (!path || !this.mention) return;
    const done = completeMention(this.input.value, this.mention, this.input.selectionStart, path);
    this.input.value = done.text;
    this.input.setSelectionRange(done.caret, done.caret);
    // An image goes as an image: the host reads it and it shows as a thumbnail.
    if (imageTypeOfName(path)) this.events.attachImage(path);
    this.closePopup();
    this.input.focus();
    this.events.changed();
  }

  private closePopup(): void {
    this.mention = null;
    this.matches = [];
    this.popup.classList.add('hidden');
    this.popup.replaceChildren();
  }

  private renderPopup(): void {
    this.popup.classList.toggle('hidden', this.matches.length === 0);
    this.popup.replaceChildren(
      ...this.matches.map((path, i) => {
        const row = h('div', { class: i === this.selected ? 'mention selected' : 'mention', attrs: { role: 'option' } }, path);
        // mousedown, not click: the textarea keeps its focus and caret.
        row.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.pick(path);
        });
        return row;
      }),
    );
  }

  private renderChips(): void {
    this.chips.replaceChildren(
      ...this.attachments.map((a, i) =>
        h('span', { class: 'chip', title: a.item.path }, a.label, removeButton(`Remove ${a.label}`, () => {
          this.attachments.splice(i, 1);
          this.renderChips();
          this.events.changed();
        })),
      ),
      ...this.images.map((image, i) =>
        h(
          'span',
          { class: 'chip image-chip', title: image.path ?? image.name },
          // A data: URL of bytes checked to be an image: the CSP allows data: for images only.
          h('img', { class: 'thumb', attrs: { src: `data:${image.mimeType};base64,${image.data}`, alt: image.name } }),
          image.name,
          removeButton(`Remove ${image.name}`, () => this.removeImage(i)),
        ),
      ),
    );
  }

  /** Removes a thumbnail; an image that came from an `@` mention takes the mention with it. */
  private removeImage(i: number): void {
    const [image] = this.images.splice(i, 1);
    if (image?.path) this.input.value = removeMention(this.input.value, image.path);
    this.showProblem(undefined);
    this.renderChips();
    this.events.changed();
  }
}

/** A chip's × as VS Code's close codicon, named by what it removes. */
function removeButton(name: string, onClick: () => void): HTMLButtonElement {
  const b = button('', onClick, 'chip-remove codicon codicon-close', name);
  b.setAttribute('aria-label', name);
  return b;
}
