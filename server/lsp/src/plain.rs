//! The agent for an LSP client that did not declare `experimental.tandem`: Neovim, Emacs, Helix
//! and the like, through requests they already implement.
//!
//! A turn's progress goes out as `$/progress`, its answer as `window/logMessage` while it streams
//! (a sentence at a time, or what there is after a short quiet time) and `window/showMessage` at
//! the end; approvals are `window/showMessageRequest`, with Reject first (the default of clients
//! that have one), after the proposed diff was shown with `window/showDocument` where the client
//! can open documents.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use tower_lsp_server::lsp_types::notification::Progress;
use tower_lsp_server::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp_server::lsp_types::{
    ClientCapabilities, MessageActionItem, MessageType, NumberOrString, ProgressParams,
    ProgressParamsValue, ResourceOperationKind, ShowDocumentParams, Uri, WorkDoneProgress,
    WorkDoneProgressBegin, WorkDoneProgressCreateParams, WorkDoneProgressEnd,
    WorkDoneProgressReport,
};
use tower_lsp_server::{Client, UriExt};

use super::documents::Documents;
use super::editor;
use super::workspace_edit::EditCapabilities;
use tandem_agent::approval::{
    ApprovalAction, ApprovalReply, ApprovalRequest, Decision, queued_reply,
};
use tandem_agent::events::{Event, StopReason, ToolStatus, retry_line};
use tandem_agent::view::{Activity, Change, TurnView};
use tandem_agent::{Frontend, SessionId, TurnId};
use tandem_tools::{FileDiff, ToolKind};

/// The commands a plain client runs through `workspace/executeCommand`.
pub const ASK: &str = "tandem.ask";
pub const NEW_SESSION: &str = "tandem.newSession";
pub const CANCEL: &str = "tandem.cancel";
pub const UNDO: &str = "tandem.undo";
/// A turn's change set as a diff document.
pub const DIFF: &str = "tandem.diff";
pub const SHOW_TRANSCRIPT: &str = "tandem.showTranscript";
pub const ANSWER: &str = "tandem.answer";
/// The workspace's saved sessions; one reopened; a new one (as `tandem.newSession`).
pub const SESSIONS: &str = "tandem.sessions";
pub const RESUME: &str = "tandem.resume";
pub const NEW: &str = "tandem.new";
pub const COMMANDS: [&str; 10] = [
    ASK,
    NEW_SESSION,
    CANCEL,
    UNDO,
    DIFF,
    SHOW_TRANSCRIPT,
    ANSWER,
    SESSIONS,
    RESUME,
    NEW,
];

const ACCEPT: &str = "Accept";
const REJECT: &str = "Reject";
const ALWAYS: &str = "Always";
/// The order the answers are offered in: Reject first, so a client's default (Emacs's RET,
/// a picker's first entry) never says yes.
const ACTIONS: [&str; 3] = [REJECT, ACCEPT, ALWAYS];

/// How long the client gets to open a proposed diff before the question goes out anyway.
const SHOW_WAIT: Duration = Duration::from_secs(5);

/// How long streamed text without a sentence end waits before it is logged anyway.
const QUIET: Duration = Duration::from_millis(800);

/// The longest tool title or plan item in a progress report.
const PROGRESS_PART: usize = 80;

/// The longest answer shown in one `window/showMessage`; the transcript has all of it.
const MAX_MESSAGE: usize = 4000;

/// What the client can do, from its `initialize` capabilities.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlainCapabilities {
    pub work_done_progress: bool,
    /// `workspace.applyEdit`: without it, approved edits are written to disk.
    pub apply_edit: bool,
    /// `window.showDocument.support`: the proposed diff is opened before the question.
    pub show_document: bool,
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
            apply_edit: caps
                .workspace
                .as_ref()
                .and_then(|w| w.apply_edit)
                .unwrap_or(false),
            show_document: caps
                .window
                .as_ref()
                .and_then(|w| w.show_document.as_ref())
                .is_some_and(|d| d.support),
            edits: EditCapabilities {
                document_changes: edit.and_then(|e| e.document_changes).unwrap_or(false),
                create_files: edit
                    .and_then(|e| e.resource_operations.as_ref())
                    .is_some_and(|ops| ops.contains(&ResourceOperationKind::Create)),
                delete_files: edit
                    .and_then(|e| e.resource_operations.as_ref())
                    .is_some_and(|ops| ops.contains(&ResourceOperationKind::Delete)),
                change_annotations: edit.is_some_and(|e| e.change_annotation_support.is_some()),
            },
        }
    }
}

