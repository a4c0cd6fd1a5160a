// `tandem/getDiagnostics`: after an accepted edit, the errors and warnings VS Code reports for
// the written files, once their language server has looked at them. Files in a language no
// diagnostics provider covers (a .txt, as this window has learnt) are answered at once.

import * as vscode from 'vscode';
import type { GetDiagnosticsParams, GetDiagnosticsResult } from '../protocol';
import { Coverage, firstChange, toProtocol } from './collect';

const coverage = new Coverage();

/** Learns which languages report diagnostics, from every report in this window. */
export function watchCoverage(): vscode.Disposable {
  return vscode.languages.onDidChangeDiagnostics((e) => {
    for (const uri of e.uris) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (doc) coverage.saw(doc.languageId);
    }
  });
}

export async function getDiagnostics(params: GetDiagnosticsParams): Promise<GetDiagnosticsResult> {
  const uris = params.paths.map((p) => vscode.Uri.file(p));
  const watched = new Set(uris.map((u) => u.toString()));
  // Listening before the files open: a report may come while they do.
  let reported = false;
  let notify: (() => void) | undefined;
  const listening = vscode.languages.onDidChangeDiagnostics((e) => {
    if (!e.uris.some((u) => watched.has(u.toString()))) return;
    reported = true;
    notify?.();
  });
  try {
    // A language server checks only open documents; opening one (not showing it) is enough, and
    // gives the file's language.
    const docs = await Promise.all(uris.map((u) => Promise.resolve(vscode.workspace.openTextDocument(u)).catch(() => undefined)));
    const languages = [...new Set(docs.flatMap((d) => (d ? [d.languageId] : [])))];
    const changed =
      reported ||
      (await firstChange((onChange) => {
        notify = onChange;
        return { dispose: () => (notify = undefined) };
      }, coverage.waitMs(languages)));
    if (!changed) coverage.sawNothing(languages);
  } finally {
    listening.dispose();
  }
  const diagnostics = uris.flatMap((uri, i) =>
    toProtocol(
      params.paths[i] ?? uri.fsPath,
      vscode.languages.getDiagnostics(uri).map((d) => ({ line: d.range.start.line, severity: d.severity, message: d.message })),
    ),
  );
  return { diagnostics };
}
