//! The agent for an LSP client that did not declare `experimental.tandem`: Neovim, Emacs, Helix
//! and the like, through requests they already implement.
//!
//! A turn's progress goes out as `$/progress`, its answer as `window/logMessage` while it streams
//! and `window/showMessage` at the end; approvals are `window/showMessageRequest`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::Client;
use tower_lsp_server::lsp_types::notification::Progress;
use tower_lsp_server::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp_server::lsp_types::{
    ClientCapabilities, MessageActionItem, MessageType, NumberOrString, ProgressParams,
    ProgressParamsValue, ResourceOperationKind, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd, WorkDoneProgressReport,
};

use super::documents::Documents;
use super::editor;
use super::workspace_edit::EditCapabilities;
use tandem_agent::Frontend;
use tandem_agent::approval::{
    ApprovalAction, ApprovalReply, ApprovalRequest, Decision, queued_reply,
};
use tandem_agent::events::{Event, StopReason, ToolCallEvent, ToolStatus};

/// The commands a plain client runs through `workspace/executeCommand`.
pub const ASK: &str = "tandem.ask";
pub const NEW_SESSION: &str = "tandem.newSession";
pub const CANCEL: &str = "tandem.cancel";
pub const UNDO: &str = "tandem.undo";
pub const SHOW_TRANSCRIPT: &str = "tandem.showTranscript";
pub const COMMANDS: [&str; 5] = [ASK, NEW_SESSION, CANCEL, UNDO, SHOW_TRANSCRIPT];

const ACCEPT: &str = "Accept";
const REJECT: &str = "Reject";
const ALWAYS: &str = "Always";

/// The longest answer shown in one `window/showMessage`; the transcript has all of it.
const MAX_MESSAGE: usize = 4000;

/// What the client can do, from its `initialize` capabilities.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlainCapabilities {
    pub work_done_progress: bool,
    pub edits: EditCapabilities,
}

impl PlainCapabilities {
    pub fn of(caps: &ClientCapabilities) -> Self {
        let edit = caps
            .workspace
            .as_ref()
            .and_then(|w| w.workspace_edit.as_ref());
        Self {
            work_done_progress: caps
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            edits: EditCapabilities {
                document_changes: edit.and_then(|e| e.document_changes).unwrap_or(false),
                create_files: edit
                    .and_then(|e| e.resource_operations.as_ref())
                    .is_some_and(|ops| ops.contains(&ResourceOperationKind::Create)),
                change_annotations: edit.is_some_and(|e| e.change_annotation_support.is_some()),
            },
        }
    }
}

enum Outgoing {
    Update(String, String, Event),
    Approval(ApprovalRequest, oneshot::Sender<ApprovalReply>),
}

pub struct PlainFrontend {
    queue: mpsc::UnboundedSender<Outgoing>,
    client: Client,
    capabilities: PlainCapabilities,
    folders: Vec<PathBuf>,
    documents: Documents,
}

impl PlainFrontend {
    pub fn start(
        client: Client,
        capabilities: PlainCapabilities,
        folders: Vec<PathBuf>,
        documents: Documents,
    ) -> Arc<Self> {
        let (queue, rx) = mpsc::unbounded_channel();
        tokio::spawn(
            Forwarder {
                client: client.clone(),
                capabilities,
                turn: None,
            }
            .run(rx),
        );
        Arc::new(Self {
            queue,
            client,
            capabilities,
            folders,
            documents,
        })
    }
}

impl PlainFrontend {
    /// A path as the user is shown it: relative to the workspace folder that holds it.
    fn shown(&self, path: &Path) -> String {
        let root = self.folders.iter().find(|f| path.starts_with(f));
        match root {
            Some(root) => tandem_stdx::display_relative(path, root),
            None => path.display().to_string(),
        }
    }
}

impl Frontend for PlainFrontend {
    fn update(&self, session_id: &str, turn_id: &str, event: Event) {
        let _ = self.queue.send(Outgoing::Update(
            session_id.to_string(),
            turn_id.to_string(),
            event,
        ));
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        let (tx, rx) = oneshot::channel();
        let sent = self.queue.send(Outgoing::Approval(request, tx));
        queued_reply(sent, rx)
    }

    /// An open document's text as the editor holds it; the disk's for the others.
    fn read_text(&self, path: &Path) -> Option<BoxFuture<'static, Result<String, String>>> {
        let text = self.documents.get_path(path)?;
        Some(Box::pin(async move { Ok(text) }))
    }

    /// Through `workspace/applyEdit`, so the edit lands in the editor's buffer and undo history.
    /// A new file the client can't create goes to disk instead (there is no buffer to bypass).
    fn write_text(
        &self,
        path: &Path,
        original: Option<&str>,
        content: &str,
    ) -> Option<BoxFuture<'static, Result<(), String>>> {
        let shown = self.shown(path);
        editor::apply_edit(
            &self.client,
            &self.documents,
            self.capabilities.edits,
            path,
            &shown,
            original,
            content,
        )
    }
}

/// The running turn as the client sees it.
struct TurnView {
    token: Option<NumberOrString>,
    /// The answer so far (for the final message).
    answer: String,
    /// Text not yet logged because its line isn't complete.
    pending_line: String,
}

