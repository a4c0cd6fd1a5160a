//! Who decides what: the user's approval policy, and the questions the core asks a face.

use std::path::PathBuf;
use std::time::Duration;

use tandem_model::{SessionId, ToolCallId, TurnId};
pub use tandem_sandbox::SandboxMode;
use tandem_tools::FileDiff;

/// The user's standing policy, fixed when the sidecar starts. Nothing the model says or reads can
/// change it; only the user's own `acceptAlways` widens it, for one session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApprovalPolicy {
    pub auto_approve: AutoApprove,
    /// Commands that run without asking, e.g. `"cargo test"`, `"git status"` (see
    /// [`ApprovalPolicy::allows_command`]): `allowCommands` and `approval.rules.allow`.
    pub allow_commands: Vec<String>,
    /// Commands that always ask, even where an allow rule or the read-only list would admit
    /// them (`approval.rules.ask`).
    pub ask_commands: Vec<String>,
    /// Commands refused without asking, whatever else says yes: an allow rule, `--yes`, the
    /// user's approval of a command outside the sandbox (`approval.rules.deny`).
    pub deny_commands: Vec<String>,
    /// Whether commands run in the sandbox (the default) or not at all.
    pub sandbox: SandboxMode,
    /// Commands in the sandbox may use the network.
    pub network: bool,
    /// MCP tools that run without asking: `"SERVER/TOOL"`, or `"SERVER/*"` for all of a
    /// server's tools (see [`ApprovalPolicy::allows_mcp_tool`]).
    pub allow_mcp_tools: Vec<String>,
    /// Hosts `fetch_url` reads without asking (names as in the URL, e.g. `docs.rs`); a private
    /// or local address is reachable only through a host listed here.
    pub allow_fetch: Vec<String>,
    /// How long a question waits for the user before it counts as rejected and the turn goes on;
    /// `None`: [`ApprovalPolicy::DEFAULT_TIMEOUT`]. A face that loses the question (an editor
    /// that drops it, a dismissed prompt that is never answered) must not hold the turn forever.
    pub timeout: Option<Duration>,
    /// What happens to a command's captured writes: applied at once, or held and proposed file
    /// by file (`approval.command_writes`).
    pub command_writes: CommandWrites,
    /// How commands' writes are captured (the `[capture]` table).
    pub capture: CaptureOptions,
}

/// `approval.command_writes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CommandWrites {
    /// Applied when the command ends, each file saved for undo (the default).
    #[default]
    Apply,
    /// Held; each changed file goes to the user as a proposed edit, written only when accepted.
    Review,
}

/// The capture's settings, set by the user only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureOptions {
    /// Directory names whose contents pass through unrecorded (and unreviewed).
    pub passthrough: Vec<String>,
    /// Past this many paths a command's writes are not applied (the capture dir is kept).
    pub max_paths: usize,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        Self {
            passthrough: tandem_tools::capture::DEFAULT_PASSTHROUGH
                .iter()
                .map(|s| s.to_string())
                .collect(),
            max_paths: tandem_tools::capture::DEFAULT_MAX_PATHS,
        }
    }
}

/// Keeps the allow rules the user's "accept always" gives for a workspace, for later sessions:
/// the user's own config (never the project's, which a repository controls).
pub trait RuleStore: Send + Sync + std::fmt::Debug {
    /// Adds `rules` to the allow rules of `workspace`; where they went (for the user), or what
    /// went wrong.
    fn save_allow(&self, workspace: &std::path::Path, rules: &[String]) -> Result<String, String>;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AutoApprove {
    pub edit: bool,
    pub command: bool,
}

impl ApprovalPolicy {
    /// Ten minutes: long enough to read a diff and think, short enough that a lost question
    /// frees the session before the user gives up on it.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

    /// How long a question waits for its answer.
    pub fn timeout(&self) -> Duration {
        self.timeout.unwrap_or(Self::DEFAULT_TIMEOUT)
    }

    /// Whether `command` runs without asking by the allow-list: its words and options, not a
    /// string prefix (the rules are `tandem_sandbox::allow`'s). A command the sandbox can't wall
    /// in is never allow-listed: that is the caller's part.
    pub fn allows_command(&self, command: &str) -> bool {
        tandem_sandbox::AllowList::new(self.allow_commands.iter().map(String::as_str))
            .allows(command)
    }

