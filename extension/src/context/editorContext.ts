// Context the editor holds that is no file, for `@problems`, `@terminal` and `@changes` in a
// prompt: the diagnostics VS Code knows, the active terminal's recent commands and their output
// (through shell integration), and the uncommitted changes (`git diff`). The sidecar gets each as
// a `kind: "editor"` context item with its text; it caps what reaches the model.

import * as vscode from 'vscode';
import type { ContextItem } from '../protocol';
import { formatProblems, stripTerminalControls, type Problem } from './editorText';
import { changesText } from './gitChanges';

/** The words that name the editor's own context after an `@`, with what each attaches. */
export const EDITOR_MENTIONS: ReadonlyArray<{ word: string; what: string }> = [
  { word: 'problems', what: "the workspace's problems (errors and warnings)" },
  { word: 'terminal', what: "the active terminal's recent commands and output" },
  { word: 'changes', what: 'the uncommitted changes (git diff)' },
];

/** What the editor text each word may carry: the sidecar cuts at 64 KiB anyway. */
const MAX_TEXT = 64 * 1024;

/** The special words that start with `query`, for the `@` menu. */
export function editorMentionsMatching(query: string): string[] {
  const q = query.toLowerCase();
  return EDITOR_MENTIONS.map((m) => m.word).filter((w) => w.startsWith(q));
}

/** The recent output of each terminal, as shell integration reports it. */
export class TerminalOutputs implements vscode.Disposable {
  private readonly recent = new Map<vscode.Terminal, string>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    this.subscriptions.push(
      vscode.window.onDidStartTerminalShellExecution((e) => void this.follow(e.terminal, e.execution)),
      vscode.window.onDidCloseTerminal((t) => this.recent.delete(t)),
    );
  }

  private async follow(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    this.append(terminal, `$ ${execution.commandLine.value}\n`);
    try {
      for await (const data of execution.read()) this.append(terminal, stripTerminalControls(data));
    } catch {
      // The terminal went away mid-command: what came so far is kept.
    }
  }

  private append(terminal: vscode.Terminal, text: string): void {
    const all = (this.recent.get(terminal) ?? '') + text;
    // Keep the tail: the latest commands matter.
    this.recent.set(terminal, all.length > MAX_TEXT ? all.slice(all.length - MAX_TEXT) : all);
  }

  /** The active terminal's recent commands and output, or why there is none. */
  active(): { text: string } | { why: string } {
    const terminal = vscode.window.activeTerminal;
    if (!terminal) return { why: 'no terminal is open: open one, run the command, then ask again' };
    const text = this.recent.get(terminal);
    if (text) return { text };
    if (!terminal.shellIntegration) {
      return {
        why: `the terminal "${terminal.name}" has no shell integration, so Tandem can't read its output (VS Code's terminal.integrated.shellIntegration.enabled, with bash, zsh, fish or PowerShell)`,
      };
    }
    return { why: `the terminal "${terminal.name}" has run no command since Tandem started: run it again, then ask` };
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

/** The workspace's problems as VS Code knows them, errors first. */
export function problemsText(folder: vscode.Uri): string {
  const problems: Problem[] = [];
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    if (uri.scheme !== 'file' || !uri.path.startsWith(folder.path)) continue;
    const path = vscode.workspace.asRelativePath(uri, false);
    for (const d of diagnostics) {
      problems.push({
        path,
        line: d.range.start.line + 1,
        character: d.range.start.character + 1,
        severity: d.severity,
        message: d.message,
        source: d.source,
      });
    }
  }
  return formatProblems(problems);
}

/** The context item of an editor word, or why it can't be had. */
export async function editorContext(word: string, folder: vscode.Uri, terminals: TerminalOutputs): Promise<ContextItem> {
  switch (word) {
    case 'problems':
      return { kind: 'editor', path: 'problems', text: problemsText(folder) };
    case 'terminal': {
      const got = terminals.active();
      if ('why' in got) throw new Error(`@terminal: ${got.why}`);
      return { kind: 'editor', path: 'terminal', text: got.text };
    }
    case 'changes':
      try {
        return { kind: 'editor', path: 'changes', text: await changesText(folder.fsPath) };
      } catch (e) {
        throw new Error(`@changes: ${e instanceof Error ? e.message : String(e)}`);
      }
    default:
      throw new Error(`@${word} is not something the editor holds`);
  }
}