/// Sends to the client in order, one turn's view at a time.
struct Forwarder {
    client: Client,
    capabilities: PlainCapabilities,
    turn: Option<TurnView>,
}

impl Forwarder {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
        while let Some(item) = rx.recv().await {
            match item {
                Outgoing::Update(session_id, turn_id, event) => {
                    self.update(&session_id, &turn_id, event).await
                }
                Outgoing::Approval(request, reply) => {
                    // Asked in its own task: the question may stay open while updates flow.
                    let client = self.client.clone();
                    let message = approval_message(&request);
                    tokio::spawn(async move {
                        let _ = reply.send(ask(&client, message).await);
                    });
                }
            }
        }
    }

    async fn update(&mut self, session_id: &str, turn_id: &str, event: Event) {
        match event {
            Event::TurnStarted { prompt } => {
                let token = self.begin_progress(session_id, turn_id, &prompt).await;
                self.turn = Some(TurnView {
                    token,
                    answer: String::new(),
                    pending_line: String::new(),
                });
            }
            Event::Text { delta } => {
                let Some(view) = self.turn.as_mut() else {
                    return;
                };
                view.answer.push_str(&delta);
                view.pending_line.push_str(&delta);
                if let Some(cut) = view.pending_line.rfind('\n') {
                    let lines: String = view.pending_line.drain(..=cut).collect();
                    self.client
                        .log_message(MessageType::INFO, lines.trim_end_matches('\n'))
                        .await;
                }
            }
            Event::Reasoning { .. } => {}
            Event::ToolCall(ToolCallEvent { title, .. }) => {
                // The text before a tool call is a line of its own, in the log and in the answer:
                // models rarely end it with a newline, and the next step's text would be glued on.
                if let Some(view) = self.turn.as_mut() {
                    let pending = std::mem::take(&mut view.pending_line);
                    if !view.answer.is_empty() && !view.answer.ends_with('\n') {
                        view.answer.push('\n');
                    }
                    if !pending.is_empty() {
                        self.client.log_message(MessageType::INFO, pending).await;
                    }
                }
                self.client
                    .log_message(MessageType::INFO, format!("Tandem: {title}"))
                    .await;
                self.report(&title).await;
            }
            Event::ToolOutput { delta, .. } => {
                self.client
                    .log_message(MessageType::LOG, delta.trim_end_matches('\n'))
                    .await;
            }
            Event::ToolResult { status, output, .. } => {
                let first = output.lines().next().unwrap_or("");
                let mark = match status {
                    ToolStatus::Ok => "done",
                    ToolStatus::Error => "failed",
                    ToolStatus::Rejected => "rejected",
                };
                self.client
                    .log_message(MessageType::INFO, format!("Tandem: {mark}: {first}"))
                    .await;
            }
            Event::Usage { .. } | Event::Compaction { .. } => {}
            Event::Rules { files } => {
                let names: Vec<String> =
                    files.iter().map(|f| f.path.display().to_string()).collect();
                self.client
                    .log_message(
                        MessageType::INFO,
                        format!("Tandem: rules files in effect: {}", names.join(", ")),
                    )
                    .await;
            }
            Event::Notice { message } => {
                self.client
                    .log_message(MessageType::WARNING, format!("Tandem: {message}"))
                    .await;
            }
            Event::TurnEnded {
                stop_reason, error, ..
            } => {
                let Some(view) = self.turn.take() else { return };
                if !view.pending_line.is_empty() {
                    self.client
                        .log_message(MessageType::INFO, &view.pending_line)
                        .await;
                }
                self.end_progress(view.token.as_ref()).await;
                let (typ, message) = final_message(&view.answer, stop_reason, error.as_deref());
                self.client.show_message(typ, message).await;
            }
        }
    }

    async fn begin_progress(
        &self,
        session_id: &str,
        turn_id: &str,
        prompt: &str,
    ) -> Option<NumberOrString> {
        if !self.capabilities.work_done_progress {
            return None;
        }
        let token = NumberOrString::String(format!("tandem/{session_id}/{turn_id}"));
        self.client
            .send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams {
                token: token.clone(),
            })
            .await
            .ok()?;
        let begin = WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: "Tandem".into(),
            cancellable: Some(true),
            message: Some(
                prompt
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(80)
                    .collect(),
            ),
            percentage: None,
        });
        self.progress(&token, begin).await;
        Some(token)
    }

    async fn report(&self, message: &str) {
        if let Some(token) = self.turn.as_ref().and_then(|t| t.token.clone()) {
            let report = WorkDoneProgress::Report(WorkDoneProgressReport {
                cancellable: Some(true),
                message: Some(message.to_string()),
                percentage: None,
            });
            self.progress(&token, report).await;
        }
    }

    async fn end_progress(&self, token: Option<&NumberOrString>) {
        if let Some(token) = token {
            let end = WorkDoneProgress::End(WorkDoneProgressEnd { message: None });
            self.progress(token, end).await;
        }
    }

    async fn progress(&self, token: &NumberOrString, value: WorkDoneProgress) {
        self.client
            .send_notification::<Progress>(ProgressParams {
                token: token.clone(),
                value: ProgressParamsValue::WorkDone(value),
            })
            .await;
    }
}