    /// The user's allow, ask and deny rules, with `extra` allow rules (a session's "always");
    /// the read-only list only when `walled` (the sandbox holds for this command).
    pub fn command_rules(&self, extra: &[String], walled: bool) -> tandem_sandbox::Rules {
        let list =
            |rules: &[String]| tandem_sandbox::AllowList::new(rules.iter().map(String::as_str));
        let mut allow = self.allow_commands.clone();
        allow.extend(extra.iter().cloned());
        tandem_sandbox::Rules {
            allow: list(&allow),
            ask: list(&self.ask_commands),
            deny: list(&self.deny_commands),
            read_only: walled,
        }
    }
}

impl ApprovalPolicy {
    /// Whether a call to `tool` of the MCP server `server` (its configured name, the tool's own
    /// name) runs without asking. Only an exact entry counts: `SERVER/TOOL` or `SERVER/*`.
    pub fn allows_mcp_tool(&self, server: &str, tool: &str) -> bool {
        self.allow_mcp_tools.iter().any(|entry| {
            entry
                .split_once('/')
                .is_some_and(|(s, t)| s == server && (t == tool || t == "*"))
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApprovalKind {
    Edit,
    Command,
    /// A call to an MCP server's tool.
    Mcp,
    /// Starting an MCP server a project's config file names.
    McpServer,
    /// `fetch_url` reading a URL.
    Fetch,
}

/// A question to the user: may this edit be written, or this command run?
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApprovalRequest {
    pub session_id: SessionId,
    pub turn_id: TurnId,
    pub tool_call_id: ToolCallId,
    pub action: ApprovalAction,
    /// The subagent whose call this is; `None` for the parent's own calls.
    pub subagent: Option<AskingSubagent>,
}

/// Which subagent asks: every face names it, so the user knows a child wants the edit or command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskingSubagent {
    /// The parent's `task` call that started it.
    pub parent: ToolCallId,
    /// Its definition's name (`explore`, …).
    pub agent: String,
}

/// What would happen if the user says yes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApprovalAction {
    Edit(EditApproval),
    Command(CommandApproval),
    /// Call an MCP server's tool with these arguments.
    Mcp(McpApproval),
    /// Start an MCP server (or run a hook) that a project's `.tandem/config.toml` names (the
    /// user's own config, the editor's settings and ACP's `session/new` need no such question).
    /// Never answered by the policy; `acceptAlways` trusts this server or hook (this command
    /// line and the files it names) in this project for good.
    McpServer(McpServerApproval),
    /// `fetch_url` GETs this URL (a redirect to a new host asks again).
    Fetch(FetchApproval),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchApproval {
    pub url: String,
    /// The URL that redirected here, when this is a redirect's new host.
    pub redirected_from: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpApproval {
    /// The server's configured name.
    pub server: String,
    /// The tool's name on the server.
    pub tool: String,
    /// The arguments the model gave (the raw text as a string when it was not JSON).
    pub arguments: serde_json::Value,
}

/// What a project's file asks to run, put to the user by the same trust question.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrustSubject {
    #[default]
    McpServer,
    /// A hook of the project's `[hooks]`: `server` is its description (event, matcher, line).
    Hook,
}

impl TrustSubject {
    /// `MCP server`, `hook`: what the question names.
    pub fn noun(self) -> &'static str {
        match self {
            TrustSubject::McpServer => "MCP server",
            TrustSubject::Hook => "hook",
        }
    }

    /// The key that names it in the question call's arguments.
    pub fn noun_key(self) -> &'static str {
        match self {
            TrustSubject::McpServer => "server",
            TrustSubject::Hook => "hook",
        }
    }

    /// `Start`, `Run`: what a yes does.
    pub fn verb(self) -> &'static str {
        match self {
            TrustSubject::McpServer => "Start",
            TrustSubject::Hook => "Run",
        }
    }
}

/// The trust question of a project's MCP server or hook (see [`ApprovalAction::McpServer`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpServerApproval {
    /// An MCP server or a hook.
    pub subject: TrustSubject,
    /// The server's configured name; a hook's description.
    pub server: String,
    /// What would run: the command line (with the environment it sets), or the URL.
    pub target: String,
    /// The config file that names it.
    pub source: PathBuf,
    /// Why "always" is not offered, when trust can't be bound to what runs (the line names the
    /// workspace itself, runs code given inline, or names more than Tandem hashes): faces offer
    /// this session only, and say why.
    pub why_not_always: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditApproval {
    /// Absolute.
    pub path: PathBuf,
    /// The file's text now; `None` for a new file.
    pub original: Option<String>,
    /// The whole proposed text.
    pub proposed: String,
    /// `original` to `proposed`.
    pub diff: FileDiff,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandApproval {
    pub command: String,
    /// The model asked to run it outside the sandbox.
    pub outside_sandbox: bool,
    /// Absolute.
    pub cwd: PathBuf,
    /// Relative to the workspace root (`.` for the root).
    pub display_cwd: String,
    /// Which part of the command needs the user, and why (not on a rule, an option that loads
    /// code, a write outside the workspace, an unparsed construct, outside the sandbox).
    pub reason: String,
    /// The rules "accept always" adds (the narrowest that let this command run unasked, e.g.
    /// `cargo test` for `cargo test -p core`): for the rest of the session, and saved to the
    /// user's own config where the face has one. Empty: "always" is not offered.
    pub always: Vec<String>,
}

impl ApprovalRequest {
    pub fn kind(&self) -> ApprovalKind {
        match self.action {
            ApprovalAction::Edit(_) => ApprovalKind::Edit,
            ApprovalAction::Command(_) => ApprovalKind::Command,
            ApprovalAction::Mcp(_) => ApprovalKind::Mcp,
            ApprovalAction::McpServer(_) => ApprovalKind::McpServer,
            ApprovalAction::Fetch(_) => ApprovalKind::Fetch,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Accept,
    AcceptAlways,
    Reject,
}

/// Who settled an approval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecidedBy {
    /// The standing policy (auto-approval, the allow-list): nobody was asked.
    Policy,
    /// An earlier "accept always" in this session: nobody was asked.
    Session,
    /// The face's answer to the question (the user's, or a headless face's rule).
    Face,
    /// Nobody answered in time.
    Timeout,
    /// The turn was cancelled while the question was open.
    Cancelled,
}

/// The user's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApprovalReply {
    pub decision: Decision,
    /// The user's edited version of the proposal: what gets written instead.
    pub content: Option<String>,
    /// A note for the model, with a rejection.
    pub feedback: Option<String>,
    /// The hunks of the proposal's diff the user dropped before accepting (0-based, in the
    /// diff's order): what is left is in `content`.
    pub rejected_hunks: Vec<usize>,
}

/// The answer a face's queue will bring: the user's, or a rejection if the connection to the
/// editor closed first (`sent` is whether the question could be queued at all).
pub fn queued_reply<E: Send + 'static>(
    sent: Result<(), E>,
    reply: tokio::sync::oneshot::Receiver<ApprovalReply>,
) -> futures_util::future::BoxFuture<'static, ApprovalReply> {
    const CLOSED: &str = "The editor connection is closed.";
    Box::pin(async move {
        if sent.is_err() {
            return ApprovalReply::reject(CLOSED);
        }
        reply
            .await
            .unwrap_or_else(|_| ApprovalReply::reject(CLOSED))
    })
}

