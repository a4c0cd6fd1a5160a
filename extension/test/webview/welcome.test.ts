import './dom';
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { ChatCommand } from '../../src/shared/messages';
import { welcomeCard } from '../../webview/welcome';

const actions = () => ({ command: mock.fn((_c: ChatCommand) => undefined), openLink: mock.fn((_href: string) => undefined) });
const buttons = (el: HTMLElement | null) => [...(el?.querySelectorAll('button') ?? [])];
const press = (el: HTMLElement | null, name: string) => {
  const b = buttons(el).find((x) => x.textContent === name);
  assert.ok(b, `no ${name} button in ${el?.textContent}`);
  b.click();
};

describe('the Get Started card', () => {
  const tried =
    'no model server is configured, and none answered on this machine. Tried: llama.cpp at http://127.0.0.1:8080/v1 (start it with `llama-server -m MODEL.gguf`); Ollama at http://127.0.0.1:11434/v1 (start it with `ollama serve`). Start one of them, or configure one';

  it('with no server: says what was tried and offers each way forward as a button', () => {
    const act = actions();
    const card = welcomeCard({ problem: 'noServer', baseUrl: null, detail: tried }, act);
    assert.match(card?.textContent ?? '', /none answered on this machine/);
    assert.match(card?.textContent ?? '', /Tried: llama\.cpp at http:\/\/127\.0\.0\.1:8080\/v1; Ollama at http:\/\/127\.0\.0\.1:11434\/v1\./);
    assert.deepEqual(buttons(card).map((b) => b.textContent), ['LM Studio', 'Ollama', 'llama.cpp', 'Retry', 'Set Base URL', 'Open Config File', 'Set API Key']);
    for (const name of ['Retry', 'Set Base URL', 'Open Config File', 'Set API Key']) press(card, name);
    assert.deepEqual(act.command.mock.calls.map((c) => c.arguments[0]), ['checkServer', 'openSettings', 'openConfigFile', 'setApiKey']);
    press(card, 'Ollama');
    assert.deepEqual(act.openLink.mock.calls.map((c) => c.arguments[0]), ['https://ollama.com']);
    // Every button's icon is a codicon, hidden from screen readers: the label names the button.
    for (const b of buttons(card)) assert.equal(b.querySelector('.codicon')?.getAttribute('aria-hidden'), 'true');
  });

  it('an endpoint that did not answer is named, with Retry, the base URL and the output', () => {
    const card = welcomeCard({ problem: 'unreachable', baseUrl: 'http://127.0.0.1:9/v1', detail: 'error sending request (tried 5 times)' }, actions());
    assert.match(card?.textContent ?? '', /The model server at http:\/\/127\.0\.0\.1:9\/v1 did not answer/);
    assert.deepEqual(buttons(card).map((b) => b.textContent), ['Retry', 'Set Base URL', 'Show Output']);
    assert.match(card?.querySelector('details .error-text')?.textContent ?? '', /tried 5 times/);
  });

  it('a refused key offers the key first; checking says so; a server that answered shows nothing', () => {
    assert.deepEqual(buttons(welcomeCard({ problem: 'auth', baseUrl: 'https://api.example/v1', detail: 'HTTP 401' }, actions())).map((b) => b.textContent), ['Set API Key', 'Retry']);
    assert.match(welcomeCard({ problem: 'checking' }, actions())?.textContent ?? '', /Checking for a model server/);
    assert.equal(welcomeCard({ problem: 'none' }, actions()), null);
  });

  it('shrinks to one line with Retry once a conversation is under way: it never hides the turn, no button twice', () => {
    const act = actions();
    const card = welcomeCard({ problem: 'noServer', baseUrl: null, detail: tried }, act, true);
    assert.ok(card?.classList.contains('compact'));
    assert.match(card?.textContent ?? '', /none answered on this machine/);
    assert.deepEqual(buttons(card).map((b) => b.textContent), ['Retry']);
    assert.equal(card?.querySelectorAll('p, ul, details').length, 0);
    press(card, 'Retry');
    assert.deepEqual(act.command.mock.calls.map((c) => c.arguments[0]), ['checkServer']);
    assert.match(welcomeCard({ problem: 'checking' }, actions(), true)?.textContent ?? '', /Checking for a model server/);
    assert.equal(welcomeCard({ problem: 'none' }, actions(), true), null);
  });
});
