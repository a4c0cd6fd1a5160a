//! `workspace/executeCommand` and code actions for plain LSP clients: `tandem.ask` and friends.

use std::path::PathBuf;

use serde_json::{Value, json};
use tower_lsp_server::UriExt;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse, Command,
    DiagnosticSeverity, LSPAny, MessageType, ShowDocumentParams, Uri,
};

use super::plain::{
    ANSWER, ASK, CANCEL, DIFF, NEW, NEW_SESSION, RESUME, SESSIONS, SHOW_TRANSCRIPT, UNDO,
};
use super::{Backend, agent_error, invalid_params, lock};
use tandem_agent::events::{Event, ToolCallEvent, ToolStatus};
use tandem_agent::prompt::{ContextItem, ContextKind, Position as CtxPosition, Range as CtxRange};
use tandem_agent::{HistoryEntry, SessionId, TurnId};

use super::plain_location::Location;

/// What a plain client is told when `tandem.new` (or `tandem.newSession`) has made a session.
const NEW_SESSION_STARTED: &str = "Tandem: new session started; earlier ones can be resumed.";

impl Backend {
    pub(super) async fn run_command(
        &self,
        command: &str,
        arguments: Vec<Value>,
    ) -> Result<Option<LSPAny>> {
        let ready = self.ready()?;
        match command {
            ASK => {
                let text = arguments
                    .first()
                    .and_then(Value::as_str)
                    .filter(|t| !t.trim().is_empty())
                    .ok_or_else(|| {
                        invalid_params("tandem.ask takes [text, {\"uri\", \"range\"}?]".into())
                    })?
                    .to_string();
                let context = match arguments.get(1) {
                    None | Some(Value::Null) => Vec::new(),
                    Some(v) => {
                        let location: Location = serde_json::from_value(v.clone())
                            .map_err(|e| invalid_params(format!("bad location: {e}")))?;
                        vec![self.context_item(location)?]
                    }
                };
                let session_id = self.current_session()?;
                let turn_id = ready
                    .agent
                    .prompt(&session_id, text, context, ready.frontend.clone())
                    .map_err(agent_error)?;
                Ok(Some(json!({"sessionId": session_id, "turnId": turn_id})))
            }
            SESSIONS => Ok(Some(self.list_workspace_sessions().await?)),
            RESUME => Ok(Some(self.resume(&arguments).await?)),
            NEW_SESSION | NEW => {
                let root = self.default_root()?;
                let servers = project_servers(&root)?;
                let info = ready
                    .agent
                    .new_session_in(&root, &self.other_folders()?, servers)
                    .map_err(agent_error)?;
                *lock(&self.current) = Some(info.session_id.clone());
                // The editor shows nothing else: the user would not know it worked.
                self.client
                    .show_message(MessageType::INFO, NEW_SESSION_STARTED)
                    .await;
                Ok(Some(json!({"sessionId": info.session_id})))
            }
            CANCEL => {
                if let Some(session) = lock(&self.current).clone() {
                    ready.agent.cancel(&session).map_err(agent_error)?;
                }
                Ok(None)
            }
            UNDO => {
                let Some(session) = lock(&self.current).clone() else {
                    return Ok(Some(json!({"restored": []})));
                };
                // `tandem.undo` reverts the last turn that changed files; with a turn id
                // (`"t3"` or `{"turnId": "t3"}`) everything since that turn.
                let turn = arguments.first().and_then(|a| {
                    a.as_str()
                        .or_else(|| a.get("turnId").and_then(Value::as_str))
                        .map(TurnId::from)
                });
                let frontend = ready.frontend.as_ref();
                let mut outcome = ready
                    .agent
                    .undo(&session, turn.clone(), false, frontend)
                    .await
                    .map_err(agent_error)?;
                if outcome.needs_confirmation && self.confirm_restore(&outcome).await {
                    outcome = ready
                        .agent
                        .undo(&session, turn, true, frontend)
                        .await
                        .map_err(agent_error)?;
                }
                let restored = outcome.restored;
                let message = if outcome.needs_confirmation {
                    "Tandem: nothing restored; your changes are kept.".to_string()
                } else if restored.is_empty() {
                    "Tandem: nothing to undo.".to_string()
                } else {
                    format!("Tandem: restored {}", restored.join(", "))
                };
                self.client.show_message(MessageType::INFO, message).await;
                Ok(Some(json!({ "restored": restored })))
            }
            ANSWER => {
                let decision = arguments
                    .first()
                    .and_then(Value::as_str)
                    .and_then(super::plain::decision_of)
                    .ok_or_else(|| {
                        invalid_params(
                            "tandem.answer takes [\"Accept\" | \"Reject\" | \"Always\"]".into(),
                        )
                    })?;
                Ok(Some(json!({"answered": self.questions.answer(decision)})))
            }
            DIFF => self.plain_diff(&arguments).await,
            SHOW_TRANSCRIPT => {
                let session = self.current_session()?;
                let path = self.write_transcript(&session)?;
                let uri = Uri::from_file_path(&path)
                    .ok_or_else(|| internal(format!("no URI for {}", path.display())))?;
                let shown = self.show_file(uri, &path, "the transcript").await;
                Ok(Some(json!({"path": path, "shown": shown})))
            }
            super::plain_mode::SET_MODE => self.plain_set_mode(arguments).await,
            super::plain_edit::EDIT_SELECTION => self.plain_edit_selection(arguments).await,
            custom if super::custom_commands::PLAIN_COMMANDS.contains(&custom) => {
                self.plain_custom_command(custom, arguments).await
            }
            other => Err(Error {
                code: ErrorCode::InvalidParams,
                message: format!("unknown command {other}").into(),
                data: None,
            }),
        }
    }

