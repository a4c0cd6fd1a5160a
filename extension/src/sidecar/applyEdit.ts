// The sidecar's `workspace/applyEdit`: an edit the user approved (or a restore the user asked
// for) of a document open in the editor. It goes into the buffer, on top of any unsaved text the
// user has there, so it joins VS Code's undo stack; then what the agent changed is saved, so the
// commands the agent runs next (tests, builds) see it on disk. The user's own unsaved text stays
// unsaved: only the agent's change is written (agentOnDisk.ts); when the two touch, the user is
// asked once whether to save both (or always to). Saving a buffer whose file nobody changed
// behind the editor asks nothing: the sidecar never writes behind an open document.
//
// Pure apart from the `Editor` it is given, so it is unit-tested with a fake.

import { agentChangeOnDisk } from './agentOnDisk';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult, WorkspaceEdit } from 'vscode-languageclient/node';

/** What the handler needs of VS Code. */
export interface Editor {
  /** Applies the (protocol) edit; false when VS Code refused it. */
  apply(edit: WorkspaceEdit): Promise<boolean>;
  /** The open document's text and whether it has unsaved changes; undefined when it is not open. */
  buffer(uri: string): { text: string; dirty: boolean } | undefined;
  /** The file's text on disk; undefined when it can't be read. */
  disk(uri: string): Promise<string | undefined>;
  /** Saves the document at `uri` if it has unsaved changes; false when saving failed. */
  save(uri: string): Promise<boolean>;
  /** Writes `saved` to the file through its document, leaving the buffer as it is, unsaved. */
  saveOnly(uri: string, saved: string): Promise<boolean>;
  /** Asks (once; "always" is remembered) whether to save the user's unsaved text with the edit. */
  askSaveAll(file: string): Promise<boolean>;
  /** Tells the user something went half-way. */
  warn(message: string): void;
}

/**
 * The documents an edit leaves with new text, in order, once each: edited, created and
 * renamed-to ones. A deleted file has nothing to save.
 */
export function touchedUris(edit: WorkspaceEdit): string[] {
  const uris: string[] = [];
  const add = (u: string) => {
    if (!uris.includes(u)) uris.push(u);
  };
  for (const change of edit.documentChanges ?? []) {
    if ('textDocument' in change) add(change.textDocument.uri);
    else if (change.kind === 'create') add(change.uri);
    else if (change.kind === 'rename') add(change.newUri);
  }
  for (const uri of Object.keys(edit.changes ?? {})) add(uri);
  return uris;
}

/**
 * The edit without "needs confirmation" on its change annotations. The sidecar marks its edits
 * so for generic clients, which have not asked the user; here the user already approved the edit
 * in Tandem's own diff (or asked for the restore), and a second confirmation would open VS Code's
 * refactor preview and hold the edit until it is answered.
 */
export function approvedEdit(edit: WorkspaceEdit): WorkspaceEdit {
  if (!edit.changeAnnotations) return edit;
  const changeAnnotations = Object.fromEntries(
    Object.entries(edit.changeAnnotations).map(([id, a]) => [id, { ...a, needsConfirmation: false }]),
  );
  return { ...edit, changeAnnotations };
}

const fileName = (uri: string) => decodeURIComponent(uri.replace(/^.*\//, ''));

/** The handler: apply, then save what the agent changed in every document the edit touched. */
export async function applyAndSave(params: ApplyWorkspaceEditParams, editor: Editor): Promise<ApplyWorkspaceEditResult> {
  const touched = touchedUris(params.edit);
  const before = new Map(touched.map((u) => [u, editor.buffer(u)]));
  let applied: boolean;
  try {
    applied = await editor.apply(approvedEdit(params.edit));
  } catch (e) {
    return { applied: false, failureReason: `VS Code could not apply the edit: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!applied) return { applied: false, failureReason: 'VS Code refused the edit (the document may have changed, or be read-only).' };
  const unsaved: string[] = [];
  const leftUnsaved: string[] = [];
  for (const uri of touched) {
    const outcome = await saveAgentChange(uri, before.get(uri), editor).catch(() => 'failed' as const);
    if (outcome === 'failed') unsaved.push(uri);
    if (outcome === 'left') leftUnsaved.push(uri);
  }
  // The edit is in the buffers, which is what the sidecar reads: it was applied. Only the disk
  // lags, and the user is the one who can fix that.
  if (unsaved.length > 0) {
    editor.warn(`Tandem's edit is in the editor but ${unsaved.map(fileName).join(', ')} could not be saved; save it before the agent runs commands on it.`);
  }
  if (leftUnsaved.length > 0) {
    editor.warn(`Tandem's edit of ${leftUnsaved.map(fileName).join(', ')} is in the editor, unsaved with your own changes: commands the agent runs see the file as it is on disk until you save it.`);
  }
  return { applied: true };
}

/**
 * Saves the agent's change to one document. A buffer without unsaved text of the user's is
 * saved whole; one with it gets only the agent's change on disk, or (when the two touch) what
 * the user answers.
 */
async function saveAgentChange(uri: string, before: { text: string; dirty: boolean } | undefined, editor: Editor): Promise<'saved' | 'left' | 'failed'> {
  const ok = (saved: boolean) => (saved ? 'saved' : 'failed');
  if (!before?.dirty) return ok(await editor.save(uri));
  const after = editor.buffer(uri)?.text;
  const disk = await editor.disk(uri);
  const merged = after !== undefined && disk !== undefined ? agentChangeOnDisk(before.text, after, disk) : undefined;
  if (merged !== undefined) return ok(merged === disk || (await editor.saveOnly(uri, merged)));
  return (await editor.askSaveAll(fileName(uri))) ? ok(await editor.save(uri)) : 'left';
}
