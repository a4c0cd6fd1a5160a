// `tandem/getDiagnostics`: after an accepted edit, the errors and warnings VS Code reports for
// the written files, once the language servers have looked at them.

import * as vscode from 'vscode';
import type { GetDiagnosticsParams, GetDiagnosticsResult } from '../protocol';
import { settled, toProtocol } from './collect';

export async function getDiagnostics(params: GetDiagnosticsParams): Promise<GetDiagnosticsResult> {
  const uris = params.paths.map((p) => vscode.Uri.file(p));
  const watched = new Set(uris.map((u) => u.toString()));
  const waiting = settled((onChange) =>
    vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => watched.has(u.toString()))) onChange();
    }),
  );
  // A language server checks only open documents; opening one (not showing it) is enough.
  await Promise.all(uris.map((u) => Promise.resolve(vscode.workspace.openTextDocument(u)).catch(() => undefined)));
  await waiting;
  const diagnostics = uris.flatMap((uri, i) =>
    toProtocol(
      params.paths[i] ?? uri.fsPath,
      vscode.languages.getDiagnostics(uri).map((d) => ({ line: d.range.start.line, severity: d.severity, message: d.message })),
    ),
  );
  return { diagnostics };
}