    pub(super) fn default_root(&self) -> Result<PathBuf> {
        self.ready()?
            .folders
            .first()
            .cloned()
            .ok_or_else(|| invalid_params("the editor has no workspace folder to work in".into()))
    }

    /// The editor's workspace folders after the first: a session's additional roots.
    fn other_folders(&self) -> Result<Vec<PathBuf>> {
        Ok(self.ready()?.folders.iter().skip(1).cloned().collect())
    }

    /// The client's session, made on first use.
    pub(super) fn current_session(&self) -> Result<SessionId> {
        if let Some(session) = lock(&self.current).clone() {
            return Ok(session);
        }
        let root = self.default_root()?;
        let servers = project_servers(&root)?;
        let info = self
            .ready()?
            .agent
            .new_session_in(&root, &self.other_folders()?, servers)
            .map_err(agent_error)?;
        let mut current = lock(&self.current);
        Ok(current.get_or_insert(info.session_id).clone())
    }

    /// The selection as prompt context, with the buffer's unsaved text when the document is open.
    pub(super) fn context_item(&self, location: Location) -> Result<ContextItem> {
        let path = location
            .uri
            .to_file_path()
            .ok_or_else(|| invalid_params("the location is not a file".into()))?;
        // As the session knows its files (symlinks resolved), so it is shown inside the workspace.
        let path = super::documents::canonical(&path).display().to_string();
        let text = self.documents.get(&location.uri);
        let range = location.range.map(|r| CtxRange {
            start: CtxPosition {
                line: r.start.line,
                character: r.start.character,
            },
            end: CtxPosition {
                line: r.end.line,
                character: r.end.character,
            },
        });
        Ok(ContextItem {
            kind: ContextKind::File,
            path,
            text,
            range,
        })
    }

    /// Asks whether to restore files the user changed since the agent wrote them; keeping
    /// them is the answer unless the user picks otherwise.
    async fn confirm_restore(&self, outcome: &tandem_agent::UndoOutcome) -> bool {
        let files: Vec<&str> = outcome.conflicts.iter().map(|c| c.path.as_str()).collect();
        let message = format!(
            "Tandem: {} changed since the agent wrote {}. Restoring loses those changes.",
            files.join(", "),
            if files.len() == 1 { "it" } else { "them" }
        );
        const RESTORE: &str = "Restore anyway";
        let actions = ["Keep my changes", RESTORE]
            .map(|title| tower_lsp_server::lsp_types::MessageActionItem {
                title: title.to_string(),
                properties: Default::default(),
            })
            .to_vec();
        matches!(
            self.client
                .show_message_request(MessageType::WARNING, message, Some(actions))
                .await,
            Ok(Some(item)) if item.title == RESTORE
        )
    }

