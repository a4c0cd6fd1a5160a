//! One session: a conversation, a workspace, its transcript and its undo log.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

use super::approval::ApprovalAction;
use super::events::Event;
use super::mode::Mode;
use super::plan::Plan;
use super::transcript::{self, Record, Transcript};
use super::{AgentError, HistoryEntry, SessionInfo};
use tandem_model::{Message, SessionId, ToolCallId, TurnId};
use tandem_tools::{ReadTracker, UndoLog, Workspace};

pub(super) struct Session {
    pub id: SessionId,
    pub workspace: Workspace,
    pub created_at: OffsetDateTime,
    pub transcript: Transcript,
    pub undo: UndoLog,
    pub reads: ReadTracker,
    /// The conversation as the model sees it, system prompt first. Held by a turn while it runs.
    pub conversation: tokio::sync::Mutex<Vec<Message>>,
    /// Transcript lines that could not be read when the session was loaded.
    pub unreadable_lines: usize,
    /// Its MCP servers' tools.
    pub mcp: super::mcp::SessionMcp,
    state: Mutex<State>,
    /// Whether a turn runs, for those who wait for its end ([`Session::idle`]).
    busy: tokio::sync::watch::Sender<bool>,
}

/// What changes as the session goes, outside the conversation.
struct State {
    title: String,
    updated_at: OffsetDateTime,
    history: Vec<HistoryEntry>,
    turns: u32,
    running: Option<CancellationToken>,
    /// The user chose "accept always" for this kind in this session.
    always_edit: bool,
    /// Allow rules the user's "accept always" added to commands in this session.
    always_commands: Vec<String>,
    /// MCP tools (server, tool) the user chose "accept always" for.
    always_mcp: HashSet<(String, String)>,
    /// The rules files were given (at the first turn).
    rules_given: bool,
    /// The rules files given so far, absolute.
    rules_seen: HashSet<PathBuf>,
    /// The project's hooks the user trusted (or that were trusted for good), set when they are
    /// put to the user at the session's first turn in this process.
    /// Each with what it named when trusted ([`crate::trust::TrustStore::snapshot`]).
    project_hooks: Vec<(crate::hooks::HookSpec, String)>,
    /// The user's `SessionStart` hooks as started when the session opened, until the first turn
    /// takes up what they said.
    started: Option<crate::hooks::started::Started>,
    /// The `SessionStart` hooks were started (once per session in this process).
    start_claimed: bool,
    /// What the model may do (read-only in plan mode).
    mode: Mode,
    /// The model's plan as it last sent it.
    plan: Option<Plan>,
}

pub(super) fn transcript_path(dir: &Path, id: &SessionId) -> PathBuf {
    dir.join(format!("{id}.jsonl"))
}

/// Whether a transcript for `id` is on disk.
pub(super) fn exists(dir: &Path, id: &SessionId) -> bool {
    transcript_path(dir, id).exists()
}

fn undo_dir(dir: &Path, id: &SessionId) -> PathBuf {
    dir.join(format!("{id}.undo"))
}

/// A loaded session's workspace with the additional roots it had that can still be opened: one
/// that is gone is left out (its paths are then outside, for the tools and for undo), not a
/// reason to refuse the whole session, whose primary root is there.
fn with_remaining_roots(workspace: Workspace, id: &SessionId, additional: &[PathBuf]) -> Workspace {
    let mut workspace = workspace;
    for root in additional {
        match workspace.clone().with_additional_roots([root]) {
            Ok(with) => workspace = with,
            Err(e) => tracing::warn!(session = %id, "{e}: the session goes on without it"),
        }
    }
    workspace
}

fn io_err(e: std::io::Error) -> AgentError {
    AgentError::Io(e.to_string())
}

