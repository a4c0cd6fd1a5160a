//! `[hooks]`: the user's hooks (and a project's, which run only once the user trusts them), in
//! the shape of Claude Code's `hooks` settings object, so one moves over by rewriting its JSON as
//! TOML:
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

use schemars::JsonSchema;
use serde::Deserialize;
use tandem_agent::hooks::{DEFAULT_TIMEOUT, HookEvent, HookSource, HookSpec, matcher};

/// The longest timeout a hook may have (an hour: a hook holds the turn while it runs).
const MAX_TIMEOUT_SECONDS: f64 = 3600.0;

/// Hooks by event, in Claude Code's shape (docs/hooks.md). A project's run only once the user
/// trusts them.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileHooks {
    /// Before a tool runs: may allow, deny (the model reads why) or ask.
    #[serde(rename = "PreToolUse", default)]
    pub pre_tool_use: Vec<FileHookGroup>,
    /// After a tool ran (e.g. format the edited file); its output may go to the model.
    #[serde(rename = "PostToolUse", default)]
    pub post_tool_use: Vec<FileHookGroup>,
    /// When a prompt is sent: may refuse it or add context.
    #[serde(rename = "UserPromptSubmit", default)]
    pub user_prompt_submit: Vec<FileHookGroup>,
    /// When a turn ends.
    #[serde(rename = "Stop", default)]
    pub stop: Vec<FileHookGroup>,
    /// At a session's first turn; may add context.
    #[serde(rename = "SessionStart", default)]
    pub session_start: Vec<FileHookGroup>,
}

/// A matcher and the commands it runs.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileHookGroup {
    /// Tool names (`Edit|Write`), a regular expression, or `*`/empty for all.
    #[serde(default)]
    pub matcher: Option<String>,
    pub hooks: Vec<FileHook>,
}

/// One hook: a command line of the user's, which gets the event's JSON on stdin.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileHook {
    /// `"command"`, the only kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// Run by the user's shell; the event's JSON comes on stdin, never in the line.
    pub command: String,
    /// Seconds (default 60).
    #[serde(default)]
    pub timeout: Option<f64>,
    /// `false`: outside the sandbox (the user's own file only: a project's hook always runs in
    /// it).
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use tandem_agent::hooks::HookEvent;

    fn settings(text: &str) -> Result<Vec<tandem_agent::hooks::HookSpec>, String> {
        let path = Path::new("/home/me/.config/tandem/config.toml");
        crate::file::parse(path, text)
            .map_err(|e| e.to_string())?
            .settings(path, None)
            .map(|s| s.hooks)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn hooks_read_in_claude_codes_shape() {
        let hooks = settings(
            r#"
[[hooks.PreToolUse]]
matcher = "Bash"
hooks = [{ type = "command", command = "python3 check.py", timeout = 5 }]

[[hooks.PostToolUse]]
matcher = "Edit|Write"
hooks = [{ type = "command", command = "fmt.sh", sandbox = false }]

[[hooks.Stop]]
hooks = [{ type = "command", command = "notify" }]
"#,
        )
        .unwrap();
        assert_eq!(hooks.len(), 3);
        assert_eq!(
            (
                hooks[0].event,
                hooks[0].matcher.as_str(),
                hooks[0].timeout.as_secs()
            ),
            (HookEvent::PreToolUse, "Bash", 5)
        );
        assert!(hooks[0].sandbox && !hooks[1].sandbox);
        assert_eq!(hooks[2].timeout, tandem_agent::hooks::DEFAULT_TIMEOUT);
    }

    #[test]
    fn what_is_wrong_with_a_hook_is_said() {
        let typo = settings("[[hooks.PreTooluse]]\nhooks = []\n").unwrap_err();
        assert!(typo.contains("PreTooluse"), "{typo}");
        let kind = settings("[[hooks.Stop]]\nhooks = [{ type = \"prompt\", command = \"x\" }]\n")
            .unwrap_err();
        assert!(kind.contains("the only type is \"command\""), "{kind}");
        let matcher = settings(
            "[[hooks.PreToolUse]]\nmatcher = \"mcp__(\"\nhooks = [{ type = \"command\", command = \"x\" }]\n",
        )
        .unwrap_err();
        assert!(
            matcher.contains("not a valid regular expression"),
            "{matcher}"
        );
        let timeout = settings(
            "[[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"x\", timeout = 0 }]\n",
        )
        .unwrap_err();
        assert!(timeout.contains("timeout must be more than 0"), "{timeout}");
    }

    /// A project's hooks are read (to be put to the user), always sandboxed: a project file
    /// that says `sandbox = false` is refused, naming the hook.
    #[test]
    fn a_projects_hooks_are_read_but_may_not_leave_the_sandbox() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join(".tandem")).unwrap();
        let file = ws.path().join(".tandem/config.toml");
        std::fs::write(
            &file,
            "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\nhooks = [{ type = \"command\", command = \"sh .tandem/check.sh\" }]\n",
        )
        .unwrap();
        let hooks = crate::project_hooks(ws.path()).unwrap();
        assert_eq!(hooks.len(), 1);
        assert_eq!(
            hooks[0].source,
            tandem_agent::hooks::HookSource::Project(file.clone())
        );
        assert!(hooks[0].sandbox);
        std::fs::write(
            &file,
            "[[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"x\", sandbox = false }]\n",
        )
        .unwrap();
        let refused = crate::project_hooks(ws.path()).unwrap_err().to_string();
        assert!(refused.contains("always runs in the sandbox"), "{refused}");
    }
}
