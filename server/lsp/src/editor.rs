//! Edits through the editor's buffer: what both faces of `tandem lsp` do with an approved edit of
//! a file the client has open, so it joins the editor's undo history and never lands behind
//! unsaved changes.

use std::path::Path;

use futures_util::future::BoxFuture;
use tower_lsp_server::lsp_types::Uri;
use tower_lsp_server::{Client, UriExt};

use super::documents::Documents;
use super::workspace_edit::{self, EditCapabilities};

/// Sends `workspace/applyEdit` turning `original` into `content`; `None` when the client can't
/// express the edit (a new file without `create` support), so the caller writes the disk.
pub fn apply_edit(
    client: &Client,
    documents: &Documents,
    caps: EditCapabilities,
    path: &Path,
    shown: &str,
    original: Option<&str>,
    content: &str,
) -> Option<BoxFuture<'static, Result<(), String>>> {
    // An open document is edited under the client's own URI and at the version its text is
    // (so an editor that got newer keystrokes meanwhile refuses the edit rather than misplace
    // it); any other file under its path.
    let open = documents.document(path);
    let (uri, version) = match open {
        Some(doc) => (doc.uri, doc.version),
        None => (Uri::from_file_path(path)?, None),
    };
    let description = format!("Tandem's edit of {shown}, as you approved it");
    let edit = workspace_edit::build(&uri, version, original, content, &description, caps)?;
    let client = client.clone();
    let (documents, path, content) = (documents.clone(), path.to_path_buf(), content.to_string());
    Some(Box::pin(async move {
        match client.apply_edit(edit).await {
            Ok(answer) if answer.applied => {
                // The buffer holds the new text now, but the client's didChange may come late
                // (Neovim waits 150 ms, eglot until Emacs is idle): without this, the next
                // edit of the file in the same turn would be checked against the old text
                // and refused as stale. The client's own didChange supersedes it.
                documents.changed_by_us(&path, content);
                Ok(())
            }
            Ok(answer) => Err(answer
                .failure_reason
                .unwrap_or_else(|| "the editor answered applied: false".into())),
            Err(e) => Err(format!("the editor failed the request: {}", e.message)),
        }
    }))
}
