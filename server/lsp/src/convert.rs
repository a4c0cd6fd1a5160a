//! Between the wire (`tandem_protocol`) and the core: the only place that knows both, so the
//! wire-types crate depends on nothing of the core. The orphan rule keeps `From` between two
//! foreign crates' types out of this crate: [`IntoCore`] and [`IntoWire`] stand in for it.

use tandem_agent::approval as core_approval;
use tandem_agent::events::{self as core_events, Event};
use tandem_agent::mode as core_mode;
use tandem_agent::plan as core_plan;
use tandem_agent::prompt as core_prompt;
use tandem_agent::{SessionId, TurnId};
use tandem_protocol::*;

/// A wire value as the core takes it.
pub(crate) trait IntoCore {
    type Core;
    fn into_core(self) -> Self::Core;
}

/// A core value as it goes on the wire.
pub(crate) trait IntoWire {
    type Wire;
    fn into_wire(self) -> Self::Wire;
}

/// The ids cross as their text: the wire's (`tandem_protocol`) and the core's
/// (`tandem_model`) are separate types of the same shape, so neither crate knows the other.
macro_rules! id_conversions {
    ($($id:ident),*) => {$(
        impl IntoCore for tandem_protocol::$id {
            type Core = tandem_agent::$id;
            fn into_core(self) -> tandem_agent::$id {
                self.into_string().into()
            }
        }

        impl IntoWire for tandem_agent::$id {
            type Wire = tandem_protocol::$id;
            fn into_wire(self) -> tandem_protocol::$id {
                self.into_string().into()
            }
        }

        impl IntoWire for &tandem_agent::$id {
            type Wire = tandem_protocol::$id;
            fn into_wire(self) -> tandem_protocol::$id {
                self.as_str().into()
            }
        }
    )*};
}

id_conversions!(SessionId, TurnId, ToolCallId);

