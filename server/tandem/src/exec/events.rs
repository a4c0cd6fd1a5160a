//! `tandem exec --json`: the events, one JSON object per line (docs/exec.md). Each is a variant of
//! [`ExecEvent`], translated here from the core's; docs/exec-events.schema.json is generated from
//! these types, and the `exec_schema` test fails while the committed file differs. After a
//! deliberate change, regenerate it with
//! `TANDEM_UPDATE_SCHEMA=1 cargo test -p tandem --bin tandem exec_schema` (or
//! `npm run gen:exec-schema`). A change of meaning or a removed field raises [`VERSION`].

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Serialize, Serializer};
use serde_json::Value;

use tandem_agent::approval::{
    ApprovalAction, ApprovalReply, ApprovalRequest, DecidedBy as AgentDecidedBy, TrustSubject,
};
use tandem_agent::events as agent;

/// The events' format version, in `sessionStarted`.
pub const VERSION: u32 = 1;

/// One line of `tandem exec --json` output (docs/exec.md).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
#[schemars(title = "tandem exec --json event (version 1)")]
pub enum ExecEvent {
    /// First: the session the task runs in.
    SessionStarted {
        version: Version,
        #[schemars(length(min = 1))]
        session_id: String,
        #[schemars(length(min = 1))]
        root: String,
        model: String,
        resumed: bool,
    },
    /// The turn began.
    TurnStarted {
        #[schemars(length(min = 1))]
        session_id: String,
        #[schemars(length(min = 1))]
        turn_id: String,
        prompt: String,
    },
    /// The model's text, whole, up to the next tool call or the end.
    Message {
        #[schemars(length(min = 1))]
        text: String,
        /// The `task` call whose subagent did this; absent for the main agent's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1))]
        parent_id: Option<String>,
    },
    /// The model's reasoning, whole, before what follows it.
    Reasoning {
        #[schemars(length(min = 1))]
        text: String,
        /// The `task` call whose subagent did this; absent for the main agent's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1))]
        parent_id: Option<String>,
    },
    /// The model called a tool.
    ToolCall {
        #[schemars(length(min = 1))]
        tool_call_id: String,
        name: String,
        title: String,
        kind: ToolKind,
        /// The parsed JSON arguments, or the raw text when they did not parse.
        arguments: Value,
        /// The `task` call whose subagent did this; absent for the main agent's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1))]
        parent_id: Option<String>,
    },
    /// An action was allowed or refused, and by whom.
    Approval {
        #[schemars(length(min = 1))]
        tool_call_id: String,
        action: Action,
        /// The file (absolute), the command line, SERVER/TOOL, the MCP server's name, or the URL.
        target: String,
        outside_sandbox: bool,
        /// A command's: why it needed the user (which part of the line, and what for: no rule
        /// admits it, an option that loads code, a write outside the workspace, a construct the
        /// allow-list does not judge, outside the sandbox); null when nothing was to ask.
        reason: Option<String>,
        decision: Decision,
        decided_by: DecidedBy,
        /// With a rejection: what the model was told.
        note: Option<String>,
        /// The `task` call whose subagent asked; absent for the main agent's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1))]
        parent_id: Option<String>,
    },
    /// A tool call finished.
    ToolResult {
        #[schemars(length(min = 1))]
        tool_call_id: String,
        status: ToolStatus,
        /// What the model gets.
        output: String,
        /// An edit's unified diff (made, or refused).
        diff: Option<String>,
        /// The `task` call whose subagent did this; absent for the main agent's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1))]
        parent_id: Option<String>,
    },
    /// A tool call changed files other than through an edit (a command's writes), before its
    /// `toolResult`.
    FilesChanged {
        #[schemars(length(min = 1))]
        tool_call_id: String,
        changes: Vec<FileChange>,
    },
    /// After each model request.
    Usage {
        prompt_tokens: u64,
        completion_tokens: u64,
        #[schemars(range(min = 1))]
        context_window: Option<u64>,
        /// The `task` call whose subagent did this; absent for the main agent's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1))]
        parent_id: Option<String>,
    },
    /// Rules files (AGENTS.md…) were given to the model.
    Rules { files: Vec<RulesFile> },
    /// The conversation was compacted to fit.
    Compaction {
        elided: u32,
        summarized: u32,
        tokens_before: u64,
        tokens_after: u64,
        context_window: u64,
    },
    /// Something worth knowing (tools fell back to text, an MCP server failed).
    Notice { message: String },
    /// The model's plan (its `update_plan` tool), whole, each time it changes.
    Plan {
        explanation: Option<String>,
        entries: Vec<PlanEntry>,
    },
    /// The model request failed before its answer and is tried again after `waitMs`.
    Retrying {
        #[schemars(range(min = 1))]
        retry: u32,
        max_retries: u32,
        /// The HTTP status, or null.
        status: Option<u16>,
        error: String,
        wait_ms: u64,
    },
    /// Last: how the turn ended.
    TurnEnded {
        stop_reason: StopReason,
        error: Option<String>,
        error_kind: Option<ErrorKind>,
        rejected_actions: u32,
        /// The exit code `tandem exec` ends with (docs/exec.md).
        exit_code: u8,
        /// The turn's totals.
        usage: TurnUsage,
    },
}

