//! The wire types. `#[ts(...)]` attributes shape the generated TypeScript.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::ids::{SessionId, ToolCallId, TurnId};

macro_rules! wire {
    ($($item:item)*) => {
        $(
            #[cfg_attr(test, derive(ts_rs::TS))]
            $item
        )*
    };
}

wire! {
/// `initialize`'s `initializationOptions`.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializationOptions {
    #[serde(default)]
    pub provider: Option<ProviderOptions>,
    #[serde(default)]
    pub approval: Option<ApprovalPolicy>,
    #[serde(default)]
    pub max_steps: Option<u32>,
    #[serde(default)]
    #[cfg_attr(test, ts(optional, type = "string"))]
    pub data_dir: Option<PathBuf>,
    /// Bounds on what the model server may send.
    #[serde(default)]
    pub limits: Option<Limits>,
    /// Plain LSP clients only: a `null` answer to an approval's `window/showMessageRequest`
    /// means "asked in a prompt of my own; the answer comes by `tandem.answer`" rather than a
    /// rejection. For editors whose request handlers must answer at once (Neovim).
    #[serde(default)]
    pub defer_questions: Option<bool>,
    /// MCP servers every session uses, beside the user's config file's.
    #[serde(default)]
    pub mcp_servers: Option<Vec<McpServer>>,
}

/// An MCP server, in the shape of ACP's `mcpServers`: `{name, command, args, env}` for a stdio
/// server (`type` absent or `"stdio"`), `{type: "http", name, url, headers}` for a Streamable
/// HTTP one. `startup` is `"lazy"` (the default: at the first request to the model) or
/// `"eager"` (at once).
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServer {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<NameValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<NameValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup: Option<String>,
}

/// An environment variable or a header.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct NameValue {
    pub name: String,
    pub value: String,
}

/// Bounds on a model answer; each is named in the error that ends a turn at it.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// Silence allowed between two bytes of an answer (default 120).
    #[serde(default)]
    pub stall_timeout_seconds: Option<f64>,
    /// Time allowed without new text, reasoning or tool-call bytes (default 300).
    #[serde(default)]
    pub progress_timeout_seconds: Option<f64>,
    /// The largest single event of a stream (default 8 MiB).
    #[serde(default)]
    pub max_event_bytes: Option<u64>,
    /// The largest answer (default 32 MiB).
    #[serde(default)]
    pub max_answer_bytes: Option<u64>,
}

/// Where the model is. Fields left out come from the environment, then discovery.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderOptions {
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub api_key: Option<String>,
    #[serde(default)]
    pub api: Option<Api>,
    /// The model's context window in tokens; wins over what the server reports, unless the
    /// server's loaded window is smaller (then that is used, and the user is told once).
    #[serde(default)]
    pub context_window: Option<u64>,
    /// How tools reach the model: `native`, `text` (described in the system prompt) or `auto`.
    #[serde(default)]
    pub tool_mode: Option<ToolMode>,
    /// The most tokens one answer may take (`max_tokens`); 0 sends none. Default: a quarter of
    /// the window, for local servers.
    #[serde(default)]
    pub max_output_tokens: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    Native,
    Text,
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Api {
    #[serde(alias = "openAi")]
    Openai,
    Anthropic,
}

/// The user's standing approval policy.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalPolicy {
    #[serde(default)]
    pub auto_approve: Option<AutoApprove>,
    /// Commands that run without asking, e.g. `"cargo test"`.
    #[serde(default)]
    pub allow_commands: Option<Vec<String>>,
    /// `"workspace-write"` (the default): commands can write only in the workspace and the temp
    /// dirs; `"off"`: no sandbox, and nothing is allow-listed unless the user auto-approves.
    #[serde(default)]
    pub sandbox: Option<Sandbox>,
    /// Commands in the sandbox may use the network (default false).
    #[serde(default)]
    pub network: Option<bool>,
    /// MCP tools that run without asking: `"SERVER/TOOL"` or `"SERVER/*"`.
    #[serde(default)]
    pub allow_mcp_tools: Option<Vec<String>>,
    /// Hosts `fetch_url` reads without asking; a private or local address is reachable only
    /// through a host listed here by name.
    #[serde(default)]
    pub allow_fetch: Option<Vec<String>>,
    /// Seconds a question waits for the user (default 600). Unanswered by then, or answered with
    /// an error, it counts as rejected and the turn goes on.
    #[serde(default)]
    pub timeout_seconds: Option<u32>,
    /// What happens to the files a command changes: `"apply"` (the default: applied when it
    /// ends, each saved for undo) or `"review"` (each changed file proposed as an edit, written
    /// only when accepted).
    #[serde(default)]
    pub command_writes: Option<CommandWrites>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommandWrites {
    Apply,
    Review,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sandbox {
    WorkspaceWrite,
    Off,
}

#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoApprove {
    #[serde(default)]
    pub edit: Option<bool>,
    #[serde(default)]
    pub command: Option<bool>,
}

