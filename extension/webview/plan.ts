// The model's plan (its `update_plan` calls, sent as `plan` updates), pinned above the chat as a
// checklist: each step with its state, the step under way spinning while the turn runs. The
// plan is the session's: each update replaces the last, an empty one clears it.

import type { PlanEntry, PlanStatus } from '../src/protocol';
import type { LogEntry } from '../src/shared/messages';
import { button, h } from './dom';

export interface PlanState {
  explanation?: string;
  entries: PlanEntry[];
  /** The turn that sent it: its steps spin only while that turn runs. */
  turnId: string;
}

/** The plan after `entry`: a `plan` update replaces it (an empty one clears it), others keep it. */
export function nextPlan(current: PlanState | null, entry: LogEntry): PlanState | null {
  if (entry.kind !== 'plan') return current;
  if (entry.entries.length === 0) return null;
  return { entries: entry.entries, turnId: entry.turnId, ...(entry.explanation ? { explanation: entry.explanation } : {}) };
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
  /** The user's own choice, for the plan it was made on; else a finished plan folds by itself. */
  private folded: { plan: PlanState; collapsed: boolean } | undefined;
  private last: { plan: PlanState | null; runningTurn: string | null } = { plan: null, runningTurn: null };

  constructor() {
    this.el = h('div', { class: 'plan hidden', attrs: { role: 'region', 'aria-label': 'Plan' } });
  }

  /** `runningTurn`: the turn under way, if any; the plan's own turn makes its step spin. */
  render(plan: PlanState | null, runningTurn: string | null): void {
    this.last = { plan, runningTurn };
    this.el.classList.toggle('hidden', plan === null);
    if (!plan) {
      this.el.replaceChildren();
      return;
    }
    const running = runningTurn !== null && runningTurn === plan.turnId;
    const done = plan.entries.filter((e) => e.status === 'completed').length;
    // A plan whose steps are all done, or whose turn has ended, folds to its head line (it would
    // otherwise take the chat's room for good); the user's own fold or unfold of it wins.
    const finished = !running && (done === plan.entries.length || runningTurn !== null);
    const collapsed = this.folded?.plan === plan ? this.folded.collapsed : finished;
    const toggle = button('', () => {
      this.folded = { plan, collapsed: !collapsed };
      this.render(this.last.plan, this.last.runningTurn);
    }, `plan-toggle codicon ${collapsed ? 'codicon-chevron-down' : 'codicon-chevron-up'}`, collapsed ? 'Show the plan' : 'Hide the plan');
    toggle.setAttribute('aria-expanded', String(!collapsed));
    const head = h(
      'div',
      { class: 'plan-head' },
      h('span', { class: 'codicon codicon-checklist', attrs: { 'aria-hidden': 'true' } }),
      h('span', { class: 'plan-title' }, 'Plan'),
      h('span', { class: 'plan-count', title: `${done} of ${plan.entries.length} steps done` }, `${done}/${plan.entries.length}`),
      toggle,
    );
    if (collapsed) {
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
