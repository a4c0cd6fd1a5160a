//! What a transcript line holds: the stored records, their own types, and the conversions to and
//! from the core's. They are separate from the core's types and from the wire's, so either can
//! change without old transcripts becoming unreadable.
//!
//! Format versions (the `formatVersion` of the session line):
//! - 1 (no `formatVersion`): everything written before versions were recorded.
//! - 2: the same records, with the version on the session line.
//! - 3: adds the `compaction` record and the `compaction` and `notice` updates; the `rules`
//!   update, and the rules files' text as a `system` message after the session's first
//!   `turnStarted`.
//! - 4: adds the `plan` update (the model's plan) and the `mode` record (the session's mode, from
//!   the line on).
//! - 5: a user message may carry `images` (type, dimensions, SHA-256), their bytes in files
//!   beside the transcript (`images.rs`).
//! - 6: adds the `subagent` update (a subagent's own update, with the `task` call's id as
//!   `parentId`). A subagent's messages are not stored as `message` records (the parent's
//!   conversation has only the `task` call's result).
//!
//! A loader reads every version up to [`FORMAT_VERSION`]; a change to a record's shape bumps it
//! and keeps the old shape readable here.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::approval::Decision;
use crate::events::{
    Event, Location, RulesFile, StopReason, ToolCallEvent, ToolStatus, TurnErrorKind,
};
use crate::mode::Mode;
use crate::plan::{Plan, PlanStep, StepStatus};
use tandem_model::{Message, SessionId, ToolCall, ToolCallId, TurnId};
use tandem_tools::{ErrorKind, FileDiff};

/// The format this build writes.
pub const FORMAT_VERSION: u32 = 6;

/// One line of a transcript.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Record {
    /// The first line: what the session is.
    Session {
        session_id: SessionId,
        root: PathBuf,
        /// The workspace's other folders (absent: none, as in every transcript before them; a
        /// reader that predates them opens the session on `root` alone).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        additional_roots: Vec<PathBuf>,
        #[serde(with = "time::serde::rfc3339")]
        created_at: OffsetDateTime,
        #[serde(default = "version_one")]
        format_version: u32,
    },
    /// The session's title (from its first prompt).
    Title { title: String },
    /// A message of the conversation, as the model sees it.
    Message {
        turn_id: TurnId,
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
        message: StoredMessage,
    },
    /// What the user saw (text and reasoning coalesced per step).
    Update {
        turn_id: TurnId,
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
        update: StoredEvent,
    },
    /// A decision the user made on an approval.
    Approval {
        turn_id: TurnId,
        tool_call_id: ToolCallId,
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
        decision: StoredDecision,
        /// Whether the user changed the proposal before accepting.
        #[serde(default)]
        edited: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
    },
    /// The conversation sent to the model was compacted (format 3): what the summary said.
    /// The messages stay in the transcript whole; this record says what the model saw instead.
    Compaction {
        turn_id: TurnId,
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
        elided: u32,
        summarized: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
    },
    /// The session's mode from here on (format 4); `default` before the first.
    Mode { mode: StoredMode },
    /// The model that answered a turn.
    Turn {
        turn_id: TurnId,
        #[serde(with = "time::serde::rfc3339")]
        at: OffsetDateTime,
        model: String,
    },
}

fn version_one() -> u32 {
    1
}

/// A message as stored (the shape of format 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum StoredMessage {
    System {
        content: String,
    },
    User {
        content: String,
        /// Format 5: the attached images, stored beside the transcript.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<StoredImage>,
    },
    Assistant {
        #[serde(default)]
        content: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reasoning: String,
        #[serde(default, rename = "toolCalls", skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<StoredToolCall>,
    },
    Tool {
        #[serde(rename = "toolCallId")]
        tool_call_id: ToolCallId,
        content: String,
    },
}

/// An image of a user message: what it is, and the digest its file is named by.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredImage {
    pub mime_type: String,
    pub width: u32,
    pub height: u32,
    pub sha256: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredToolCall {
    pub id: ToolCallId,
    pub name: String,
    pub arguments: String,
}