/// `capabilities.experimental.tandem` of the client's `initialize`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// The client answers `tandem/requestApproval`.
    #[serde(default)]
    pub approvals: bool,
    /// The client answers `tandem/getDiagnostics`.
    #[serde(default)]
    pub diagnostics: bool,
}

#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionParams {
    /// A path or a `file://` URI; the first workspace folder when absent.
    #[serde(default)]
    pub root: Option<String>,
    /// The workspace's other folders (paths or `file://` URIs), which the tools reach by
    /// absolute path: when absent, the client's other workspace folders if `root` is absent
    /// too, else none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_roots: Option<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionResult {
    pub session_id: SessionId,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptParams {
    pub session_id: SessionId,
    pub text: String,
    #[serde(default)]
    pub context: Vec<ContextItem>,
    /// Images after the text (PNG, JPEG, WebP or GIF, checked by their bytes; see
    /// docs/protocol.md for the caps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub images: Option<Vec<PromptImage>>,
}

/// An image attached to a prompt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptImage {
    /// `image/png`, `image/jpeg`, `image/webp` or `image/gif`: must match the bytes.
    pub mime_type: String,
    /// The bytes in standard base64 (a `data:` URL is accepted too).
    pub data: String,
}

/// A piece of the workspace the user attached to a prompt.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextItem {
    /// What the item is; a file when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContextKind>,
    /// A file's or folder's path, relative to the session root or absolute inside one of its
    /// roots; the label of the editor's text (`problems`, `terminal`, `changes`); a page's URL.
    pub path: String,
    /// The text as the editor has it (unsaved changes included); read from disk when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The selected lines; the whole file when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
}

/// What an attached context item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ContextKind {
    /// A file or a selection of it.
    File,
    /// A folder: the model gets its listing (ignored and hidden files left out).
    Folder,
    /// Text the editor holds that is no file (its problems, a terminal's output, the
    /// uncommitted changes); `text` is required.
    Editor,
    /// A web page, fetched at the turn's start as a `fetch_url` call (with its approval).
    Url,
}

/// Zero-based, end-exclusive character positions, as in LSP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptResult {
    pub turn_id: TurnId,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionParams {
    pub session_id: SessionId,
}

/// `tandem/forkSession`: a new session with the conversation up to just before a turn (the user
/// edited that turn's prompt and sends it again); the original stays unchanged.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkSessionParams {
    pub session_id: SessionId,
    /// The turn the fork stops before: it and every later turn are left out.
    pub before_turn: TurnId,
}

/// An empty object result (`{}`).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct Empty {}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSessionsResult {
    pub sessions: Vec<SessionInfo>,
}

/// A session as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub session_id: SessionId,
    pub title: String,
    #[cfg_attr(test, ts(type = "string"))]
    pub root: PathBuf,
    /// The workspace's other folders (absolute paths), in order; empty for a one-folder session.
    #[serde(default)]
    #[cfg_attr(test, ts(type = "string[]"))]
    pub additional_roots: Vec<PathBuf>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadSessionResult {
    pub session_id: SessionId,
    /// The history, as the `tandem/update` params it was sent as (text coalesced).
    pub entries: Vec<UpdateParams>,
    /// Lines of the session's transcript that could not be read and are not in `entries`
    /// (each is named in the sidecar's log).
    #[serde(default)]
    pub unreadable_lines: u32,
    /// The session's mode, as recorded.
    pub mode: Mode,
}

/// The params of the `tandem/update` notification.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateParams {
    pub session_id: SessionId,
    pub turn_id: TurnId,
    #[serde(flatten)]
    pub update: Update,
}