/// Approval questions the client said it will answer later (`deferQuestions`), oldest first:
/// `tandem.answer` settles the oldest one still waiting.
#[derive(Clone, Default)]
pub struct Questions(Arc<std::sync::Mutex<std::collections::VecDeque<oneshot::Sender<Decision>>>>);

impl Questions {
    fn open(&self) -> oneshot::Receiver<Decision> {
        let (tx, rx) = oneshot::channel();
        tandem_stdx::lock(&self.0).push_back(tx);
        rx
    }

    /// Answers the oldest question still waiting; `false` when none is (the questions of a
    /// cancelled turn, or ones that timed out, are gone: a late answer changes nothing).
    pub fn answer(&self, decision: Decision) -> bool {
        let mut open = tandem_stdx::lock(&self.0);
        while let Some(tx) = open.pop_front() {
            if tx.send(decision).is_ok() {
                return true;
            }
        }
        false
    }
}

/// An answer's title as a decision.
pub fn decision_of(title: &str) -> Option<Decision> {
    match title {
        ACCEPT => Some(Decision::Accept),
        ALWAYS => Some(Decision::AcceptAlways),
        REJECT => Some(Decision::Reject),
        _ => None,
    }
}

enum Outgoing {
    Update(SessionId, TurnId, Event),
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
        proposals: PathBuf,
        deferred: Option<Questions>,
    ) -> Arc<Self> {
        let (queue, rx) = mpsc::unbounded_channel();
        tokio::spawn(
            Forwarder {
                client: client.clone(),
                capabilities,
                view: TurnView::new(),
                turn: None,
                proposals,
                deferred,
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
    fn update(&self, session_id: &SessionId, turn_id: &TurnId, event: Event) {
        let _ = self
            .queue
            .send(Outgoing::Update(session_id.clone(), turn_id.clone(), event));
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

    fn files_changed(
        &self,
        _session_id: &SessionId,
        files: Vec<tandem_agent::events::FileEvent>,
    ) -> BoxFuture<'static, ()> {
        self.close_deleted(&files)
    }

    /// Through `workspace/applyEdit`, so the edit lands in the editor's buffer and undo history.
    /// A new file the client can't create goes to disk instead (there is no buffer to bypass).
    fn write_text(
        &self,
        path: &Path,
        original: Option<&str>,
        content: &str,
    ) -> Option<BoxFuture<'static, Result<(), String>>> {
        // LSP: no `workspace/applyEdit` to a client that did not declare it (it would fail
        // every edit): the core writes the approved edit to disk instead.
        if !self.capabilities.apply_edit {
            return None;
        }
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

impl PlainFrontend {
    /// Closes the client's buffers of deleted files (see `file_events`).
    fn close_deleted(&self, files: &[tandem_agent::events::FileEvent]) -> BoxFuture<'static, ()> {
        let can_delete = self.capabilities.apply_edit && self.capabilities.edits.delete_files;
        crate::file_events::close_deleted(&self.client, &self.documents, can_delete, files)
    }
}

/// What the client was shown of the running turn: its progress token and the streamed text not
/// yet logged. The turn's facts are in [`Forwarder::view`].
struct Shown {
    token: Option<NumberOrString>,
    /// Text not yet logged because its sentence isn't complete.
    pending_line: String,
}

/// Sends to the client in order, one turn's view at a time.
struct Forwarder {
    client: Client,
    capabilities: PlainCapabilities,
    /// The turn as far as it went.
    view: TurnView,
    /// Set from the turn's start to its end.
    turn: Option<Shown>,
    /// Where proposed diffs are written for the client to show.
    proposals: PathBuf,
    /// The client answers later, by `tandem.answer`, when it answers a question with `null`.
    deferred: Option<Questions>,
}

impl Forwarder {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
        loop {
            let waiting = self
                .turn
                .as_ref()
                .is_some_and(|t| !t.pending_line.is_empty());
            let item = if waiting {
                match tokio::time::timeout(QUIET, rx.recv()).await {
                    Ok(item) => item,
                    // A pause in the stream: what there is goes out now, not at the next line end.
                    Err(_) => {
                        self.log_pending().await;
                        continue;
                    }
                }
            } else {
                rx.recv().await
            };
            let Some(item) = item else { break };
            match item {
                Outgoing::Update(session_id, turn_id, event) => {
                    self.update(&session_id, &turn_id, event).await
                }
                Outgoing::Approval(request, reply) => {
                    self.log_pending().await;
                    let shown = self.show_proposal(&request).await;
                    // Asked in its own task: the question may stay open while updates flow.
                    let client = self.client.clone();
                    let message = approval_message(&request, shown.as_deref());
                    let deferred = self.deferred.clone();
                    tokio::spawn(async move {
                        let mut reply = reply;
                        // Settled elsewhere (timed out, the turn cancelled): stop waiting, so the
                        // question is no longer open to `tandem.answer`.
                        tokio::select! {
                            answer = ask(&client, message, offers_always(&request), deferred) => {
                                let _ = reply.send(answer);
                            }
                            () = reply.closed() => {}
                        }
                    });
                }
            }
        }
    }

    /// Logs the streamed text not yet logged, if there is any that is not blank.
    async fn log_pending(&mut self) {
        let Some(view) = self.turn.as_mut() else {
            return;
        };
        let pending = std::mem::take(&mut view.pending_line);
        let text = pending.trim();
        if !text.is_empty() {
            self.client.log_message(MessageType::INFO, text).await;
        }
    }

    /// Writes an edit's diff to the data dir and asks the client to show it beside the code,
    /// without taking the focus. `Some(path)` when written but not shown (the question names it).
    async fn show_proposal(&self, request: &ApprovalRequest) -> Option<PathBuf> {
        let ApprovalAction::Edit(edit) = &request.action else {
            return None;
        };
        let name = format!(
            "{}-{}.diff",
            request.session_id,
            safe_name(request.tool_call_id.as_str())
        );
        let path = self.proposals.join(name);
        // The user's alone: a diff shows the file's text.
        let written = tandem_stdx::private_dir(&self.proposals)
            .and_then(|()| tandem_stdx::write_private(&path, edit.diff.unified.as_bytes()));
        if let Err(e) = written {
            // The question still names the file and the lines; the user can see less, no more.
            tracing::warn!("could not write {}: {e}", path.display());
            return None;
        }
        if !self.capabilities.show_document {
            return Some(path);
        }
        let uri = Uri::from_file_path(&path)?;
        let show = self.client.show_document(ShowDocumentParams {
            uri,
            external: Some(false),
            take_focus: Some(false),
            selection: None,
        });
        // Bounded: everything after it waits in this queue, and a client that never answers
        // must not hold the question back.
        let shown = matches!(tokio::time::timeout(SHOW_WAIT, show).await, Ok(Ok(true)));
        (!shown).then_some(path)
    }

    async fn update(&mut self, session_id: &SessionId, turn_id: &TurnId, event: Event) {
        let mut report = false;
        for change in self.view.event(event) {
            report |= self.render(session_id, turn_id, change).await;
        }
        if report {
            self.report().await;
        }
    }

    /// Renders what the view says changed; `true` when the progress report changed.
    async fn render(&mut self, session_id: &SessionId, turn_id: &TurnId, change: Change) -> bool {
        match change {
            Change::Started => {
                let token = self
                    .begin_progress(session_id, turn_id, self.view.prompt())
                    .await;
                self.turn = Some(Shown {
                    token,
                    pending_line: String::new(),
                });
            }
            // The model began its answer: the line says so, not only the question.
            Change::Writing { .. } => return self.turn.is_some(),
            Change::Text(delta) => {
                let Some(shown) = self.turn.as_mut() else {
                    return false;
                };
                shown.pending_line.push_str(&delta);
                if let Some(cut) = sentence_end(&shown.pending_line) {
                    let done: String = shown.pending_line.drain(..cut).collect();
                    let done = done.trim();
                    if !done.is_empty() {
                        self.client.log_message(MessageType::INFO, done).await;
                    }
                }
            }
            Change::Reasoning(_)
            | Change::Said { .. }
            | Change::Compaction(_)
            | Change::Asked { .. }
            | Change::Allowed { .. }
            | Change::Refused { .. }
            | Change::Interrupted { .. } => {}
            Change::Called { id, .. } => {
                // The text before a tool call is a line of its own in the log.
                self.log_pending().await;
                let title = self.view.tool(&id).map_or("", |t| &t.title);
                self.client
                    .log_message(MessageType::INFO, format!("Tandem: {title}"))
                    .await;
                return true;
            }
            Change::Output { delta, .. } => {
                let delta = delta.trim_end_matches('\n');
                if !delta.trim().is_empty() {
                    self.client.log_message(MessageType::LOG, delta).await;
                }
            }
            // Listed with the call's result line (`Finished`); `tandem.diff` shows them.
            Change::FilesChanged { .. } => {}
            // A subagent's calls and results, as log lines under its `task` call's.
            Change::Subagent {
                parent,
                agent,
                change,
            } => {
                let Some(sub) = self.view.subagent(&parent) else {
                    return false;
                };
                let line = match *change {
                    Change::Called { id, .. } => sub.view.tool(&id).map(|t| t.title.clone()),
                    Change::Finished { id } => sub.view.tool(&id).and_then(|t| {
                        let result = t.result.as_ref()?;
                        let kind = t.announced.then_some(t.kind);
                        Some(result_line(result.status, kind, &result.output))
                    }),
                    _ => None,
                };
                if let Some(line) = line {
                    self.client
                        .log_message(MessageType::INFO, format!("Tandem:   [{agent}] {line}"))
                        .await;
                }
            }
            Change::Finished { id } => {
                let Some(tool) = self.view.tool(&id) else {
                    return false;
                };
                let Some(result) = &tool.result else {
                    return false;
                };
                let kind = tool.announced.then_some(tool.kind);
                let mut line = result_line(result.status, kind, &result.output);
                line.push_str(&files_changed_lines(&tool.files_changed));
                self.client.log_message(MessageType::INFO, line).await;
            }
            Change::Usage(_) => return self.turn.is_some(),
            Change::Plan => {
                // The whole checklist in the log; the step under way in the progress report.
                self.log_pending().await;
                let Some(plan) = self.view.plan() else {
                    return false;
                };
                self.client
                    .log_message(
                        MessageType::INFO,
                        format!("Tandem: plan\n{}", plan.checklist().trim_end()),
                    )
                    .await;
                return self.turn.is_some();
            }
            Change::Rules(files) => {
                let names: Vec<String> =
                    files.iter().map(|f| f.path.display().to_string()).collect();
                self.client
                    .log_message(
                        MessageType::INFO,
                        format!("Tandem: rules files in effect: {}", names.join(", ")),
                    )
                    .await;
            }
            Change::Notice(message) => {
                self.client
                    .log_message(MessageType::WARNING, format!("Tandem: {message}"))
                    .await;
            }
            Change::Retrying(retry) => {
                let line = retry_line(&retry);
                self.client
                    .log_message(MessageType::WARNING, format!("Tandem: {line}"))
                    .await;
                // The progress report says it too, until the next step replaces it.
                return self.turn.is_some();
            }
            Change::Ended => {
                self.log_pending().await;
                let Some(shown) = self.turn.take() else {
                    return false;
                };
                self.end_progress(shown.token.as_ref()).await;
                if let Some(end) = self.view.end() {
                    let (typ, message) =
                        final_message(self.view.answer(), end.stop_reason, end.error.as_deref());
                    self.client.show_message(typ, message).await;
                }
            }
        }
        false
    }

    async fn begin_progress(
        &self,
        session_id: &SessionId,
        turn_id: &TurnId,
        prompt: &str,
    ) -> Option<NumberOrString> {
        if !self.capabilities.work_done_progress {
            return None;
        }
        let token = NumberOrString::String(format!("tandem/{session_id}/{turn_id}"));
        let create =
            self.client
                .send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams {
                    token: token.clone(),
                });
        // Bounded, as the proposal: the turn's updates wait behind it in this queue. A client
        // that refuses (or never answers) gets no progress for this turn.
        if !matches!(tokio::time::timeout(SHOW_WAIT, create).await, Ok(Ok(()))) {
            return None;
        }
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

    /// Sends the turn's progress line as it now stands.
    async fn report(&self) {
        let Some(token) = self.turn.as_ref().and_then(|t| t.token.clone()) else {
            return;
        };
        let report = WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: Some(true),
            message: Some(progress_message(&self.view)),
            percentage: None,
        });
        self.progress(&token, report).await;
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

/// The progress report's line: the model request under way (the step), what it is doing (the
/// tool running or last run in this step, a retry), the plan's current item, and how full the
/// context is after the last request.
fn progress_message(view: &TurnView) -> String {
    // The model's words (a path it named, its plan) are cut: this is a status line.
    let short = |text: &str| tandem_stdx::truncated(text, PROGRESS_PART, "…");
    let mut line = format!("Step {}", view.step());
    if let Some(activity) = activity_line(view) {
        line.push_str(&format!(": {}", short(&activity)));
    }
    if let Some(plan) = view.plan()
        && let Some(step) = plan.current()
    {
        let plan = format!("Plan {}: {}", plan.progress(), step.step);
        line.push_str(&format!(" · {}", short(&plan)));
    }
    let usage = view.usage();
    match (usage.last, usage.last.and_then(|l| l.context_window)) {
        (Some(last), Some(window)) => line.push_str(&format!(
            " · {} of {} tokens",
            tandem_agent::context::group(last.prompt_tokens + last.completion_tokens),
            tandem_agent::context::group(window)
        )),
        (Some(last), None) => line.push_str(&format!(
            " · {} tokens",
            tandem_agent::context::group(last.prompt_tokens + last.completion_tokens)
        )),
        (None, _) => {}
    }
    line
}

/// What the turn is doing: the tool running (a `task` call's by what its subagent is doing,
/// `explore: Read src/a.rs`), a retry, or the answer being written.
fn activity_line(view: &TurnView) -> Option<String> {
    match view.activity() {
        Some(Activity::Tool(id)) => {
            let title = view.tool(id).map(|t| t.title.clone());
            match view.subagent(id) {
                Some(child) => {
                    let doing = activity_line(&child.view).or(title);
                    Some(match doing {
                        Some(doing) => format!("{}: {doing}", child.agent),
                        None => child.agent.clone(),
                    })
                }
                None => title,
            }
        }
        Some(Activity::Retrying(retry)) => Some(retry_line(retry)),
        None if view.writing() => Some("writing the answer".to_string()),
        None => None,
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

/// Where streamed text can be cut for the log: after the last sentence end (`.`, `!`, `?` or
/// `:` followed by white space) or line end. `None`: no complete sentence yet.
fn sentence_end(text: &str) -> Option<usize> {
    let mut cut = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' {
            cut = Some(i + 1);
        } else if matches!(c, '.' | '!' | '?' | ':')
            && let Some(&(j, next)) = chars.peek()
            && next.is_whitespace()
        {
            cut = Some(j + next.len_utf8());
        }
    }
    cut
}

/// The log line for a tool's result. A read's output is the file itself: its first line says
/// nothing, so reads and searches say how much they found.
fn result_line(status: ToolStatus, kind: Option<ToolKind>, output: &str) -> String {
    let mark = match status {
        ToolStatus::Ok => "done",
        ToolStatus::Error => "failed",
        ToolStatus::Rejected => "rejected",
    };
    let what = match (status, kind) {
        (ToolStatus::Ok, Some(ToolKind::Read | ToolKind::Search)) => {
            let n = output.lines().count();
            format!("{n} line{}", if n == 1 { "" } else { "s" })
        }
        _ => output.lines().next().unwrap_or("").to_string(),
    };
    format!("Tandem: {mark}: {what}")
}

/// A tool call id as part of a file name (ids come from the model).
fn safe_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

/// Where a diff's changes are, for the question: "line 2", "lines 2 and 9", "lines 2, 9 and 30".
fn change_lines(diff: &FileDiff) -> String {
    let lines: Vec<String> = diff
        .hunks
        .iter()
        .map(|h| {
            // The hunk's first changed line: past the context both sides share.
            let same = h
                .old_text
                .split_inclusive('\n')
                .zip(h.new_text.split_inclusive('\n'))
                .take_while(|(a, b)| a == b)
                .count();
            let start = if h.new_start > 0 {
                h.new_start
            } else {
                h.old_start
            };
            (start + same).to_string()
        })
        .collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => format!(" at line {one}"),
        [rest @ .., last] => format!(" at lines {} and {last}", rest.join(", ")),
    }
}

