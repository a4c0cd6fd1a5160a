//! Loading a workspace file as text, with the refusals every text tool shares: missing, a
//! directory, too large, binary.

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
    match read_regular(path, &display)? {
        None => Ok(None),
        Some((bytes, _)) => into_text(&display, bytes).map(Some),
    }
}

/// A regular file's bytes and metadata (`None` when it does not exist), never blocking on a FIFO
/// or a device, and never more than [`MAX_FILE_BYTES`].
pub(crate) fn read_regular(
    path: &Path,
    display: &str,
) -> Result<Option<(Vec<u8>, std::fs::Metadata)>, ToolError> {
    use tandem_stdx::regular::NotRegular;
    match tandem_stdx::regular::read(path, MAX_FILE_BYTES) {
        Ok(read) => Ok(Some(read)),
        Err(NotRegular::Missing) => Ok(None),
        Err(NotRegular::Directory) => Err(ToolError::new(
            ErrorKind::InvalidArguments,
            format!("{display} is a directory, not a file; list_files shows what it holds"),
        )),
        Err(NotRegular::Special(what)) => Err(ToolError::new(
            ErrorKind::InvalidArguments,
            format!("{display} is {what}, not a regular file: the tools read and write files only"),
        )),
        Err(NotRegular::TooLarge { len, .. }) => Err(too_large(display, len)),
        Err(NotRegular::Io(e)) => Err(io_error(display, &e)),
    }
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