/// An update as stored (the shape of format 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum StoredEvent {
    TurnStarted {
        prompt: String,
        /// Absent in transcripts written before links were kept.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        context: Vec<PathBuf>,
    },
    Text {
        delta: String,
    },
    Reasoning {
        delta: String,
    },
    ToolCall {
        tool_call_id: ToolCallId,
        name: String,
        arguments: Value,
        title: String,
    },
    ToolOutput {
        tool_call_id: ToolCallId,
        delta: String,
    },
    ToolResult {
        tool_call_id: ToolCallId,
        status: StoredStatus,
        output: String,
        /// The unified diff.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
        /// A tool's own error kind, as the model reads it (`stale`); absent in older files,
        /// which read as before (an optional field: no new format version).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_kind: Option<ErrorKind>,
    },
    Usage {
        prompt_tokens: u64,
        completion_tokens: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_window: Option<u64>,
    },
    TurnEnded {
        stop_reason: StoredStopReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Format 2 on; absent in format 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_kind: Option<StoredErrorKind>,
    },
    Rules {
        files: Vec<StoredRulesFile>,
    },
    Compaction {
        elided: u32,
        summarized: u32,
        tokens_before: u64,
        tokens_after: u64,
        context_window: u64,
    },
    Notice {
        message: String,
    },
    /// A tool call's changes outside edit proposals (a command's writes). Readers before it skip
    /// the line as unreadable; nothing else depends on it.
    FilesChanged {
        tool_call_id: ToolCallId,
        changes: Vec<StoredFileChange>,
    },
    /// Format 4 on.
    Plan {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        explanation: Option<String>,
        entries: Vec<StoredPlanStep>,
    },
    /// Format 6 on: a subagent's update, under the `task` call that started it.
    Subagent {
        parent_id: ToolCallId,
        agent: String,
        update: Box<StoredEvent>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPlanStep {
    pub step: String,
    pub status: StoredStepStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoredStepStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StoredMode {
    Default,
    Plan,
}

impl From<Mode> for StoredMode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Default => StoredMode::Default,
            Mode::Plan => StoredMode::Plan,
        }
    }
}

impl From<StoredMode> for Mode {
    fn from(m: StoredMode) -> Self {
        match m {
            StoredMode::Default => Mode::Default,
            StoredMode::Plan => Mode::Plan,
        }
    }
}

impl From<Plan> for StoredEvent {
    fn from(p: Plan) -> Self {
        StoredEvent::Plan {
            explanation: p.explanation,
            entries: p
                .steps
                .into_iter()
                .map(|s| StoredPlanStep {
                    step: s.step,
                    status: match s.status {
                        StepStatus::Pending => StoredStepStatus::Pending,
                        StepStatus::InProgress => StoredStepStatus::InProgress,
                        StepStatus::Completed => StoredStepStatus::Completed,
                    },
                })
                .collect(),
        }
    }
}

