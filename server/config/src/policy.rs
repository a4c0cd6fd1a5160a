//! The approval policy as each source gives it: every field optional, merged field by field
//! (the editor or the flags, then the files), then the defaults.

use tandem_agent::approval::{
    ApprovalPolicy, AutoApprove, CaptureOptions, CommandWrites, SandboxMode,
};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyOptions {
    pub auto_approve_edit: Option<bool>,
    pub auto_approve_command: Option<bool>,
    pub allow_commands: Option<Vec<String>>,
    /// `approval.rules.ask`: commands that always ask.
    pub ask_commands: Option<Vec<String>>,
    /// `approval.rules.deny`: commands refused without asking.
    pub deny_commands: Option<Vec<String>>,
    pub sandbox: Option<SandboxMode>,
    pub network: Option<bool>,
    pub allow_mcp_tools: Option<Vec<String>>,
    pub allow_fetch: Option<Vec<String>>,
    /// How long a question waits for the user.
    pub timeout: Option<std::time::Duration>,
    /// `approval.command_writes`: apply a command's writes at once, or review them.
    pub command_writes: Option<CommandWrites>,
    /// The `[capture]` table (the user's config file only).
    pub capture: Option<CaptureOptions>,
}

impl PolicyOptions {
    /// Fills each unset field from `other`.
    pub fn or(self, other: PolicyOptions) -> PolicyOptions {
        PolicyOptions {
            auto_approve_edit: self.auto_approve_edit.or(other.auto_approve_edit),
            auto_approve_command: self.auto_approve_command.or(other.auto_approve_command),
            allow_commands: self.allow_commands.or(other.allow_commands),
            ask_commands: self.ask_commands.or(other.ask_commands),
            deny_commands: self.deny_commands.or(other.deny_commands),
            sandbox: self.sandbox.or(other.sandbox),
            network: self.network.or(other.network),
            allow_mcp_tools: self.allow_mcp_tools.or(other.allow_mcp_tools),
            allow_fetch: self.allow_fetch.or(other.allow_fetch),
            timeout: self.timeout.or(other.timeout),
            command_writes: self.command_writes.or(other.command_writes),
            capture: self.capture.or(other.capture),
        }
    }

    /// The policy, with the defaults for what no source set: ask for everything, commands in
    /// the sandbox without network.
    pub fn resolve(self) -> ApprovalPolicy {
        ApprovalPolicy {
            auto_approve: AutoApprove {
                edit: self.auto_approve_edit.unwrap_or(false),
                command: self.auto_approve_command.unwrap_or(false),
            },
            allow_commands: self.allow_commands.unwrap_or_default(),
            ask_commands: self.ask_commands.unwrap_or_default(),
            deny_commands: self.deny_commands.unwrap_or_default(),
            sandbox: self.sandbox.unwrap_or_default(),
            network: self.network.unwrap_or(false),
            allow_mcp_tools: self.allow_mcp_tools.unwrap_or_default(),
            allow_fetch: self.allow_fetch.unwrap_or_default(),
            timeout: self.timeout,
            command_writes: self.command_writes.unwrap_or_default(),
            capture: self.capture.unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_by_field_then_the_defaults() {
        let flags = PolicyOptions {
            allow_commands: Some(vec!["cargo test".into()]),
            ..Default::default()
        };
        let file = PolicyOptions {
            allow_commands: Some(vec!["ls".into()]),
            network: Some(true),
            ..Default::default()
        };
        let p = flags.or(file).resolve();
        assert_eq!(p.allow_commands, vec!["cargo test".to_string()]);
        assert!(p.network);
        assert!(!p.auto_approve.edit && !p.auto_approve.command);
        assert_eq!(p.sandbox, SandboxMode::WorkspaceWrite);
    }
}
