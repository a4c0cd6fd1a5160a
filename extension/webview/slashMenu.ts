// The composer's `/` menu: the custom commands (prompt files) whose name starts with what is
// typed after a `/` at the start of the prompt. Picking one puts `/name ` in the prompt; sending
// it runs the command (the sidecar expands it). The list is asked for each time the menu opens,
// so a command file added meanwhile shows.

import type { CustomCommand } from '../src/protocol';
import { h } from './dom';

/** The command name being typed: the text after a leading `/`, while the caret is in that word. */
export function slashAtCaret(text: string, caret: number): string | null {
  const m = /^\/([\w.-]*)/.exec(text);
  if (!m || caret < 1 || caret > m[0].length) return null;
  return m[1] ?? '';
}

/** The commands for `query`: names that start with it, then names that contain it. */
export function filterCommands(commands: readonly CustomCommand[], query: string): CustomCommand[] {
  const q = query.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains];
}

/** `text` with its leading `/word` replaced by `/name `, and where the caret goes. */
export function completeSlash(text: string, name: string): { text: string; caret: number } {
  const rest = text.replace(/^\/[\w.-]*\s*/, '');
  const head = `/${name} `;
  return { text: head + rest, caret: head.length };
}

export class SlashMenu {
  readonly el: HTMLElement;
  private commands: CustomCommand[] = [];
  private shown: CustomCommand[] = [];
  private selected = 0;
  private query: string | null = null;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly requestList: () => void,
    private readonly changed: () => void,
  ) {
    this.el = h('div', { class: 'slash-menu hidden', attrs: { role: 'listbox', 'aria-label': 'Custom commands' } });
  }

  get open(): boolean {
    return this.shown.length > 0 && this.query !== null;
  }

  /** The draft or the caret moved. */
  update(): void {
    const query = slashAtCaret(this.input.value, this.input.selectionStart);
    const opening = this.query === null && query !== null;
    this.query = query;
    if (opening) this.requestList();
    this.render();
  }

  /** The host's answer to the request. */
  setCommands(commands: CustomCommand[]): void {
    this.commands = commands;
    this.render();
  }

  /** Handles the menu's keys; true when the key was its. */
  onKey(e: KeyboardEvent): boolean {
    if (!this.open) return false;
    const n = this.shown.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      this.selected = (this.selected + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      this.pick(this.shown[this.selected]);
    } else if (e.key === 'Escape') {
      this.close();
    } else {
      return false;
    }
    e.preventDefault();
    this.render();
    return true;
  }

  close(): void {
    this.query = null;
    this.render();
  }

  private pick(command: CustomCommand | undefined): void {
    if (!command) return;
    const done = completeSlash(this.input.value, command.name);
    this.input.value = done.text;
    this.input.setSelectionRange(done.caret, done.caret);
    this.query = null;
    this.input.focus();
    this.changed();
  }

  private render(): void {
    const before = this.shown.map((c) => c.name).join('\n');
    this.shown = this.query === null ? [] : filterCommands(this.commands, this.query);
    if (this.shown.map((c) => c.name).join('\n') !== before) this.selected = 0;
    this.selected = Math.min(this.selected, Math.max(0, this.shown.length - 1));
    this.el.classList.toggle('hidden', !this.open);
    this.el.replaceChildren(
      ...this.shown.map((c, i) => {
        const row = h(
          'div',
          { class: i === this.selected ? 'slash-command selected' : 'slash-command', title: c.path, attrs: { role: 'option', 'aria-selected': String(i === this.selected) } },
          h('span', { class: 'slash-name' }, `/${c.name}`),
          c.argumentHint ? h('span', { class: 'slash-hint' }, c.argumentHint) : null,
          h('span', { class: 'slash-description' }, c.description ?? ''),
          h('span', { class: `slash-source ${c.source}` }, c.source === 'project' ? 'project' : 'yours'),
        );
        // mousedown, not click: the textarea keeps its focus and caret.
        row.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.pick(c);
          this.render();
        });
        return row;
      }),
    );
  }
}
