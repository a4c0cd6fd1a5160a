//! The agent core: sessions, the turn loop, approvals and transcripts.
//!
//! It talks to the model through [`ModelClient`] and to the workspace through [`tandem_tools`],
//! and to whoever drives it through [`Frontend`]. It knows nothing of JSON-RPC, LSP or editors:
//! every face (the LSP methods, plain LSP, ACP, the terminal chat) is a `Frontend`.

pub mod approval;
pub mod changes;
pub mod commands;
pub mod context;
pub mod events;
mod file_events;
pub mod fork;
pub mod hook_listing;
pub mod hooks;
pub mod images;
pub mod mcp;
mod md_folders;
pub mod mode;
mod on_demand;
pub mod outbox;
mod output_file;
pub mod plan;
pub mod prompt;
pub mod rules;
mod session;
mod session_start;
pub mod subagent;
pub mod transcript;
pub mod trust;
mod turn;
pub mod view;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use time::OffsetDateTime;
use tokio::sync::OnceCell;

use approval::{ApprovalPolicy, ApprovalReply, ApprovalRequest};
use events::Event;
use prompt::ContextItem;
use session::Session;
use tandem_model::ToolDefinition;
use tandem_provider::{ModelClient, ModelInfo};
use tandem_tools::Registry;

pub use on_demand::{CompactOutcome, McpServerState, McpServerView};
/// The id types, re-exported so a face needs no other crate to name them.
pub use tandem_model::{SessionId, ToolCallId, TurnId};

/// What a face must provide for a turn to run: somewhere to send updates, and a user to ask.
pub trait Frontend: Send + Sync + 'static {
    /// Something happened in a turn. Called in order; must not block.
    fn update(&self, session_id: &SessionId, turn_id: &TurnId, event: Event);

    /// Asks the user to approve an edit or a command. Dropping the future (on cancel) withdraws
    /// the question.
    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply>;

    /// An approval was settled, asked or not: for faces that report every decision (`tandem
    /// exec --json`). Called before the action runs (or is refused); must not block.
    fn approval_decided(
        &self,
        _request: &ApprovalRequest,
        _reply: &ApprovalReply,
        _by: approval::DecidedBy,
    ) {
    }

    /// Resolves once every update given so far has gone out to the client: a face answers
    /// `shutdown` only then, so the last turn's end is never lost to the exit.
    fn flushed(&self) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }

    /// The editor's errors and warnings for these files, once they settle after an edit.
    /// Faces without an editor report none.
    fn diagnostics(&self, _paths: Vec<PathBuf>) -> BoxFuture<'static, Vec<Diagnostic>> {
        Box::pin(async { Vec::new() })
    }

    /// Reads a text file (absolute path, inside the workspace) through the editor, so the model
    /// sees unsaved changes. `None`: the editor has nothing to say, read the disk.
    fn read_text(&self, _path: &Path) -> Option<BoxFuture<'static, Result<String, String>>> {
        None
    }

    /// Writes an approved edit through the editor (its buffer and undo history) instead of the
    /// disk. `None`: the core writes the file itself. `Err` says why the editor did not apply it;
    /// then nothing was written.
    fn write_text(
        &self,
        _path: &Path,
        _original: Option<&str>,
        _content: &str,
    ) -> Option<BoxFuture<'static, Result<(), String>>> {
        None
    }

    /// Files the core deleted or put back behind the editor's back (undo, restore, a command):
    /// a face drops or reloads its copy of each. Awaited before the undo returns (the face's
    /// copy is gone by then); must not wait for the user.
    fn files_changed(
        &self,
        _session_id: &SessionId,
        _files: Vec<events::FileEvent>,
    ) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// An error or warning the editor reports for a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub path: String,
    /// One-based.
    pub line: u32,
    pub severity: Severity,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// How the agent runs, fixed at start.
