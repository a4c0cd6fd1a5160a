//! The user's hooks: commands run at points of a session (before and after a tool, when a prompt
//! is sent, when a turn ends, when a session starts), speaking Claude Code's hook contract so
//! that a user's existing scripts work unchanged: the event's JSON on stdin ([`input`], with
//! Claude's tool names, [`names`]), exit codes and JSON output read back ([`reply`]), matchers
//! as Claude's ([`matcher`]). [`run`] runs the ones an event picks, in parallel, inside the
//! commands' walls. `docs/hooks.md` says what differs from Claude Code.
//!
//! What it lets the model do: nothing more. The model's text (a command, a file's content) goes
//! to a hook only on its stdin, never into its command line; a hook can refuse a call or ask
//! for a question the policy would skip, and only the user's own hooks can spare a question.

pub mod input;
pub mod matcher;
pub mod names;
pub mod reply;
pub mod run;
pub mod started;

use std::path::PathBuf;
use std::time::Duration;

/// When a hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    SessionStart,
}

impl HookEvent {
    pub const ALL: [HookEvent; 5] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SessionStart,
    ];

    /// Its name as Claude Code spells it (in the config and in `hook_event_name`).
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SessionStart => "SessionStart",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether its matcher picks tools (the others ignore it).
    pub fn matches_tools(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::PostToolUse)
    }
}

/// Where a hook was configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookSource {
    /// The user's own config file: runs without asking.
    User(PathBuf),
    /// A project's file: runs only once the user trusts it.
    Project(PathBuf),
}

impl HookSource {
    pub fn path(&self) -> &std::path::Path {
        match self {
            HookSource::User(p) | HookSource::Project(p) => p,
        }
    }
}

/// One configured hook command.
#[derive(Clone, Debug, PartialEq)]
pub struct HookSpec {
    pub event: HookEvent,
    /// Which tools it is for (`""` and `"*"`: all); see [`matcher`].
    pub matcher: String,
    /// The user's command line, run by the user's shell.
    pub command: String,
    pub timeout: Duration,
    /// Inside the commands' walls (the default); `false` only from the user's own config.
    pub sandbox: bool,
    pub source: HookSource,
}

/// Reads the hooks a project's own file sets (they wait for the user's trust). The agent
/// knows no config files: the face's config gives it this.
pub trait ProjectHooks: Send + Sync + std::fmt::Debug {
    /// The hooks of the project in `root` (all [`HookSource::Project`], sandboxed), or what
    /// is wrong with its file.
    fn read(&self, root: &std::path::Path) -> Result<Vec<HookSpec>, String>;
}

/// How long a hook may run unless its config says otherwise (Claude Code's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

impl HookSpec {
    /// A one-line description for notices and listings: event, matcher, command.
    pub fn describe(&self) -> String {
        let command = tandem_stdx::truncated(&self.command, 120, "…");
        if self.event.matches_tools() && !matcher::matches_all(&self.matcher) {
            format!("{} hook `{command}` ({})", self.event.name(), self.matcher)
        } else {
            format!("{} hook `{command}`", self.event.name())
        }
    }
}

/// A hook's name in the trust question and notices: its event and matcher (`PreToolUse Bash`).
pub fn trust_name(hook: &HookSpec) -> String {
    if hook.event.matches_tools() && !matcher::matches_all(&hook.matcher) {
        format!("{} {}", hook.event.name(), hook.matcher)
    } else {
        format!("{} *", hook.event.name())
    }
}

/// A hook as `tandem doctor` and `/hooks` list it.
#[derive(Clone, Debug, PartialEq)]
pub struct HookListing {
    pub event: HookEvent,
    /// `*` when it is for every tool (or the event has no tools).
    pub matcher: String,
    pub command: String,
    /// `user` or `project`.
    pub source: &'static str,
    pub file: PathBuf,
    /// Runs without asking (the user's own hooks always do; a project's once trusted for good,
    /// as it is now).
    pub trusted: bool,
    /// Why it is trusted or not (never trusted, what changed, why it can't be for good).
    pub why: String,
    /// Runs inside the commands' walls.
    pub sandboxed: bool,
    pub timeout: Duration,
}

/// The hooks as listed, with the sandbox mode commands run under.
pub fn listing(hooks: &[HookSpec], sandbox: tandem_sandbox::SandboxMode) -> Vec<HookListing> {
    hooks
        .iter()
        .map(|h| HookListing {
            event: h.event,
            matcher: if !h.event.matches_tools() || matcher::matches_all(&h.matcher) {
                "*".into()
            } else {
                h.matcher.clone()
            },
            command: h.command.clone(),
            source: match h.source {
                HookSource::User(_) => "user",
                HookSource::Project(_) => "project",
            },
            file: h.source.path().to_path_buf(),
            trusted: matches!(h.source, HookSource::User(_)),
            why: match h.source {
                HookSource::User(_) => "your own config".into(),
                HookSource::Project(_) => "not checked".into(),
            },
            sandboxed: h.sandbox && sandbox != tandem_sandbox::SandboxMode::Off,
            timeout: h.timeout,
        })
        .collect()
}

impl HookListing {
    /// One line: `PreToolUse Bash: python3 check.py (user, sandboxed, 60 s)`.
    pub fn line(&self) -> String {
        format!(
            "{} {}: {} ({} {}, {} ({}), {}, {} s)",
            self.event.name(),
            self.matcher,
            self.command,
            self.source,
            self.file.display(),
            if self.trusted {
                "trusted"
            } else {
                "NOT trusted"
            },
            self.why,
            if self.sandboxed {
                "sandboxed"
            } else {
                "outside the sandbox"
            },
            self.timeout.as_secs_f64()
        )
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "event": self.event.name(),
            "matcher": self.matcher,
            "command": self.command,
            "source": self.source,
            "file": self.file,
            "trusted": self.trusted,
            "why": self.why,
            "sandboxed": self.sandboxed,
            "timeoutSeconds": self.timeout.as_secs_f64(),
        })
    }
}