    /// `tandem.diff`: the change set of the last turn that changed files (or of the turn named,
    /// `"t3"` or `{"turnId": "t3"}`) as a unified diff in the data dir, opened in the editor.
    /// Answers `{turnId, files, path, shown}`, or `{files: []}` when there is nothing to show.
    async fn plain_diff(&self, arguments: &[Value]) -> Result<Option<LSPAny>> {
        let ready = self.ready()?;
        let Some(session) = lock(&self.current).clone() else {
            self.client
                .show_message(MessageType::INFO, "Tandem: no changes to show.")
                .await;
            return Ok(Some(json!({"files": []})));
        };
        let turn = arguments.first().and_then(|a| {
            a.as_str()
                .or_else(|| a.get("turnId").and_then(Value::as_str))
                .map(TurnId::from)
        });
        let changes = ready
            .agent
            .turn_changes(&session, turn, ready.frontend.as_ref())
            .await
            .map_err(agent_error)?;
        let Some(changes) = changes else {
            self.client
                .show_message(MessageType::INFO, "Tandem: no changes to show.")
                .await;
            return Ok(Some(json!({"files": []})));
        };
        let dir = ready.agent.settings().data_dir.join("diffs");
        let path = dir.join(format!("{session}-{}.diff", changes.turn_id));
        // The user's alone, as the files it shows.
        tandem_stdx::private_dir(&dir)
            .and_then(|()| tandem_stdx::write_private(&path, changes.unified().as_bytes()))
            .map_err(|e| internal(format!("could not write {}: {e}", path.display())))?;
        let uri = Uri::from_file_path(&path)
            .ok_or_else(|| internal(format!("no URI for {}", path.display())))?;
        let shown = self.show_file(uri, &path, "the diff").await;
        let files: Vec<&str> = changes.files.iter().map(|f| f.path.as_str()).collect();
        Ok(Some(json!({
            "turnId": changes.turn_id,
            "files": files,
            "path": path,
            "shown": shown,
        })))
    }

    /// Asks the editor to open a file Tandem wrote; says where it is when the editor can't.
    async fn show_file(&self, uri: Uri, path: &std::path::Path, what: &str) -> bool {
        let shown = self
            .client
            .show_document(ShowDocumentParams {
                uri,
                external: Some(false),
                take_focus: Some(true),
                selection: None,
            })
            .await
            .unwrap_or(false);
        if !shown {
            // Some clients can't open documents (Neovim 0.7, Emacs 28's eglot): say where it is.
            let message = format!("Tandem: {what} is in {}", path.display());
            self.client.show_message(MessageType::INFO, message).await;
        }
        shown
    }

    /// Renders the session's history as Markdown in the data dir.
    fn write_transcript(&self, session: &SessionId) -> Result<PathBuf> {
        let ready = self.ready()?;
        let history = ready.agent.load_session(session).map_err(agent_error)?;
        let dir = ready.agent.settings().data_dir.join("transcripts");
        let path = dir.join(format!("{session}.md"));
        // The user's alone, as the transcript it renders.
        tandem_stdx::private_dir(&dir)
            .and_then(|()| tandem_stdx::write_private(&path, markdown(&history.history).as_bytes()))
            .map_err(|e| internal(format!("could not write {}: {e}", path.display())))?;
        Ok(path)
    }
}

fn internal(message: String) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into(),
        data: None,
    }
}

/// "Ask about this", "Fix this" and "Edit selection…" on a selection.
pub(super) fn code_actions(params: &CodeActionParams) -> CodeActionResponse {
    let location = json!({"uri": params.text_document.uri, "range": params.range});
    let mut fix = String::from("Fix the problems in this code.");
    let problems: Vec<String> = params
        .context
        .diagnostics
        .iter()
        .map(|d| {
            let severity = match d.severity {
                Some(DiagnosticSeverity::ERROR) => "error",
                Some(DiagnosticSeverity::WARNING) => "warning",
                _ => "note",
            };
            format!(
                "- line {}: {severity}: {}",
                d.range.start.line + 1,
                d.message
            )
        })
        .collect();
    if !problems.is_empty() {
        fix.push_str("\nThe editor reports:\n");
        fix.push_str(&problems.join("\n"));
    }
    let action = |title: &str, text: String, kind: CodeActionKind| {
        CodeActionOrCommand::CodeAction(CodeAction {
            title: title.to_string(),
            kind: Some(kind),
            command: Some(Command {
                title: title.to_string(),
                command: ASK.to_string(),
                arguments: Some(vec![json!(text), location.clone()]),
            }),
            ..Default::default()
        })
    };
    vec![
        action(
            "Tandem: Ask about this",
            "Explain this code, and point out anything wrong with it.".into(),
            CodeActionKind::EMPTY,
        ),
        action("Tandem: Fix this", fix, CodeActionKind::QUICKFIX),
        CodeActionOrCommand::CodeAction(CodeAction {
            title: "Tandem: Edit selection…".into(),
            kind: Some(CodeActionKind::REFACTOR_REWRITE),
            command: Some(Command {
                title: "Tandem: Edit selection…".into(),
                command: super::plain_edit::EDIT_SELECTION.to_string(),
                arguments: Some(vec![location.clone()]),
            }),
            ..Default::default()
        }),
    ]
}