#[derive(Clone, Debug)]
pub struct AgentSettings {
    pub policy: ApprovalPolicy,
    /// The most model requests in one turn.
    pub max_steps: u32,
    /// Where transcripts and undo data live.
    pub data_dir: PathBuf,
    /// The environment variable the provider key came from, kept out of commands with the
    /// usual key names.
    pub key_var: Option<String>,
    /// MCP servers every session uses (the user's config file, the editor's settings).
    pub mcp_servers: Vec<tandem_mcp::McpServerConfig>,
    /// The user's own rules file (see [`rules::default_user_file`]); `None`: none.
    pub user_rules: Option<PathBuf>,
    /// The user's command folders, in order (see [`commands::default_user_dirs`]).
    pub user_commands: Vec<PathBuf>,
    /// Where "accept always" saves a command's rules for later sessions (the user's own config
    /// file); `None`: for this session only.
    pub rule_store: Option<std::sync::Arc<dyn approval::RuleStore>>,
    /// The user's hooks (their config file), run without asking.
    pub hooks: Vec<hooks::HookSpec>,
    /// Subagents: how many run at once, where the user's definitions are.
    pub subagents: subagent::SubagentSettings,
    /// Reads a workspace's project hooks (`.tandem/config.toml`), which run only once the user
    /// trusts them; `None`: projects have none.
    pub project_hooks: Option<std::sync::Arc<dyn hooks::ProjectHooks>>,
    /// Tandem's own config dir (and any other the face names): like [`AgentSettings::data_dir`],
    /// never written by a tool or a command, whatever the workspace's roots.
    pub protected: Vec<PathBuf>,
}

impl AgentSettings {
    pub const DEFAULT_MAX_STEPS: u32 = 50;

    /// The platform's local data dir: `~/.local/share/tandem` on Linux (`$XDG_DATA_HOME`),
    /// `~/Library/Application Support/tandem` on macOS, `%LOCALAPPDATA%\tandem` on Windows (the
    /// local one, not the roaming one: undo copies and transcripts are big and of this machine).
    /// What no tool or command writes: [`AgentSettings::protected`] and the data dir.
    pub fn protected_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = self.protected.clone();
        dirs.push(self.data_dir.clone());
        dirs
    }

    pub fn default_data_dir() -> PathBuf {
        dirs::data_local_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join("tandem")
    }
}

/// A session as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    pub session_id: SessionId,
    pub title: String,
    pub root: PathBuf,
    /// The workspace's other folders.
    pub additional_roots: Vec<PathBuf>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// A session's history as loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedSession {
    pub history: Vec<HistoryEntry>,
    /// Transcript lines that could not be read (each was logged).
    pub unreadable_lines: usize,
}

/// One entry of a session's history, as a face replays it.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryEntry {
    pub turn_id: TurnId,
    pub event: Event,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    #[error("no session {0}")]
    UnknownSession(SessionId),
    #[error("a turn is already running in session {0}; cancel it or wait for it to end")]
    TurnRunning(SessionId),
    #[error("{0}")]
    InvalidRoot(String),
    /// A saved session's workspace folder is gone.
    #[error("{0}")]
    WorkspaceGone(String),
    #[error("{0}")]
    Io(String),
    /// The model server failed, and which way (so a face can offer the fix without reading
    /// the text).
    #[error("{0}")]
    Model(String, events::TurnErrorKind),
    /// An attached image was refused (its kind, its size, its path).
    #[error("{0}")]
    InvalidImage(String),
    /// A turn id the session has no turn of (a fork's cut); the text names the turns there are.
    #[error("{0}")]
    UnknownTurn(String),
}

/// What an undo did, or would lose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoOutcome {
    /// The files put back, relative to the root.
    pub restored: Vec<String>,
    /// The files no longer what the agent left.
    pub conflicts: Vec<UndoConflict>,
    /// Nothing was restored: `conflicts` need the user's word (`confirm`).
    pub needs_confirmation: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndoConflict {
    pub path: String,
    pub change: tandem_tools::Change,
    /// What restoring would lose (a unified diff from the file now).
    pub lost: String,
}

/// What the model is told after a restore.
fn restore_note(
    turn_id: Option<&TurnId>,
    plan: &tandem_tools::UndoPlan,
    restored: &[String],
) -> String {
    let since = turn_id.map_or_else(
        || "the last turn that changed files".to_string(),
        |t| format!("turn {t}"),
    );
    let files: Vec<String> = restored
        .iter()
        .map(|path| {
            let deleted = plan
                .items
                .iter()
                .any(|i| &i.display_path == path && i.content.is_none());
            if deleted {
                format!("{path} (deleted: you had created it)")
            } else {
                path.clone()
            }
        })
        .collect();
    format!(
        "[Tandem] The user restored these files to what they were before {since}: {}. Your \
         edits to them since are gone: read them again before relying on what you changed.",
        files.join(", ")
    )
}

