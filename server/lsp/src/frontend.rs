//! The agent's [`Frontend`] for an LSP client that declared `experimental.tandem`: updates become
//! `tandem/update` notifications, approvals `tandem/requestApproval` requests.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use tokio::sync::oneshot;
use tower_lsp_server::Client;

use crate::convert::{IntoCore, IntoWire};
use crate::documents::Documents;
use crate::plain::PlainCapabilities;
use crate::wire::{GetDiagnostics, RequestApproval, UpdateNote};
use crate::workspace_edit::EditCapabilities;
use tandem_agent::approval::{ApprovalReply, ApprovalRequest, queued_reply};
use tandem_agent::events::{Event, FileEvent};
use tandem_agent::outbox::{Deliver, Outbox};
use tandem_agent::{Diagnostic, Frontend, SessionId, TurnId};
use tandem_protocol::{ClientCapabilities, GetDiagnosticsParams};

/// The client's side of the shared queue: updates, and approval requests kept in order with them.
struct ToClient {
    client: Client,
}

/// Which stream an update belongs to.
type Stream = (SessionId, TurnId);

impl Deliver for ToClient {
    type Tag = Stream;
    type Other = (ApprovalRequest, oneshot::Sender<ApprovalReply>);

    async fn event(&mut self, (session_id, turn_id): Stream, event: Event) {
        let update = crate::convert::update_params(&session_id, &turn_id, event);
        self.client.send_notification::<UpdateNote>(update).await;
    }

    /// Sends the request now (after every update before it) and waits for the answer in a task
    /// of its own, so updates keep flowing while the user decides.
    async fn other(&mut self, (request, reply): Self::Other) {
        let client = self.client.clone();
        tokio::spawn(async move {
            let wire = request.into_wire();
            let answer = match client.send_request::<RequestApproval>(wire).await {
                Ok(answer) => answer.into_core(),
                Err(e) => ApprovalReply::reject(format!(
                    "The editor could not ask the user ({}); nothing was done.",
                    e.message
                )),
            };
            let _ = reply.send(answer);
        });
    }
}

pub struct LspFrontend {
    client: Client,
    capabilities: ClientCapabilities,
    editor: EditorAccess,
    outbox: Outbox<Stream, (ApprovalRequest, oneshot::Sender<ApprovalReply>)>,
}

/// What the client lets the agent do with the documents it has open: they are read as the
/// editor holds them (text document sync), and written through `workspace/applyEdit` when the
/// client declared it.
pub struct EditorAccess {
    documents: Documents,
    apply_edit: bool,
    edits: EditCapabilities,
    folders: Vec<PathBuf>,
}

impl EditorAccess {
    pub fn of(
        caps: &tower_lsp_server::lsp_types::ClientCapabilities,
        documents: Documents,
        folders: Vec<PathBuf>,
    ) -> Self {
        Self {
            documents,
            apply_edit: caps
                .workspace
                .as_ref()
                .and_then(|w| w.apply_edit)
                .unwrap_or(false),
            edits: PlainCapabilities::of(caps).edits,
            folders,
        }
    }
}

impl LspFrontend {
    /// Starts the task that sends to the client; it ends when the frontend is dropped.
    pub fn start(
        client: Client,
        capabilities: ClientCapabilities,
        editor: EditorAccess,
    ) -> Arc<Self> {
        let outbox = Outbox::start(ToClient {
            client: client.clone(),
        });
        Arc::new(Self {
            client,
            capabilities,
            editor,
            outbox,
        })
    }
}

impl Frontend for LspFrontend {
    fn flushed(&self) -> BoxFuture<'static, ()> {
        Box::pin(self.outbox.flushed())
    }

    fn update(&self, session_id: &SessionId, turn_id: &TurnId, event: Event) {
        self.outbox
            .event((session_id.clone(), turn_id.clone()), event);
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        if !self.capabilities.approvals {
            return Box::pin(async {
                ApprovalReply::reject(
                    "This editor cannot show approval requests, and the approval policy does \
                     not allow this without asking; nothing was done.",
                )
            });
        }
        let (tx, rx) = oneshot::channel();
        let sent = self.outbox.send((request, tx));
        queued_reply(sent, rx)
    }

    /// An open document's text as the editor holds it, unsaved changes included.
    fn read_text(&self, path: &Path) -> Option<BoxFuture<'static, Result<String, String>>> {
        let text = self.editor.documents.get_path(path)?;
        Some(Box::pin(async move { Ok(text) }))
    }

    /// An open document is edited in the editor (its buffer and undo history, then the editor
    /// saves it), never on the disk behind its back; other files are written to disk.
    fn write_text(
        &self,
        path: &Path,
        original: Option<&str>,
        content: &str,
    ) -> Option<BoxFuture<'static, Result<(), String>>> {
        let editor = &self.editor;
        if !editor.apply_edit || editor.documents.get_path(path).is_none() {
            return None;
        }
        let root = editor.folders.iter().find(|f| path.starts_with(f));
        let shown = root.map_or_else(
            || path.display().to_string(),
            |root| tandem_stdx::display_relative(path, root),
        );
        crate::editor::apply_edit(
            &self.client,
            &editor.documents,
            editor.edits,
            path,
            &shown,
            original,
            content,
        )
    }

    /// `tandem/filesChanged`; the deleted files' documents are forgotten first.
    fn files_changed(
        &self,
        session_id: &SessionId,
        files: Vec<FileEvent>,
    ) -> BoxFuture<'static, ()> {
        crate::file_events::notify(&self.client, &self.editor.documents, session_id, files)
    }

    fn diagnostics(&self, paths: Vec<PathBuf>) -> BoxFuture<'static, Vec<Diagnostic>> {
        if !self.capabilities.diagnostics {
            return Box::pin(async { Vec::new() });
        }
        let client = self.client.clone();
        Box::pin(async move {
            let params = GetDiagnosticsParams {
                paths: paths.iter().map(|p| p.display().to_string()).collect(),
            };
            client
                .send_request::<GetDiagnostics>(params)
                .await
                .map(|r| {
                    r.diagnostics
                        .into_iter()
                        .filter_map(|d| d.into_core())
                        .collect()
                })
                .unwrap_or_default()
        })
    }
}