fn plan_of(explanation: Option<String>, entries: Vec<StoredPlanStep>) -> Plan {
    Plan {
        explanation,
        steps: entries
            .into_iter()
            .map(|s| PlanStep {
                step: s.step,
                status: match s.status {
                    StoredStepStatus::Pending => StepStatus::Pending,
                    StoredStepStatus::InProgress => StepStatus::InProgress,
                    StoredStepStatus::Completed => StepStatus::Completed,
                },
            })
            .collect(),
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredRulesFile {
    pub path: PathBuf,
    pub bytes: u64,
    #[serde(default)]
    pub truncated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StoredErrorKind {
    NoServer,
    Auth,
    Connection,
    ContextOverflow,
    AnswerCut,
    #[serde(other)]
    Other,
}

impl From<TurnErrorKind> for StoredErrorKind {
    fn from(k: TurnErrorKind) -> Self {
        match k {
            TurnErrorKind::NoServer => StoredErrorKind::NoServer,
            TurnErrorKind::Auth => StoredErrorKind::Auth,
            TurnErrorKind::Connection => StoredErrorKind::Connection,
            TurnErrorKind::ContextOverflow => StoredErrorKind::ContextOverflow,
            TurnErrorKind::AnswerCut => StoredErrorKind::AnswerCut,
            TurnErrorKind::Other => StoredErrorKind::Other,
        }
    }
}

impl From<StoredErrorKind> for TurnErrorKind {
    fn from(k: StoredErrorKind) -> Self {
        match k {
            StoredErrorKind::NoServer => TurnErrorKind::NoServer,
            StoredErrorKind::Auth => TurnErrorKind::Auth,
            StoredErrorKind::Connection => TurnErrorKind::Connection,
            StoredErrorKind::ContextOverflow => TurnErrorKind::ContextOverflow,
            StoredErrorKind::AnswerCut => TurnErrorKind::AnswerCut,
            StoredErrorKind::Other => TurnErrorKind::Other,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StoredStatus {
    Ok,
    Error,
    Rejected,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StoredStopReason {
    EndTurn,
    Cancelled,
    MaxSteps,
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StoredDecision {
    Accept,
    AcceptAlways,
    Reject,
}

impl From<&Message> for StoredMessage {
    fn from(m: &Message) -> Self {
        match m {
            Message::System { content } => StoredMessage::System {
                content: content.clone(),
            },
            Message::User { content, images } => StoredMessage::User {
                content: content.clone(),
                images: images
                    .iter()
                    .map(|i| StoredImage {
                        mime_type: i.kind.mime().to_string(),
                        width: i.width,
                        height: i.height,
                        sha256: super::images::digest(&i.data),
                    })
                    .collect(),
            },
            Message::Assistant {
                content,
                reasoning,
                tool_calls,
            } => StoredMessage::Assistant {
                content: content.clone(),
                reasoning: reasoning.clone(),
                tool_calls: tool_calls
                    .iter()
                    .map(|c| StoredToolCall {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        arguments: c.arguments.clone(),
                    })
                    .collect(),
            },
            Message::Tool {
                tool_call_id,
                content,
            } => StoredMessage::Tool {
                tool_call_id: tool_call_id.clone(),
                content: content.clone(),
            },
        }
    }
}

impl StoredMessage {
    /// The message as the core has it, its images read from `images_dir`. An image that can't
    /// be read any more is named in the text instead, so the model knows it is missing.
    pub fn into_message(self, images_dir: &Path) -> Message {
        match self {
            StoredMessage::User {
                mut content,
                images: stored,
            } => {
                let mut images = Vec::new();
                for image in &stored {
                    match super::images::load(images_dir, image) {
                        Ok(image) => images.push(image),
                        Err(why) => {
                            tracing::warn!("an image of the transcript is lost: {why}");
                            content.push_str(&format!(
                                "\n\n[an attached image ({}, {}x{}) is no longer available: {why}]",
                                image.mime_type, image.width, image.height
                            ));
                        }
                    }
                }
                Message::User { content, images }
            }
            other => other.into(),
        }
    }
}

impl From<StoredMessage> for Message {
    /// Without the images of a user message: [`StoredMessage::into_message`] reads those.
    fn from(m: StoredMessage) -> Self {
        match m {
            StoredMessage::System { content } => Message::System { content },
            StoredMessage::User { content, .. } => Message::user(content),
            StoredMessage::Assistant {
                content,
                reasoning,
                tool_calls,
            } => Message::Assistant {
                content,
                reasoning,
                tool_calls: tool_calls
                    .into_iter()
                    .map(|c| ToolCall {
                        id: c.id,
                        name: c.name,
                        arguments: c.arguments,
                    })
                    .collect(),
            },
            StoredMessage::Tool {
                tool_call_id,
                content,
            } => Message::Tool {
                tool_call_id,
                content,
            },
        }
    }
}

impl From<Decision> for StoredDecision {
    fn from(d: Decision) -> Self {
        match d {
            Decision::Accept => StoredDecision::Accept,
            Decision::AcceptAlways => StoredDecision::AcceptAlways,
            Decision::Reject => StoredDecision::Reject,
        }
    }
}

/// One file of a `FilesChanged` record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredFileChange {
    pub path: String,
    /// `created`, `modified`, `deleted`, `renamed`, `modeChanged`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default)]
    pub added: u32,
    #[serde(default)]
    pub removed: u32,
}

impl From<&crate::events::FileChange> for StoredFileChange {
    fn from(c: &crate::events::FileChange) -> Self {
        use crate::events::FileChangeKind as K;
        let (kind, from) = match &c.kind {
            K::Created => ("created", None),
            K::Modified => ("modified", None),
            K::Deleted => ("deleted", None),
            K::Renamed { from } => ("renamed", Some(from.clone())),
            K::ModeChanged => ("modeChanged", None),
        };
        StoredFileChange {
            path: c.path.clone(),
            kind: kind.to_string(),
            from,
            added: c.added,
            removed: c.removed,
        }
    }
}

impl From<&StoredFileChange> for crate::events::FileChange {
    fn from(c: &StoredFileChange) -> Self {
        use crate::events::FileChangeKind as K;
        let kind = match (c.kind.as_str(), &c.from) {
            ("created", _) => K::Created,
            ("deleted", _) => K::Deleted,
            ("renamed", Some(from)) => K::Renamed { from: from.clone() },
            ("modeChanged", _) => K::ModeChanged,
            // A kind from a later version: the file changed, at least.
            _ => K::Modified,
        };
        crate::events::FileChange {
            path: c.path.clone(),
            kind,
            added: c.added,
            removed: c.removed,
        }
    }
}

impl From<&Event> for StoredEvent {
    fn from(e: &Event) -> Self {
        match e.clone() {
            Event::TurnStarted { prompt, context } => StoredEvent::TurnStarted { prompt, context },
            Event::Text { delta } => StoredEvent::Text { delta },
            Event::Reasoning { delta } => StoredEvent::Reasoning { delta },
            Event::ToolCall(call) => StoredEvent::ToolCall {
                tool_call_id: call.tool_call_id,
                name: call.name,
                arguments: call.arguments,
                title: call.title,
            },
            Event::ToolOutput {
                tool_call_id,
                delta,
            } => StoredEvent::ToolOutput {
                tool_call_id,
                delta,
            },
            Event::ToolResult {
                tool_call_id,
                status,
                output,
                diff,
                error_kind,
            } => StoredEvent::ToolResult {
                tool_call_id,
                status: match status {
                    ToolStatus::Ok => StoredStatus::Ok,
                    ToolStatus::Error => StoredStatus::Error,
                    ToolStatus::Rejected => StoredStatus::Rejected,
                },
                output,
                diff: diff.map(|d| d.unified),
                error_kind,
            },
            Event::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            } => StoredEvent::Usage {
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
            } => StoredEvent::Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            },
            Event::Notice { message } => StoredEvent::Notice { message },
            Event::FilesChanged {
                tool_call_id,
                changes,
            } => StoredEvent::FilesChanged {
                tool_call_id,
                changes: changes.iter().map(StoredFileChange::from).collect(),
            },
            // The turn never records a retry (it is transient); were one stored, its line.
            Event::Retrying(r) => StoredEvent::Notice {
                message: crate::events::retry_line(&r),
            },
            Event::Plan(plan) => plan.into(),
            Event::Subagent {
                parent,
                agent,
                event,
            } => StoredEvent::Subagent {
                parent_id: parent,
                agent,
                update: Box::new(StoredEvent::from(&*event)),
            },
            Event::TurnEnded {
                stop_reason,
                error,
                error_kind,
            } => StoredEvent::TurnEnded {
                stop_reason: match stop_reason {
                    StopReason::EndTurn => StoredStopReason::EndTurn,
                    StopReason::Cancelled => StoredStopReason::Cancelled,
                    StopReason::MaxSteps => StoredStopReason::MaxSteps,
                    StopReason::Error => StoredStopReason::Error,
                },
                error,
                error_kind: error_kind.map(Into::into),
            },
            Event::Rules { files } => StoredEvent::Rules {
                files: files
                    .into_iter()
                    .map(|f| StoredRulesFile {
                        path: f.path,
                        bytes: f.bytes,
                        truncated: f.truncated,
                    })
                    .collect(),
            },
        }
    }
}

impl StoredEvent {
    /// The core's event, with what the record does not keep worked out again: a tool call's kind
    /// and location from its name and arguments, a diff's hunks from its text.
    pub fn into_event(self, root: &Path) -> Event {
        match self {
            StoredEvent::TurnStarted { prompt, context } => Event::TurnStarted { prompt, context },
            StoredEvent::Text { delta } => Event::Text { delta },
            StoredEvent::Reasoning { delta } => Event::Reasoning { delta },
            StoredEvent::Subagent {
                parent_id,
                agent,
                update,
            } => Event::Subagent {
                parent: parent_id,
                agent,
                event: Box::new(update.into_event(root)),
            },
            StoredEvent::ToolCall {
                tool_call_id,
                name,
                arguments,
                title,
            } => {
                let raw = match &arguments {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let info = tandem_tools::describe(&name, &raw);
                Event::ToolCall(ToolCallEvent {
                    tool_call_id,
                    name,
                    arguments,
                    title,
                    kind: info.kind,
                    location: info.target.map(|t| Location {
                        path: root.join(t.path),
                        line: t.line,
                    }),
                })
            }
            StoredEvent::ToolOutput {
                tool_call_id,
                delta,
            } => Event::ToolOutput {
                tool_call_id,
                delta,
            },
            StoredEvent::ToolResult {
                tool_call_id,
                status,
                output,
                diff,
                error_kind,
            } => Event::ToolResult {
                tool_call_id,
                status: match status {
                    StoredStatus::Ok => ToolStatus::Ok,
                    StoredStatus::Error => ToolStatus::Error,
                    StoredStatus::Rejected => ToolStatus::Rejected,
                },
                output,
                diff: diff.map(|d| FileDiff::from_unified(&d)),
                error_kind,
            },
            StoredEvent::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            } => Event::Usage {
                prompt_tokens,
                completion_tokens,
                context_window,
            },
            StoredEvent::Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            } => Event::Compaction {
                elided,
                summarized,
                tokens_before,
                tokens_after,
                context_window,
            },
            StoredEvent::Notice { message } => Event::Notice { message },
            StoredEvent::FilesChanged {
                tool_call_id,
                changes,
            } => Event::FilesChanged {
                tool_call_id,
                changes: changes.iter().map(Into::into).collect(),
            },
            StoredEvent::Plan {
                explanation,
                entries,
            } => Event::Plan(plan_of(explanation, entries)),
            StoredEvent::TurnEnded {
                stop_reason,
                error,
                error_kind,
            } => Event::TurnEnded {
                stop_reason: match stop_reason {
                    StoredStopReason::EndTurn => StopReason::EndTurn,
                    StoredStopReason::Cancelled => StopReason::Cancelled,
                    StoredStopReason::MaxSteps => StopReason::MaxSteps,
                    StoredStopReason::Error => StopReason::Error,
                },
                error,
                error_kind: error_kind.map(Into::into),
            },
            StoredEvent::Rules { files } => Event::Rules {
                files: files
                    .into_iter()
                    .map(|f| RulesFile {
                        path: f.path,
                        bytes: f.bytes,
                        truncated: f.truncated,
                    })
                    .collect(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_and_a_mode_round_trip_in_their_stored_shape() {
        let plan = Plan {
            explanation: Some("why".into()),
            steps: vec![PlanStep {
                step: "Read".into(),
                status: StepStatus::InProgress,
            }],
        };
        let stored = StoredEvent::from(&Event::Plan(plan.clone()));
        let line = serde_json::to_string(&stored).unwrap();
        assert_eq!(
            line,
            r#"{"kind":"plan","explanation":"why","entries":[{"step":"Read","status":"in_progress"}]}"#
        );
        let back: StoredEvent = serde_json::from_str(&line).unwrap();
        assert_eq!(back.into_event(Path::new("/")), Event::Plan(plan));
        let mode = Record::Mode {
            mode: Mode::Plan.into(),
        };
        let line = serde_json::to_string(&mode).unwrap();
        assert_eq!(line, r#"{"type":"mode","mode":"plan"}"#);
        let back: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(back, mode);
    }

    /// The ids became types of their own (`SessionId`, `TurnId`, `ToolCallId`); stored, they are
    /// the same strings: every line of a format-1 transcript reads, holds the ids it was written
    /// with, and is written back the same (but for the version the session line now carries).
    #[test]
    fn ids_in_a_format_1_transcript_read_and_write_as_the_same_strings() {
        let fixture = include_str!("../../../../tests/fixtures/transcripts/format-1.jsonl");
        for line in fixture.lines() {
            let record: Record = serde_json::from_str(line).unwrap();
            let mut written = serde_json::to_value(&record).unwrap();
            if let Some(line) = written.as_object_mut() {
                line.remove("formatVersion");
            }
            let original: Value = serde_json::from_str(line).unwrap();
            assert_eq!(written, original, "{line}");
        }
        let first: Record = serde_json::from_str(fixture.lines().next().unwrap()).unwrap();
        assert!(matches!(
            first,
            Record::Session { session_id, .. } if session_id == "20bf33622d9343959c06cd2000e1cbac"
        ));
        let approval = fixture
            .lines()
            .filter_map(|l| serde_json::from_str::<Record>(l).ok())
            .find_map(|r| match r {
                Record::Approval {
                    turn_id,
                    tool_call_id,
                    ..
                } => Some((turn_id, tool_call_id)),
                _ => None,
            });
        assert_eq!(
            approval,
            Some((TurnId::numbered(1), ToolCallId::from("call_write")))
        );
    }

    #[test]
    fn a_format_3_session_line_still_reads() {
        let line = r#"{"type":"session","sessionId":"s","root":"/w","createdAt":"2026-11-21T19:40:02Z","formatVersion":3}"#;
        let record: Record = serde_json::from_str(line).unwrap();
        assert!(matches!(
            record,
            Record::Session {
                format_version: 3,
                ..
            }
        ));
    }
}