/// Puts a file back through the editor, when the editor holds it and can take the write; `None`
/// when it can't (then the disk is written).
async fn restore_in_editor(
    frontend: &dyn Frontend,
    item: &tandem_tools::Restore,
) -> Option<Result<(), String>> {
    let content = std::str::from_utf8(item.content.as_deref()?).ok()?;
    let current = match frontend.read_text(&item.path) {
        Some(read) => read.await.ok(),
        // The workspace's file, which a command may have swapped for a FIFO.
        None => tandem_stdx::regular::read_string(&item.path, 10 * 1024 * 1024).ok(),
    };
    let write = frontend.write_text(&item.path, current.as_deref(), content)?;
    Some(write.await)
}

/// Removes, in the background, the temp files of writes killed mid-way (a `kill -9` of an earlier
/// sidecar), so they don't linger in the user's workspace.
fn clean_up_after_crashes(ws: &tandem_tools::Workspace) {
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        let ws = ws.clone();
        runtime.spawn_blocking(move || tandem_tools::remove_stale_temp_files(&ws));
    }
}

/// The sandbox's policy for commands in `root`, as the settings say.
fn sandbox_policy(settings: &AgentSettings, root: &Path) -> tandem_sandbox::SandboxPolicy {
    walls(settings, root).policy()
}

/// What commands in `root` may touch, as the settings say.
fn walls(settings: &AgentSettings, root: &Path) -> tandem_tools::Walls {
    tandem_tools::Walls {
        root: root.to_path_buf(),
        extra_roots: Vec::new(),
        protected: Vec::new(),
        mode: settings.policy.sandbox,
        network: settings.policy.network,
        key_var: settings.key_var.clone(),
        capture: Some(tandem_tools::capture::CaptureSettings {
            passthrough: settings.policy.capture.passthrough.clone(),
            max_paths: settings.policy.capture.max_paths,
            ..tandem_tools::capture::CaptureSettings::new(settings.data_dir.join("captures"))
        }),
    }
}

/// The tools every session has: the workspace's, `fetch_url` and the plan. MCP servers' tools
/// come beside them, by their own names.
pub fn builtin_tools() -> Registry {
    Registry::workspace()
        .clone()
        .with(plan::UpdatePlan)
        .with(subagent::Task)
}

/// The agent: every session of this process, and what they share.
#[derive(Clone)]
pub struct Agent {
    inner: Arc<Inner>,
}

struct Inner {
    settings: AgentSettings,
    client: Arc<dyn ModelClient>,
    /// The built-in tools: what the turn dispatches, plan mode offers, the prompt describes and
    /// the faces are told.
    registry: Registry,
    /// Their definitions, built at the first request that needs them.
    tools: std::sync::OnceLock<Vec<ToolDefinition>>,
    /// The MCP servers every session shares; `None` when none are configured.
    mcp: Option<tandem_mcp::McpHub>,
    /// What the kernel's sandbox can enforce, asked once, beside the start (`sandbox()`).
    sandbox: OnceCell<tandem_sandbox::SandboxSupport>,
    sessions: Mutex<HashMap<SessionId, Arc<Session>>>,
    models: OnceCell<Vec<ModelInfo>>,
    /// The models as far as context windows go: asked once per process, and an endpoint that
    /// can't list them (or is slow to) counts as listing none, rather than being asked again at
    /// every step of every turn.
    windows: OnceCell<Vec<ModelInfo>>,
    /// The tool definitions for small windows (each tool's compact one), built when first
    /// needed.
    compact_tools: std::sync::OnceLock<Vec<ToolDefinition>>,
    /// The request counts the server gave, and characters per token for the rest.
    counter: Mutex<context::count::Counter>,
    /// The beginnings of the requests sent, to tell what a server's prompt cache may hold.
    sent: Mutex<context::count::SentPrefixes>,
    /// A window guessed from an overflow error that named no number.
    guessed_window: Mutex<Option<u64>>,
    /// A slot per subagent that may run at once (`task`); the others wait.
    subagent_slots: tokio::sync::Semaphore,
}

impl Inner {
    /// The built-in tools' definitions.
    fn tools(&self) -> &[ToolDefinition] {
        self.tools.get_or_init(|| self.registry.definitions())
    }

    /// The built-in tools' definitions for small windows.
    fn compact_tools(&self) -> &[ToolDefinition] {
        self.compact_tools
            .get_or_init(|| self.registry.compact_definitions())
    }

