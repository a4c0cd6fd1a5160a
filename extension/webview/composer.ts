// The prompt box: text, attached context chips, `@file` completion, Send and Stop.

import type { Attachment } from '../src/shared/messages';
import { button, h } from './dom';
import { completeMention, mentionAtCaret, type MentionQuery } from './mentions';
import { SlashMenu } from './slashMenu';
import type { CustomCommand } from '../src/protocol';

export interface ComposerEvents {
  send(text: string, attachments: Attachment[]): void;
  stop(): void;
  findFiles(query: string): void;
  /** The `/` menu opened: the custom commands are wanted (see `showCommands`). */
  listCommands(): void;
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
  private mention: MentionQuery | null = null;
  private matches: string[] = [];
  private selected = 0;
  private findTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly slash: SlashMenu;

  constructor(private readonly events: ComposerEvents) {
    this.input = h('textarea', {
      class: 'prompt',
      attrs: { rows: '3', placeholder: 'Ask Tandem… (@ to attach a file, Enter to send, Shift+Enter for a new line)', 'aria-label': 'Prompt' },
    });
    this.chips = h('div', { class: 'chips' });
    this.popup = h('div', { class: 'mentions hidden', attrs: { role: 'listbox' } });
    this.sendButton = button('Send', () => this.submit(), 'primary send');
    this.stopButton = button('Stop', () => this.events.stop(), 'secondary stop hidden', 'Stop the running turn (Escape)');
    this.slash = new SlashMenu(this.input, () => this.events.listCommands(), () => this.events.changed());
    this.el = h('div', { class: 'composer' }, this.chips, this.popup, this.slash.el, this.input, h('div', { class: 'composer-buttons' }, this.stopButton, this.sendButton));

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

  restore(draft: string, attachments: Attachment[]): void {
    this.input.value = draft;
    this.attachments = attachments;
    this.renderChips();
  }

  attach(a: Attachment): void {
    if (!this.attachments.some((x) => x.label === a.label)) this.attachments.push(a);
    this.renderChips();
    this.events.changed();
    this.input.focus();
  }

  setRunning(running: boolean): void {
    this.stopButton.classList.toggle('hidden', !running);
    this.sendButton.disabled = running;
  }

  showMatches(query: string, paths: string[]): void {
    if (!this.mention || this.mention.query !== query) return;
    this.matches = paths;
    this.selected = 0;
    this.renderPopup();
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text || this.sendButton.disabled) return;
    this.events.send(text, this.attachments);
    this.input.value = '';
    this.attachments = [];
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
        h('span', { class: 'chip', title: a.item.path }, a.label, button('×', () => {
          this.attachments.splice(i, 1);
          this.renderChips();
          this.events.changed();
        }, 'chip-remove', 'Remove')),
      ),
    );
  }
}
