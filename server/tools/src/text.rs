//! Loading a workspace file as text, with the refusals every text tool shares: missing, a
//! directory, too large, binary.

use std::io::ErrorKind as IoKind;
use std::path::Path;

use super::{ErrorKind, ToolContext, ToolError, Workspace};

/// Files larger than this are refused (`too_large`): the model cannot use them whole anyway.
pub(crate) const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// How much of the start of a file is checked for a NUL byte (as git and ripgrep do).
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Reads `path` as UTF-8 text (its exact bytes, byte-order mark included). `Ok(None)` when it
/// does not exist.
pub(crate) fn load(ws: &Workspace, path: &Path) -> Result<Option<String>, ToolError> {
    let display = ws.display_path(path);
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == IoKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(&display, &e)),
    };
    if meta.is_dir() {
        return Err(ToolError::new(
            ErrorKind::InvalidArguments,
            format!("{display} is a directory, not a file; list_files shows what it holds"),
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(&display, meta.len()));
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == IoKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(&display, &e)),
    };
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(&display, bytes.len() as u64));
    }
    into_text(&display, bytes).map(Some)
}

/// The editor's text of `path` when the face gave it, else [`load`] from disk.
pub(crate) fn load_for(ctx: &ToolContext<'_>, path: &Path) -> Result<Option<String>, ToolError> {
    match ctx.editor_text_of(path) {
        Some(text) if text.len() as u64 > MAX_FILE_BYTES => Err(too_large(
            &ctx.workspace.display_path(path),
            text.len() as u64,
        )),
        Some(text) => Ok(Some(text.to_string())),
        None => load(ctx.workspace, path),
    }
}

/// Refuses bytes with a NUL near the start, or that are not UTF-8.
pub(crate) fn into_text(display: &str, bytes: Vec<u8>) -> Result<String, ToolError> {
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    if head.contains(&0) {
        return Err(ToolError::new(
            ErrorKind::BinaryFile,
            format!("{display} is a binary file (it has NUL bytes); the tools only handle text"),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        ToolError::new(
            ErrorKind::BinaryFile,
            format!(
                "{display} is not UTF-8 text (invalid byte at offset {}); the tools only handle \
                 UTF-8 text",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(unix)]
pub(crate) fn permission_bits(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
pub(crate) fn permission_bits(meta: &std::fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

pub(crate) fn no_such_file(ws: &Workspace, path: &Path) -> ToolError {
    let display = ws.display_path(path);
    let hint = match path.parent() {
        Some(parent) if parent.is_dir() => {
            let parent = ws.display_path(parent);
            if parent == "." {
                "; list_files shows the files at the root".to_string()
            } else {
                format!("; the directory {parent}/ exists, list_files shows what it holds")
            }
        }
        _ => "; neither does its directory".to_string(),
    };
    ToolError::new(
        ErrorKind::NoSuchFile,
        format!("{display} does not exist{hint}"),
    )
}

pub(crate) fn io_error(display: &str, e: &std::io::Error) -> ToolError {
    ToolError::new(ErrorKind::Io, format!("{display}: {e}"))
}

fn too_large(display: &str, len: u64) -> ToolError {
    ToolError::new(
        ErrorKind::TooLarge,
        format!(
            "{display} has {len} bytes, more than the {} MiB the tools handle; use search_files to \
             find what you need in it",
            MAX_FILE_BYTES / (1024 * 1024)
        ),
    )
}
