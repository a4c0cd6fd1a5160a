//! What the core tells a face while a turn runs. Faces translate these to their protocol;
//! for `tandem lsp` they are the body of `tandem/update` as they are.

use serde::{Deserialize, Serialize};

/// One thing that happened in a turn.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// A turn began; `prompt` is the user's text as sent.
    TurnStarted { prompt: String },
    /// A piece of the answer.
    Text { delta: String },
    /// A piece of the model's reasoning.
    Reasoning { delta: String },
    /// The model called a tool. `arguments` is the parsed JSON, or the raw text when it did not parse.
    ToolCall {
        tool_call_id: String,
        name: String,
        #[cfg_attr(test, ts(type = "unknown"))]
        arguments: serde_json::Value,
        title: String,
    },
    /// Output of a running command, as it comes.
    ToolOutput { tool_call_id: String, delta: String },
    /// A tool call finished.
    ToolResult {
        tool_call_id: String,
        status: ToolStatus,
        output: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
    },
    /// Tokens used by the last request.
    Usage {
        prompt_tokens: u64,
        completion_tokens: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context_window: Option<u64>,
    },
    /// The turn is over.
    TurnEnded {
        stop_reason: StopReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolStatus {
    Ok,
    Error,
    Rejected,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    EndTurn,
    Cancelled,
    MaxSteps,
    Error,
}