/// `"version"`: always [`VERSION`], so a reader of another version's events fails at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Version;

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(VERSION)
    }
}

impl JsonSchema for Version {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Version".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "const": VERSION })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ToolKind {
    Read,
    Search,
    Edit,
    Execute,
    Fetch,
    Other,
}

impl From<tandem_tools::ToolKind> for ToolKind {
    fn from(kind: tandem_tools::ToolKind) -> Self {
        use tandem_tools::ToolKind as K;
        match kind {
            K::Read => ToolKind::Read,
            K::Search => ToolKind::Search,
            K::Edit => ToolKind::Edit,
            K::Execute => ToolKind::Execute,
            K::Fetch => ToolKind::Fetch,
            K::Other => ToolKind::Other,
        }
    }
}

/// One file of a `filesChanged` event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileChange {
    /// Relative to the workspace root, `/`-separated.
    #[schemars(length(min = 1))]
    pub path: String,
    pub kind: FileChangeKind,
    /// With `renamed`: where the file was (workspace-relative); else null.
    pub from: Option<String>,
    /// Lines added and removed (0 and 0 for a binary file or a mode change).
    pub added: u32,
    pub removed: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FileChangeKind {
    Created,
    Modified,
    Deleted,
    Renamed,
    ModeChanged,
}