/// A session's history as a readable Markdown document.
fn markdown(history: &[HistoryEntry]) -> String {
    let mut out = String::from("# Tandem session\n");
    for entry in history {
        match &entry.event {
            Event::TurnStarted { prompt, .. } => {
                out.push_str(&format!("\n## You\n\n{prompt}\n\n## Tandem\n\n"))
            }
            Event::Text { delta } => out.push_str(delta),
            // A subagent's part is its `task` call's result, shown with the call.
            Event::Reasoning { .. }
            | Event::Subagent { .. }
            | Event::FilesChanged { .. }
            | Event::ToolOutput { .. }
            | Event::Usage { .. }
            | Event::Compaction { .. }
            | Event::Rules { .. }
            | Event::Retrying(_) => {}
            Event::Plan(plan) => out.push_str(&format!("\n\n{}\n", plan.checklist())),
            Event::Notice { message } => out.push_str(&format!("\n\n> _{message}_\n")),
            Event::ToolCall(ToolCallEvent { title, .. }) => {
                out.push_str(&format!("\n\n> **{title}**\n"))
            }
            Event::ToolResult {
                status,
                output,
                diff,
                ..
            } => {
                let mark = match status {
                    ToolStatus::Ok => "done",
                    ToolStatus::Error => "failed",
                    ToolStatus::Rejected => "rejected",
                };
                let first = output.lines().next().unwrap_or("");
                out.push_str(&format!("> {mark}: {first}\n"));
                if let Some(diff) = diff {
                    out.push_str(&format!("\n```diff\n{}\n```\n", diff.unified.trim_end()));
                }
                out.push('\n');
            }
            Event::TurnEnded { error, .. } => {
                if let Some(error) = error {
                    out.push_str(&format!("\n\n**Error:** {error}\n"));
                }
                out.push('\n');
            }
        }
    }
    out
}

/// A project's MCP servers (they wait for the user's trust); a broken project file is an error.
fn project_servers(root: &std::path::Path) -> Result<Vec<tandem_agent::mcp::SessionServer>> {
    tandem_config::project_mcp_servers(root)
        .map_err(|e| invalid_params(format!("bad project config file: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_agent::events::StopReason;

    #[test]
    fn markdown_shows_prompts_answers_and_tools() {
        let e = |event| HistoryEntry {
            turn_id: "t1".into(),
            event,
        };
        let md = markdown(&[
            e(Event::TurnStarted {
                context: Vec::new(),
                prompt: "fix it".into(),
            }),
            e(Event::ToolCall(ToolCallEvent {
                tool_call_id: "c".into(),
                name: "read_file".into(),
                arguments: json!({}),
                title: "Read a.rs".into(),
                kind: tandem_tools::ToolKind::Read,
                location: None,
            })),
            e(Event::ToolResult {
                tool_call_id: "c".into(),
                status: ToolStatus::Ok,
                output: "1 | x".into(),
                diff: None,
                error_kind: None,
            }),
            e(Event::Text {
                delta: "Fixed.".into(),
            }),
            e(Event::TurnEnded {
                stop_reason: StopReason::EndTurn,
                error: None,
                error_kind: None,
            }),
        ]);
        assert!(md.contains("## You\n\nfix it"));
        assert!(md.contains("> **Read a.rs**\n> done: 1 | x"));
        assert!(md.contains("Fixed."));
    }
}
