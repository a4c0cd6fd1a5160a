//! What a hook's end says, read as Claude Code reads it: exit 0 with its stdout (JSON, or plain
//! text that is context for `UserPromptSubmit` and `SessionStart`), exit 2 a blocking answer
//! with stderr as the reason, any other end a failure the user is shown (the turn goes on).

use serde::Deserialize;
use serde_json::Value;

use super::{HookEvent, HookSpec};
use tandem_tools::{HookExit, MAX_HOOK_OUTPUT};

/// The most of one hook's text that goes to the model (Claude Code's cap on context).
pub const MAX_TEXT: usize = 10_000;

/// A `PreToolUse` hook's word on a call; the stronger wins when several speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    Allow,
    Ask,
    Deny,
}

/// What one hook (or all of an event's, merged) said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// `PreToolUse`: allow, ask or deny, and why.
    pub permission: Option<(Permission, String)>,
    /// A blocking answer of another event: feedback for the model after a tool, the reason a
    /// prompt was refused, why a turn should not end.
    pub block: Option<String>,
    /// Text for the model (`additionalContext`; a prompt's or a session's plain stdout).
    pub context: Vec<String>,
    /// `continue: false`: the turn stops, with this reason for the user.
    pub halt: Option<String>,
    /// For the user: failures, `systemMessage`s.
    pub notices: Vec<String>,
}