impl Session {
    /// A new session on `root`, with `additional` as the workspace's other roots.
    pub fn create(
        dir: &Path,
        root: &Path,
        additional: &[PathBuf],
        protected: &[PathBuf],
        mcp: super::mcp::SessionMcp,
    ) -> Result<Self, AgentError> {
        let workspace = Workspace::new(root).map_err(|e| {
            AgentError::InvalidRoot(format!(
                "the workspace root {} can't be used: {e}",
                root.display()
            ))
        })?;
        if !workspace.root().is_dir() {
            return Err(AgentError::InvalidRoot(format!(
                "the workspace root {} is not a directory",
                root.display()
            )));
        }
        let workspace = workspace
            .with_additional_roots(additional)
            .map_err(|e| {
                AgentError::InvalidRoot(format!("{e}: open the session without that folder"))
            })?
            .protecting(protected);
        let id = SessionId::generate();
        let created_at = OffsetDateTime::now_utc();
        let transcript = Transcript::create(
            &transcript_path(dir, &id),
            &Record::Session {
                session_id: id.clone(),
                root: workspace.root().to_path_buf(),
                additional_roots: workspace.additional_roots().to_vec(),
                created_at,
                format_version: transcript::FORMAT_VERSION,
            },
        )
        .map_err(io_err)?;
        let undo = UndoLog::open(&undo_dir(dir, &id)).map_err(io_err)?;
        let system = Message::System {
            content: super::prompt::workspace_system_prompt(&workspace),
        };
        Ok(Self {
            id,
            workspace,
            created_at,
            transcript,
            undo,
            reads: ReadTracker::default(),
            conversation: tokio::sync::Mutex::new(vec![system]),
            unreadable_lines: 0,
            mcp,
            busy: tokio::sync::watch::Sender::new(false),
            state: Mutex::new(State {
                title: String::new(),
                updated_at: created_at,
                history: Vec::new(),
                turns: 0,
                running: None,
                always_edit: false,
                always_commands: Vec::new(),
                always_mcp: HashSet::new(),
                rules_given: false,
                rules_seen: HashSet::new(),
                project_hooks: Vec::new(),
                started: None,
                start_claimed: false,
                mode: Mode::Default,
                plan: None,
            }),
        })
    }

