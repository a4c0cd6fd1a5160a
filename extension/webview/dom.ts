// A tiny element builder. Text always goes in as text; the only HTML that enters the page is
// markdown.ts's sanitized output.

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { class?: string; title?: string; attrs?: Record<string, string> } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.title) el.title = props.title;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

export function button(label: string, onClick: () => void, cls = '', title = ''): HTMLButtonElement {
  const b = h('button', { class: cls, title }, label);
  b.type = 'button';
  b.addEventListener('click', (e) => {
    e.preventDefault();
    onClick();
  });
  return b;
}

/** A decorative codicon (VS Code's icon font, shipped with the extension): the button or text
 * beside it says what it means. */
export function icon(name: string): HTMLSpanElement {
  return h('span', { class: `codicon ${name}`, attrs: { 'aria-hidden': 'true' } });
}

/** A button with a codicon before its label (the label is its accessible name). */
export function iconButton(iconName: string, label: string, onClick: () => void, cls = '', title = ''): HTMLButtonElement {
  const b = button('', onClick, `${cls} with-icon`.trim(), title);
  b.append(icon(iconName), label);
  return b;
}

/** Sets sanitized HTML (from markdown.ts only). */
export function sanitizedHtml(el: HTMLElement, html: string): HTMLElement {
  el.innerHTML = html;
  return el;
}
