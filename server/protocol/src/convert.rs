//! Between the wire and the core: the only place that knows both.

use tandem_agent::approval as core_approval;
use tandem_agent::events::{self as core_events, Event};
use tandem_agent::mode as core_mode;
use tandem_agent::plan as core_plan;
use tandem_agent::prompt as core_prompt;

use crate::types::*;

impl From<ProviderOptions> for tandem_provider::ProviderOptions {
    fn from(o: ProviderOptions) -> Self {
        tandem_provider::ProviderOptions {
            base_url: o.base_url,
            model: o.model,
            api_key: o.api_key.map(tandem_provider::ApiKey::new),
            api: o.api.map(|api| match api {
                Api::Openai => tandem_provider::Api::OpenAi,
                Api::Anthropic => tandem_provider::Api::Anthropic,
            }),
            context_window: o.context_window.filter(|&n| n > 0),
            tool_mode: o.tool_mode.map(|mode| match mode {
                ToolMode::Native => tandem_provider::ToolMode::Native,
                ToolMode::Text => tandem_provider::ToolMode::Text,
                ToolMode::Auto => tandem_provider::ToolMode::Auto,
            }),
            max_output_tokens: o.max_output_tokens,
        }
    }
}

impl Limits {
    /// `base` with the fields this sets; an unusable number (negative, not finite) is an error
    /// naming the field.
    pub fn apply(
        self,
        mut base: tandem_provider::Limits,
    ) -> Result<tandem_provider::Limits, String> {
        let seconds = |name: &str, value: f64| {
            if value.is_finite() && value > 0.0 && value <= 86_400.0 {
                Ok(std::time::Duration::from_secs_f64(value))
            } else {
                Err(format!(
                    "limits.{name} must be more than 0 and at most 86400 seconds, not {value}"
                ))
            }
        };
        if let Some(s) = self.stall_timeout_seconds {
            base.stall_timeout = seconds("stallTimeoutSeconds", s)?;
        }
        if let Some(s) = self.progress_timeout_seconds {
            base.progress_timeout = seconds("progressTimeoutSeconds", s)?;
        }
        if let Some(n) = self.max_event_bytes {
            base.max_event_bytes = usize::try_from(n).unwrap_or(usize::MAX).max(1024);
        }
        if let Some(n) = self.max_answer_bytes {
            base.max_answer_bytes = usize::try_from(n).unwrap_or(usize::MAX).max(1024);
        }
        Ok(base)
    }
}

impl From<Mode> for core_mode::Mode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Default => core_mode::Mode::Default,
            Mode::Plan => core_mode::Mode::Plan,
        }
    }
}

impl From<core_mode::Mode> for Mode {
    fn from(m: core_mode::Mode) -> Self {
        match m {
            core_mode::Mode::Default => Mode::Default,
            core_mode::Mode::Plan => Mode::Plan,
        }
    }
}

impl From<Position> for core_prompt::Position {
    fn from(p: Position) -> Self {
        core_prompt::Position {
            line: p.line,
            character: p.character,
        }
    }
}

impl From<Range> for core_prompt::Range {
    fn from(r: Range) -> Self {
        core_prompt::Range {
            start: r.start.into(),
            end: r.end.into(),
        }
    }
}

impl From<ContextItem> for core_prompt::ContextItem {
    fn from(c: ContextItem) -> Self {
        core_prompt::ContextItem {
            path: c.path,
            text: c.text,
            range: c.range.map(Into::into),
        }
    }
}

impl From<core_events::ToolStatus> for ToolStatus {
    fn from(s: core_events::ToolStatus) -> Self {
        match s {
            core_events::ToolStatus::Ok => ToolStatus::Ok,
            core_events::ToolStatus::Error => ToolStatus::Error,
            core_events::ToolStatus::Rejected => ToolStatus::Rejected,
        }
    }
}

