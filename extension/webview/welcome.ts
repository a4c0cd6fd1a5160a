// The chat's "Get Started" card: shown while the chat's check for a model server (the model
// listing) fails, in place of a first prompt that would fail. It says what was tried and offers
// the ways forward; it goes once a server answers. The host decides the state (chat/welcome.ts).

import type { ChatCommand, ServerState } from '../src/shared/messages';
import { h, icon, iconButton } from './dom';
import { triedServers } from './render';

export interface WelcomeActions {
  command(command: ChatCommand): void;
  openLink(href: string): void;
}

/** Where to get each local server the sidecar looks for. */
const SERVERS: readonly (readonly [name: string, href: string, how: string])[] = [
  ['LM Studio', 'https://lmstudio.ai', 'its local server on port 1234'],
  ['Ollama', 'https://ollama.com', 'port 11434'],
  ['llama.cpp', 'https://github.com/ggml-org/llama.cpp', 'llama-server, port 8080'],
];

/** The card for `state`, or null when a server answered. */
export function welcomeCard(state: ServerState, act: WelcomeActions, compact = false): HTMLElement | null {
  const full = fullCard(state, act);
  if (!compact || !full || state.problem === 'checking') return full;
  // Once a conversation is under way its turns carry the error and the ways forward: the card
  // shrinks to one line, so it never hides the prompt it answers, and no button shows twice.
  const title = full.querySelector('.welcome-title')?.textContent ?? '';
  return h(
    'section',
    { class: 'welcome-card compact', attrs: { role: 'status', 'aria-label': 'Model server' } },
    icon('codicon-plug'),
    h('span', { class: 'welcome-title' }, title),
    iconButton('codicon-refresh', 'Retry', () => act.command('checkServer'), 'secondary', 'Check for a model server again'),
  );
}

function fullCard(state: ServerState, act: WelcomeActions): HTMLElement | null {
  const retry = () => iconButton('codicon-refresh', 'Retry', () => act.command('checkServer'), 'primary', 'Check for a model server again');
  const baseUrl = () => iconButton('codicon-settings-gear', 'Set Base URL', () => act.command('openSettings'), 'secondary', 'Open the settings at tandem.provider.baseUrl');
  const card = (text: string, ...rest: (HTMLElement | null)[]) =>
    h('section', { class: 'welcome-card', attrs: { 'aria-label': 'Get started' } }, h('div', { class: 'welcome-title' }, icon('codicon-plug'), text), ...rest);
  const details = (text: string) => h('details', { class: 'error-details' }, h('summary', {}, 'Details'), h('div', { class: 'error-text' }, text));
  switch (state.problem) {
    case 'none':
      return null;
    case 'checking':
      return h('section', { class: 'welcome-card checking', attrs: { role: 'status' } }, icon('codicon-loading codicon-modifier-spin'), ' Checking for a model server…');
    case 'noServer': {
      const tried = triedServers(state.detail);
      return card(
        'Tandem needs a model server, and none answered on this machine.',
        tried.length > 0 ? h('p', { class: 'hint' }, `Tried: ${tried.join('; ')}.`) : null,
        h('p', {}, 'Start one of these, then Retry:'),
        h(
          'ul',
          { class: 'servers' },
          ...SERVERS.map(([name, href, how]) =>
            h('li', {}, iconButton('codicon-link-external', name, () => act.openLink(href), 'link', `${href} (opens in the browser)`), ` (${how})`),
          ),
        ),
        h('p', {}, 'Or use another endpoint, local or hosted (OpenAI-compatible): set its base URL in the settings or in Tandem’s config file, and a key if it needs one.'),
        h(
          'div',
          { class: 'buttons' },
          retry(),
          baseUrl(),
          iconButton('codicon-file', 'Open Config File', () => act.command('openConfigFile'), 'secondary', 'Tandem’s own config file ([provider] base_url, model)'),
          iconButton('codicon-key', 'Set API Key', () => act.command('setApiKey'), 'secondary', 'For a hosted endpoint'),
        ),
      );
    }
    case 'unreachable':
      return card(
        `The model server at ${state.baseUrl ?? 'the configured endpoint'} did not answer. Start it (or check its address), then Retry.`,
        details(state.detail),
        h('div', { class: 'buttons' }, retry(), baseUrl(), iconButton('codicon-output', 'Show Output', () => act.command('showOutput'), 'secondary', 'The Tandem output has the sidecar’s log')),
      );
    case 'auth':
      return card(
        `The model server at ${state.baseUrl ?? 'the configured endpoint'} did not accept the API key (or got none).`,
        details(state.detail),
        h('div', { class: 'buttons' }, iconButton('codicon-key', 'Set API Key', () => act.command('setApiKey'), 'primary'), retry()),
      );
  }
}