impl IntoCore for ProviderOptions {
    type Core = tandem_provider::ProviderOptions;
    fn into_core(self) -> tandem_provider::ProviderOptions {
        let o = self;
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

/// `base` with the fields `limits` sets; an unusable number (negative, not finite) is an error
/// naming the field.
pub(crate) fn apply_limits(
    limits: Limits,
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
    if let Some(s) = limits.stall_timeout_seconds {
        base.stall_timeout = seconds("stallTimeoutSeconds", s)?;
    }
    if let Some(s) = limits.progress_timeout_seconds {
        base.progress_timeout = seconds("progressTimeoutSeconds", s)?;
    }
    if let Some(n) = limits.max_event_bytes {
        base.max_event_bytes = usize::try_from(n).unwrap_or(usize::MAX).max(1024);
    }
    if let Some(n) = limits.max_answer_bytes {
        base.max_answer_bytes = usize::try_from(n).unwrap_or(usize::MAX).max(1024);
    }
    Ok(base)
}

impl IntoCore for Mode {
    type Core = core_mode::Mode;
    fn into_core(self) -> core_mode::Mode {
        let m = self;
        match m {
            Mode::Default => core_mode::Mode::Default,
            Mode::Plan => core_mode::Mode::Plan,
        }
    }
}

impl IntoWire for core_mode::Mode {
    type Wire = Mode;
    fn into_wire(self) -> Mode {
        let m = self;
        match m {
            core_mode::Mode::Default => Mode::Default,
            core_mode::Mode::Plan => Mode::Plan,
        }
    }
}

impl IntoCore for Position {
    type Core = core_prompt::Position;
    fn into_core(self) -> core_prompt::Position {
        let p = self;
        core_prompt::Position {
            line: p.line,
            character: p.character,
        }
    }
}

impl IntoCore for Range {
    type Core = core_prompt::Range;
    fn into_core(self) -> core_prompt::Range {
        let r = self;
        core_prompt::Range {
            start: r.start.into_core(),
            end: r.end.into_core(),
        }
    }
}

impl IntoCore for ContextItem {
    type Core = core_prompt::ContextItem;
    fn into_core(self) -> core_prompt::ContextItem {
        let c = self;
        core_prompt::ContextItem {
            kind: match c.kind {
                None | Some(ContextKind::File) => core_prompt::ContextKind::File,
                Some(ContextKind::Folder) => core_prompt::ContextKind::Folder,
                Some(ContextKind::Editor) => core_prompt::ContextKind::Editor,
                Some(ContextKind::Url) => core_prompt::ContextKind::Url,
            },
            path: c.path,
            text: c.text,
            range: c.range.map(IntoCore::into_core),
        }
    }
}

impl IntoWire for core_events::ToolStatus {
    type Wire = ToolStatus;
    fn into_wire(self) -> ToolStatus {
        let s = self;
        match s {
            core_events::ToolStatus::Ok => ToolStatus::Ok,
            core_events::ToolStatus::Error => ToolStatus::Error,
            core_events::ToolStatus::Rejected => ToolStatus::Rejected,
        }
    }
}

impl IntoWire for tandem_tools::ErrorKind {
    type Wire = ToolErrorKind;
    fn into_wire(self) -> ToolErrorKind {
        let k = self;
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

impl IntoWire for core_events::StopReason {
    type Wire = StopReason;
    fn into_wire(self) -> StopReason {
        let s = self;
        match s {
            core_events::StopReason::EndTurn => StopReason::EndTurn,
            core_events::StopReason::Cancelled => StopReason::Cancelled,
            core_events::StopReason::MaxSteps => StopReason::MaxSteps,
            core_events::StopReason::Error => StopReason::Error,
        }
    }
}

impl IntoWire for Event {
    type Wire = Update;
    fn into_wire(self) -> Update {
        let e = self;
        match e {
            Event::TurnStarted { prompt, .. } => Update::TurnStarted { prompt },
            Event::Text { delta } => Update::Text { delta },
            Event::Reasoning { delta } => Update::Reasoning { delta },
            Event::ToolCall(call) => Update::ToolCall {
                tool_call_id: call.tool_call_id.into_wire(),
                name: call.name,
                arguments: call.arguments,
                title: call.title,
            },
            Event::ToolOutput {
                tool_call_id,
                delta,
            } => Update::ToolOutput {
                tool_call_id: tool_call_id.into_wire(),
                delta,
            },
            Event::ToolResult {
                tool_call_id,
                status,
                output,
                diff,
                error_kind,
            } => Update::ToolResult {
                tool_call_id: tool_call_id.into_wire(),
                status: status.into_wire(),
                output,
                diff: diff.map(|d| d.unified),
                error_kind: error_kind.map(IntoWire::into_wire),
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
            Event::Subagent {
                parent,
                agent,
                event,
            } => Update::Subagent {
                parent_id: parent.into_wire(),
                agent,
                update: Box::new(event.into_wire()),
            },
            Event::FilesChanged {
                tool_call_id,
                changes,
            } => Update::FilesChanged {
                tool_call_id: tool_call_id.into_wire(),
                changes: changes.into_iter().map(IntoWire::into_wire).collect(),
            },
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
                stop_reason: stop_reason.into_wire(),
                error,
                error_kind: error_kind.map(IntoWire::into_wire),
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

pub(crate) fn update_params(
    session_id: &SessionId,
    turn_id: &TurnId,
    event: Event,
) -> UpdateParams {
    UpdateParams {
        session_id: session_id.into_wire(),
        turn_id: turn_id.into_wire(),
        update: event.into_wire(),
    }
}

fn rfc3339(t: time::OffsetDateTime) -> String {
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

impl IntoWire for tandem_agent::SessionInfo {
    type Wire = SessionInfo;
    fn into_wire(self) -> SessionInfo {
        let s = self;
        SessionInfo {
            session_id: s.session_id.into_wire(),
            title: s.title,
            root: s.root,
            additional_roots: s.additional_roots,
            created_at: rfc3339(s.created_at),
            updated_at: rfc3339(s.updated_at),
        }
    }
}

impl IntoWire for tandem_provider::ModelInfo {
    type Wire = ModelInfo;
    fn into_wire(self) -> ModelInfo {
        let m = self;
        ModelInfo {
            id: m.id,
            context_window: m.context_window,
        }
    }
}

/// The core's diagnostic; `None` for a severity the core does not use.
impl IntoCore for Diagnostic {
    type Core = Option<tandem_agent::Diagnostic>;
    fn into_core(self) -> Option<tandem_agent::Diagnostic> {
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

impl IntoWire for tandem_agent::UndoOutcome {
    type Wire = UndoResult;
    fn into_wire(self) -> UndoResult {
        let o = self;
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

impl IntoWire for core_events::FileChange {
    type Wire = FileChangeSummary;
    fn into_wire(self) -> FileChangeSummary {
        use core_events::FileChangeKind as K;
        let (kind, from) = match self.kind {
            K::Created => (FileChangeKind::Created, None),
            K::Modified => (FileChangeKind::Modified, None),
            K::Deleted => (FileChangeKind::Deleted, None),
            K::Renamed { from } => (FileChangeKind::Renamed, Some(from)),
            K::ModeChanged => (FileChangeKind::ModeChanged, None),
        };
        FileChangeSummary {
            path: self.path,
            kind,
            from,
            added: self.added,
            removed: self.removed,
        }
    }
}

impl IntoWire for tandem_agent::changes::Content {
    type Wire = FileSide;
    fn into_wire(self) -> FileSide {
        use tandem_agent::changes::Content as C;
        match self {
            C::Absent => FileSide::Absent,
            C::Text(text) => FileSide::Text { text },
            C::Binary { bytes } => FileSide::Binary { bytes },
            C::TooLarge { bytes } => FileSide::TooLarge { bytes },
        }
    }
}

impl IntoWire for tandem_agent::changes::ChangedFile {
    type Wire = TurnFile;
    fn into_wire(self) -> TurnFile {
        use tandem_agent::changes::ChangedKind as K;
        use tandem_tools::ChangeSource as S;
        TurnFile {
            path: self.path,
            kind: match self.kind {
                K::Created => TurnFileKind::Created,
                K::Modified => TurnFileKind::Modified,
                K::Deleted => TurnFileKind::Deleted,
            },
            by: self.by.map(|by| ChangedBy {
                source: match by.source {
                    S::Edit => ChangeSource::Edit,
                    S::Command => ChangeSource::Command,
                    S::Mcp => ChangeSource::Mcp,
                    S::Hook => ChangeSource::Hook,
                },
                tool_call_id: by.tool_call_id.map(Into::into),
            }),
            before: self.before.into_wire(),
            after: self.after.into_wire(),
        }
    }
}

pub(crate) fn files_changed_params(
    session_id: &SessionId,
    files: Vec<core_events::FileEvent>,
) -> FilesChangedParams {
    FilesChangedParams {
        session_id: session_id.into_wire(),
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

impl IntoWire for core_approval::ApprovalRequest {
    type Wire = ApprovalRequest;
    fn into_wire(self) -> ApprovalRequest {
        let r = self;
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
                reason: command.reason,
                always: command.always,
            },
            core_approval::ApprovalAction::Mcp(call) => ApprovalAction::Mcp {
                server: call.server,
                tool: call.tool,
                arguments: call.arguments,
            },
            core_approval::ApprovalAction::McpServer(server) => ApprovalAction::McpServer {
                subject: match server.subject {
                    core_approval::TrustSubject::McpServer => None,
                    core_approval::TrustSubject::Hook => Some("hook".into()),
                },
                server: server.server,
                target: server.target,
                source: server.source.display().to_string(),
                why_not_always: server.why_not_always,
            },
            core_approval::ApprovalAction::Fetch(fetch) => ApprovalAction::Fetch {
                url: fetch.url,
                redirected_from: fetch.redirected_from,
            },
        };
        ApprovalRequest {
            session_id: r.session_id.into_wire(),
            turn_id: r.turn_id.into_wire(),
            tool_call_id: r.tool_call_id.into_wire(),
            action,
            subagent: r.subagent.map(|s| ApprovalSubagent {
                parent_id: s.parent.into_wire(),
                agent: s.agent,
            }),
        }
    }
}

impl IntoCore for ApprovalReply {
    type Core = core_approval::ApprovalReply;
    fn into_core(self) -> core_approval::ApprovalReply {
        let r = self;
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

impl IntoWire for core_events::TurnErrorKind {
    type Wire = ErrorKind;
    fn into_wire(self) -> ErrorKind {
        let kind = self;
        match kind {
            core_events::TurnErrorKind::NoServer => ErrorKind::NoServer,
            core_events::TurnErrorKind::Auth => ErrorKind::Auth,
            core_events::TurnErrorKind::Connection => ErrorKind::Connection,
            core_events::TurnErrorKind::ContextOverflow => ErrorKind::ContextOverflow,
            core_events::TurnErrorKind::AnswerCut => ErrorKind::AnswerCut,
            core_events::TurnErrorKind::Other => ErrorKind::Other,
        }
    }
}

impl IntoWire for tandem_agent::commands::CustomCommand {
    type Wire = CustomCommand;
    fn into_wire(self) -> CustomCommand {
        use tandem_agent::commands::CommandSource as Core;
        CustomCommand {
            name: self.name,
            description: self.description,
            argument_hint: self.argument_hint,
            source: match self.source {
                Core::User => CommandSource::User,
                Core::Project => CommandSource::Project,
            },
            path: self.path.display().to_string(),
        }
    }
}

impl IntoWire for tandem_agent::commands::Commands {
    type Wire = ListCommandsResult;
    fn into_wire(self) -> ListCommandsResult {
        ListCommandsResult {
            commands: self.commands.into_iter().map(IntoWire::into_wire).collect(),
            problems: self.problems,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn updates_are_flat_with_a_kind() {
        let u = update_params(
            &SessionId::from("s"),
            &TurnId::numbered(1),
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
        let stale = Event::ToolResult {
            tool_call_id: "c".into(),
            status: core_events::ToolStatus::Error,
            output: "Error (stale): a.rs changed".into(),
            diff: None,
            error_kind: Some(tandem_tools::ErrorKind::Stale),
        }
        .into_wire();
        assert_eq!(serde_json::to_value(&stale).unwrap()["errorKind"], "stale");
        let ended = Event::TurnEnded {
            stop_reason: core_events::StopReason::MaxSteps,
            error: None,
            error_kind: None,
        }
        .into_wire();
        assert_eq!(
            serde_json::to_value(&ended).unwrap(),
            json!({"kind": "turnEnded", "stopReason": "maxSteps"})
        );
    }

    #[test]
    fn a_calls_changed_files_go_as_a_files_changed_update() {
        use core_events::{FileChange as C, FileChangeKind as K};
        let u = update_params(
            &SessionId::from("s"),
            &TurnId::numbered(1),
            Event::FilesChanged {
                tool_call_id: "c".into(),
                changes: vec![
                    C {
                        path: "b/x.rs".into(),
                        kind: K::Renamed {
                            from: "a/x.rs".into(),
                        },
                        added: 0,
                        removed: 0,
                    },
                    C {
                        path: "y.rs".into(),
                        kind: K::Modified,
                        added: 2,
                        removed: 1,
                    },
                ],
            },
        );
        assert_eq!(
            serde_json::to_value(&u).unwrap(),
            json!({"sessionId": "s", "turnId": "t1", "kind": "filesChanged", "toolCallId": "c",
                   "changes": [
                       {"path": "b/x.rs", "kind": "renamed", "from": "a/x.rs", "added": 0, "removed": 0},
                       {"path": "y.rs", "kind": "modified", "added": 2, "removed": 1}]})
        );
    }

    #[test]
    fn a_changed_file_goes_with_its_sides_and_who() {
        use tandem_agent::changes::{ChangedFile, ChangedKind, Content};
        let file = ChangedFile {
            path: "a.bin".into(),
            kind: ChangedKind::Modified,
            by: Some(tandem_tools::ChangedBy::new(
                tandem_tools::ChangeSource::Command,
                Some("c"),
            )),
            before: Content::Binary { bytes: 3 },
            after: Content::Text("\u{1b}[2J".into()),
        };
        assert_eq!(
            serde_json::to_value(file.into_wire()).unwrap(),
            json!({"path": "a.bin", "kind": "modified",
                   "by": {"source": "command", "toolCallId": "c"},
                   "before": {"kind": "binary", "bytes": 3},
                   "after": {"kind": "text", "text": "\u{1b}[2J"}})
        );
    }

    #[test]
    fn approval_requests_are_flat_with_a_kind() {
        let request = core_approval::ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "c".into(),
            subagent: None,
            action: core_approval::ApprovalAction::Command(core_approval::CommandApproval {
                command: "cargo test".into(),
                outside_sandbox: false,
                cwd: "/w".into(),
                display_cwd: ".".into(),
                reason: String::new(),
                always: Vec::new(),
            }),
        };
        assert_eq!(
            serde_json::to_value(request.clone().into_wire()).unwrap(),
            json!({"sessionId": "s", "turnId": "t1", "toolCallId": "c", "kind": "command",
                   "command": "cargo test", "cwd": "/w"})
        );
        let mut request = request;
        if let core_approval::ApprovalAction::Command(c) = &mut request.action {
            c.reason = "`curl x` (in a substitution): no rule admits this command".into();
            c.always = vec!["curl".into()];
        }
        let wire = serde_json::to_value(request.into_wire()).unwrap();
        assert_eq!(
            wire["reason"],
            "`curl x` (in a substitution): no rule admits this command"
        );
        assert_eq!(wire["always"], json!(["curl"]));

        // A subagent's question names it; the main agent's has no `subagent`.
        let mut child = request_for_subagent();
        child.tool_call_id = "t/c".into();
        let wire = serde_json::to_value(child.into_wire()).unwrap();
        assert_eq!(
            wire["subagent"],
            json!({"parentId": "t", "agent": "explore"})
        );
        assert_eq!(wire["toolCallId"], "t/c");
    }

    fn request_for_subagent() -> core_approval::ApprovalRequest {
        core_approval::ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "c".into(),
            subagent: Some(core_approval::AskingSubagent {
                parent: "t".into(),
                agent: "explore".into(),
            }),
            action: core_approval::ApprovalAction::Fetch(core_approval::FetchApproval {
                url: "https://example.com/".into(),
                redirected_from: None,
            }),
        }
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
        let provider = o.provider.unwrap().into_core();
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
