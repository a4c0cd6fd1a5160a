//! Files the core deleted or put back behind the editor (an undo, a command): both faces of
//! `tandem lsp` forget their synced copy of a deleted file, so the agent stops reading a buffer
//! of a file that is gone; then each tells its client in its own way.

use futures_util::future::BoxFuture;
use tower_lsp_server::Client;
use tower_lsp_server::lsp_types::{
    ApplyWorkspaceEditParams, DeleteFile, DeleteFileOptions, DocumentChangeOperation,
    DocumentChanges, ResourceOp, WorkspaceEdit, request::ApplyWorkspaceEdit,
};

use super::documents::{Document, Documents};
use super::wire::FilesChangedNote;
use tandem_agent::SessionId;
use tandem_agent::events::{FileEvent, FileEventKind};

/// Forgets the open documents of deleted files; the documents the client had open.
fn forget_deleted(documents: &Documents, files: &[FileEvent]) -> Vec<Document> {
    files
        .iter()
        .filter(|f| f.kind == FileEventKind::Deleted)
        .filter_map(|f| documents.forget(&f.path))
        .collect()
}

/// The `tandem/*` client: `tandem/filesChanged`, after forgetting the deleted documents.
pub fn notify(
    client: &Client,
    documents: &Documents,
    session_id: &SessionId,
    files: Vec<FileEvent>,
) -> BoxFuture<'static, ()> {
    forget_deleted(documents, &files);
    let client = client.clone();
    let params = crate::convert::files_changed_params(session_id, files);
    Box::pin(async move { client.send_notification::<FilesChangedNote>(params).await })
}

/// A plain client: the deleted documents it had open are forgotten and, when it takes resource
/// operations, closed with a `workspace/applyEdit` of `DeleteFile`s (`ignoreIfNotExists`: the
/// file is already gone). The answer is not waited for: nothing depends on it.
pub fn close_deleted(
    client: &Client,
    documents: &Documents,
    can_delete: bool,
    files: &[FileEvent],
) -> BoxFuture<'static, ()> {
    let open = forget_deleted(documents, files);
    if !can_delete || open.is_empty() {
        return Box::pin(async {});
    }
    let edit = delete_edit(open);
    let client = client.clone();
    Box::pin(async move {
        tokio::spawn(async move {
            if let Err(e) = client.send_request::<ApplyWorkspaceEdit>(edit).await {
                tracing::debug!("closing deleted files in the editor: {}", e.message);
            }
        });
    })
}

fn delete_edit(open: Vec<Document>) -> ApplyWorkspaceEditParams {
    let ops = open
        .into_iter()
        .map(|doc| {
            DocumentChangeOperation::Op(ResourceOp::Delete(DeleteFile {
                uri: doc.uri,
                options: Some(DeleteFileOptions {
                    recursive: None,
                    ignore_if_not_exists: Some(true),
                    annotation_id: None,
                }),
            }))
        })
        .collect();
    ApplyWorkspaceEditParams {
        label: Some("Tandem: the file is gone (undo or a command)".into()),
        edit: WorkspaceEdit {
            document_changes: Some(DocumentChanges::Operations(ops)),
            ..WorkspaceEdit::default()
        },
    }
}