impl ApprovalReply {
    pub fn reject(feedback: impl Into<String>) -> Self {
        Self {
            decision: Decision::Reject,
            content: None,
            feedback: Some(feedback.into()),
            rejected_hunks: Vec::new(),
        }
    }

    /// A plain yes.
    pub fn accept() -> Self {
        Self {
            decision: Decision::Accept,
            content: None,
            feedback: None,
            rejected_hunks: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(prefixes: &[&str]) -> ApprovalPolicy {
        ApprovalPolicy {
            allow_commands: prefixes.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn allow_list_matches_whole_words_only() {
        let p = policy(&["cargo test", "ls"]);
        assert!(p.allows_command("cargo test"));
        assert!(p.allows_command("cargo test -p tandem"));
        assert!(p.allows_command("  ls -la "));
        assert!(!p.allows_command("lsblk"));
        assert!(!p.allows_command("cargo testx"));
        assert!(!p.allows_command("cargo build"));
    }

    #[test]
    fn allow_list_refuses_chained_commands_and_code_loading_options() {
        let p = policy(&["ls", "cargo test"]);
        for cmd in [
            "ls; rm -rf ~",
            "ls && curl x",
            "ls | sh",
            "ls `rm x`",
            "ls $(rm x)",
            "ls > /etc/passwd",
            "ls\nrm x",
            "ls & rm x",
            "cargo test --config 'build.rustc-wrapper=\"/tmp/evil.sh\"'",
            "cargo test --manifest-path /outside/Cargo.toml",
            "cargo +nightly test",
        ] {
            assert!(!p.allows_command(cmd), "{cmd:?} must ask");
        }
    }

    #[test]
    fn mcp_allow_list_names_a_server_and_a_tool_exactly() {
        let p = ApprovalPolicy {
            allow_mcp_tools: vec!["fs/read_file".into(), "web/*".into(), "bare".into()],
            ..Default::default()
        };
        assert!(p.allows_mcp_tool("fs", "read_file"));
        assert!(!p.allows_mcp_tool("fs", "write_file"));
        assert!(!p.allows_mcp_tool("fsx", "read_file"));
        assert!(p.allows_mcp_tool("web", "anything"));
        assert!(!p.allows_mcp_tool("bare", "bare"));
        assert!(!ApprovalPolicy::default().allows_mcp_tool("fs", "read_file"));
    }

    #[test]
    fn empty_entries_allow_nothing() {
        assert!(!policy(&[""]).allows_command("rm -rf /"));
        assert!(!policy(&[]).allows_command("ls"));
    }
}
