// A DOM for the webview's tests (jsdom): imported first, before the modules that use the DOM
// when they load (DOMPurify binds to `window` on import).

import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!DOCTYPE html><html><body></body></html>');
const g = globalThis as Record<string, unknown>;
for (const name of ['window', 'document', 'DOMParser', 'Element', 'HTMLElement', 'Node']) {
  g[name] = name === 'window' ? dom.window : (dom.window as unknown as Record<string, unknown>)[name];
}
// jsdom has no layout, so no scrollIntoView.
dom.window.Element.prototype.scrollIntoView = () => undefined;