impl From<&agent::FileChange> for FileChange {
    fn from(c: &agent::FileChange) -> Self {
        use agent::FileChangeKind as K;
        let (kind, from) = match &c.kind {
            K::Created => (FileChangeKind::Created, None),
            K::Modified => (FileChangeKind::Modified, None),
            K::Deleted => (FileChangeKind::Deleted, None),
            K::Renamed { from } => (FileChangeKind::Renamed, Some(from.clone())),
            K::ModeChanged => (FileChangeKind::ModeChanged, None),
        };
        FileChange {
            path: c.path.clone(),
            kind,
            from,
            added: c.added,
            removed: c.removed,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ToolStatus {
    Ok,
    Error,
    Rejected,
}

impl From<agent::ToolStatus> for ToolStatus {
    fn from(status: agent::ToolStatus) -> Self {
        match status {
            agent::ToolStatus::Ok => ToolStatus::Ok,
            agent::ToolStatus::Error => ToolStatus::Error,
            agent::ToolStatus::Rejected => ToolStatus::Rejected,
        }
    }
}

/// What an approval was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    Edit,
    Command,
    McpTool,
    McpServer,
    Fetch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Decision {
    Accept,
    AcceptAlways,
    Reject,
}

impl From<tandem_agent::approval::Decision> for Decision {
    fn from(decision: tandem_agent::approval::Decision) -> Self {
        use tandem_agent::approval::Decision as D;
        match decision {
            D::Accept => Decision::Accept,
            D::AcceptAlways => Decision::AcceptAlways,
            D::Reject => Decision::Reject,
        }
    }
}

/// `policy`: the flags or the config; `session`: an earlier acceptAlways; `exec`: the flags'
/// answer to the question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DecidedBy {
    Policy,
    Session,
    Exec,
    Timeout,
    Cancelled,
}

impl From<AgentDecidedBy> for DecidedBy {
    fn from(by: AgentDecidedBy) -> Self {
        match by {
            AgentDecidedBy::Policy => DecidedBy::Policy,
            AgentDecidedBy::Session => DecidedBy::Session,
            AgentDecidedBy::Face => DecidedBy::Exec,
            AgentDecidedBy::Timeout => DecidedBy::Timeout,
            AgentDecidedBy::Cancelled => DecidedBy::Cancelled,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    EndTurn,
    Cancelled,
    MaxSteps,
    Error,
}

impl From<agent::StopReason> for StopReason {
    fn from(reason: agent::StopReason) -> Self {
        match reason {
            agent::StopReason::EndTurn => StopReason::EndTurn,
            agent::StopReason::Cancelled => StopReason::Cancelled,
            agent::StopReason::MaxSteps => StopReason::MaxSteps,
            agent::StopReason::Error => StopReason::Error,
        }
    }
}

/// What kind of failure `error` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    NoServer,
    Auth,
    Connection,
    ContextOverflow,
    AnswerCut,
    Other,
}

impl From<agent::TurnErrorKind> for ErrorKind {
    fn from(kind: agent::TurnErrorKind) -> Self {
        use agent::TurnErrorKind as K;
        match kind {
            K::NoServer => ErrorKind::NoServer,
            K::Auth => ErrorKind::Auth,
            K::Connection => ErrorKind::Connection,
            K::ContextOverflow => ErrorKind::ContextOverflow,
            K::AnswerCut => ErrorKind::AnswerCut,
            K::Other => ErrorKind::Other,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RulesFile {
    pub path: String,
    pub bytes: u64,
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanEntry {
    pub step: String,
    pub status: PlanStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
}

impl From<tandem_agent::plan::StepStatus> for PlanStatus {
    fn from(status: tandem_agent::plan::StepStatus) -> Self {
        use tandem_agent::plan::StepStatus as S;
        match status {
            S::Pending => PlanStatus::Pending,
            S::InProgress => PlanStatus::InProgress,
            S::Completed => PlanStatus::Completed,
        }
    }
}

/// A turn's totals, in `turnEnded`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TurnUsage {
    pub requests: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// `approval`: what was asked, what was decided and by whom.
pub fn approval(request: &ApprovalRequest, reply: &ApprovalReply, by: AgentDecidedBy) -> ExecEvent {
    let action = &request.action;
    let action_in = action;
    let (action, target, outside_sandbox) = match action {
        ApprovalAction::Edit(e) => (Action::Edit, e.path.display().to_string(), false),
        ApprovalAction::Command(c) => (Action::Command, c.command.clone(), c.outside_sandbox),
        ApprovalAction::Mcp(m) => (Action::McpTool, format!("{}/{}", m.server, m.tool), false),
        // A project's hook is put as a server is: its target says which it is.
        ApprovalAction::McpServer(s) => (
            Action::McpServer,
            match s.subject {
                TrustSubject::McpServer => s.server.clone(),
                TrustSubject::Hook => format!("hook {}", s.server),
            },
            false,
        ),
        ApprovalAction::Fetch(f) => (Action::Fetch, f.url.clone(), false),
    };
    let reason = match action_in {
        ApprovalAction::Command(c) if !c.reason.is_empty() && by == AgentDecidedBy::Face => {
            Some(c.reason.clone())
        }
        _ => None,
    };
    ExecEvent::Approval {
        tool_call_id: request.tool_call_id.to_string(),
        action,
        target,
        outside_sandbox,
        reason,
        decision: reply.decision.into(),
        decided_by: by.into(),
        note: reply.feedback.clone(),
        parent_id: request.subagent.as_ref().map(|s| s.parent.to_string()),
    }
}

/// `sessionStarted`, the first event.
pub fn session_started(
    session: &tandem_agent::SessionId,
    root: &std::path::Path,
    model: &str,
    resumed: bool,
) -> ExecEvent {
    ExecEvent::SessionStarted {
        version: Version,
        session_id: session.to_string(),
        root: root.display().to_string(),
        model: model.to_string(),
        resumed,
    }
}

/// The schema of every event, as docs/exec-events.schema.json holds it (written and checked by
/// the tests below).
#[cfg(test)]
fn schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        // What exec writes: an `Option` field is always there (as null when empty).
        .for_serialize()
        .into_generator();
    let Value::Object(generated) = generator.into_root_schema_for::<ExecEvent>().to_value() else {
        unreachable!("a root schema is an object");
    };
    // What it is first, then the events.
    let mut schema = serde_json::Map::new();
    schema.insert(
        "$schema".into(),
        generated.get("$schema").cloned().unwrap_or_default(),
    );
    schema.insert(
        "$id".into(),
        Value::String(format!("urn:tandem:exec-events:{VERSION}")),
    );
    schema.insert(
        "title".into(),
        generated.get("title").cloned().unwrap_or_default(),
    );
    schema.insert(
        "description".into(),
        Value::String(
            "One line of `tandem exec --json` output. See docs/exec.md. Generated from \
             server/tandem/src/exec/events.rs: do not edit."
                .into(),
        ),
    );
    for (key, value) in generated {
        schema.entry(key).or_insert(value);
    }
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use tandem_agent::ToolCallId;

    const SCHEMA_PATH: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/exec-events.schema.json"
    );

    fn generated() -> String {
        let mut text = serde_json::to_string_pretty(&schema()).unwrap();
        text.push('\n');
        text
    }

    #[test]
    fn exec_schema_matches_the_rust_types() {
        let generated = generated();
        if std::env::var_os("TANDEM_UPDATE_SCHEMA").is_some() {
            std::fs::write(SCHEMA_PATH, &generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(SCHEMA_PATH).unwrap_or_default();
        assert!(
            committed == generated,
            "docs/exec-events.schema.json is out of date with the exec events' Rust types \
             (server/tandem/src/exec/events.rs). Regenerate it with \
             `TANDEM_UPDATE_SCHEMA=1 cargo test -p tandem --bin tandem exec_schema` and commit \
             the result."
        );
    }

    /// The committed schema, compiled.
    fn validator() -> jsonschema::Validator {
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(SCHEMA_PATH).unwrap()).unwrap();
        jsonschema::validator_for(&schema).expect("a valid schema")
    }

    /// The `type` of each event the schema describes.
    fn kinds_in_schema() -> Vec<String> {
        let schema = schema();
        schema["oneOf"]
            .as_array()
            .expect("one schema per event")
            .iter()
            .map(|s| {
                s["properties"]["type"]["const"]
                    .as_str()
                    .unwrap_or_else(|| panic!("no type const in {s}"))
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn exec_schema_names_every_event_kind() {
        let kinds = kinds_in_schema();
        assert_eq!(kinds.len(), 15, "{kinds:?}");
        for kind in ["sessionStarted", "approval", "retrying", "turnEnded"] {
            assert!(kinds.iter().any(|k| k == kind), "{kind} missing: {kinds:?}");
        }
    }

    #[test]
    fn every_error_kind_of_the_core_has_its_name_in_the_schema() {
        use agent::TurnErrorKind as K;
        let schema = schema();
        let names = schema["$defs"]["ErrorKind"]["enum"].clone();
        for kind in [
            K::NoServer,
            K::Auth,
            K::Connection,
            K::ContextOverflow,
            K::AnswerCut,
            K::Other,
        ] {
            let name = serde_json::to_value(ErrorKind::from(kind)).unwrap();
            assert!(
                names.as_array().unwrap().contains(&name),
                "{name} not in {names}"
            );
        }
    }

    #[test]
    fn a_subagents_approval_names_its_task_call() {
        use tandem_agent::approval::{AskingSubagent, Decision as D, FetchApproval};
        let request = |subagent| ApprovalRequest {
            session_id: "s".into(),
            turn_id: "t1".into(),
            tool_call_id: "call_0/call_0".into(),
            subagent,
            action: ApprovalAction::Fetch(FetchApproval {
                url: "https://example.com/".into(),
                redirected_from: None,
            }),
        };
        let reply = ApprovalReply {
            decision: D::Accept,
            content: None,
            feedback: None,
            rejected_hunks: Vec::new(),
        };
        let child = request(Some(AskingSubagent {
            parent: "call_0".into(),
            agent: "explore".into(),
        }));
        let line = serde_json::to_value(approval(&child, &reply, AgentDecidedBy::Face)).unwrap();
        assert_eq!(line["parentId"], "call_0", "{line}");
        assert_eq!(line["toolCallId"], "call_0/call_0", "{line}");
        let own = serde_json::to_value(approval(&request(None), &reply, AgentDecidedBy::Face));
        assert!(own.unwrap().get("parentId").is_none());
    }

    /// Every event exec writes, through the face's own translation of the core's events, follows
    /// the committed schema; and every kind the schema names is among them.
    #[test]
    fn every_event_exec_emits_validates_against_the_schema() {
        use std::sync::{Arc, Mutex};
        use tandem_agent::Frontend;
        use tandem_agent::approval::{
            ApprovalRequest, AskingSubagent, CommandApproval, Decision as D, EditApproval,
            FetchApproval, McpApproval, McpServerApproval,
        };
        use tandem_agent::events::{Event, RulesFile as CoreRules, ToolCallEvent};
        use tandem_agent::plan::{Plan, PlanStep, StepStatus};

        let seen: Arc<Mutex<Vec<ExecEvent>>> = Arc::default();
        let sink = seen.clone();
        let (ended, _ended_rx) = tokio::sync::mpsc::unbounded_channel();
        let face = super::super::frontend::ExecFrontend {
            json: true,
            rules: super::super::Rules {
                yes: true,
                sandbox_off: false,
            },
            stderr_tty: false,
            root: PathBuf::from("/work"),
            state: Default::default(),
            ended,
            out: Box::new(move |e: &ExecEvent| sink.lock().unwrap().push(e.clone())),
        };
        let session = tandem_agent::SessionId::from("s1");
        let turn = tandem_agent::TurnId::from("t1");
        let call = ToolCallId::from("call_1");
        let diff = tandem_tools::FileDiff::new("a.rs", Some("a\n"), "b\n");
        let events = [
            Event::TurnStarted {
                prompt: "Fix it".into(),
                context: Vec::new(),
            },
            Event::Reasoning {
                delta: "Think.".into(),
            },
            Event::Text {
                delta: "Reading.".into(),
            },
            Event::ToolCall(ToolCallEvent {
                tool_call_id: call.clone(),
                name: "read_file".into(),
                arguments: serde_json::json!({"path": "a.rs"}),
                title: "Read a.rs".into(),
                kind: tandem_tools::ToolKind::Read,
                location: None,
            }),
            Event::ToolOutput {
                tool_call_id: call.clone(),
                delta: "out".into(),
            },
            Event::ToolResult {
                tool_call_id: call.clone(),
                status: agent::ToolStatus::Ok,
                output: "a".into(),
                diff: Some(diff.clone()),
                error_kind: None,
            },
            Event::FilesChanged {
                tool_call_id: call.clone(),
                changes: vec![
                    agent::FileChange {
                        path: "b.rs".into(),
                        kind: agent::FileChangeKind::Renamed {
                            from: "a.rs".into(),
                        },
                        added: 1,
                        removed: 0,
                    },
                    agent::FileChange {
                        path: "gone.rs".into(),
                        kind: agent::FileChangeKind::Deleted,
                        added: 0,
                        removed: 3,
                    },
                ],
            },
            Event::Usage {
                prompt_tokens: 10,
                completion_tokens: 2,
                context_window: Some(4096),
            },
            Event::Usage {
                prompt_tokens: 10,
                completion_tokens: 2,
                context_window: None,
            },
            Event::Rules {
                files: vec![CoreRules {
                    path: PathBuf::from("/work/AGENTS.md"),
                    bytes: 12,
                    truncated: false,
                }],
            },
            Event::Plan(Plan {
                explanation: None,
                steps: vec![PlanStep {
                    step: "Fix".into(),
                    status: StepStatus::InProgress,
                }],
            }),
            Event::Compaction {
                elided: 1,
                summarized: 2,
                tokens_before: 300,
                tokens_after: 100,
                context_window: 4096,
            },
            Event::Notice {
                message: "note".into(),
            },
            Event::Retrying(agent::Retrying {
                retry: 1,
                max_retries: 5,
                status: Some(500),
                error: "boom".into(),
                wait: std::time::Duration::from_millis(1200),
            }),
        ];
        for event in events {
            face.update(&session, &turn, event);
        }
        let actions = [
            ApprovalAction::Edit(EditApproval {
                path: PathBuf::from("/work/a.rs"),
                original: Some("a\n".into()),
                proposed: "b\n".into(),
                diff,
            }),
            ApprovalAction::Command(CommandApproval {
                command: "cargo test".into(),
                outside_sandbox: true,
                cwd: PathBuf::from("/work"),
                display_cwd: ".".into(),
                reason: "the model asked to run it outside the sandbox".into(),
                always: Vec::new(),
            }),
            ApprovalAction::Mcp(McpApproval {
                server: "docs".into(),
                tool: "search".into(),
                arguments: serde_json::json!({}),
            }),
            ApprovalAction::McpServer(McpServerApproval {
                subject: Default::default(),
                server: "docs".into(),
                target: "docs-server --stdio".into(),
                source: PathBuf::from("/work/.tandem/config.toml"),
                why_not_always: Some("it runs inline code".into()),
            }),
            ApprovalAction::Fetch(FetchApproval {
                url: "https://example.com/".into(),
                redirected_from: None,
            }),
        ];
        for (action, decision) in actions
            .into_iter()
            .zip([D::Accept, D::Reject].iter().cycle())
        {
            let request = ApprovalRequest {
                session_id: session.clone(),
                turn_id: turn.clone(),
                tool_call_id: call.clone(),
                // A subagent's question too: its event has a `parentId`.
                subagent: (*decision == D::Reject).then(|| AskingSubagent {
                    parent: "task_1".into(),
                    agent: "explore".into(),
                }),
                action,
            };
            let reply = ApprovalReply {
                decision: *decision,
                content: None,
                feedback: (*decision == D::Reject).then(|| "not now".into()),
                rejected_hunks: Vec::new(),
            };
            face.approval_decided(&request, &reply, AgentDecidedBy::Face);
        }
        for error_kind in [None, Some(agent::TurnErrorKind::AnswerCut)] {
            face.update(
                &session,
                &turn,
                Event::TurnEnded {
                    stop_reason: agent::StopReason::Error,
                    error: Some("cut".into()),
                    error_kind,
                },
            );
        }
        let mut emitted = seen.lock().unwrap().clone();
        emitted.insert(
            0,
            session_started(&session, std::path::Path::new("/work"), "m", false),
        );

        let validator = validator();
        let mut kinds = std::collections::BTreeSet::new();
        for event in &emitted {
            let line = serde_json::to_value(event).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&line)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            assert!(
                errors.is_empty(),
                "{line}\ndoes not follow docs/exec-events.schema.json: {errors:#?}"
            );
            kinds.insert(line["type"].as_str().unwrap().to_string());
        }
        let missing: Vec<String> = kinds_in_schema()
            .into_iter()
            .filter(|k| !kinds.contains(k))
            .collect();
        assert!(missing.is_empty(), "no event of kinds {missing:?} was made");
    }

    #[test]
    fn the_schema_rejects_what_it_should() {
        let validator = validator();
        assert!(validator.is_valid(&serde_json::json!({"type": "notice", "message": "hi"})));
        for bad in [
            serde_json::json!({"type": "party"}),
            serde_json::json!({"type": "notice"}),
            serde_json::json!({"type": "notice", "message": "hi", "extra": 1}),
            serde_json::json!({"type": "toolResult", "toolCallId": "c", "status": "fine", "output": "", "diff": null}),
            serde_json::json!({"type": "toolResult", "toolCallId": "c", "status": "ok", "output": ""}),
            serde_json::json!({"type": "sessionStarted", "version": 2, "sessionId": "s", "root": "/", "model": "m", "resumed": false}),
            serde_json::json!({"type": "message", "text": ""}),
        ] {
            assert!(!validator.is_valid(&bad), "{bad} passed");
        }
    }
}
