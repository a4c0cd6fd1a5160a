//! The configuration files: the user's (`tandem/config.toml` in the platform's config dir:
//! `~/.config` on Linux, `~/Library/Application Support` on macOS, `%APPDATA%` on Windows;
//! `--config FILE` or `TANDEM_CONFIG` name another) and a project's `.tandem/config.toml`.
//!
//! The user's file holds what flags and `initializationOptions` hold: provider profiles, the
//! approval policy, the data dir, max steps, limits, MCP servers. A project's file is shared
//! with everyone who clones the project, so it may hold only what is safe to share: the model,
//! max steps, and MCP servers, which start only once the user trusts them (see
//! `tandem_agent::mcp`). Anything else in it is an error that says where to put it instead.
//!
//! Unknown keys are errors, so a typo doesn't silently do nothing; every error names the file,
//! the line and the field.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use tandem_agent::approval::SandboxMode;
use tandem_mcp::McpServerConfig;
use tandem_provider::{Api, ApiKey, Limits, ProviderOptions};

use crate::policy::PolicyOptions;

/// A configuration file, as written.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Where the model is (used unless `profile` picks one of `profiles`).
    #[serde(default)]
    pub provider: Option<FileProvider>,
    /// Which of `profiles` to use instead of `provider`.
    #[serde(default)]
    pub profile: Option<String>,
    /// Named endpoints (`[profiles.NAME]`), each like `[provider]`; `profile` picks one.
    #[serde(default)]
    pub profiles: BTreeMap<String, FileProvider>,
    /// What runs without asking, and the sandbox commands run in.
    #[serde(default)]
    pub approval: Option<FileApproval>,
    /// Where sessions, transcripts and the undo log are kept (default: the platform's data dir).
    #[serde(default)]
    pub data_dir: Option<PathBuf>,
    /// The most model requests one turn may make (default 50).
    #[serde(default)]
    pub max_steps: Option<u32>,
    /// Timeouts and size caps of the model's answers.
    #[serde(default)]
    pub limits: Option<FileLimits>,
    /// MCP servers whose tools the model gets.
    #[serde(default)]
    pub mcp: Option<FileMcp>,
    /// Your commands that run before and after tools, when a prompt is sent, a turn ends or a
    /// session starts (docs/hooks.md).
    #[serde(default)]
    pub hooks: Option<crate::hooks::FileHooks>,
    /// `[subagents]`: how many run at once (the user's file only).
    #[serde(default)]
    pub subagents: Option<FileSubagents>,
    /// `[capture]`: how a command's writes are caught (the user's file only).
    #[serde(default)]
    pub capture: Option<FileCapture>,
    /// Per-project sections of the user's own file, keyed by the workspace's path:
    /// `[projects."/home/me/app".approval.rules]`. Never read from a project's file.
    #[serde(default)]
    pub projects: BTreeMap<String, FileProject>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileSubagents {
    /// The most subagents running at once (1 or more).
    #[serde(default)]
    pub concurrency: Option<usize>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileProject {
    /// The project's own approval rules (the user's file only).
    #[serde(default)]
    pub approval: Option<FileProjectApproval>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileProjectApproval {
    /// Allow, ask and deny patterns for commands in this project.
    #[serde(default)]
    pub rules: Option<FileRules>,
}

/// `approval.rules`: word-prefix patterns, as `allow_commands`' entries. `deny` wins over
/// everything (also a command outside the sandbox the user would approve), then `ask`, then
/// `allow`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileRules {
    /// Commands that run without asking (inside the sandbox), by word prefix: `"cargo test"`.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Commands that always ask, even when another rule or the read-only list would allow them.
    #[serde(default)]
    pub ask: Vec<String>,
    /// Commands refused before anything else, also outside the sandbox and with `--yes`.
    #[serde(default)]
    pub deny: Vec<String>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileProvider {
    /// The OpenAI-compatible (or Anthropic) endpoint, e.g. `http://127.0.0.1:1234/v1`.
    pub base_url: Option<String>,
    /// The model to use (default: the one the server has loaded, or its first).
    pub model: Option<String>,
    /// `"openai"` or `"anthropic"`.
    pub api: Option<FileApi>,
    /// The key itself (the user's file only; prefer `api_key_env`).
    pub api_key: Option<String>,
    /// The environment variable that holds the key.
    pub api_key_env: Option<String>,
    /// The model's context window in tokens, over what the server reports.
    pub context_window: Option<u64>,
    /// How tools reach the model: `"native"`, `"text"` or `"auto"`.
    pub tool_mode: Option<String>,
    /// The most tokens one answer may take (0: no limit sent).
    pub max_output_tokens: Option<u64>,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FileApi {
    Openai,
    Anthropic,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileApproval {
    /// Write edits without asking (default false).
    pub auto_approve_edits: Option<bool>,
    /// Run every command without asking (default false; the sandbox still holds).
    pub auto_approve_commands: Option<bool>,
    /// Commands that run without asking inside the sandbox, by word prefix (the defaults are
    /// builds and tests: `cargo test`, `npm test`, …).
    pub allow_commands: Option<Vec<String>>,
    /// `"workspace-write"` (the default: commands write only the workspace and temp) or `"off"`.
    pub sandbox: Option<FileSandbox>,
    /// Commands in the sandbox may use the network (default false).
    pub network: Option<bool>,
    /// `"SERVER/TOOL"` or `"SERVER/*"`.
    pub allow_mcp_tools: Option<Vec<String>>,
    /// Hosts `fetch_url` reads without asking.
    pub allow_fetch: Option<Vec<String>>,
    /// Seconds a question waits for the user (default 600, at least 1).
    pub timeout_seconds: Option<u32>,
    /// Allow, ask and deny patterns for commands.
    pub rules: Option<FileRules>,
    /// What happens to the files a command changes: `"apply"` (the default: applied when it
    /// ends, each saved for undo) or `"review"` (held, and each changed file proposed as an
    /// edit, written only when accepted).
    pub command_writes: Option<FileCommandWrites>,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FileCommandWrites {
    Apply,
    Review,
}

impl From<FileCommandWrites> for tandem_agent::approval::CommandWrites {
    fn from(w: FileCommandWrites) -> Self {
        match w {
            FileCommandWrites::Apply => Self::Apply,
            FileCommandWrites::Review => Self::Review,
        }
    }
}

/// `[capture]`: how a command's writes to the workspace are caught.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileCapture {
    /// Directory names whose contents pass through unrecorded and unreviewed, besides what
    /// `.gitignore` ignores (default `["target", "node_modules", ".venv"]`; an empty list
    /// records everything that is not ignored).
    pub passthrough: Option<Vec<String>>,
    /// Past this many changed paths a command's writes are not applied (its capture dir is
    /// kept; default 20000, at least 1).
    pub max_paths: Option<usize>,
}

impl FileCapture {
    fn options(&self) -> tandem_agent::approval::CaptureOptions {
        let default = tandem_agent::approval::CaptureOptions::default();
        tandem_agent::approval::CaptureOptions {
            passthrough: self.passthrough.clone().unwrap_or(default.passthrough),
            max_paths: self.max_paths.map_or(default.max_paths, |m| m.max(1)),
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum FileSandbox {
    WorkspaceWrite,
    Off,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileLimits {
    /// Seconds of silence allowed between two bytes of an answer (default 120).
    pub stall_timeout_seconds: Option<f64>,
    /// Seconds allowed without new text, reasoning or tool-call bytes (default 300).
    pub progress_timeout_seconds: Option<f64>,
    /// The largest single event of a stream, in bytes (default 8 MiB).
    pub max_event_bytes: Option<u64>,
    /// The largest answer, in bytes (default 32 MiB).
    pub max_answer_bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileMcp {
    /// The MCP servers to run: `[[mcp.servers]]`, each a stdio server (`command`) or an HTTP one
    /// (`type = "http"`, `url`).
    #[serde(default)]
    #[schemars(with = "Vec<crate::schema::McpServer>")]
    pub servers: Vec<McpServerConfig>,
}

/// A file that can't be used: which, where, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", file.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ConfigError {
    pub file: PathBuf,
    /// One-based, when the error is at a place in the file.
    pub line: Option<usize>,
    /// What is wrong, naming the field.
    pub message: String,
}

/// What the files say, merged: the provider with the variable its key came from, and the rest.
#[derive(Clone, Debug, Default)]
pub struct FileSettings {
    pub provider: ProviderOptions,
    /// The environment variable the file's key came from (kept out of commands).
    pub key_var: Option<String>,
    pub policy: PolicyOptions,
    pub data_dir: Option<PathBuf>,
    pub max_steps: Option<u32>,
    pub limits: Option<Limits>,
    /// The user's file's servers (they start without asking).
    pub mcp_servers: Vec<McpServerConfig>,
    /// The user's file's hooks (they run without asking).
    pub hooks: Vec<tandem_agent::hooks::HookSpec>,
    /// The most subagents running at once.
    pub subagent_concurrency: Option<usize>,
}

/// The user's config file: `explicit` (`--config`), else `TANDEM_CONFIG`, else the platform's
/// `tandem/config.toml`. An explicit file must exist; the default one may not.
pub fn user_config_path(explicit: Option<&Path>) -> Option<(PathBuf, bool)> {
    if let Some(p) = explicit {
        return Some((p.to_path_buf(), true));
    }
    if let Some(p) = std::env::var_os("TANDEM_CONFIG").filter(|v| !v.is_empty()) {
        return Some((PathBuf::from(p), true));
    }
    dirs::config_dir().map(|d| (d.join("tandem").join("config.toml"), false))
}

/// A project's config file.
pub fn project_config_path(root: &Path) -> PathBuf {
    root.join(".tandem").join("config.toml")
}

/// Reads and checks a file; `Ok(None)` when it is absent and need not exist.
pub fn read(path: &Path, must_exist: bool) -> Result<Option<ConfigFile>, ConfigError> {
    match read_text(path, must_exist)? {
        Some(text) => parse(path, &text).map(Some),
        None => Ok(None),
    }
}

/// A config file is at most this long: far more than any real one, and read before it is parsed.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A config file's text, read only if it is a regular file within [`MAX_CONFIG_BYTES`]: a FIFO,
/// a device or a huge file (which a cloned repository can hold) is an error at once, never a
/// hang or a full memory. `Ok(None)` when it is absent and need not exist.
fn read_text(path: &Path, must_exist: bool) -> Result<Option<String>, ConfigError> {
    use tandem_stdx::regular::NotRegular;
    match tandem_stdx::regular::read_string(path, MAX_CONFIG_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(NotRegular::Missing) if !must_exist => Ok(None),
        Err(e) => Err(ConfigError {
            file: path.to_path_buf(),
            line: None,
            message: match e {
                NotRegular::Missing | NotRegular::Io(_) => format!("can't be read: {e}"),
                _ => format!("can't be used as a config file: {e}; it must be a regular file"),
            },
        }),
    }
}

/// Parses a file's text; errors name the line and the field.
pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    let error = |line: Option<usize>, message: String| ConfigError {
        file: path.to_path_buf(),
        line,
        message,
    };
    let line_of = |span: Option<std::ops::Range<usize>>| {
        span.map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
    };
    let deserializer = toml::Deserializer::parse(text)
        .map_err(|e| error(line_of(e.span()), e.message().trim().to_string()))?;
    let file: ConfigFile = serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.message().trim().to_string();
        let message = if field.is_empty() || field == "." {
            message
        } else {
            format!("`{field}`: {message}")
        };
        // An entry refused as a whole (an MCP server's `try_from`) carries the span of its
        // array, not its own: the entry's `[[table]]` header is the line to name.
        let line = array_entry_line(text, &field).or_else(|| line_of(inner.span()));
        error(line, message)
    })?;
    if let Some(name) = &file.profile
        && !file.profiles.contains_key(name)
    {
        let known: Vec<&str> = file.profiles.keys().map(String::as_str).collect();
        return Err(error(
            line_at(text, "profile"),
            format!(
                "`profile`: no profile named `{name}` (the file has: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        ));
    }
    Ok(file)
}

/// The first line that sets `key`, for errors found after parsing.
/// For a path like `mcp.servers[1]` or `mcp.servers[1].args`: the line of that entry's
/// `[[mcp.servers]]` header (the second one). `None` for other paths.
fn array_entry_line(text: &str, field: &str) -> Option<usize> {
    let (table, rest) = field.split_once('[')?;
    let index: usize = rest.split_once(']')?.0.parse().ok()?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
            l.strip_prefix("[[")
                .and_then(|l| l.split_once("]]"))
                .is_some_and(|(name, _)| name == table)
        })
        .nth(index)
        .map(|(i, _)| i + 1)
}

fn line_at(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        })
        .map(|i| i + 1)
}

impl ConfigFile {
    /// What a project's file may hold: the model, max steps, MCP servers and hooks (both wait
    /// for the user's trust; a hook's `sandbox = false` is refused). Anything else is an
    /// error naming it: a file anyone can commit must not widen approvals, send the user's key
    /// or prompts to another server, or move their data.
    pub fn check_project(&self, path: &Path, text_lines: &str) -> Result<(), ConfigError> {
        let mut refused = Vec::new();
        if let Some(p) = &self.provider {
            for (set, name) in [
                (p.base_url.is_some(), "provider.base_url"),
                (p.api.is_some(), "provider.api"),
                (p.api_key.is_some(), "provider.api_key"),
                (p.api_key_env.is_some(), "provider.api_key_env"),
                (p.context_window.is_some(), "provider.context_window"),
                (p.tool_mode.is_some(), "provider.tool_mode"),
                (p.max_output_tokens.is_some(), "provider.max_output_tokens"),
            ] {
                if set {
                    refused.push(name);
                }
            }
        }
        for (set, name) in [
            (self.profile.is_some(), "profile"),
            (!self.profiles.is_empty(), "profiles"),
            (self.approval.is_some(), "approval"),
            (self.data_dir.is_some(), "data_dir"),
            (self.limits.is_some(), "limits"),
            (self.subagents.is_some(), "subagents"),
            // A repository that named its sources a pass-through dir would hide its commands'
            // writes from undo and review.
            (self.capture.is_some(), "capture"),
            (!self.projects.is_empty(), "projects"),
        ] {
            if set {
                refused.push(name);
            }
        }
        match refused.first() {
            None => Ok(()),
            Some(first) => Err(ConfigError {
                file: path.to_path_buf(),
                line: line_at(text_lines, first.split('.').next_back().unwrap_or(first))
                    .or_else(|| line_at_table(text_lines, first)),
                message: format!(
                    "a project's config file may set only `provider.model`, `max_steps`, \
                     `[[mcp.servers]]` and `[hooks]` (it is shared with everyone who clones the project); \
                     move {} to your own config file",
                    refused
                        .iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
        }
    }

    /// The provider settings this file gives: `[profiles.NAME]` when `profile` picks one, else
    /// `[provider]`; and the variable its key came from.
    fn provider(&self) -> Result<(ProviderOptions, Option<String>), String> {
        let chosen = match &self.profile {
            Some(name) => self.profiles.get(name),
            None => self.provider.as_ref(),
        };
        let Some(p) = chosen else {
            return Ok((ProviderOptions::default(), None));
        };
        let (key, key_var) = match (&p.api_key, &p.api_key_env) {
            (Some(_), Some(_)) => {
                return Err("set `api_key` or `api_key_env`, not both".into());
            }
            (Some(k), None) => (Some(ApiKey::new(k.clone())), None),
            (None, Some(var)) => match std::env::var(var).ok().filter(|v| !v.trim().is_empty()) {
                Some(k) => (Some(ApiKey::new(k)), Some(var.clone())),
                None => (None, None),
            },
            (None, None) => (None, None),
        };
        Ok((
            ProviderOptions {
                base_url: p.base_url.clone(),
                model: p.model.clone(),
                api_key: key,
                api: p.api.map(|a| match a {
                    FileApi::Openai => Api::OpenAi,
                    FileApi::Anthropic => Api::Anthropic,
                }),
                context_window: p.context_window,
                tool_mode: match &p.tool_mode {
                    Some(mode) => Some(
                        crate::env::parse_tool_mode(mode)
                            .map_err(|e| format!("`provider.tool_mode`: {e}"))?,
                    ),
                    None => None,
                },
                max_output_tokens: p.max_output_tokens,
            },
            key_var,
        ))
    }

    /// The approval policy of the user's file, with the rules of its section for `workspace`
    /// (if any) added to the global ones.
    fn policy(&self, workspace: Option<&Path>) -> PolicyOptions {
        let mut rules = self
            .approval
            .as_ref()
            .and_then(|a| a.rules.clone())
            .unwrap_or_default();
        if let Some(project) = workspace.and_then(|w| self.project_rules(w)) {
            rules.allow.extend(project.allow);
            rules.ask.extend(project.ask);
            rules.deny.extend(project.deny);
        }
        let given = |v: Vec<String>| (!v.is_empty()).then_some(v);
        let Some(a) = &self.approval else {
            return PolicyOptions {
                allow_commands: given(rules.allow),
                ask_commands: given(rules.ask),
                deny_commands: given(rules.deny),
                capture: self.capture.as_ref().map(FileCapture::options),
                ..PolicyOptions::default()
            };
        };
        let mut allow = a.allow_commands.clone().unwrap_or_default();
        allow.extend(rules.allow);
        PolicyOptions {
            auto_approve_edit: a.auto_approve_edits,
            auto_approve_command: a.auto_approve_commands,
            allow_commands: given(allow).or_else(|| a.allow_commands.clone()),
            ask_commands: given(rules.ask),
            deny_commands: given(rules.deny),
            sandbox: a.sandbox.map(|s| match s {
                FileSandbox::WorkspaceWrite => SandboxMode::WorkspaceWrite,
                FileSandbox::Off => SandboxMode::Off,
            }),
            network: a.network,
            allow_mcp_tools: a.allow_mcp_tools.clone(),
            allow_fetch: a.allow_fetch.clone(),
            // Zero would reject every question before it is seen: at least a second.
            timeout: a
                .timeout_seconds
                .map(|s| std::time::Duration::from_secs(u64::from(s.max(1)))),
            command_writes: a.command_writes.map(Into::into),
            capture: self.capture.as_ref().map(FileCapture::options),
        }
    }

    /// The rules of the `[projects."PATH"]` section naming `workspace` (paths compared
    /// resolved, so a link or a trailing slash still matches).
    pub fn project_rules(&self, workspace: &Path) -> Option<FileRules> {
        let resolve = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let workspace = resolve(workspace);
        self.projects
            .iter()
            .filter(|(path, _)| resolve(Path::new(path)) == workspace)
            .find_map(|(_, p)| p.approval.as_ref()?.rules.clone())
    }

    fn limits(&self) -> Result<Option<Limits>, String> {
        let Some(l) = self.limits else {
            return Ok(None);
        };
        let mut base = Limits::default();
        let seconds = |name: &str, value: f64| {
            if value.is_finite() && value > 0.0 && value <= 86_400.0 {
                Ok(std::time::Duration::from_secs_f64(value))
            } else {
                Err(format!(
                    "`limits.{name}` must be more than 0 and at most 86400 seconds, not {value}"
                ))
            }
        };
        if let Some(s) = l.stall_timeout_seconds {
            base.stall_timeout = seconds("stall_timeout_seconds", s)?;
        }
        if let Some(s) = l.progress_timeout_seconds {
            base.progress_timeout = seconds("progress_timeout_seconds", s)?;
        }
        if let Some(n) = l.max_event_bytes {
            base.max_event_bytes = usize::try_from(n).unwrap_or(usize::MAX).max(1024);
        }
        if let Some(n) = l.max_answer_bytes {
            base.max_answer_bytes = usize::try_from(n).unwrap_or(usize::MAX).max(1024);
        }
        Ok(Some(base))
    }

    /// The settings of the user's file.
    pub fn settings(
        &self,
        path: &Path,
        workspace: Option<&Path>,
    ) -> Result<FileSettings, ConfigError> {
        let fail = |message: String| ConfigError {
            file: path.to_path_buf(),
            line: None,
            message,
        };
        let (provider, key_var) = self.provider().map_err(fail)?;
        Ok(FileSettings {
            provider,
            key_var,
            policy: self.policy(workspace),
            data_dir: self.data_dir.clone(),
            max_steps: self.max_steps,
            limits: self.limits().map_err(fail)?,
            mcp_servers: self
                .mcp
                .as_ref()
                .map(|m| m.servers.clone())
                .unwrap_or_default(),
            hooks: match &self.hooks {
                Some(hooks) => hooks
                    .specs(&tandem_agent::hooks::HookSource::User(path.to_path_buf()))
                    .map_err(|message| ConfigError {
                        file: path.to_path_buf(),
                        line: None,
                        message,
                    })?,
                None => Vec::new(),
            },
            subagent_concurrency: self.subagents.as_ref().and_then(|s| s.concurrency),
        })
    }
}

/// The line of `[table]` or `[table.…]`, for a refused table.
fn line_at_table(text: &str, table: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("[{table}]")) || l.starts_with(&format!("[{table}."))
        })
        .map(|i| i + 1)
}

/// A project's file, checked: what it may set, and its MCP servers (which wait for the user's
/// trust). `Ok(None)` when the project has none, or when it links out of the workspace (see
/// [`project_config_links_out`]), which is logged as a warning.
pub fn read_project(root: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    let path = project_config_path(root);
    if let Some(why) = project_config_links_out(root) {
        tracing::warn!("{why}");
        return Ok(None);
    }
    let Some(text) = read_text(&path, false)? else {
        return Ok(None);
    };
    let file = parse(&path, &text)?;
    file.check_project(&path, &text)?;
    Ok(Some(file))
}

/// Why the project's config file is not read, when it (or its `.tandem` folder) is a link that
/// leads out of the workspace: a cloned repository must not make Tandem read a file of the
/// user's machine as its settings. `None` when it lies in the workspace or is absent.
pub fn project_config_links_out(root: &Path) -> Option<String> {
    let path = project_config_path(root);
    let real = path.canonicalize().ok()?;
    let real_root = root.canonicalize().ok()?;
    if real.starts_with(&real_root) {
        return None;
    }
    Some(format!(
        "the project's config file {} is not read: it links out of the workspace, to {}",
        path.display(),
        real.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str) -> ConfigError {
        parse(Path::new("/home/u/.config/tandem/config.toml"), text).unwrap_err()
    }

    #[test]
    fn errors_name_the_file_the_line_and_the_field() {
        let e = parse_err("max_steps = 10\n\n[approval]\nnetwork = \"yes\"\n");
        assert_eq!(e.line, Some(4), "{e}");
        assert!(e.message.contains("approval.network"), "{e}");
        assert!(
            e.to_string()
                .starts_with("/home/u/.config/tandem/config.toml:4: "),
            "{e}"
        );

        let e = parse_err("[provider]\nbase_url = \"http://x\"\nmodle = \"m\"\n");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.message.contains("modle"), "{e}");

        let e = parse_err("max_steps = \n");
        assert_eq!(e.line, Some(1), "{e}");

        let e = parse_err(
            "[[mcp.servers]]\nname = \"fs\"\ncommand = \"c\"\n\n[[mcp.servers]]\nname = \"web\"\ntype = \"ws\"\n",
        );
        assert!(e.message.contains("mcp.servers[1]"), "{e}");
        assert!(e.message.contains("unknown transport type `ws`"), "{e}");
        assert_eq!(e.line, Some(5), "{e}");

        let e = parse_err("profile = \"work\"\n[profiles.home]\nmodel = \"m\"\n");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("no profile named `work`") && e.message.contains("home"));
    }

    /// The ```toml blocks of docs/configuration.md, in order.
    fn doc_examples() -> Vec<String> {
        let doc = include_str!("../../../docs/configuration.md");
        doc.split("```toml\n")
            .skip(1)
            .map(|rest| rest.split("```").next().unwrap_or_default().to_string())
            .collect()
    }

    #[test]
    fn the_documented_examples_parse_and_mean_what_the_doc_says() {
        let examples = doc_examples();
        assert_eq!(
            examples.len(),
            3,
            "the user file, the project file and a project server with the network"
        );
        let path = Path::new("docs/configuration.md");
        let user = parse(path, &examples[0]).unwrap_or_else(|e| panic!("{e}"));
        let s = user.settings(path, None).unwrap();
        assert_eq!(
            s.provider.base_url.as_deref(),
            Some("http://127.0.0.1:1234/v1")
        );
        assert_eq!(s.max_steps, Some(50));
        assert_eq!(s.subagent_concurrency, Some(3));
        assert_eq!(s.mcp_servers.len(), 2);
        assert_eq!(s.hooks.len(), 1);
        assert_eq!(s.hooks[0].matcher, "Edit|Write");
        assert_eq!(s.mcp_servers[1].startup(), tandem_mcp::Startup::Eager);
        let policy = s.policy.resolve();
        assert_eq!(
            policy.allow_commands,
            vec!["cargo test", "git status", "npm run"]
        );
        assert_eq!(policy.ask_commands, vec!["git push"]);
        assert_eq!(policy.deny_commands, vec!["rm -rf", "git push --force"]);
        assert!(policy.allows_mcp_tool("everything", "echo"));
        // The workspace's own section adds to the rules.
        let app = user
            .settings(path, None)
            .unwrap()
            .policy
            .resolve()
            .allow_commands;
        assert!(!app.contains(&"make check".to_string()));
        assert_eq!(
            user.projects["/home/me/app"]
                .approval
                .as_ref()
                .and_then(|a| a.rules.clone())
                .unwrap()
                .allow,
            ["make check"]
        );
        assert_eq!(s.limits.unwrap().stall_timeout.as_secs(), 120);
        assert!(user.profiles.contains_key("claude"));

        let project = parse(path, &examples[1]).unwrap();
        project.check_project(path, &examples[1]).unwrap();
        // The user's file is no project file.
        assert!(user.check_project(path, &examples[0]).is_err());

        let networked = parse(path, &examples[2]).unwrap_or_else(|e| panic!("{e}"));
        networked.check_project(path, &examples[2]).unwrap();
        let servers = networked.settings(path, None).unwrap().mcp_servers;
        assert_eq!(servers.len(), 1);
        assert!(
            format!("{:?}", servers[0]).contains("network: Some(true)"),
            "{servers:?}"
        );
    }

    #[test]
    fn a_profile_replaces_the_provider_table_and_brings_its_own_key() {
        let file = parse(
            Path::new("c.toml"),
            r#"
            profile = "local"
            [provider]
            base_url = "http://default/v1"
            [profiles.local]
            base_url = "http://127.0.0.1:1234/v1"
            model = "qwen"
            api = "openai"
            api_key = "k-local"
            "#,
        )
        .unwrap();
        let s = file.settings(Path::new("c.toml"), None).unwrap();
        assert_eq!(
            s.provider.base_url.as_deref(),
            Some("http://127.0.0.1:1234/v1")
        );
        assert_eq!(s.provider.api_key.unwrap().expose(), "k-local");
        assert_eq!(s.provider.api, Some(Api::OpenAi));
        assert!(s.key_var.is_none());
    }

    #[test]
    fn command_writes_and_the_capture_table_reach_the_policy() {
        let file = parse(
            Path::new("config.toml"),
            "[approval]\ncommand_writes = \"review\"\n[capture]\npassthrough = [\"gen\"]\nmax_paths = 0\n",
        )
        .unwrap();
        let policy = file.policy(None).resolve();
        assert_eq!(
            policy.command_writes,
            tandem_agent::approval::CommandWrites::Review
        );
        assert_eq!(policy.capture.passthrough, ["gen"]);
        assert_eq!(policy.capture.max_paths, 1);
        let e = parse(
            Path::new("c.toml"),
            "[approval]\ncommand_writes = \"later\"\n",
        )
        .unwrap_err();
        assert!(e.message.contains("later"), "{e}");
        let defaults = parse(Path::new("c.toml"), "")
            .unwrap()
            .policy(None)
            .resolve();
        assert_eq!(
            defaults.command_writes,
            tandem_agent::approval::CommandWrites::Apply
        );
        assert_eq!(
            defaults.capture.passthrough,
            ["target", "node_modules", ".venv"]
        );
    }

    #[test]
    fn a_project_file_may_not_widen_the_policy_or_move_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = project_config_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            "max_steps = 5\n[provider]\nmodel = \"m\"\n\n[approval]\nauto_approve_commands = true\n",
        )
        .unwrap();
        let e = read_project(dir.path()).unwrap_err();
        assert!(e.message.contains("`approval`"), "{e}");
        assert_eq!(e.line, Some(5), "{e}");
        std::fs::write(&path, "[subagents]\nconcurrency = 64\n").unwrap();
        let e = read_project(dir.path()).unwrap_err();
        assert!(e.message.contains("`subagents`"), "{e}");
        std::fs::write(&path, "[capture]\npassthrough = [\"src\"]\n").unwrap();
        let e = read_project(dir.path()).unwrap_err();
        assert!(e.message.contains("`capture`"), "{e}");
        std::fs::write(&path, "[provider]\nbase_url = \"http://evil/v1\"\n").unwrap();
        let e = read_project(dir.path()).unwrap_err();
        assert!(e.message.contains("provider.base_url"), "{e}");
        assert_eq!(e.line, Some(2));
        std::fs::write(
            &path,
            "max_steps = 5\n[provider]\nmodel = \"m\"\n[[mcp.servers]]\nname = \"a\"\ncommand = \"c\"\n",
        )
        .unwrap();
        let ok = read_project(dir.path()).unwrap().unwrap();
        assert_eq!(ok.mcp.unwrap().servers.len(), 1);
        assert!(read_project(&dir.path().join("nothing")).unwrap().is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_project_file_linked_out_of_the_workspace_is_not_read() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("config.toml"), "max_steps = 7\n").unwrap();
        // The file a link, then its `.tandem` folder a link.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".tandem")).unwrap();
        symlink(
            outside.path().join("config.toml"),
            project_config_path(dir.path()),
        )
        .unwrap();
        let why = project_config_links_out(dir.path()).unwrap();
        assert!(why.contains("links out of the workspace"), "{why}");
        assert!(read_project(dir.path()).unwrap().is_none());
        let dir = tempfile::tempdir().unwrap();
        symlink(outside.path(), dir.path().join(".tandem")).unwrap();
        assert!(project_config_links_out(dir.path()).is_some());
        assert!(read_project(dir.path()).unwrap().is_none());
        // A link that stays in the workspace is read.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("shared")).unwrap();
        std::fs::write(dir.path().join("shared/config.toml"), "max_steps = 7\n").unwrap();
        symlink("shared", dir.path().join(".tandem")).unwrap();
        assert_eq!(project_config_links_out(dir.path()), None);
        assert_eq!(
            read_project(dir.path()).unwrap().unwrap().max_steps,
            Some(7)
        );
    }

    #[cfg(unix)]
    #[test]
    fn special_and_huge_config_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = project_config_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        // A project's link out is not even opened; a file named outright is refused at once.
        assert!(read_project(dir.path()).unwrap().is_none());
        let e = read(&path, true).unwrap_err();
        assert!(e.message.contains("a device"), "{e}");
        std::fs::remove_file(&path).unwrap();
        std::fs::File::create(&path)
            .unwrap()
            .set_len(2 << 30)
            .unwrap();
        let e = read(&path, true).unwrap_err();
        assert!(
            e.message
                .contains("2147483648 bytes, over the cap of 1048576 bytes"),
            "{e}"
        );
    }
}
