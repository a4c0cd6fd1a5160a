//! Who decides what: the user's approval policy, and the questions the core asks a face.

use serde::{Deserialize, Serialize};

/// The user's standing policy, fixed when the sidecar starts. Nothing the model says or reads can
/// change it; only the user's own `acceptAlways` widens it, for one session.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalPolicy {
    #[serde(default)]
    pub auto_approve: AutoApprove,
    /// Command prefixes that run without asking, e.g. `"cargo test"`, `"git status"`.
    #[serde(default)]
    pub allow_commands: Vec<String>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoApprove {
    #[serde(default)]
    pub edit: bool,
    #[serde(default)]
    pub command: bool,
}

impl ApprovalPolicy {
    /// Whether `command` runs without asking: a listed prefix ending at a word boundary, and no
    /// shell syntax that could chain or redirect to something else (`ls; rm -rf ~` is not `ls`).
    pub fn allows_command(&self, command: &str) -> bool {
        let command = command.trim();
        if command.is_empty() || has_shell_control(command) {
            return false;
        }
        self.allow_commands.iter().any(|prefix| {
            let prefix = prefix.trim();
            !prefix.is_empty()
                && command.starts_with(prefix)
                && command[prefix.len()..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        })
    }
}

/// Characters that let one command line run or affect more than its first command.
fn has_shell_control(command: &str) -> bool {
    command.chars().any(|c| {
        matches!(
            c,
            ';' | '&' | '|' | '`' | '$' | '>' | '<' | '\n' | '\r' | '(' | ')'
        )
    })
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ApprovalKind {
    Edit,
    Command,
}

/// A question to the user: may this edit be written, or this command run?
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    pub session_id: String,
    pub turn_id: String,
    pub tool_call_id: String,
    pub kind: ApprovalKind,
    /// Edit: the file's absolute path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Edit: the file's text now; absent for a new file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<String>,
    /// Edit: the whole proposed text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed: Option<String>,
    /// Edit: unified diff of original to proposed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Command: the command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Command: its absolute working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Decision {
    Accept,
    AcceptAlways,
    Reject,
}

/// The user's answer.
#[cfg_attr(test, derive(ts_rs::TS))]
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
    fn allow_list_refuses_chained_commands() {
        let p = policy(&["ls"]);
        for cmd in [
            "ls; rm -rf ~",
            "ls && curl x",
            "ls | sh",
            "ls `rm x`",
            "ls $(rm x)",
            "ls > /etc/passwd",
            "ls\nrm x",
            "ls & rm x",
        ] {
            assert!(!p.allows_command(cmd), "{cmd:?} must ask");
        }
    }

    #[test]
    fn empty_prefix_allows_nothing() {
        assert!(!policy(&[""]).allows_command("rm -rf /"));
        assert!(!policy(&[]).allows_command("ls"));
    }
}