impl From<tandem_tools::ErrorKind> for ToolErrorKind {
    fn from(k: tandem_tools::ErrorKind) -> Self {
        use tandem_tools::ErrorKind as K;
        match k {
            K::NoSuchFile => ToolErrorKind::NoSuchFile,
            K::OutsideWorkspace => ToolErrorKind::OutsideWorkspace,
            K::BinaryFile => ToolErrorKind::BinaryFile,
            K::TooLarge => ToolErrorKind::TooLarge,
            K::InvalidArguments => ToolErrorKind::InvalidArguments,
            K::UnknownTool => ToolErrorKind::UnknownTool,
            K::Stale => ToolErrorKind::Stale,
            K::Timeout => ToolErrorKind::Timeout,
            K::Cancelled => ToolErrorKind::Cancelled,
            K::Io => ToolErrorKind::Io,
            K::NotFound => ToolErrorKind::NotFound,
            K::Ambiguous => ToolErrorKind::Ambiguous,
            K::Overlap => ToolErrorKind::Overlap,
            K::Placeholder => ToolErrorKind::Placeholder,
            K::Invalid => ToolErrorKind::Invalid,
            K::Refused => ToolErrorKind::Refused,
            K::Network => ToolErrorKind::Network,
        }
    }
}

impl From<core_events::StopReason> for StopReason {
    fn from(s: core_events::StopReason) -> Self {
        match s {
            core_events::StopReason::EndTurn => StopReason::EndTurn,
            core_events::StopReason::Cancelled => StopReason::Cancelled,
            core_events::StopReason::MaxSteps => StopReason::MaxSteps,
            core_events::StopReason::Error => StopReason::Error,
        }
    }
}

impl From<Event> for Update {
    fn from(e: Event) -> Self {
        match e {
            Event::TurnStarted { prompt, .. } => Update::TurnStarted { prompt },
            Event::Text { delta } => Update::Text { delta },
            Event::Reasoning { delta } => Update::Reasoning { delta },
            Event::ToolCall(call) => Update::ToolCall {
                tool_call_id: call.tool_call_id,
                name: call.name,
                arguments: call.arguments,
                title: call.title,
            },
            Event::ToolOutput {
                tool_call_id,
                delta,
            } => Update::ToolOutput {
                tool_call_id,
                delta,
            },
            Event::ToolResult {
                tool_call_id,
                status,
                output,
                diff,
                error_kind,
            } => Update::ToolResult {
                tool_call_id,
                status: status.into(),
                output,
                diff: diff.map(|d| d.unified),
                error_kind: error_kind.map(Into::into),
            },
            Event::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            } => Update::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            },
            Event::Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            } => Update::Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            },
            Event::Notice { message } => Update::ModelNotice { message },
            Event::Retrying(r) => Update::Retrying {
                retry: r.retry,
                max_retries: r.max_retries,
                status: r.status,
                error: r.error,
                wait_ms: u64::try_from(r.wait.as_millis()).unwrap_or(u64::MAX),
            },
            Event::Plan(plan) => Update::Plan {
                explanation: plan.explanation,
                entries: plan
                    .steps
                    .into_iter()
                    .map(|s| PlanEntry {
                        step: s.step,
                        status: match s.status {
                            core_plan::StepStatus::Pending => PlanStatus::Pending,
                            core_plan::StepStatus::InProgress => PlanStatus::InProgress,
                            core_plan::StepStatus::Completed => PlanStatus::Completed,
                        },
                    })
                    .collect(),
            },
            Event::TurnEnded {
                stop_reason,
                error,
                error_kind,
            } => Update::TurnEnded {
                stop_reason: stop_reason.into(),
                error,
                error_kind: error_kind.map(ErrorKind::from),
            },
            Event::Rules { files } => Update::Rules {
                files: files
                    .into_iter()
                    .map(|f| RulesFile {
                        path: f.path.display().to_string(),
                        bytes: f.bytes,
                        truncated: f.truncated,
                    })
                    .collect(),
            },
        }
    }
}

impl UpdateParams {
    pub fn new(session_id: &str, turn_id: &str, event: Event) -> Self {
        UpdateParams {
            session_id: session_id.to_string(),
            turn_id: turn_id.to_string(),
            update: event.into(),
        }
    }
}