    /// What the kernel's sandbox can enforce, asked once (beside the start, or by the first
    /// command if that comes first): the question starts the sandbox launcher as a probe, which
    /// `tandem lsp`'s start need not wait for. Where walls are down that is said once (without
    /// a wall for the files every command asks, allow-list or not).
    async fn sandbox(&self) -> &tandem_sandbox::SandboxSupport {
        self.sandbox
            .get_or_init(|| async {
                let support = tokio::task::spawn_blocking(tandem_sandbox::status)
                    .await
                    .unwrap_or_else(|_| tandem_sandbox::status());
                if self.settings.policy.sandbox == approval::SandboxMode::WorkspaceWrite
                    && (!support.enforces(&sandbox_policy(&self.settings, Path::new("/")))
                        || support.namespaces.is_err())
                {
                    tracing::warn!("{}", support.describe());
                }
                support
            })
            .await
    }
}

impl Agent {
    pub fn new(settings: AgentSettings, client: Arc<dyn ModelClient>) -> Self {
        Self::with_tools(settings, client, builtin_tools())
    }

    /// An agent whose built-in tools are `registry` (a tool added there is dispatched, offered
    /// or refused by plan mode, described in both prompts and listed to the faces, with no other
    /// change).
    pub fn with_tools(
        settings: AgentSettings,
        client: Arc<dyn ModelClient>,
        registry: Registry,
    ) -> Self {
        let mcp = (!settings.mcp_servers.is_empty()).then(|| {
            // The user's own servers run as the user's programs do, unless `sandbox = true`.
            let mut servers = settings.mcp_servers.clone();
            for config in &mut servers {
                if let tandem_mcp::McpServerConfig::Stdio(s) = config {
                    s.wall(false, None, &mcp::cache_root(&settings.data_dir, None));
                }
            }
            tandem_mcp::McpHub::new(
                servers,
                tandem_mcp::HubOptions {
                    key_var: settings.key_var.clone(),
                    ..tandem_mcp::HubOptions::default()
                },
            )
        });
        if let (Some(hub), Ok(runtime)) = (&mcp, tokio::runtime::Handle::try_current()) {
            // Servers marked eager start now; a failure is told to the user at the first turn
            // (the listing reports it) and the sessions go on without that server.
            let hub = hub.clone();
            runtime.spawn(async move {
                // The hub logs each failure as it happens; this line marks the end of the start.
                let failed = hub.start_eager().await.len();
                if failed > 0 {
                    tracing::warn!(failed, "the eager MCP servers' start is over");
                } else {
                    tracing::info!("the eager MCP servers' start is over");
                }
            });
        }
        let subagent_slots = tokio::sync::Semaphore::new(settings.subagents.concurrency.max(1));
        let agent = Self {
            inner: Arc::new(Inner {
                settings,
                client,
                sandbox: OnceCell::new(),
                mcp,
                compact_tools: std::sync::OnceLock::new(),
                registry,
                tools: std::sync::OnceLock::new(),
                counter: Mutex::new(context::count::Counter::new(context::START_RATIO)),
                sent: Mutex::new(context::count::SentPrefixes::default()),
                guessed_window: Mutex::new(None),
                subagent_slots,
                sessions: Mutex::new(HashMap::new()),
                models: OnceCell::new(),
                windows: OnceCell::new(),
            }),
        };
        // The sandbox's walls are asked beside the start, not before it: the answer (a probe
        // process) is ready by the first command, and where walls are down (Windows, no
        // Landlock) the user is told at start without the start waiting for it.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let inner = agent.inner.clone();
            runtime.spawn(async move {
                inner.sandbox().await;
            });
        }
        agent
    }

    pub fn settings(&self) -> &AgentSettings {
        &self.inner.settings
    }

    fn sessions_dir(&self) -> PathBuf {
        self.inner.settings.data_dir.join("sessions")
    }

    /// Starts a session on `root`.
    pub fn new_session(&self, root: &Path) -> Result<SessionInfo, AgentError> {
        self.new_session_with(root, Vec::new())
    }

    /// Starts a session on `root` with MCP servers of its own, beside the agent's (ACP's
    /// `session/new` servers, a project config's servers). Its trusted servers start at once
    /// (the eager ones) or at the first turn; a project's wait for the user's word.
    pub fn new_session_with(
        &self,
        root: &Path,
        servers: Vec<mcp::SessionServer>,
    ) -> Result<SessionInfo, AgentError> {
        self.new_session_in(root, &[], servers)
    }

    /// [`Agent::new_session_with`] on a workspace of several folders: `root` is the primary one
    /// (relative paths, commands' directory, project settings and rules), `additional` the
    /// others, reached by absolute path. Fails, naming it, when one can't be opened.
    pub fn new_session_in(
        &self,
        root: &Path,
        additional: &[PathBuf],
        servers: Vec<mcp::SessionServer>,
    ) -> Result<SessionInfo, AgentError> {
        let mcp = mcp::SessionMcp::new(self.inner.mcp.clone(), servers);
        let protected = self.settings().protected_dirs();
        let session = Session::create(&self.sessions_dir(), root, additional, &protected, mcp)?;
        clean_up_after_crashes(&session.workspace);
        session_start::begin(self, &session, session_start::Source::Startup);
        let info = session.info();
        self.sessions()
            .insert(info.session_id.clone(), Arc::new(session));
        Ok(info)
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Arc<Session>>> {
        tandem_stdx::lock(&self.inner.sessions)
    }

    /// The session, from memory or from its transcript on disk.
    fn session(&self, session_id: &SessionId) -> Result<Arc<Session>, AgentError> {
        if let Some(s) = self.sessions().get(session_id) {
            return Ok(s.clone());
        }
        let unknown = || AgentError::UnknownSession(session_id.clone());
        // Ids are ours: anything that isn't one can't name a file.
        if !session_id.is_well_formed() {
            return Err(unknown());
        }
        // No transcript: no such session. Any other failure says what it was.
        let dir = self.sessions_dir();
        if !session::exists(&dir, session_id) {
            return Err(unknown());
        }
        let mcp = mcp::SessionMcp::new(self.inner.mcp.clone(), Vec::new());
        let loaded = Session::load(&dir, session_id, &self.settings().protected_dirs(), mcp)?;
        clean_up_after_crashes(&loaded.workspace);
        let loaded = Arc::new(loaded);
        let mut sessions = self.sessions();
        Ok(sessions.entry(session_id.clone()).or_insert(loaded).clone())
    }

    /// Starts a turn and returns its id at once; the turn runs as its own task, reporting to
    /// `frontend`. Refused while another turn of the session runs.
    pub fn prompt(
        &self,
        session_id: &SessionId,
        text: String,
        context: Vec<ContextItem>,
        frontend: Arc<dyn Frontend>,
    ) -> Result<TurnId, AgentError> {
        self.prompt_with_images(session_id, text, context, Vec::new(), frontend)
    }

    /// [`Agent::prompt`] with images (checked by [`images`]) after the text.
    pub fn prompt_with_images(
        &self,
        session_id: &SessionId,
        text: String,
        context: Vec<ContextItem>,
        images: Vec<tandem_model::Image>,
        frontend: Arc<dyn Frontend>,
    ) -> Result<TurnId, AgentError> {
        images::check_prompt(&images).map_err(|e| AgentError::InvalidImage(e.0))?;
        let session = self.session(session_id)?;
        // A session loaded from disk by a look at it (its changes, its mode) is resumed by its
        // first prompt (or its `load_session`).
        session_start::begin(self, &session, session_start::Source::Resume);
        let (turn_id, cancel) = session.begin_turn()?;
        let run = Arc::new(turn::Turn {
            agent: self.clone(),
            session,
            turn_id: turn_id.clone(),
            frontend,
            cancel,
            images,
            hooks: Default::default(),
            child: None,
            tree: Default::default(),
        });
        // A turn that panics must still end, or its session stays taken and its client waits.
        tokio::spawn(async move {
            let task = tokio::spawn({
                let run = run.clone();
                async move { run.run(text, context).await }
            });
            if let Err(e) = task.await {
                let why = if e.is_panic() {
                    "an internal error ended the turn (a bug in Tandem: please report it)"
                } else {
                    "the turn was stopped"
                };
                run.end(
                    events::StopReason::Error,
                    Some(why.to_string()),
                    Some(events::TurnErrorKind::Other),
                );
            }
        });
        Ok(turn_id)
    }

    /// Cancels the running turn, if any: its HTTP stream and command stop, and pending approvals
    /// resolve as rejected.
    pub fn cancel(&self, session_id: &SessionId) -> Result<(), AgentError> {
        self.session(session_id)?.cancel();
        Ok(())
    }

    /// Every session on disk and in memory, most recently updated first.
    pub fn list_sessions(&self) -> Vec<SessionInfo> {
        let mut found: HashMap<SessionId, SessionInfo> = HashMap::new();
        if let Ok(dir) = std::fs::read_dir(self.sessions_dir()) {
            for entry in dir.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "jsonl")
                    && let Some(info) = session::info_from_disk(&path)
                {
                    found.insert(info.session_id.clone(), info);
                }
            }
        }
        for s in self.sessions().values() {
            let info = s.info();
            found.insert(info.session_id.clone(), info);
        }
        let mut list: Vec<SessionInfo> = found.into_values().collect();
        list.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
        list
    }

    /// A session's history, loading it from disk if needed; later prompts continue it with its
    /// whole context.
    pub fn load_session(&self, session_id: &SessionId) -> Result<LoadedSession, AgentError> {
        let session = self.session(session_id)?;
        session_start::begin(self, &session, session_start::Source::Resume);
        Ok(LoadedSession {
            history: session.history(),
            unreadable_lines: session.unreadable_lines,
        })
    }

    /// Gives a session its own MCP servers again: those a client names when it reopens it
    /// (ACP's `session/load`), and its project's. They start at its next turn; the same list as
    /// before changes nothing.
    pub async fn set_session_servers(
        &self,
        session_id: &SessionId,
        servers: Vec<mcp::SessionServer>,
    ) -> Result<(), AgentError> {
        let session = self.session(session_id)?;
        session.mcp.replace(servers).await;
        Ok(())
    }

    /// A session's mode.
    pub fn session_mode(&self, session_id: &SessionId) -> Result<mode::Mode, AgentError> {
        Ok(self.session(session_id)?.mode())
    }

    /// Switches a session's mode (recorded in its transcript). Allowed while a turn runs: its
    /// next request offers the new mode's tools, and its next tool call is judged by it.
    /// The built-in tools, as the turn dispatches them (the faces list them from here).
    pub fn tools(&self) -> &Registry {
        &self.inner.registry
    }

    /// What a mode lets the model do, with the tools it offers by name: what a face shows when
    /// it lists or switches modes.
    pub fn mode_description(&self, mode: mode::Mode) -> String {
        mode.describe(&self.inner.registry)
    }

    pub fn set_mode(&self, session_id: &SessionId, mode: mode::Mode) -> Result<(), AgentError> {
        self.session(session_id)?.set_mode(mode);
        Ok(())
    }

    /// The custom commands a session offers (its workspace's and the user's), read now: a file
    /// added or changed since the last listing is seen.
    pub fn commands(&self, session_id: &SessionId) -> Result<commands::Commands, AgentError> {
        let session = self.session(session_id)?;
        Ok(commands::discover(
            &session.workspace,
            &self.settings().user_commands,
        ))
    }

    /// The custom commands a session on `root` would offer (for a client with no session yet).
    pub fn commands_at(&self, root: &Path) -> Result<commands::Commands, AgentError> {
        let workspace = tandem_tools::Workspace::new(root).map_err(|e| {
            AgentError::InvalidRoot(format!(
                "the workspace root {} can't be used: {e}",
                root.display()
            ))
        })?;
        Ok(commands::discover(
            &workspace,
            &self.settings().user_commands,
        ))
    }

    /// The custom command `name` of a session, read now; `None` when there is none.
    pub fn command(
        &self,
        session_id: &SessionId,
        name: &str,
    ) -> Result<Option<commands::CustomCommand>, AgentError> {
        let mut found = self.commands(session_id)?;
        let i = found.commands.iter().position(|c| c.name == name);
        Ok(i.map(|i| found.commands.swap_remove(i)))
    }

    /// `text` as a prompt: `/name args` of one of the session's custom commands becomes that
    /// command's text; anything else is left as it is.
    pub fn expand_command(
        &self,
        session_id: &SessionId,
        text: String,
    ) -> Result<String, AgentError> {
        let Some((name, arguments)) = commands::invocation(&text) else {
            return Ok(text);
        };
        Ok(match self.command(session_id, name)? {
            Some(command) => command.expand(arguments),
            None => text,
        })
    }

    /// The model's plan in a session, as it last sent it.
    pub fn session_plan(&self, session_id: &SessionId) -> Result<Option<plan::Plan>, AgentError> {
        Ok(self.session(session_id)?.plan())
    }

    /// The root of a session.
    pub fn session_root(&self, session_id: &SessionId) -> Result<PathBuf, AgentError> {
        Ok(self.session(session_id)?.workspace.root().to_path_buf())
    }

    /// The session's other folders (canonical), those that could be opened.
    pub fn session_additional_roots(
        &self,
        session_id: &SessionId,
    ) -> Result<Vec<PathBuf>, AgentError> {
        Ok(self
            .session(session_id)?
            .workspace
            .additional_roots()
            .to_vec())
    }

    /// Every file `turn_id` changed (the last turn with changes not undone when `None`), by
    /// whom, before the turn and now (an open file as the editor holds it). `Ok(None)`: no such
    /// turn changed a file that is not undone. Read-only; works on a session loaded from disk.
    pub async fn turn_changes(
        &self,
        session_id: &SessionId,
        turn_id: Option<TurnId>,
        frontend: &dyn Frontend,
    ) -> Result<Option<changes::TurnChanges>, AgentError> {
        let session = self.session(session_id)?;
        let saves = session
            .undo
            .turn_saves(turn_id.as_ref(), changes::MAX_SIDE_BYTES)
            .map_err(|e| AgentError::Io(e.message))?;
        let Some((turn_id, saves)) = saves else {
            return Ok(None);
        };
        Ok(Some(
            changes::TurnChanges::gather(turn_id, saves, &session.workspace, frontend).await,
        ))
    }

    /// The files of `paths` as they were before `turn_id` and as the disk holds them now, at
    /// once (no editor read): for a face showing a command's changes as it reports them. A path
    /// the undo log has no save for in that turn (it passed through unrecorded) is left out.
    pub fn turn_changes_on_disk(
        &self,
        session_id: &SessionId,
        turn_id: &TurnId,
        paths: &[&str],
    ) -> Result<Vec<changes::ChangedFile>, AgentError> {
        let session = self.session(session_id)?;
        let saves = session
            .undo
            .turn_saves_where(Some(turn_id), changes::MAX_SIDE_BYTES, &|path| {
                paths.contains(&path)
            })
            .map_err(|e| AgentError::Io(e.message))?;
        let Some((turn_id, saves)) = saves else {
            return Ok(Vec::new());
        };
        Ok(changes::TurnChanges::gather_from_disk(turn_id, saves, &session.workspace).files)
    }

    /// The turns of a session with changes not undone, oldest first.
    pub fn changed_turns(&self, session_id: &SessionId) -> Result<Vec<TurnId>, AgentError> {
        Ok(self.session(session_id)?.undo.turns())
    }

    /// Puts back the files the agent changed in `turn_id` and the turns after it (the last turn
    /// that changed anything when `None`). A file the editor holds goes back through the editor
    /// (`frontend.write_text`, as the edit came), the others on disk. Refused while a turn runs.
    ///
    /// Never loses the user's work silently: when a file is no longer what the agent left (the
    /// user changed it, or deleted it), nothing is restored unless `confirm` is set; the
    /// outcome lists those files and what restoring them would lose. The model is told what was
    /// put back, so its picture of the files stays true.
    pub async fn undo(
        &self,
        session_id: &SessionId,
        turn_id: Option<TurnId>,
        confirm: bool,
        frontend: &dyn Frontend,
    ) -> Result<UndoOutcome, AgentError> {
        let session = self.session(session_id)?;
        if session.is_running() {
            return Err(AgentError::TurnRunning(session_id.clone()));
        }
        let io = |e: tandem_tools::ToolError| AgentError::Io(e.message);
        let mut plan = session
            .undo
            .plan(&session.workspace, turn_id.as_ref())
            .map_err(io)?;
        // A file open in the editor is judged by what the editor holds.
        for item in &mut plan.items {
            if let Some(read) = frontend.read_text(&item.path)
                && let Ok(text) = read.await
            {
                item.check(Some(text.as_bytes()));
            }
        }
        let conflicts: Vec<UndoConflict> = plan
            .conflicts()
            .map(|(item, c)| UndoConflict {
                path: item.display_path.clone(),
                change: c.change,
                lost: c.lost.clone(),
            })
            .collect();
        if !conflicts.is_empty() && !confirm {
            return Ok(UndoOutcome {
                restored: Vec::new(),
                conflicts,
                needs_confirmation: true,
            });
        }
        let (mut done, mut failures) = (Vec::new(), Vec::new());
        for item in &plan.items {
            let result = match restore_in_editor(frontend, item).await {
                Some(result) => result,
                None => item.restore_to_disk().map_err(|e| e.message),
            };
            match result {
                Ok(()) => done.push(item.display_path.clone()),
                Err(why) => failures.push(format!("{}: {why}", item.display_path)),
            }
        }
        let restored = session.undo.commit(&plan, &done, &failures).map_err(io)?;
        let files = file_events::of_undo(&plan, &done);
        file_events::forget_deleted(&session.reads, &files);
        if !files.is_empty() {
            frontend.files_changed(session_id, files).await;
        }
        if !restored.is_empty() {
            session
                .tell_model(&restore_note(turn_id.as_ref(), &plan, &restored))
                .await;
        }
        Ok(UndoOutcome {
            restored,
            conflicts,
            needs_confirmation: false,
        })
    }

    /// Cancels every running turn and waits (briefly) for them to end, so no command outlives
    /// the sidecar.
    pub async fn shutdown(&self) {
        let sessions: Vec<Arc<Session>> = self.sessions().values().cloned().collect();
        for s in &sessions {
            s.cancel();
        }
        // Each turn ends by its cancel; two seconds is a safety net for one stuck in a call that
        // doesn't watch the token, after which shutdown goes on regardless.
        let turns_end = futures_util::future::join_all(sessions.iter().map(|s| s.idle()));
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), turns_end).await;
        // Then the MCP servers, each given its chance to exit before it is killed.
        let mut stops: Vec<BoxFuture<'_, ()>> = Vec::new();
        for s in &sessions {
            stops.push(Box::pin(s.mcp.shutdown()));
        }
        if let Some(hub) = &self.inner.mcp {
            stops.push(Box::pin(hub.shutdown()));
        }
        futures_util::future::join_all(stops).await;
    }

    /// The messages a turn added to the conversation, from the transcript.
    pub fn turn_messages(
        &self,
        session_id: &SessionId,
        turn_id: &TurnId,
    ) -> Result<Vec<tandem_model::Message>, AgentError> {
        let session = self.session(session_id)?;
        let loaded = transcript::read_records(session.transcript.path())
            .map_err(|e| AgentError::Io(e.to_string()))?;
        Ok(loaded
            .records
            .into_iter()
            .filter_map(|r| match r {
                transcript::Record::Message {
                    turn_id: t,
                    message,
                    ..
                } if t == *turn_id => Some(message.into()),
                _ => None,
            })
            .collect())
    }

    /// The models the endpoint offers (asked once, then remembered).
    pub async fn list_models(&self) -> Result<Vec<ModelInfo>, AgentError> {
        self.inner
            .models
            .get_or_try_init(|| async {
                self.inner.client.list_models().await.map_err(|e| {
                    let kind = events::TurnErrorKind::of(&e);
                    AgentError::Model(e.message, kind)
                })
            })
            .await
            .cloned()
    }

    /// The model requests go to.
    pub fn model(&self) -> String {
        self.inner.client.model()
    }

    /// The window requests must fit: the client's (the user's setting, an overflow error, the
    /// server), else a guess from an overflow that named no number, else the model list.
    async fn window(&self) -> Option<tandem_provider::Window> {
        self.window_of(self.inner.client.as_ref()).await
    }

    /// The window of `client`'s model: the session's, or a subagent's own model's.
    async fn window_of(&self, client: &dyn ModelClient) -> Option<tandem_provider::Window> {
        if let Some(window) = client.window().await {
            return Some(window);
        }
        if let Some(n) = *tandem_stdx::lock(&self.inner.guessed_window) {
            return Some(tandem_provider::Window::new(
                n,
                "a guess from the server's overflow error",
            ));
        }
        self.listed_window(&client.model())
            .await
            .map(|n| tandem_provider::Window::new(n, "the server's model list"))
    }

    /// The window the model list gives for `current`.
    async fn listed_window(&self, current: &str) -> Option<u64> {
        let models = self
            .inner
            .windows
            .get_or_init(|| async {
                // Bounded: a slow `/models` must not hold up the turn.
                let listed =
                    tokio::time::timeout(std::time::Duration::from_secs(2), self.list_models());
                match listed.await {
                    Ok(Ok(models)) => models,
                    _ => Vec::new(),
                }
            })
            .await;
        models
            .iter()
            .find(|m| m.id == current)
            .and_then(|m| m.context_window)
    }
}
