// The model's plan (its `update_plan` calls, sent as `plan` updates), pinned above the chat as a
// checklist: each step with its state, the step under way spinning while the turn runs. The
// plan is the session's: each update replaces the last, an empty one clears it.

import type { PlanEntry, PlanStatus } from '../src/protocol';
import type { LogEntry } from '../src/shared/messages';
import { button, h } from './dom';

export interface PlanState {
  explanation?: string;
  entries: PlanEntry[];
}

/** The plan after `entry`: a `plan` update replaces it (an empty one clears it), others keep it. */
export function nextPlan(current: PlanState | null, entry: LogEntry): PlanState | null {
  if (entry.kind !== 'plan') return current;
  if (entry.entries.length === 0) return null;
  return { entries: entry.entries, ...(entry.explanation ? { explanation: entry.explanation } : {}) };
}

/** The plan as it stands after all of `entries`. */
export function planOf(entries: readonly LogEntry[]): PlanState | null {
  return entries.reduce<PlanState | null>(nextPlan, null);
}

const ICON: Record<PlanStatus, string> = {
  completed: 'codicon-pass-filled',
  inProgress: 'codicon-circle-filled',
  pending: 'codicon-circle-large-outline',
};

const LABEL: Record<PlanStatus, string> = {
  completed: 'done',
  inProgress: 'under way',
  pending: 'to do',
};

export class PlanView {
  readonly el: HTMLElement;
  private collapsed = false;
  private last: { plan: PlanState | null; running: boolean } = { plan: null, running: false };

  constructor() {
    this.el = h('div', { class: 'plan hidden', attrs: { role: 'region', 'aria-label': 'Plan' } });
  }

  render(plan: PlanState | null, running: boolean): void {
    this.last = { plan, running };
    this.el.classList.toggle('hidden', plan === null);
    if (!plan) {
      this.el.replaceChildren();
      return;
    }
    const done = plan.entries.filter((e) => e.status === 'completed').length;
    const toggle = button('', () => {
      this.collapsed = !this.collapsed;
      this.render(this.last.plan, this.last.running);
    }, `plan-toggle codicon ${this.collapsed ? 'codicon-chevron-down' : 'codicon-chevron-up'}`, this.collapsed ? 'Show the plan' : 'Hide the plan');
    toggle.setAttribute('aria-expanded', String(!this.collapsed));
    const head = h(
      'div',
      { class: 'plan-head' },
      h('span', { class: 'codicon codicon-checklist', attrs: { 'aria-hidden': 'true' } }),
      h('span', { class: 'plan-title' }, 'Plan'),
      h('span', { class: 'plan-count', title: `${done} of ${plan.entries.length} steps done` }, `${done}/${plan.entries.length}`),
      toggle,
    );
    if (this.collapsed) {
      this.el.replaceChildren(head);
      return;
    }
    const steps = h(
      'ol',
      { class: 'plan-steps' },
      ...plan.entries.map((e) => {
        const spin = e.status === 'inProgress' && running;
        const icon = spin ? 'codicon-loading codicon-modifier-spin' : ICON[e.status];
        return h(
          'li',
          { class: `plan-step ${e.status}`, title: LABEL[e.status] },
          h('span', { class: `codicon ${icon}`, attrs: { 'aria-label': LABEL[e.status], role: 'img' } }),
          h('span', { class: 'plan-step-text' }, e.step),
        );
      }),
    );
    const explanation = plan.explanation ? [h('div', { class: 'plan-explanation' }, plan.explanation)] : [];
    this.el.replaceChildren(head, ...explanation, steps);
  }
}