/// One thing that happened in a turn: the body of `tandem/update`, told apart by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Update {
    /// A turn began; `prompt` is the user's text as sent.
    TurnStarted { prompt: String },
    /// A piece of the answer.
    Text { delta: String },
    /// A piece of the model's reasoning.
    Reasoning { delta: String },
    /// The model called a tool. `arguments` is the parsed JSON, or the raw text when it did not parse.
    ToolCall {
        tool_call_id: ToolCallId,
        name: String,
        #[cfg_attr(test, ts(type = "unknown"))]
        arguments: serde_json::Value,
        title: String,
    },
    /// Output of a running command, as it comes.
    ToolOutput { tool_call_id: ToolCallId, delta: String },
    /// A tool call finished.
    ToolResult {
        tool_call_id: ToolCallId,
        status: ToolStatus,
        output: String,
        /// An edit's unified diff.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
        /// With `status: "error"` from a tool's own check: what kind of failure (`stale`: the
        /// file changed since the edit was proposed). Absent when the tool ran and failed on
        /// its own terms (a command's exit code, an MCP tool's error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_kind: Option<ToolErrorKind>,
    },
    /// Files a tool call changed other than through an edit proposal (a command's writes),
    /// after they are on disk and before its `toolResult`.
    FilesChanged {
        tool_call_id: ToolCallId,
        changes: Vec<FileChangeSummary>,
    },
    /// Tokens used by the last request.
    Usage {
        prompt_tokens: u64,
        completion_tokens: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_window: Option<u64>,
    },
    /// Rules files now in effect: the project's and the user's at a session's first turn, a
    /// folder's own `AGENTS.md` when the agent first works under it.
    Rules { files: Vec<RulesFile> },
    /// The conversation was compacted to fit the model's context window (the transcript keeps
    /// all of it): `elided` old tool outputs became stubs, `summarized` messages a summary.
    Compaction {
        elided: u32,
        summarized: u32,
        tokens_before: u64,
        tokens_after: u64,
        context_window: u64,
    },
    /// Something the user should know about the model server (it cut the prompt; tools now go
    /// as text).
    ModelNotice { message: String },
    /// Something a subagent did, under the parent's `task` call `parentId`: `update` is the
    /// subagent's own (its text, tool calls and results, tokens; never `turnStarted`,
    /// `turnEnded` or another `subagent`). Its tool call ids are its own.
    Subagent {
        parent_id: ToolCallId,
        agent: String,
        update: Box<Update>,
    },
    /// The model's plan as it now stands (the whole plan each time; `entries` empty: cleared).
    Plan {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        explanation: Option<String>,
        entries: Vec<PlanEntry>,
    },
    /// The model request failed before its answer was used and is tried again in `waitMs`
    /// (retry `retry` of `maxRetries`). Transient: show it until the next update; it is not
    /// kept in the session's history.
    Retrying {
        retry: u32,
        max_retries: u32,
        /// The HTTP status that failed; absent for a connection failure, a timeout, a stream
        /// that broke before its first byte.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        /// What failed, in the server's words.
        error: String,
        wait_ms: u64,
    },
    /// The turn is over.
    TurnEnded {
        stop_reason: StopReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// With `error`: what kind of failure, so the client can offer the fix.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_kind: Option<ErrorKind>,
    },
}

/// One step of the model's plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanEntry {
    pub step: String,
    pub status: PlanStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
}

/// A session's mode: `default`, or `plan` (read-only: reading, listing, searching, fetching and
/// the plan only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    Default,
    Plan,
}

/// `tandem/setMode`'s params.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetModeParams {
    pub session_id: SessionId,
    pub mode: Mode,
}

/// A rules file the model was given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RulesFile {
    /// Absolute.
    pub path: String,
    /// Its size.
    pub bytes: u64,
    /// Only its beginning was given (rules are capped in size).
    #[serde(default)]
    pub truncated: bool,
}

/// What a turn's error is, as far as the user can act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// No model server is configured and none answered on this machine: settings.
    NoServer,
    /// The server refused the key: set one.
    Auth,
    /// The server could not be reached or the connection broke: retry.
    Connection,
    /// The conversation does not fit the model's context window.
    ContextOverflow,
    /// The answer reached its output token limit and was cut (what came is kept): ask for a
    /// shorter answer or raise the limit.
    AnswerCut,
    Other,
}