/// The question for an approval: the file, where and how much it changes, and where to see the
/// diff when the client could not be shown it; or the command. A subagent's call says which
/// subagent asks.
fn approval_message(request: &ApprovalRequest, diff_file: Option<&Path>) -> String {
    let question = action_question(request, diff_file);
    match &request.subagent {
        Some(asker) => format!("Subagent {} asks: {question}", asker.agent),
        None => question,
    }
}

fn action_question(request: &ApprovalRequest, diff_file: Option<&Path>) -> String {
    match &request.action {
        ApprovalAction::Edit(edit) => {
            let what = if edit.original.is_none() {
                "create"
            } else {
                "edit"
            };
            let see = diff_file
                .map(|p| format!(" The diff: {}.", p.display()))
                .unwrap_or_default();
            let at = if edit.original.is_none() {
                String::new()
            } else {
                change_lines(&edit.diff)
            };
            format!(
                "Tandem wants to {what} {}{at} (+{} −{} lines).{see} Apply?",
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
            let why = if command.reason.is_empty() {
                String::new()
            } else {
                format!(" Asked because {}.", command.reason)
            };
            let always = if command.always.is_empty() {
                String::new()
            } else {
                format!(
                    " (\"Always\" allows {} from now on: {}.)",
                    command
                        .always
                        .iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    ALWAYS_ADMITS
                )
            };
            format!(
                "Tandem wants to run `{}` in {place}{outside}.{why} Run it?{always}",
                command.command
            )
        }
        ApprovalAction::Mcp(call) => format!(
            "Tandem wants to call the MCP tool `{}` of server `{}` with {}. Call it?",
            call.tool,
            call.server,
            tandem_stdx::truncated(&call.arguments.to_string(), 300, "…")
        ),
        ApprovalAction::McpServer(server) => match &server.why_not_always {
            None => format!(
                "{} names the {} `{}`, which runs: {}. {} it? (\"Always\" trusts it in this \
                 project.)",
                server.source.display(),
                server.subject.noun(),
                server.server,
                server.target,
                server.subject.verb()
            ),
            Some(why) => format!(
                "{} names the {} `{}`, which runs: {}. {} it for this session? (No \
                 \"Always\": it can't be trusted for good, since {why}.)",
                server.source.display(),
                server.subject.noun(),
                server.server,
                server.target,
                server.subject.verb()
            ),
        },
        ApprovalAction::Fetch(fetch) => format!(
            "Tandem wants to fetch {}{}. Allow?",
            fetch.url,
            fetch
                .redirected_from
                .as_ref()
                .map_or(String::new(), |from| format!(" (redirected from {from})"))
        ),
    }
}

/// Whether the question offers "Always": not for a project's MCP server whose trust can't be
/// bound to what runs (its message says why).
fn offers_always(request: &ApprovalRequest) -> bool {
    match &request.action {
        ApprovalAction::McpServer(s) => s.why_not_always.is_none(),
        // A command's "always" adds rules; with none to add it would be a plain yes.
        ApprovalAction::Command(c) => !c.always.is_empty(),
        _ => true,
    }
}

/// What an allow rule admits, said with the "always" choice.
pub const ALWAYS_ADMITS: &str = "each runs unasked inside the sandbox with any further words \
    except the options that load code or write elsewhere, in this session and, saved, in your \
    config";

async fn ask(
    client: &Client,
    message: String,
    always: bool,
    deferred: Option<Questions>,
) -> ApprovalReply {
    let actions = ACTIONS
        .iter()
        .filter(|t| always || **t != ALWAYS)
        .map(|t| MessageActionItem {
            title: t.to_string(),
            properties: Default::default(),
        })
        .collect();
    // Open before it is asked: the client may send `tandem.answer` right behind its reply.
    // Answered with a title instead, this receiver is dropped and `answer` skips it.
    let pending = deferred.map(|q| q.open());
    let answer = client
        .show_message_request(MessageType::INFO, message, Some(actions))
        .await;
    let decision = match answer {
        Ok(Some(item)) => decision_of(&item.title).unwrap_or(Decision::Reject),
        // The client asks in a prompt of its own and answers by `tandem.answer`; else the
        // question was dismissed. No feedback: the model would take any as the user's.
        Ok(None) => match pending {
            Some(later) => later.await.unwrap_or(Decision::Reject),
            None => Decision::Reject,
        },
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

/// A call's changed files, for its result line in the log: one indented line a file, at most
/// [`MAX_FILES_LOGGED`] (the rest counted), control characters in a path escaped.
fn files_changed_lines(changes: &[tandem_agent::events::FileChange]) -> String {
    use tandem_agent::events::FileChangeKind as K;
    let escape = |p: &str| -> String {
        p.chars()
            .map(|c| {
                if c.is_control() {
                    format!("\\u{{{:x}}}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect()
    };
    let mut text = String::new();
    for c in changes.iter().take(MAX_FILES_LOGGED) {
        let path = escape(&c.path);
        let what = match &c.kind {
            K::Created => format!("created {path}"),
            K::Modified => format!("modified {path}"),
            K::Deleted => format!("deleted {path}"),
            K::Renamed { from } => format!("renamed {} → {path}", escape(from)),
            K::ModeChanged => format!("mode changed {path}"),
        };
        text.push_str(&format!("\n  {what} (+{} -{})", c.added, c.removed));
    }
    if changes.len() > MAX_FILES_LOGGED {
        text.push_str(&format!(
            "\n  … and {} more files (tandem.diff shows them all)",
            changes.len() - MAX_FILES_LOGGED
        ));
    }
    text
}

const MAX_FILES_LOGGED: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_agent::approval::{CommandApproval, EditApproval};
    use tandem_tools::FileDiff;

    #[test]
    fn a_calls_changed_files_are_listed_under_its_result_line_escaped_and_capped() {
        use tandem_agent::events::{FileChange, FileChangeKind as K};
        let change = |path: &str, kind| FileChange {
            path: path.into(),
            kind,
            added: 1,
            removed: 0,
        };
        assert_eq!(
            files_changed_lines(&[
                change("a\nTandem: fake line", K::Created),
                change("b", K::Renamed { from: "c".into() }),
            ]),
            "\n  created a\\u{a}Tandem: fake line (+1 -0)\n  renamed c → b (+1 -0)"
        );
        let many: Vec<FileChange> = (0..25)
            .map(|i| change(&format!("f{i}"), K::Modified))
            .collect();
        let text = files_changed_lines(&many);
        assert_eq!(text.lines().count(), 1 + MAX_FILES_LOGGED + 1);
        assert!(text.ends_with("… and 5 more files (tandem.diff shows them all)"));
    }

    #[test]
    fn edit_questions_name_the_file_and_the_change() {
        let request = ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "c".into(),
            subagent: None,
            action: ApprovalAction::Edit(EditApproval {
                path: "/w/src/a.rs".into(),
                original: Some("a\n".into()),
                proposed: "b\nc\n".into(),
                diff: FileDiff::new("src/a.rs", Some("a\n"), "b\nc\n"),
            }),
        };
        assert_eq!(
            approval_message(&request, None),
            "Tandem wants to edit src/a.rs at line 1 (+2 −1 lines). Apply?"
        );
        // Two hunks, named by their first changed line; the diff file when it was not shown.
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l3\n", "three\n").replace("l15\n", "fifteen\n");
        let two = ApprovalRequest {
            action: ApprovalAction::Edit(EditApproval {
                path: "/w/n.txt".into(),
                original: Some(old.clone()),
                proposed: new.clone(),
                diff: FileDiff::new("n.txt", Some(&old), &new),
            }),
            ..request.clone()
        };
        assert_eq!(
            approval_message(&two, Some(Path::new("/d/p.diff"))),
            "Tandem wants to edit n.txt at lines 3 and 15 (+2 −2 lines). The diff: /d/p.diff. \
             Apply?"
        );
        let command = |display_cwd: &str| ApprovalRequest {
            action: ApprovalAction::Command(CommandApproval {
                command: "cargo test".into(),
                outside_sandbox: false,
                cwd: "/w".into(),
                display_cwd: display_cwd.into(),
                reason: String::new(),
                always: Vec::new(),
            }),
            ..request.clone()
        };
        assert_eq!(
            approval_message(&command("."), None),
            "Tandem wants to run `cargo test` in the workspace root. Run it?"
        );
        assert_eq!(
            approval_message(&command("crates/a"), None),
            "Tandem wants to run `cargo test` in crates/a. Run it?"
        );
        let mut why = command(".");
        if let ApprovalAction::Command(c) = &mut why.action {
            c.reason = "`cargo test`: no rule admits this command".into();
            c.always = vec!["cargo test".into()];
        }
        let message = approval_message(&why, None);
        assert!(
            message.starts_with(
                "Tandem wants to run `cargo test` in the workspace root. Asked because \
                 `cargo test`: no rule admits this command. Run it? (\"Always\" allows \
                 `cargo test` from now on: each runs unasked"
            ),
            "{message}"
        );
        assert!(offers_always(&why) && !offers_always(&command(".")));
    }

    #[test]
    fn streamed_text_is_cut_after_sentences_and_lines() {
        assert_eq!(sentence_end("Reading the file"), None);
        assert_eq!(sentence_end("See a.py"), None);
        assert_eq!(sentence_end("Done. Next"), Some(6));
        assert_eq!(sentence_end("One! Two? Three"), Some(10));
        assert_eq!(sentence_end("line\nmore"), Some(5));
        assert_eq!(
            sentence_end("Done."),
            None,
            "the sentence may go on: 'Done.py'"
        );
    }

    #[test]
    fn reads_log_their_size_not_the_files_first_line() {
        let read = result_line(
            ToolStatus::Ok,
            Some(ToolKind::Read),
            "1 | def greet():\n2 |   x",
        );
        assert_eq!(read, "Tandem: done: 2 lines");
        let edit = result_line(
            ToolStatus::Ok,
            Some(ToolKind::Edit),
            "Applied the edit.\nmore",
        );
        assert_eq!(edit, "Tandem: done: Applied the edit.");
        let failed = result_line(ToolStatus::Error, Some(ToolKind::Read), "Error (io): gone");
        assert_eq!(failed, "Tandem: failed: Error (io): gone");
    }

    #[test]
    fn the_progress_line_counts_steps_by_model_requests() {
        use tandem_agent::plan::{Plan, PlanStep, StepStatus};
        let mut view = TurnView::new();
        view.event(Event::TurnStarted {
            prompt: "go".into(),
            context: Vec::new(),
        });
        assert_eq!(progress_message(&view), "Step 1");
        let usage = |prompt_tokens, context_window| Event::Usage {
            prompt_tokens,
            completion_tokens: 0,
            context_window,
        };
        view.event(Event::Text { delta: "a".into() });
        // While the answer streams the line says so.
        assert_eq!(progress_message(&view), "Step 1: writing the answer");
        view.event(usage(1234, Some(8192)));
        // The step's tools run after its request ended: still step 1.
        view.event(Event::ToolCall(tandem_agent::events::ToolCallEvent {
            tool_call_id: "c".into(),
            name: "replace_in_file".into(),
            arguments: serde_json::json!({}),
            title: "Edit a.py".into(),
            kind: ToolKind::Edit,
            location: None,
        }));
        let plan = |step: &str| {
            Event::Plan(Plan {
                explanation: None,
                steps: vec![
                    PlanStep {
                        step: "Read it".into(),
                        status: StepStatus::Completed,
                    },
                    PlanStep {
                        step: step.into(),
                        status: StepStatus::InProgress,
                    },
                    PlanStep {
                        step: "Test it".into(),
                        status: StepStatus::Pending,
                    },
                ],
            })
        };
        view.event(plan("Change it"));
        assert_eq!(
            progress_message(&view),
            "Step 1: Edit a.py · Plan 1/3 done: Change it · 1,234 of 8,192 tokens"
        );
        let writes = view.event(Event::Text { delta: "b".into() });
        assert_eq!(
            writes.first(),
            Some(&Change::Writing { step: 2 }),
            "the next request is a new step"
        );
        assert_eq!(
            progress_message(&view),
            "Step 2: writing the answer · Plan 1/3 done: Change it · 1,234 of 8,192 tokens"
        );
        view.event(usage(1_500_000, None));
        assert_eq!(
            progress_message(&view),
            "Step 2 · Plan 1/3 done: Change it · 1,500,000 tokens"
        );
        // A model's long path or plan item is cut: the line is for a status bar.
        view.event(plan(&"p".repeat(500)));
        view.event(Event::ToolCall(tandem_agent::events::ToolCallEvent {
            tool_call_id: "d".into(),
            name: "read_file".into(),
            arguments: serde_json::json!({}),
            title: format!("Read {}", "é".repeat(400)),
            kind: ToolKind::Read,
            location: None,
        }));
        assert!(progress_message(&view).len() < 2 * (2 * PROGRESS_PART + 40));
        assert_eq!(tandem_agent::context::group(999), "999");
        assert_eq!(tandem_agent::context::group(1000), "1,000");
    }

    #[test]
    fn the_progress_line_says_what_a_running_subagent_does() {
        let call = |id: &str, name: &str, title: &str| {
            Event::ToolCall(tandem_agent::events::ToolCallEvent {
                tool_call_id: id.into(),
                name: name.into(),
                arguments: serde_json::json!({}),
                title: title.into(),
                kind: ToolKind::Other,
                location: None,
            })
        };
        let nested = |event: Event| Event::Subagent {
            parent: "t".into(),
            agent: "explore".into(),
            event: Box::new(event),
        };
        let mut view = TurnView::new();
        view.event(Event::TurnStarted {
            prompt: "go".into(),
            context: Vec::new(),
        });
        view.event(call("t", "task", "Task: find alpha"));
        view.event(nested(call("t/c", "read_file", "Read src/a.rs")));
        assert_eq!(progress_message(&view), "Step 1: explore: Read src/a.rs");
        view.event(nested(Event::Text {
            delta: "alpha is".into(),
        }));
        assert_eq!(
            progress_message(&view),
            "Step 1: explore: writing the answer"
        );
    }

    #[test]
    fn a_subagents_question_names_it() {
        let request = ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "t/c".into(),
            subagent: Some(tandem_agent::approval::AskingSubagent {
                parent: "t".into(),
                agent: "runner".into(),
            }),
            action: ApprovalAction::Command(CommandApproval {
                command: "make".into(),
                outside_sandbox: false,
                cwd: "/w".into(),
                display_cwd: ".".into(),
                reason: String::new(),
                always: Vec::new(),
            }),
        };
        assert_eq!(
            approval_message(&request, None),
            "Subagent runner asks: Tandem wants to run `make` in the workspace root. Run it?"
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