fn rfc3339(t: time::OffsetDateTime) -> String {
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

impl From<tandem_agent::SessionInfo> for SessionInfo {
    fn from(s: tandem_agent::SessionInfo) -> Self {
        SessionInfo {
            session_id: s.session_id,
            title: s.title,
            root: s.root,
            created_at: rfc3339(s.created_at),
            updated_at: rfc3339(s.updated_at),
        }
    }
}

impl From<tandem_provider::ModelInfo> for ModelInfo {
    fn from(m: tandem_provider::ModelInfo) -> Self {
        ModelInfo {
            id: m.id,
            context_window: m.context_window,
        }
    }
}

impl Diagnostic {
    /// The core's diagnostic; `None` for a severity the core does not use.
    pub fn into_core(self) -> Option<tandem_agent::Diagnostic> {
        let severity = match self.severity {
            Severity::Error => tandem_agent::Severity::Error,
            Severity::Warning => tandem_agent::Severity::Warning,
            Severity::Other => return None,
        };
        Some(tandem_agent::Diagnostic {
            path: self.path,
            line: self.line,
            severity,
            message: self.message,
        })
    }
}

impl From<tandem_agent::UndoOutcome> for UndoResult {
    fn from(o: tandem_agent::UndoOutcome) -> Self {
        UndoResult {
            restored: o.restored,
            conflicts: o
                .conflicts
                .into_iter()
                .map(|c| UndoConflict {
                    path: c.path,
                    change: match c.change {
                        tandem_tools::Change::Modified => FileChange::Modified,
                        tandem_tools::Change::Deleted => FileChange::Deleted,
                    },
                    lost: c.lost,
                })
                .collect(),
            needs_confirmation: o.needs_confirmation,
        }
    }
}

impl FilesChangedParams {
    pub fn new(session_id: &str, files: Vec<core_events::FileEvent>) -> Self {
        Self {
            session_id: session_id.to_string(),
            files: files
                .into_iter()
                .map(|f| FileEvent {
                    path: f.path.display().to_string(),
                    kind: match f.kind {
                        core_events::FileEventKind::Deleted => FileEventKind::Deleted,
                        core_events::FileEventKind::Restored => FileEventKind::Restored,
                    },
                })
                .collect(),
        }
    }
}

impl From<core_approval::ApprovalRequest> for ApprovalRequest {
    fn from(r: core_approval::ApprovalRequest) -> Self {
        let action = match r.action {
            core_approval::ApprovalAction::Edit(edit) => ApprovalAction::Edit {
                path: edit.path.display().to_string(),
                original: edit.original,
                proposed: edit.proposed,
                diff: edit.diff.unified,
            },
            core_approval::ApprovalAction::Command(command) => ApprovalAction::Command {
                command: command.command,
                cwd: command.cwd.display().to_string(),
                outside_sandbox: command.outside_sandbox,
            },
            core_approval::ApprovalAction::Mcp(call) => ApprovalAction::Mcp {
                server: call.server,
                tool: call.tool,
                arguments: call.arguments,
            },
            core_approval::ApprovalAction::McpServer(server) => ApprovalAction::McpServer {
                server: server.server,
                target: server.target,
                source: server.source.display().to_string(),
            },
            core_approval::ApprovalAction::Fetch(fetch) => ApprovalAction::Fetch {
                url: fetch.url,
                redirected_from: fetch.redirected_from,
            },
        };
        ApprovalRequest {
            session_id: r.session_id,
            turn_id: r.turn_id,
            tool_call_id: r.tool_call_id,
            action,
        }
    }
}

impl From<ApprovalReply> for core_approval::ApprovalReply {
    fn from(r: ApprovalReply) -> Self {
        core_approval::ApprovalReply {
            decision: match r.decision {
                Decision::Accept => core_approval::Decision::Accept,
                Decision::AcceptAlways => core_approval::Decision::AcceptAlways,
                Decision::Reject => core_approval::Decision::Reject,
            },
            content: r.content,
            feedback: r.feedback,
            rejected_hunks: r.rejected_hunks.into_iter().map(|h| h as usize).collect(),
        }
    }
}

impl From<core_events::TurnErrorKind> for ErrorKind {
    fn from(kind: core_events::TurnErrorKind) -> Self {
        match kind {
            core_events::TurnErrorKind::NoServer => ErrorKind::NoServer,
            core_events::TurnErrorKind::Auth => ErrorKind::Auth,
            core_events::TurnErrorKind::Connection => ErrorKind::Connection,
            core_events::TurnErrorKind::ContextOverflow => ErrorKind::ContextOverflow,
            core_events::TurnErrorKind::Other => ErrorKind::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn updates_are_flat_with_a_kind() {
        let u = UpdateParams::new(
            "s",
            "t1",
            Event::ToolResult {
                tool_call_id: "c".into(),
                status: core_events::ToolStatus::Rejected,
                output: "no".into(),
                diff: None,
                error_kind: None,
            },
        );
        assert_eq!(
            serde_json::to_value(&u).unwrap(),
            json!({"sessionId": "s", "turnId": "t1", "kind": "toolResult",
                   "toolCallId": "c", "status": "rejected", "output": "no"})
        );
        let stale = Update::from(Event::ToolResult {
            tool_call_id: "c".into(),
            status: core_events::ToolStatus::Error,
            output: "Error (stale): a.rs changed".into(),
            diff: None,
            error_kind: Some(tandem_tools::ErrorKind::Stale),
        });
        assert_eq!(serde_json::to_value(&stale).unwrap()["errorKind"], "stale");
        let ended = Update::from(Event::TurnEnded {
            stop_reason: core_events::StopReason::MaxSteps,
            error: None,
            error_kind: None,
        });
        assert_eq!(
            serde_json::to_value(&ended).unwrap(),
            json!({"kind": "turnEnded", "stopReason": "maxSteps"})
        );
    }

    #[test]
    fn approval_requests_are_flat_with_a_kind() {
        let request = core_approval::ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "c".into(),
            action: core_approval::ApprovalAction::Command(core_approval::CommandApproval {
                command: "cargo test".into(),
                outside_sandbox: false,
                cwd: "/w".into(),
                display_cwd: ".".into(),
            }),
        };
        assert_eq!(
            serde_json::to_value(ApprovalRequest::from(request)).unwrap(),
            json!({"sessionId": "s", "turnId": "t1", "toolCallId": "c", "kind": "command",
                   "command": "cargo test", "cwd": "/w"})
        );
    }

    #[test]
    fn approval_replies_parse_as_documented() {
        let r: ApprovalReply = serde_json::from_value(json!({"decision": "acceptAlways"})).unwrap();
        assert_eq!(r.decision, Decision::AcceptAlways);
        let r: ApprovalReply =
            serde_json::from_value(json!({"decision": "reject", "feedback": "use a constant"}))
                .unwrap();
        assert_eq!(r.feedback.as_deref(), Some("use a constant"));
    }

    #[test]
    fn initialization_options_parse() {
        let o: InitializationOptions = serde_json::from_value(json!({
            "provider": {"baseUrl": "http://x/v1", "model": "m", "apiKey": "k", "api": "openai"},
            "approval": {"autoApprove": {"edit": false, "command": true}, "allowCommands": ["ls"]},
            "maxSteps": 7, "dataDir": "/tmp/d"
        }))
        .unwrap();
        assert_eq!(o.max_steps, Some(7));
        // What `tandem lsp` makes of `approval` is tested where it happens (lsp/src/lib.rs).
        let approval = o.approval.unwrap();
        assert_eq!(approval.allow_commands, Some(vec!["ls".to_string()]));
        let provider = tandem_provider::ProviderOptions::from(o.provider.unwrap());
        assert_eq!(provider.api, Some(tandem_provider::Api::OpenAi));
    }

    #[test]
    fn diagnostics_of_other_severities_are_dropped() {
        let d: Diagnostic = serde_json::from_value(
            json!({"path": "/a", "line": 1, "severity": "hint", "message": "m"}),
        )
        .unwrap();
        assert!(d.into_core().is_none());
    }
}
