// The chat webview's page: our script and stylesheet only, under a strict Content-Security-
// Policy. No inline script or style, nothing remote: even markup that got past the sanitizer
// could neither run nor load anything.

export interface PageParts {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /** The codicon font's stylesheet (VS Code's icons, shipped with the extension). */
  codiconUri?: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** A fresh random nonce for each page. */
export function makeNonce(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function chatPage(p: PageParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(p.cspSource, p.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${p.codiconUri ? `<link rel="stylesheet" href="${escapeAttr(p.codiconUri)}">\n` : ''}<link rel="stylesheet" href="${escapeAttr(p.styleUri)}">
<title>Tandem</title>
</head>
<body>
<script nonce="${escapeAttr(p.nonce)}" src="${escapeAttr(p.scriptUri)}"></script>
</body>
</html>`;
}
