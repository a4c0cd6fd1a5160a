import './dom';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogEntry } from '../../src/shared/messages';
import { nextPlan, planOf, PlanView } from '../../webview/plan';
import { sessionIdFrom, turnIdFrom } from '../../src/protocol';

const plan = (entries: { step: string; status: 'pending' | 'inProgress' | 'completed' }[], explanation?: string): LogEntry => ({
  kind: 'plan',
  sessionId: sessionIdFrom('s'),
  turnId: turnIdFrom('t1'),
  entries,
  ...(explanation ? { explanation } : {}),
});

describe('the plan checklist', () => {
  it('keeps the last plan of the session; an empty one clears it', () => {
    const first = plan([{ step: 'Read', status: 'inProgress' }], 'Look first.');
    const second = plan([
      { step: 'Read', status: 'completed' },
      { step: 'Change', status: 'inProgress' },
    ]);
    const text: LogEntry = { kind: 'text', sessionId: sessionIdFrom('s'), turnId: turnIdFrom('t1'), delta: 'hi' };
    assert.equal(planOf([text]), null);
    assert.deepEqual(planOf([first, text]), { explanation: 'Look first.', turnId: 't1', entries: [{ step: 'Read', status: 'inProgress' }] });
    assert.deepEqual(planOf([first, second, text])?.entries.map((e) => e.status), ['completed', 'inProgress']);
    assert.equal(planOf([first, plan([])]), null);
    assert.equal(nextPlan(null, { kind: 'notice', level: 'info', text: 'x' }), null);
  });

  it('shows each step with its state, the count done, and the step under way spinning while the turn runs', () => {
    const view = new PlanView();
    const state = planOf([
      plan(
        [
          { step: 'Read <b>a.txt</b>', status: 'completed' },
          { step: 'Change it', status: 'inProgress' },
          { step: 'Run the tests', status: 'pending' },
        ],
        'Small change.',
      ),
    ]);
    view.render(state, 't1');
    assert.ok(!view.el.classList.contains('hidden'));
    assert.equal(view.el.getAttribute('aria-label'), 'Plan');
    assert.equal(view.el.querySelector('.plan-count')?.textContent, '1/3');
    assert.equal(view.el.querySelector('.plan-explanation')?.textContent, 'Small change.');
    const steps = [...view.el.querySelectorAll('.plan-step')];
    assert.deepEqual(steps.map((s) => s.className), ['plan-step completed', 'plan-step inProgress', 'plan-step pending']);
    // The model's text stays text.
    assert.equal(steps[0]?.querySelector('.plan-step-text')?.textContent, 'Read <b>a.txt</b>');
    assert.equal(steps[0]?.querySelector('b'), null);
    assert.ok(steps[0]?.querySelector('.codicon-pass-filled'));
    assert.ok(steps[1]?.querySelector('.codicon-loading.codicon-modifier-spin'));
    assert.ok(steps[2]?.querySelector('.codicon-circle-large-outline'));
    // The turn ended: nothing spins.
    view.render(state, null);
    assert.equal(view.el.querySelector('.codicon-modifier-spin'), null);
    assert.ok(view.el.querySelectorAll('.plan-step')[1]?.querySelector('.codicon-circle-filled'));
  });

  it('folds to its head, and hides when there is no plan', () => {
    const view = new PlanView();
    view.render(planOf([plan([{ step: 'One', status: 'pending' }])]), null);
    const toggle = view.el.querySelector<HTMLButtonElement>('button.plan-toggle');
    assert.equal(toggle?.getAttribute('aria-expanded'), 'true');
    toggle?.click();
    assert.equal(view.el.querySelectorAll('.plan-step').length, 0);
    assert.equal(view.el.querySelector('button.plan-toggle')?.getAttribute('aria-expanded'), 'false');
    assert.equal(view.el.querySelector('.plan-count')?.textContent, '0/1');
    view.render(null, null);
    assert.ok(view.el.classList.contains('hidden'));
  });

  it('spins only during its own turn, and folds once done or once a later turn runs; the user may unfold it', () => {
    const view = new PlanView();
    const unfinished = planOf([plan([{ step: 'One', status: 'completed' }, { step: 'Two', status: 'inProgress' }])]);
    view.render(unfinished, 't2');
    assert.equal(view.el.querySelector('.codicon-modifier-spin'), null, 'a later turn does not spin the old plan');
    assert.equal(view.el.querySelectorAll('.plan-step').length, 0, 'and it is folded to its head');
    assert.equal(view.el.querySelector('.plan-count')?.textContent, '1/2');
    view.el.querySelector<HTMLButtonElement>('button.plan-toggle')?.click();
    assert.equal(view.el.querySelectorAll('.plan-step').length, 2, 'the user unfolded it');
    view.render(unfinished, 't2');
    assert.equal(view.el.querySelectorAll('.plan-step').length, 2, 'and it stays so');
    const done = planOf([plan([{ step: 'One', status: 'completed' }, { step: 'Two', status: 'completed' }])]);
    view.render(done, null);
    assert.equal(view.el.querySelectorAll('.plan-step').length, 0, 'a finished plan folds');
    assert.equal(view.el.querySelector('.plan-count')?.textContent, '2/2');
  });
});