/// What the user is shown when a turn ends.
fn final_message(answer: &str, stop: StopReason, error: Option<&str>) -> (MessageType, String) {
    let mut answer = answer.trim().to_string();
    if tandem_stdx::truncate_in_place(&mut answer, MAX_MESSAGE) {
        answer.push_str("\n… (the whole answer: run tandem.showTranscript)");
    }
    match stop {
        StopReason::EndTurn if answer.is_empty() => (MessageType::INFO, "Tandem: done.".into()),
        StopReason::EndTurn => (MessageType::INFO, answer),
        StopReason::Cancelled => (MessageType::WARNING, "Tandem: cancelled.".into()),
        StopReason::MaxSteps => (
            MessageType::WARNING,
            format!("{answer}\nTandem: stopped at the step limit.")
                .trim()
                .to_string(),
        ),
        StopReason::Error => (
            MessageType::ERROR,
            format!("Tandem: {}", error.unwrap_or("the turn failed")),
        ),
    }
}

/// The question for an approval: the file and the size of the change, or the command.
fn approval_message(request: &ApprovalRequest) -> String {
    match &request.action {
        ApprovalAction::Edit(edit) => {
            let what = if edit.original.is_none() {
                "create"
            } else {
                "edit"
            };
            format!(
                "Tandem wants to {what} {} (+{} −{} lines). Apply?",
                edit.diff.display_path, edit.diff.added, edit.diff.removed
            )
        }
        ApprovalAction::Command(command) => {
            let place = if command.display_cwd == "." {
                "the workspace root".to_string()
            } else {
                command.display_cwd.clone()
            };
            let outside = if command.outside_sandbox {
                ", outside the sandbox (network, writes anywhere)"
            } else {
                ""
            };
            format!(
                "Tandem wants to run `{}` in {place}{outside}. Run it?",
                command.command
            )
        }
        ApprovalAction::Mcp(call) => format!(
            "Tandem wants to call the MCP tool `{}` of server `{}` with {}. Call it?",
            call.tool,
            call.server,
            tandem_stdx::truncated(&call.arguments.to_string(), 300, "…")
        ),
        ApprovalAction::McpServer(server) => format!(
            "{} names the MCP server `{}`, which runs: {}. Start it? (\"Always\" trusts it in \
             this project.)",
            server.source.display(),
            server.server,
            server.target
        ),
    }
}

async fn ask(client: &Client, message: String) -> ApprovalReply {
    let actions = [ACCEPT, REJECT, ALWAYS]
        .iter()
        .map(|t| MessageActionItem {
            title: t.to_string(),
            properties: Default::default(),
        })
        .collect();
    let answer = client
        .show_message_request(MessageType::INFO, message, Some(actions))
        .await;
    let decision = match answer {
        Ok(Some(item)) if item.title == ACCEPT => Decision::Accept,
        Ok(Some(item)) if item.title == ALWAYS => Decision::AcceptAlways,
        // Reject, or the question dismissed. No feedback: the model would take any as the user's.
        Ok(_) => Decision::Reject,
        Err(e) => {
            return ApprovalReply::reject(format!(
                "The editor could not ask the user ({}); nothing was done.",
                e.message
            ));
        }
    };
    ApprovalReply {
        decision,
        content: None,
        feedback: None,
        rejected_hunks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_agent::approval::{CommandApproval, EditApproval};
    use tandem_tools::FileDiff;

    #[test]
    fn edit_questions_name_the_file_and_the_change() {
        let request = ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "c".into(),
            action: ApprovalAction::Edit(EditApproval {
                path: "/w/src/a.rs".into(),
                original: Some("a\n".into()),
                proposed: "b\nc\n".into(),
                diff: FileDiff::new("src/a.rs", Some("a\n"), "b\nc\n"),
            }),
        };
        assert_eq!(
            approval_message(&request),
            "Tandem wants to edit src/a.rs (+2 −1 lines). Apply?"
        );
        let command = |display_cwd: &str| ApprovalRequest {
            action: ApprovalAction::Command(CommandApproval {
                command: "cargo test".into(),
                outside_sandbox: false,
                cwd: "/w".into(),
                display_cwd: display_cwd.into(),
            }),
            ..request.clone()
        };
        assert_eq!(
            approval_message(&command(".")),
            "Tandem wants to run `cargo test` in the workspace root. Run it?"
        );
        assert_eq!(
            approval_message(&command("crates/a")),
            "Tandem wants to run `cargo test` in crates/a. Run it?"
        );
    }

    #[test]
    fn long_answers_are_cut_for_the_message() {
        let (_, m) = final_message(&"é".repeat(5000), StopReason::EndTurn, None);
        assert!(m.len() < MAX_MESSAGE + 100 && m.ends_with("tandem.showTranscript)"));
        let (t, m) = final_message("", StopReason::Error, Some("boom"));
        assert_eq!((t, m.as_str()), (MessageType::ERROR, "Tandem: boom"));
    }
}