/// What a tool call's error is: the kinds the model sees as `Error (KIND): …`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolErrorKind {
    NoSuchFile,
    OutsideWorkspace,
    BinaryFile,
    TooLarge,
    InvalidArguments,
    UnknownTool,
    /// The file changed since it was read or the edit was proposed; nothing was written.
    Stale,
    Timeout,
    Cancelled,
    Io,
    /// `replace_in_file`: a SEARCH text is not in the file.
    NotFound,
    /// `replace_in_file`: a SEARCH text is in the file more than once.
    Ambiguous,
    /// `replace_in_file`: two SEARCH texts overlap.
    Overlap,
    /// `replace_in_file`: the model wrote a placeholder instead of the text.
    Placeholder,
    /// `replace_in_file`: the blocks are malformed.
    Invalid,
    /// `fetch_url`: a URL, address or content type it will not fetch.
    Refused,
    /// `fetch_url`: the server could not be reached or answered with an error.
    Network,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolStatus {
    Ok,
    Error,
    Rejected,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    EndTurn,
    Cancelled,
    MaxSteps,
    Error,
}

#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoParams {
    pub session_id: SessionId,
    /// Restore to before this turn (it and every later turn are undone); the last turn that
    /// changed files when absent.
    #[serde(default)]
    pub turn_id: Option<TurnId>,
    /// Restore even the files the user changed since the agent wrote them (after the user saw
    /// `conflicts` and agreed).
    #[serde(default)]
    pub confirm: Option<bool>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoResult {
    /// The files put back, relative to the session root.
    pub restored: Vec<String>,
    /// Files that are no longer what the agent left: restoring them loses the user's changes.
    pub conflicts: Vec<UndoConflict>,
    /// Nothing was restored because of `conflicts`: ask the user, then call again with
    /// `confirm: true`.
    pub needs_confirmation: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoConflict {
    /// Relative to the session root.
    pub path: String,
    pub change: FileChange,
    /// What restoring would lose: a unified diff from the file now to what would be put back.
    pub lost: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FileChange {
    /// Changed since the agent wrote it.
    Modified,
    /// Deleted since the agent wrote it.
    Deleted,
}

/// One file of a `filesChanged` update.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChangeSummary {
    /// Relative to the session root, `/`-separated.
    pub path: String,
    pub kind: FileChangeKind,
    /// With `renamed`: where the file was, relative to the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Lines added and removed (0 and 0 for a binary file or a mode change).
    pub added: u32,
    pub removed: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FileChangeKind {
    Created,
    Modified,
    Deleted,
    Renamed,
    ModeChanged,
}

/// `tandem/turnChanges`: every file a turn changed.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnChangesParams {
    pub session_id: SessionId,
    /// The last turn with changes not undone when absent.
    #[serde(default)]
    pub turn_id: Option<TurnId>,
}

#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnChangesResult {
    /// The turn shown; absent when no turn has changes that are not undone (then `files` is
    /// empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<TurnId>,
    /// The session root the paths are relative to.
    #[cfg_attr(test, ts(type = "string"))]
    pub root: PathBuf,
    /// By path.
    pub files: Vec<TurnFile>,
}

/// A file a turn changed: before the turn, and now (the editor's text for a file it holds).
/// The model wrote these texts: show them as text, never as markup.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnFile {
    /// Relative to the session root, `/`-separated.
    pub path: String,
    pub kind: TurnFileKind,
    /// Who made the turn's first change to it (absent for undo logs older than this record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<ChangedBy>,
    pub before: FileSide,
    pub after: FileSide,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TurnFileKind {
    Created,
    Modified,
    Deleted,
}

#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangedBy {
    pub source: ChangeSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<ToolCallId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeSource {
    Edit,
    Command,
    Mcp,
    Hook,
}

/// One side of a changed file. Texts over 1 MiB, and binary files, are not sent: their size is.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum FileSide {
    /// The file does not exist on this side.
    Absent,
    Text { text: String },
    Binary { bytes: u64 },
    TooLarge { bytes: u64 },
}

/// `tandem/filesChanged`: files the sidecar deleted or put back itself (an undo, a command), not
/// through an edit the editor applied. An editor drops (deleted) or reloads (restored) its copy.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesChangedParams {
    pub session_id: SessionId,
    pub files: Vec<FileEvent>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEvent {
    /// Absolute.
    pub path: String,
    pub kind: FileEventKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FileEventKind {
    /// Gone from the disk.
    Deleted,
    /// Holds earlier content again, or exists again.
    Restored,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListModelsResult {
    pub models: Vec<ModelInfo>,
    /// The model prompts go to.
    pub current: String,
}

/// A model the endpoint offers.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub id: String,
    /// The context window, where the endpoint says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetModelParams {
    pub model: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetDiagnosticsParams {
    /// Absolute paths.
    pub paths: Vec<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetDiagnosticsResult {
    pub diagnostics: Vec<Diagnostic>,
}

/// An error or warning the editor reports for a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub path: String,
    /// One-based.
    pub line: u32,
    pub severity: Severity,
    pub message: String,
}

/// Information and hints are not sent; a client that sends them anyway has them ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    Error,
    Warning,
    #[serde(other)]
    Other,
}

/// `tandem/requestApproval`: may this edit be written, or this command run?
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    pub session_id: SessionId,
    pub turn_id: TurnId,
    pub tool_call_id: ToolCallId,
    #[serde(flatten)]
    pub action: ApprovalAction,
    /// The subagent whose call this is; absent for the main agent's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub subagent: Option<ApprovalSubagent>,
}

