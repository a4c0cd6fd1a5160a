//! The wire contract of `tandem lsp`: every method name and every parameter and result type of
//! the `tandem/*` methods, in one place. `docs/protocol.md` is its prose; keep them together.
//!
//! Field names are camelCase. The body of `tandem/update` is the core's [`Event`] as it is
//! serialised; approval requests and replies are the core's own types too.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::agent::approval::{
    ApprovalKind, ApprovalPolicy, ApprovalReply, ApprovalRequest, AutoApprove, Decision,
};
pub use crate::agent::events::{Event, StopReason, ToolStatus};
pub use crate::agent::prompt::{ContextItem, Position, Range};
pub use crate::agent::{Diagnostic, SessionInfo};
pub use crate::config::ProviderOptions;
pub use crate::provider::ModelInfo;

pub const NEW_SESSION: &str = "tandem/newSession";
pub const PROMPT: &str = "tandem/prompt";
pub const CANCEL: &str = "tandem/cancel";
pub const LIST_SESSIONS: &str = "tandem/listSessions";
pub const LOAD_SESSION: &str = "tandem/loadSession";
pub const UNDO: &str = "tandem/undo";
pub const LIST_MODELS: &str = "tandem/listModels";
pub const SET_MODEL: &str = "tandem/setModel";
pub const UPDATE: &str = "tandem/update";
pub const REQUEST_APPROVAL: &str = "tandem/requestApproval";
pub const GET_DIAGNOSTICS: &str = "tandem/getDiagnostics";

/// JSON-RPC error codes of the `tandem/*` methods, besides the standard ones. Application codes,
/// outside the ranges JSON-RPC and LSP reserve.
pub mod error_code {
    /// The session id names no session.
    pub const UNKNOWN_SESSION: i64 = 1001;
    /// A turn is already running in the session.
    pub const TURN_RUNNING: i64 = 1002;
    /// The model endpoint failed or could not be found.
    pub const MODEL_ERROR: i64 = 1003;
    /// The workspace root can't be used.
    pub const INVALID_ROOT: i64 = 1004;
    /// The data dir could not be written or read.
    pub const IO_ERROR: i64 = 1005;
}

/// `initialize`'s `initializationOptions`.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializationOptions {
    #[serde(default)]
    #[cfg_attr(
        test,
        ts(
            optional,
            type = "{ baseUrl?: string, model?: string, apiKey?: string, api?: \"openai\" | \"anthropic\" }"
        )
    )]
    pub provider: Option<ProviderOptions>,
    #[serde(default)]
    pub approval: Option<ApprovalPolicy>,
    #[serde(default)]
    pub max_steps: Option<u32>,
    #[serde(default)]
    #[cfg_attr(test, ts(optional, type = "string"))]
    pub data_dir: Option<PathBuf>,
}

/// `capabilities.experimental.tandem` of the client's `initialize`.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// The client answers `tandem/requestApproval`.
    #[serde(default)]
    pub approvals: bool,
    /// The client answers `tandem/getDiagnostics`.
    #[serde(default)]
    pub diagnostics: bool,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionParams {
    /// A path or a `file://` URI; the first workspace folder when absent.
    #[serde(default)]
    pub root: Option<String>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewSessionResult {
    pub session_id: String,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptParams {
    pub session_id: String,
    pub text: String,
    #[serde(default)]
    pub context: Vec<ContextItem>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptResult {
    pub turn_id: String,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionParams {
    pub session_id: String,
}

/// An empty object result (`{}`).
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct Empty {}

/// The params of a method that takes none: `{}`, `null` or `[]` (what an empty Lua table
/// becomes) are all accepted.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(untagged)]
pub enum NoParams {
    #[default]
    Null,
    Object(Empty),
    Array([(); 0]),
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSessionsResult {
    pub sessions: Vec<SessionInfo>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadSessionResult {
    pub session_id: String,
    /// The history, as the `tandem/update` params it was sent as (text coalesced).
    pub entries: Vec<UpdateParams>,
}

/// The params of the `tandem/update` notification.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateParams {
    pub session_id: String,
    pub turn_id: String,
    #[serde(flatten)]
    pub event: Event,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(optional_fields))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoParams {
    pub session_id: String,
    #[serde(default)]
    pub turn_id: Option<String>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoResult {
    /// The files put back, relative to the session root.
    pub restored: Vec<String>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListModelsResult {
    pub models: Vec<ModelInfo>,
    /// The model prompts go to.
    pub current: String,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetModelParams {
    pub model: String,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetDiagnosticsParams {
    /// Absolute paths.
    pub paths: Vec<String>,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetDiagnosticsResult {
    pub diagnostics: Vec<Diagnostic>,
}

/// `tandem/update` as an `lsp_types` notification.
pub enum Update {}

impl tower_lsp_server::lsp_types::notification::Notification for Update {
    type Params = UpdateParams;
    const METHOD: &'static str = UPDATE;
}

/// `tandem/requestApproval` as an `lsp_types` request.
pub enum RequestApproval {}

impl tower_lsp_server::lsp_types::request::Request for RequestApproval {
    type Params = ApprovalRequest;
    type Result = ApprovalReply;
    const METHOD: &'static str = REQUEST_APPROVAL;
}

/// `tandem/getDiagnostics` as an `lsp_types` request.
pub enum GetDiagnostics {}

impl tower_lsp_server::lsp_types::request::Request for GetDiagnostics {
    type Params = GetDiagnosticsParams;
    type Result = GetDiagnosticsResult;
    const METHOD: &'static str = GET_DIAGNOSTICS;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn updates_are_flat_with_a_kind() {
        let u = UpdateParams {
            session_id: "s".into(),
            turn_id: "t1".into(),
            event: Event::ToolResult {
                tool_call_id: "c".into(),
                status: ToolStatus::Rejected,
                output: "no".into(),
                diff: None,
            },
        };
        assert_eq!(
            serde_json::to_value(&u).unwrap(),
            json!({"sessionId": "s", "turnId": "t1", "kind": "toolResult",
                   "toolCallId": "c", "status": "rejected", "output": "no"})
        );
        let ended = Event::TurnEnded {
            stop_reason: StopReason::MaxSteps,
            error: None,
        };
        assert_eq!(
            serde_json::to_value(&ended).unwrap(),
            json!({"kind": "turnEnded", "stopReason": "maxSteps"})
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
            "provider": {"baseUrl": "http://x/v1", "model": "m", "apiKey": "k"},
            "approval": {"autoApprove": {"edit": false, "command": true}, "allowCommands": ["ls"]},
            "maxSteps": 7, "dataDir": "/tmp/d"
        }))
        .unwrap();
        assert_eq!(o.max_steps, Some(7));
        let approval = o.approval.unwrap();
        assert!(approval.auto_approve.command && !approval.auto_approve.edit);
        assert_eq!(approval.allow_commands, vec!["ls".to_string()]);
    }
}
