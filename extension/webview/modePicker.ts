// The mode picker in the chat's header: Act (the default mode: reads, edits and runs commands,
// asking first) or Plan (read-only). It shows the mode the host says is in effect; a click asks
// the host to switch, and the picker changes when the host confirms.

import type { Mode } from '../src/protocol';
import { h } from './dom';

const MODES: { mode: Mode; label: string; icon: string; title: string }[] = [
  { mode: 'default', label: 'Act', icon: 'codicon-edit', title: 'Act: the model reads, edits and runs commands; edits and commands ask first' },
  { mode: 'plan', label: 'Plan', icon: 'codicon-book', title: 'Plan (read-only): the model explores and plans; no edits, no commands' },
];

export class ModePicker {
  readonly el: HTMLElement;
  private readonly buttons = new Map<Mode, HTMLButtonElement>();
  private mode: Mode = 'default';

  constructor(onPick: (mode: Mode) => void) {
    this.el = h('div', { class: 'mode-picker', attrs: { role: 'radiogroup', 'aria-label': 'Mode' } });
    for (const m of MODES) {
      const b = h('button', { class: 'mode', title: m.title, attrs: { role: 'radio', 'data-mode': m.mode } }, h('span', { class: `codicon ${m.icon}`, attrs: { 'aria-hidden': 'true' } }), m.label);
      b.type = 'button';
      b.addEventListener('click', (e) => {
        e.preventDefault();
        if (m.mode !== this.mode) onPick(m.mode);
      });
      this.buttons.set(m.mode, b);
      this.el.append(b);
    }
    this.set('default');
  }

  get current(): Mode {
    return this.mode;
  }

  /** The mode in effect, as the host says. */
  set(mode: Mode): void {
    this.mode = mode;
    for (const [m, b] of this.buttons) {
      b.classList.toggle('selected', m === mode);
      b.setAttribute('aria-checked', String(m === mode));
    }
    document.body.classList.toggle('plan-mode', mode === 'plan');
  }
}
