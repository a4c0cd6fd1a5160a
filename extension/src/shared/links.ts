// Which links from the model's text the host may open. Shared by host and webview: no `vscode`,
// no DOM.

/** A link from the model's text the host may open in the browser: http, https and mailto only. */
export function externalLink(href: string): string | undefined {
  let u: URL;
  try {
    u = new URL(href.trim());
  } catch {
    return undefined;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:' ? u.href : undefined;
}
