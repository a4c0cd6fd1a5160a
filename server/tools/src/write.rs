//! `write_to_file` proposals, and applying any approved edit ([`apply`]).

use std::path::{Path, PathBuf};

use tandem_model::TurnId;

use super::args::WriteToFile;
use super::{AppliedEdit, EditProposal, ErrorKind, ToolContext, ToolError, UndoLog, text};

pub(crate) fn prepare(ctx: &ToolContext<'_>, args: WriteToFile) -> Result<EditProposal, ToolError> {
    let ws = ctx.workspace;
    let path = ws.resolve_for_write(&args.path)?;
    let display = ws.display_path(&path);
    check_parent_is_directory(ws, &path)?;
    let original = text::load_for(ctx, &path)?;
    let in_editor = ctx.editor_text_of(&path).is_some();
    ctx.reads.check(
        &path,
        &display,
        original.as_deref().map(str::as_bytes),
        in_editor,
    )?;
    let proposed = match &original {
        Some(original) => keep_file_conventions(original, args.content),
        None => args.content,
    };
    if original.as_deref() == Some(proposed.as_str()) {
        return Err(ToolError::new(
            ErrorKind::Invalid,
            format!("{display} already holds exactly this content; nothing to write"),
        ));
    }
    Ok(proposal(path, display, original, proposed))
}

pub(crate) fn proposal(
    path: std::path::PathBuf,
    display_path: String,
    original: Option<String>,
    proposed: String,
) -> EditProposal {
    let diff = super::FileDiff::new(&display_path, original.as_deref(), &proposed);
    EditProposal {
        path,
        display_path,
        original,
        proposed,
        diff,
    }
}

/// A whole-file rewrite of a CRLF file (or one with a byte-order mark) keeps those when the model
/// wrote plain LF (or left the mark out), so the diff shows the real change, not every line.
fn keep_file_conventions(original: &str, content: String) -> String {
    let original_lines = original.split_inclusive('\n');
    let crlf_file = original.contains('\n')
        && original_lines
            .filter(|l| l.ends_with('\n'))
            .all(|l| l.ends_with("\r\n"));
    let mut content = if crlf_file && !content.contains('\r') {
        content.replace('\n', "\r\n")
    } else {
        content
    };
    if original.starts_with('\u{feff}') && !content.starts_with('\u{feff}') {
        content.insert(0, '\u{feff}');
    }
    content
}

/// The nearest existing ancestor must be a directory, or the write could never happen.
fn check_parent_is_directory(ws: &super::Workspace, path: &Path) -> Result<(), ToolError> {
    for ancestor in path.ancestors().skip(1) {
        if let Ok(meta) = std::fs::metadata(ancestor) {
            if meta.is_dir() {
                return Ok(());
            }
            return Err(ToolError::new(
                ErrorKind::InvalidArguments,
                format!(
                    "{} is a file, so {} cannot be created under it",
                    ws.display_path(ancestor),
                    ws.display_path(path)
                ),
            ));
        }
    }
    Ok(())
}

/// Checks the file still holds what the proposal was made against (the editor's text where the
/// face gave it, else the disk's) and saves that for undo. Returns the path to write.
pub(crate) fn begin(
    ctx: &ToolContext<'_>,
    proposal: &EditProposal,
    undo: &UndoLog,
    turn_id: &TurnId,
) -> Result<PathBuf, ToolError> {
    let ws = ctx.workspace;
    // Resolved again: the tree may have changed (a link swapped in) since the proposal.
    let path = ws.resolve_for_write(&proposal.path.to_string_lossy())?;
    let display = ws.display_path(&path);
    let current = match ctx.editor_text_of(&path) {
        Some(text) => {
            let mode = current_state(&path, &display)?.map_or(0o644, |(_, mode)| mode);
            Some((text.as_bytes().to_vec(), mode))
        }
        None => current_state(&path, &display)?,
    };
    let current_bytes = current.as_ref().map(|(bytes, _)| bytes.as_slice());
    if current_bytes != proposal.original.as_deref().map(str::as_bytes) {
        let what = match (&current, &proposal.original) {
            (None, _) => "was deleted",
            (Some(_), None) => "was created",
            // Where: the user typed in the buffer, or something wrote the file.
            _ if ctx.editor_text_of(&path).is_some() => {
                "changed in the editor (unsaved changes in its buffer)"
            }
            _ => "changed on disk",
        };
        return Err(ToolError::new(
            ErrorKind::Stale,
            format!(
                "{display} {what} since the edit was proposed; nothing was written. Call read_file \
                 on it again and redo the edit against what it holds now."
            ),
        ));
    }
    undo.save_before(
        turn_id,
        &display,
        current
            .as_ref()
            .map(|(bytes, mode)| (bytes.as_slice(), *mode)),
        &super::ChangedBy::new(super::ChangeSource::Edit, ctx.tool_call_id),
    )?;
    Ok(path)
}

/// Writes the file atomically.
pub(crate) fn to_disk(ctx: &ToolContext<'_>, path: &Path, content: &str) -> Result<(), ToolError> {
    super::atomic::write_in(
        ctx.workspace.anchor_of(path),
        path,
        content.as_bytes(),
        None,
    )
    .map_err(|e| text::io_error(&ctx.workspace.display_path(path), &e))
}

/// After the write: the model now knows the file holds `content`; the diff of what was written.
pub(crate) fn finish(
    ctx: &ToolContext<'_>,
    proposal: &EditProposal,
    path: &Path,
    content: &str,
) -> AppliedEdit {
    ctx.reads.record(path, content.as_bytes());
    let display = ctx.workspace.display_path(path);
    AppliedEdit {
        diff: super::FileDiff::new(&display, proposal.original.as_deref(), content),
    }
}

/// The file's bytes and mode now, `None` when it does not exist.
fn current_state(path: &Path, display: &str) -> Result<Option<(Vec<u8>, u32)>, ToolError> {
    Ok(text::read_regular(path, display)?
        .map(|(bytes, meta)| (bytes, super::files::mode_of(&meta.permissions()))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_bom_are_kept_for_a_plain_rewrite() {
        assert_eq!(
            keep_file_conventions("a\r\nb\r\n", "x\ny\n".into()),
            "x\r\ny\r\n"
        );
        assert_eq!(keep_file_conventions("a\nb\r\n", "x\ny\n".into()), "x\ny\n");
        assert_eq!(
            keep_file_conventions("\u{feff}a\n", "x\n".into()),
            "\u{feff}x\n"
        );
        assert_eq!(
            keep_file_conventions("a\r\n", "x\r\ny\n".into()),
            "x\r\ny\n"
        );
    }
}