/// Which subagent asks: name it with the question ("Subagent explore asks: …").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalSubagent {
    /// The `toolCallId` of the parent's `task` call that started it.
    pub parent_id: ToolCallId,
    /// Its name (its definition's).
    pub agent: String,
}

/// What is asked about, told apart by `kind`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ApprovalAction {
    Edit {
        /// The file's absolute path.
        path: String,
        /// The file's text now; absent for a new file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        original: Option<String>,
        /// The whole proposed text.
        proposed: String,
        /// Unified diff of original to proposed.
        diff: String,
    },
    Command {
        /// The command line.
        command: String,
        /// Its absolute working directory.
        cwd: String,
        /// The model asked to run it outside the sandbox (network, writes anywhere): asked
        /// always, whatever the policy or an earlier "accept always".
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[cfg_attr(test, ts(as = "Option<bool>", optional))]
        outside_sandbox: bool,
        /// Why the user is asked: which part of the line and for what (no rule admits it, an
        /// option that loads code, a write outside the workspace, a construct the allow-list
        /// does not judge, outside the sandbox). Show it with the question.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        #[cfg_attr(test, ts(as = "Option<String>", optional))]
        reason: String,
        /// The allow rules `acceptAlways` adds, for the rest of the session and in the user's
        /// own config (e.g. `cargo test` for `cargo test -p core`): show them with the "always"
        /// choice. Absent: don't offer `acceptAlways` (the sidecar would take it as `accept`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
        always: Vec<String>,
    },
    /// Call an MCP server's tool. `acceptAlways` covers this tool of this server for the
    /// session.
    Mcp {
        /// The server's configured name.
        server: String,
        /// The tool's name on the server.
        tool: String,
        /// The arguments the model gave (its raw text as a string when not JSON).
        #[cfg_attr(test, ts(type = "unknown"))]
        arguments: serde_json::Value,
    },
    /// Start an MCP server (or, with `subject: "hook"`, run a hook) that the project's
    /// `.tandem/config.toml` names. Asked at the session's first turn, whatever the policy;
    /// `acceptAlways` trusts this server or hook (this exact configuration and the files its
    /// line names) in this project from now on, except where `whyNotAlways` is set.
    McpServer {
        /// `"hook"` for a project's hook (`server` is then its event and matcher, e.g.
        /// `PreToolUse Bash`; say "Run hook …?"); absent for an MCP server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        subject: Option<String>,
        /// The server's configured name.
        server: String,
        /// What would run: the command line with the environment it sets, or the URL.
        target: String,
        /// The config file that names it.
        source: String,
        /// Set when trust can't be bound to what runs (the line names the workspace itself,
        /// runs code given inline, or names more than Tandem hashes): why "always" is not
        /// offered. Don't offer `acceptAlways` then (the sidecar would take it as `accept`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        why_not_always: Option<String>,
    },
    /// `fetch_url` GETs this URL; asked unless the host is in `approval.allowFetch`, and again
    /// for each redirect to a new host.
    Fetch {
        url: String,
        /// The URL that redirected here.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        redirected_from: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Decision {
    Accept,
    AcceptAlways,
    Reject,
}

/// The user's answer to `tandem/requestApproval`.
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalReply {
    pub decision: Decision,
    /// The user's edited version of the proposal: what gets written instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A note for the model, with a rejection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// With `accept`: the hunks of the request's `diff` the user dropped (0-based, in the
    /// diff's order); `content` holds what is left.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<u32>>", optional))]
    pub rejected_hunks: Vec<u32>,
}
}

/// The params of a method that takes none: `{}`, `null` or `[]` (what an empty Lua table
/// becomes) are all accepted.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(untagged)]
pub enum NoParams {
    #[default]
    Null,
    Object(Empty),
    Array([(); 0]),
}
