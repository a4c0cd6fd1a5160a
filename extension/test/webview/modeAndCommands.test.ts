import './dom';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CustomCommand, Mode } from '../../src/protocol';
import { ModePicker } from '../../webview/modePicker';
import { completeSlash, filterCommands, slashAtCaret, SlashMenu } from '../../webview/slashMenu';

const command = (name: string, more: Partial<CustomCommand> = {}): CustomCommand => ({ name, source: 'project', path: `/ws/.tandem/commands/${name}.md`, ...more });

describe('the mode picker', () => {
  it('asks for the other mode and shows the one the host confirms', () => {
    const picked: Mode[] = [];
    const picker = new ModePicker((m) => picked.push(m));
    const [act, plan] = [...picker.el.querySelectorAll<HTMLButtonElement>('button.mode')];
    assert.equal(act?.getAttribute('aria-checked'), 'true');
    assert.ok(plan?.querySelector('.codicon-book'));
    plan?.click();
    act?.click(); // already the mode: nothing asked
    assert.deepEqual(picked, ['plan']);
    // Not switched until the host says so.
    assert.equal(picker.current, 'default');
    picker.set('plan');
    assert.equal(plan?.getAttribute('aria-checked'), 'true');
    assert.ok(plan?.classList.contains('selected'));
    assert.ok(document.body.classList.contains('plan-mode'));
    picker.set('default');
    assert.ok(!document.body.classList.contains('plan-mode'));
  });
});

describe('the / menu of custom commands', () => {
  it('finds the name being typed at the start of the prompt', () => {
    assert.equal(slashAtCaret('/rev', 4), 'rev');
    assert.equal(slashAtCaret('/', 1), '');
    assert.equal(slashAtCaret('/review src/a.rs', 16), null);
    assert.equal(slashAtCaret('fix /rev', 8), null);
    assert.equal(slashAtCaret('/etc/hosts', 10), null);
  });

  it('lists names that start with the query first, and completes to /name', () => {
    const list = [command('fix-review'), command('review'), command('explain')];
    assert.deepEqual(filterCommands(list, 'rev').map((c) => c.name), ['review', 'fix-review']);
    assert.deepEqual(completeSlash('/rev', 'review'), { text: '/review ', caret: 8 });
    assert.deepEqual(completeSlash('/rev src/a.rs', 'review'), { text: '/review src/a.rs', caret: 8 });
  });

  it('asks for the list when it opens, picks with the keys, and shows where each comes from', () => {
    const input = document.createElement('textarea');
    document.body.append(input);
    let asked = 0;
    let changed = 0;
    const menu = new SlashMenu(input, () => asked++, () => changed++);
    const type = (text: string) => {
      input.value = text;
      input.setSelectionRange(text.length, text.length);
      menu.update();
    };
    type('/');
    type('/r');
    assert.equal(asked, 1, 'one request while the menu stays open');
    menu.setCommands([command('review', { description: 'Review a file', argumentHint: '<file>' }), command('refactor', { source: 'user', path: '/home/me/.config/tandem/commands/refactor.md' })]);
    const rows = [...menu.el.querySelectorAll('.slash-command')];
    assert.equal(rows.length, 2);
    assert.ok(!menu.el.classList.contains('hidden'));
    assert.equal(rows[0]?.querySelector('.slash-name')?.textContent, '/review');
    assert.equal(rows[0]?.querySelector('.slash-hint')?.textContent, '<file>');
    assert.equal(rows[0]?.querySelector('.slash-description')?.textContent, 'Review a file');
    assert.equal(rows[0]?.querySelector('.slash-source')?.textContent, 'project');
    assert.equal(rows[1]?.querySelector('.slash-source')?.textContent, 'yours');
    const key = (k: string) => {
      const e = new window.KeyboardEvent('keydown', { key: k, cancelable: true });
      return menu.onKey(e as unknown as KeyboardEvent);
    };
    assert.ok(key('ArrowDown'));
    assert.equal(menu.el.querySelector('.slash-command.selected .slash-name')?.textContent, '/refactor');
    assert.ok(key('Enter'));
    assert.equal(input.value, '/refactor ');
    assert.equal(changed, 1);
    assert.ok(menu.el.classList.contains('hidden'));
    // Closed: Enter is the composer's again (it sends).
    assert.equal(key('Enter'), false);
    // Typing a / again asks again: a command file added meanwhile shows.
    type('');
    type('/');
    assert.equal(asked, 2);
    assert.ok(key('Escape'));
    assert.ok(menu.el.classList.contains('hidden'));
  });
});