    /// Brings a session back from its transcript.
    pub fn load(
        dir: &Path,
        id: &SessionId,
        protected: &[PathBuf],
        mcp: super::mcp::SessionMcp,
    ) -> Result<Self, AgentError> {
        let path = transcript_path(dir, id);
        let loaded = transcript::read_records(&path).map_err(|e| {
            AgentError::Io(format!(
                "the transcript of session {id} ({}) can't be read: {e}",
                path.display()
            ))
        })?;
        let roots = loaded.records.iter().find_map(|r| match r {
            Record::Session {
                root,
                additional_roots,
                ..
            } => Some((root.clone(), additional_roots.clone())),
            _ => None,
        });
        let (root, additional) = roots.ok_or_else(|| {
            AgentError::Io(format!(
                "the transcript {} has no session line: it is not a Tandem transcript, or its \
                 first line was lost",
                path.display()
            ))
        })?;
        let mut created_at = OffsetDateTime::UNIX_EPOCH;
        let mut title = String::new();
        let mut messages = Vec::new();
        let mut history = Vec::new();
        let mut turns = 0;
        let mut mode = Mode::Default;
        for record in loaded.records {
            match record {
                Record::Session { created_at: c, .. } => created_at = c,
                Record::Title { title: t } => title = t,
                Record::Message { message, .. } => {
                    messages.push(message.into_message(&transcript::images::dir_of(&path)))
                }
                Record::Update {
                    turn_id, update, ..
                } => {
                    let update = update.into_event(&root);
                    if matches!(update, Event::TurnStarted { .. }) {
                        turns += 1;
                    }
                    history.push(HistoryEntry {
                        turn_id,
                        event: update,
                    });
                }
                Record::Mode { mode: m } => mode = m.into(),
                Record::Approval { .. } | Record::Turn { .. } | Record::Compaction { .. } => {}
            }
        }
        let workspace = Workspace::new(&root).map_err(|e| {
            AgentError::WorkspaceGone(format!(
                "session {id} worked in {}, which can't be opened now ({e}): restore the folder \
                 (or move it back) to reopen the session",
                root.display()
            ))
        })?;
        let workspace = with_remaining_roots(workspace, id, &additional).protecting(protected);
        repair_conversation(&mut messages);
        // Rules are given at a session's first turn; a loaded session has had it (or, written
        // before rules files were read, goes on without them). Its folders' files given stay so.
        let rules_seen: HashSet<PathBuf> = history
            .iter()
            .filter_map(|h| match &h.event {
                Event::Rules { files } => Some(files.iter().map(|f| f.path.clone())),
                _ => None,
            })
            .flatten()
            .collect();
        let plan = history.iter().rev().find_map(|h| match &h.event {
            Event::Plan(plan) => Some(plan.clone()),
            _ => None,
        });
        let updated_at = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .map(OffsetDateTime::from)
            .unwrap_or(created_at);
        let mut conversation = vec![Message::System {
            content: super::prompt::workspace_system_prompt(&workspace),
        }];
        conversation.extend(messages);
        Ok(Self {
            id: id.clone(),
            transcript: Transcript::open(&path).map_err(io_err)?,
            undo: UndoLog::open(&undo_dir(dir, id)).map_err(io_err)?,
            workspace,
            created_at,
            reads: ReadTracker::default(),
            conversation: tokio::sync::Mutex::new(conversation),
            unreadable_lines: loaded.unreadable,
            mcp,
            busy: tokio::sync::watch::Sender::new(false),
            state: Mutex::new(State {
                title,
                updated_at,
                history,
                rules_given: turns > 0,
                turns,
                running: None,
                always_edit: false,
                always_commands: Vec::new(),
                always_mcp: HashSet::new(),
                rules_seen,
                project_hooks: Vec::new(),
                started: None,
                start_claimed: false,
                mode,
                plan,
            }),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        tandem_stdx::lock(&self.state)
    }

    pub fn info(&self) -> SessionInfo {
        let state = self.state();
        SessionInfo {
            session_id: self.id.clone(),
            title: state.title.clone(),
            root: self.workspace.root().to_path_buf(),
            additional_roots: self.workspace.additional_roots().to_vec(),
            created_at: self.created_at,
            updated_at: state.updated_at,
        }
    }

    pub fn history(&self) -> Vec<HistoryEntry> {
        self.state().history.clone()
    }

    pub fn mode(&self) -> Mode {
        self.state().mode
    }

    /// Switches the mode (recorded in the transcript); the next request offers its tools. A
    /// running turn goes on in the new mode from its next tool call.
    pub fn set_mode(&self, mode: Mode) {
        {
            let mut state = self.state();
            if state.mode == mode {
                return;
            }
            state.mode = mode;
        }
        self.persist(&Record::Mode { mode: mode.into() });
    }

    /// The model's plan as it last sent it.
    pub fn plan(&self) -> Option<Plan> {
        self.state().plan.clone()
    }

    pub fn set_plan(&self, plan: Plan) {
        self.state().plan = Some(plan);
    }

    /// Claims the session for a new turn.
    pub fn begin_turn(&self) -> Result<(TurnId, CancellationToken), AgentError> {
        let mut state = self.state();
        if state.running.is_some() {
            return Err(AgentError::TurnRunning(self.id.clone()));
        }
        state.turns += 1;
        let token = CancellationToken::new();
        state.running = Some(token.clone());
        self.busy.send_replace(true);
        Ok((TurnId::numbered(state.turns), token))
    }

    pub fn end_turn(&self) {
        self.state().running = None;
        self.busy.send_replace(false);
    }

    /// Returns once no turn runs (at once when none does).
    pub async fn idle(&self) {
        let mut busy = self.busy.subscribe();
        // The sender lives as long as `self`, so the wait can only end by the turn's end.
        let _ = busy.wait_for(|running| !*running).await;
    }

    pub fn is_running(&self) -> bool {
        self.state().running.is_some()
    }

    pub fn cancel(&self) {
        if let Some(token) = &self.state().running {
            token.cancel();
        }
    }

    /// Sets the title from the first prompt, once.
    pub fn set_title_once(&self, prompt: &str) {
        let title = {
            let mut state = self.state();
            if !state.title.is_empty() {
                return;
            }
            state.title = make_title(prompt);
            state.title.clone()
        };
        self.persist(&Record::Title { title });
    }

    /// Remembers what the user saw, for `loadSession`.
    pub fn record_update(&self, turn_id: &TurnId, event: Event) {
        let at = OffsetDateTime::now_utc();
        {
            let mut state = self.state();
            state.updated_at = at;
            state.history.push(HistoryEntry {
                turn_id: turn_id.clone(),
                event: event.clone(),
            });
        }
        self.persist(&Record::Update {
            turn_id: turn_id.clone(),
            at,
            update: (&event).into(),
        });
    }

    /// Adds a note for the model to the conversation (and the transcript), seen at the next
    /// request: what happened outside a turn that changes its picture of the workspace.
    pub async fn tell_model(&self, note: &str) {
        let mut conversation = self.conversation.lock().await;
        let message = Message::user(note.to_string());
        self.persist(&Record::Message {
            turn_id: TurnId::outside(),
            at: OffsetDateTime::now_utc(),
            message: (&message).into(),
        });
        conversation.push(message);
    }

    /// Stores a user message's images beside the transcript, before the line that names them.
    /// A failing disk loses them for a later resume only: the turn goes on.
    pub fn save_images(&self, message: &Message) {
        if let Message::User { images, .. } = message
            && let Err(e) = transcript::images::save(
                &transcript::images::dir_of(self.transcript.path()),
                images,
            )
        {
            tracing::warn!("could not store the prompt's images: {e}");
        }
    }

    /// Appends to the transcript. A failing disk must not kill the turn: the user is told on
    /// stderr and the session goes on in memory.
    pub fn persist(&self, record: &Record) {
        if let Err(e) = self.transcript.append(record) {
            tracing::warn!(
                "could not write to {}: {e}",
                self.transcript.path().display()
            );
        }
    }

    /// Whether the user chose "accept always" for what this asks: edits, commands, or this MCP
    /// server's tool.
    pub fn always(&self, action: &ApprovalAction) -> bool {
        let state = self.state();
        match action {
            ApprovalAction::Edit(_) => state.always_edit,
            // Commands: the rules "always" added join the allow rules ([`Session::always_commands`]).
            ApprovalAction::Command(_) => false,
            ApprovalAction::Mcp(m) => state
                .always_mcp
                .contains(&(m.server.clone(), m.tool.clone())),
            ApprovalAction::McpServer(_) | ApprovalAction::Fetch(_) => false,
        }
    }

    pub fn set_always(&self, action: &ApprovalAction) {
        let mut state = self.state();
        match action {
            ApprovalAction::Edit(_) => state.always_edit = true,
            ApprovalAction::Command(c) => {
                for rule in &c.always {
                    if !state.always_commands.contains(rule) {
                        state.always_commands.push(rule.clone());
                    }
                }
            }
            ApprovalAction::Mcp(m) => {
                state.always_mcp.insert((m.server.clone(), m.tool.clone()));
            }
            ApprovalAction::McpServer(_) | ApprovalAction::Fetch(_) => {}
        }
    }

    /// The allow rules "accept always" added to this session's commands.
    pub fn always_commands(&self) -> Vec<String> {
        self.state().always_commands.clone()
    }

    /// Claims the first turn's rules: true once per session.
    pub fn take_rules_turn(&self) -> bool {
        let mut state = self.state();
        !std::mem::replace(&mut state.rules_given, true)
    }

    /// The rules files given so far, to add to (see `rules::nested_rules`).
    /// The project's hooks that may run in this session.
    pub(crate) fn project_hooks(&self) -> Vec<(crate::hooks::HookSpec, String)> {
        self.state().project_hooks.clone()
    }

    pub(crate) fn set_project_hooks(&self, hooks: Vec<(crate::hooks::HookSpec, String)>) {
        self.state().project_hooks = hooks;
    }

    /// True once: the caller starts the session's `SessionStart` hooks.
    pub(crate) fn claim_start(&self) -> bool {
        !std::mem::replace(&mut self.state().start_claimed, true)
    }

    pub(crate) fn set_started(&self, started: crate::hooks::started::Started) {
        self.state().started = Some(started);
    }

    /// The `SessionStart` hooks started when the session opened, once.
    pub(crate) fn take_started(&self) -> Option<crate::hooks::started::Started> {
        self.state().started.take()
    }

    /// Stops a project hook from running for the rest of the session (what it runs changed).
    pub(crate) fn drop_project_hook(&self, hook: &crate::hooks::HookSpec) {
        self.state().project_hooks.retain(|(h, _)| h != hook);
    }

    pub fn with_rules_seen<T>(&self, f: impl FnOnce(&mut HashSet<PathBuf>) -> T) -> T {
        f(&mut self.state().rules_seen)
    }
}

/// A title from a prompt's first line, at most 60 characters.
fn make_title(prompt: &str) -> String {
    let line = prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut title: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        title.push('…');
    }
    title
}

/// A session cut off mid-turn may end with tool calls that have no results; the model's API
/// refuses such a conversation, so each missing result is filled in.
fn repair_conversation(messages: &mut Vec<Message>) {
    let mut i = 0;
    while i < messages.len() {
        if let Message::Assistant { tool_calls, .. } = &messages[i] {
            let ids: Vec<ToolCallId> = tool_calls.iter().map(|c| c.id.clone()).collect();
            for (j, id) in (i + 1..).zip(ids) {
                let answered = messages[i + 1..]
                    .iter()
                    .take_while(|m| matches!(m, Message::Tool { .. }))
                    .any(
                        |m| matches!(m, Message::Tool { tool_call_id, .. } if *tool_call_id == id),
                    );
                if !answered {
                    messages.insert(
                        j,
                        Message::Tool {
                            tool_call_id: id,
                            content: "This tool call was interrupted (the sidecar stopped) and did not complete.".into(),
                        },
                    );
                }
            }
        }
        i += 1;
    }
}

/// `listSessions` for a session not in memory, from the head of its transcript.
pub(super) fn info_from_disk(path: &Path) -> Option<SessionInfo> {
    let summary = transcript::read_summary(path)?;
    let updated_at = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map(OffsetDateTime::from)
        .unwrap_or(summary.created_at);
    Some(SessionInfo {
        session_id: summary.session_id,
        title: summary.title,
        root: summary.root,
        additional_roots: summary.additional_roots,
        created_at: summary.created_at,
        updated_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_model::ToolCall;

    #[test]
    fn titles_are_first_line_and_short() {
        assert_eq!(make_title("\n  fix the bug  \nmore"), "fix the bug");
        let long = "x".repeat(80);
        assert_eq!(make_title(&long).chars().count(), 61);
    }

    #[test]
    fn unanswered_tool_calls_get_results() {
        let call = |id: &str| ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: "{}".into(),
        };
        let mut messages = vec![
            Message::user("hi"),
            Message::Assistant {
                content: String::new(),
                reasoning: String::new(),
                tool_calls: vec![call("a"), call("b")],
            },
            Message::Tool {
                tool_call_id: "a".into(),
                content: "ok".into(),
            },
        ];
        repair_conversation(&mut messages);
        assert_eq!(messages.len(), 4);
        assert!(matches!(&messages[3], Message::Tool { tool_call_id, .. } if tool_call_id == "b"));
    }
}