impl Reply {
    /// Merges another hook's reply into this one (the stronger permission wins; texts add up).
    pub fn merge(&mut self, other: Reply) {
        match (&mut self.permission, other.permission) {
            (Some(mine), Some(theirs)) if theirs.0 > mine.0 => *mine = theirs,
            (Some(mine), Some(theirs)) if theirs.0 == mine.0 && !theirs.1.is_empty() => {
                if !mine.1.is_empty() {
                    mine.1.push('\n');
                }
                mine.1.push_str(&theirs.1);
            }
            (None, theirs @ Some(_)) => self.permission = theirs,
            _ => {}
        }
        self.block = match (self.block.take(), other.block) {
            (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
            (a, b) => a.or(b),
        };
        self.context.extend(other.context);
        self.halt = self.halt.take().or(other.halt);
        self.notices.extend(other.notices);
    }
}

/// Claude Code's JSON output, the fields Tandem reads (others are ignored, as Claude does).
#[derive(Debug, Default, Deserialize)]
struct Output {
    #[serde(rename = "continue")]
    keep_going: Option<bool>,
    #[serde(rename = "stopReason")]
    stop_reason: Option<String>,
    #[serde(rename = "systemMessage")]
    system_message: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    #[serde(rename = "hookSpecificOutput")]
    specific: Option<Specific>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Specific {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    additional_context: Option<String>,
    updated_input: Option<Value>,
}

fn capped(text: &str) -> String {
    tandem_stdx::truncated(
        text.trim(),
        MAX_TEXT,
        "\n[… cut: a hook's text is kept to 10,000 bytes]",
    )
}

/// Reads how one hook ended (`Err`: it could not start, with why).
pub fn read(spec: &HookSpec, ran: Result<HookExit, String>) -> Reply {
    let mut reply = Reply::default();
    let what = spec.describe();
    let exit = match ran {
        Ok(exit) => exit,
        Err(why) => {
            reply.notices.push(format!(
                "The {what} could not run: {why}. It decided nothing."
            ));
            return reply;
        }
    };
    if exit.cancelled {
        return reply;
    }
    if exit.dropped_bytes > 0 {
        reply.notices.push(format!(
            "The {what} printed {} bytes more than the {} MiB of each stream Tandem reads; the \
             rest was dropped.",
            exit.dropped_bytes,
            MAX_HOOK_OUTPUT / (1024 * 1024)
        ));
    }
    if exit.timed_out {
        reply.notices.push(format!(
            "The {what} did not finish within its {} s timeout and was stopped, with everything \
             it started. It decided nothing; raise `timeout` in its config if it needs longer.",
            spec.timeout.as_secs_f64()
        ));
        return reply;
    }
    match exit.exit_code {
        Some(0) => read_stdout(spec, &exit.stdout, &mut reply),
        Some(2) => {
            let why = capped(&exit.stderr);
            let why = if why.is_empty() {
                format!("the {what} refused it (exit code 2) without saying why")
            } else {
                why
            };
            if spec.event == HookEvent::PreToolUse {
                reply.permission = Some((Permission::Deny, why));
            } else {
                reply.block = Some(why);
            }
        }
        code => {
            let how = code.map_or("was killed by a signal".to_string(), |c| {
                format!("failed with exit code {c}")
            });
            let stderr = tandem_stdx::truncated(exit.stderr.trim(), 2000, "…");
            let said = if stderr.is_empty() {
                String::new()
            } else {
                format!(": {stderr}")
            };
            reply.notices.push(format!(
                "The {what} {how}{said}. It decided nothing (only exit code 2 blocks); the turn \
                 goes on."
            ));
        }
    }
    reply
}

fn read_stdout(spec: &HookSpec, stdout: &str, reply: &mut Reply) {
    let what = spec.describe();
    let text = stdout.trim();
    if !text.starts_with('{') {
        if matches!(
            spec.event,
            HookEvent::UserPromptSubmit | HookEvent::SessionStart
        ) && !text.is_empty()
        {
            reply.context.push(capped(text));
        }
        return;
    }
    let output: Output = match serde_json::from_str(text) {
        Ok(output) => output,
        Err(e) => {
            reply.notices.push(format!(
                "The {what} printed output that starts like JSON but is not valid JSON ({e}). It \
                 decided nothing."
            ));
            return;
        }
    };
    if output.keep_going == Some(false) {
        reply.halt = Some(
            output
                .stop_reason
                .clone()
                .unwrap_or_else(|| format!("the {what} stopped the turn")),
        );
    }
    if let Some(message) = output.system_message.filter(|m| !m.trim().is_empty()) {
        reply.notices.push(format!("{what}: {}", capped(&message)));
    }
    let specific = output.specific.unwrap_or_default();
    let reason = output.reason.as_deref().map(capped).unwrap_or_default();
    if let Some(context) = specific.additional_context.filter(|c| !c.trim().is_empty())
        && spec.event != HookEvent::PreToolUse
        && spec.event != HookEvent::Stop
    {
        reply.context.push(capped(&context));
    }
    match spec.event {
        HookEvent::PreToolUse => {
            let decision = specific.permission_decision.as_deref().map(|d| {
                let why = specific
                    .permission_decision_reason
                    .as_deref()
                    .map(capped)
                    .unwrap_or_default();
                (d, why)
            });
            // The older `decision` field: "approve" and "block".
            let decision = decision.or(match output.decision.as_deref() {
                Some("approve") => Some(("allow", reason.clone())),
                Some("block") => Some(("deny", reason.clone())),
                _ => None,
            });
            let project = matches!(spec.source, super::HookSource::Project(_));
            reply.permission = match decision {
                // A repository's hook may refuse or ask, never approve: approval is the
                // user's, and the project's files are the model's to write.
                Some(("allow", _)) if project => {
                    reply.notices.push(format!(
                        "The {what} (a project's hook) answered allow: a project's hook may \
                         deny or ask, never approve, so the call's approval went as if it had \
                         said nothing."
                    ));
                    None
                }
                Some(("allow", why)) => Some((Permission::Allow, why)),
                Some(("ask", why)) => Some((Permission::Ask, why)),
                Some(("deny", why)) => Some((Permission::Deny, why)),
                Some((other, _)) => {
                    reply.notices.push(format!(
                        "The {what} gave permissionDecision `{other}`, which is none of allow, \
                         deny and ask. It decided nothing."
                    ));
                    None
                }
                None => None,
            };
            if specific.updated_input.is_some() {
                reply.notices.push(format!(
                    "The {what} gave updatedInput: Tandem does not let a hook change a call's \
                     input, so the call went as the model wrote it."
                ));
            }
        }
        HookEvent::PostToolUse | HookEvent::UserPromptSubmit | HookEvent::Stop => {
            if output.decision.as_deref() == Some("block") {
                reply.block = Some(if reason.is_empty() {
                    format!("the {what} blocked without saying why")
                } else {
                    reason
                });
            }
        }
        HookEvent::SessionStart => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::{DEFAULT_TIMEOUT, HookSource};

    fn spec(event: HookEvent) -> HookSpec {
        HookSpec {
            event,
            matcher: String::new(),
            command: "x".into(),
            timeout: DEFAULT_TIMEOUT,
            sandbox: true,
            source: HookSource::User("/c".into()),
        }
    }

    fn ended(code: i32, stdout: &str, stderr: &str) -> Result<HookExit, String> {
        Ok(HookExit {
            exit_code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            ..HookExit::default()
        })
    }

    #[test]
    fn exit_codes_and_json_decide_as_in_claude_code() {
        let pre = spec(HookEvent::PreToolUse);
        let denied = read(&pre, ended(2, "", "no rm\n"));
        assert_eq!(denied.permission, Some((Permission::Deny, "no rm".into())));
        let json = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check"}}"#;
        assert_eq!(
            read(&pre, ended(0, json, "")).permission,
            Some((Permission::Ask, "check".into()))
        );
        let failed = read(&pre, ended(1, "", "boom"));
        assert_eq!(failed.permission, None);
        assert!(
            failed.notices[0].contains("exit code 1: boom"),
            "{failed:?}"
        );
        let bad = read(&pre, ended(0, "{nope", ""));
        assert!(bad.notices[0].contains("not valid JSON"), "{bad:?}");
        let prompt = read(
            &spec(HookEvent::UserPromptSubmit),
            ended(0, "the date is today\n", ""),
        );
        assert_eq!(prompt.context, vec!["the date is today".to_string()]);
        let halted = read(
            &pre,
            ended(0, r#"{"continue":false,"stopReason":"enough"}"#, ""),
        );
        assert_eq!(halted.halt.as_deref(), Some("enough"));
        let mut merged = read(&pre, ended(0, r#"{"decision":"approve"}"#, ""));
        merged.merge(denied);
        assert_eq!(merged.permission.map(|p| p.0), Some(Permission::Deny));
    }

    /// A repository's hook, once its running is trusted, still can't approve: its allow (either
    /// spelling) counts as nothing, and the user is told; its deny and ask stand.
    #[test]
    fn a_project_hook_may_deny_or_ask_but_never_allow() {
        let mut pre = spec(HookEvent::PreToolUse);
        pre.source = HookSource::Project("/ws/.claude/settings.json".into());
        for allow in [
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            r#"{"decision":"approve"}"#,
        ] {
            let reply = read(&pre, ended(0, allow, ""));
            assert_eq!(reply.permission, None, "{allow}");
            assert!(reply.notices[0].contains("never approve"), "{reply:?}");
        }
        let ask =
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#;
        assert_eq!(
            read(&pre, ended(0, ask, "")).permission.map(|p| p.0),
            Some(Permission::Ask)
        );
        assert_eq!(
            read(&pre, ended(2, "", "no")).permission.map(|p| p.0),
            Some(Permission::Deny)
        );
        let user = spec(HookEvent::PreToolUse);
        assert_eq!(
            read(&user, ended(0, r#"{"decision":"approve"}"#, ""))
                .permission
                .map(|p| p.0),
            Some(Permission::Allow),
            "the user's own hook still approves"
        );
    }
}
