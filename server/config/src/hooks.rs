//! `[hooks]`: the user's hooks, in the shape of Claude Code's `hooks` settings object, so one
//! moves over by rewriting its JSON as TOML:
//!
//! ```toml
//! [[hooks.PreToolUse]]
//! matcher = "Bash"
//! hooks = [{ type = "command", command = "python3 ~/.config/tandem/hooks/check.py", timeout = 10 }]
//! ```
//!
//! Besides Claude's fields a hook may say `sandbox = false` (the user's own file only): it then
//! runs outside the commands' walls.

use std::time::Duration;

use serde::Deserialize;
use tandem_agent::hooks::{DEFAULT_TIMEOUT, HookEvent, HookSource, HookSpec, matcher};

/// The longest timeout a hook may have (an hour: a hook holds the turn while it runs).
const MAX_TIMEOUT_SECONDS: f64 = 3600.0;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileHooks {
    #[serde(rename = "PreToolUse", default)]
    pub pre_tool_use: Vec<FileHookGroup>,
    #[serde(rename = "PostToolUse", default)]
    pub post_tool_use: Vec<FileHookGroup>,
    #[serde(rename = "UserPromptSubmit", default)]
    pub user_prompt_submit: Vec<FileHookGroup>,
    #[serde(rename = "Stop", default)]
    pub stop: Vec<FileHookGroup>,
    #[serde(rename = "SessionStart", default)]
    pub session_start: Vec<FileHookGroup>,
}

/// A matcher and the commands it runs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileHookGroup {
    /// Tool names (`Edit|Write`), a regular expression, or `*`/empty for all.
    #[serde(default)]
    pub matcher: Option<String>,
    pub hooks: Vec<FileHook>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileHook {
    /// `"command"`, the only kind.
    #[serde(rename = "type")]
    pub kind: String,
    pub command: String,
    /// Seconds (default 60).
    #[serde(default)]
    pub timeout: Option<f64>,
    /// `false`: outside the sandbox.
    #[serde(default)]
    pub sandbox: Option<bool>,
}

impl FileHooks {
    fn groups(&self) -> [(HookEvent, &[FileHookGroup]); 5] {
        [
            (HookEvent::PreToolUse, &self.pre_tool_use),
            (HookEvent::PostToolUse, &self.post_tool_use),
            (HookEvent::UserPromptSubmit, &self.user_prompt_submit),
            (HookEvent::Stop, &self.stop),
            (HookEvent::SessionStart, &self.session_start),
        ]
    }

    /// The hooks, checked (what is wrong names the event and the command).
    pub fn specs(&self, source: &HookSource) -> Result<Vec<HookSpec>, String> {
        let mut specs = Vec::new();
        for (event, groups) in self.groups() {
            for group in groups {
                let matcher = group.matcher.clone().unwrap_or_default();
                matcher::check(&matcher).map_err(|e| format!("hooks.{}: {e}", event.name()))?;
                for hook in &group.hooks {
                    let at = format!("hooks.{} (`{}`)", event.name(), hook.command);
                    if hook.kind != "command" {
                        return Err(format!(
                            "{at}: type = \"{}\" is not supported; the only type is \"command\"",
                            hook.kind
                        ));
                    }
                    if hook.command.trim().is_empty() {
                        return Err(format!("hooks.{}: a hook's command is empty", event.name()));
                    }
                    let timeout = match hook.timeout {
                        None => DEFAULT_TIMEOUT,
                        Some(s) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_SECONDS => {
                            Duration::from_secs_f64(s)
                        }
                        Some(s) => {
                            return Err(format!(
                                "{at}: timeout must be more than 0 and at most \
                                 {MAX_TIMEOUT_SECONDS} seconds, not {s}"
                            ));
                        }
                    };
                    let sandbox = hook.sandbox.unwrap_or(true);
                    if !sandbox && matches!(source, HookSource::Project(_)) {
                        return Err(format!(
                            "{at}: a project's hook always runs in the sandbox; `sandbox = \
                             false` belongs in your own config file"
                        ));
                    }
                    specs.push(HookSpec {
                        event,
                        matcher: matcher.clone(),
                        command: hook.command.clone(),
                        timeout,
                        sandbox,
                        source: source.clone(),
                    });
                }
            }
        }
        Ok(specs)
    }
}
