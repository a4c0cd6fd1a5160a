//! A turn as the client saw it: its `tandem/update` params, in order.

use serde_json::Value;
use tandem_protocol::{ApprovalAction, Update};

/// An update as the protocol's type. Checks that a field is absent go through the types: a field
/// renamed in the protocol then breaks the test's build, where a JSON key check would still pass.
pub fn typed_update(update: &Value) -> Update {
    serde_json::from_value(update.clone())
        .unwrap_or_else(|e| panic!("not a protocol update ({e}): {update}"))
}

/// A `tandem/requestApproval` question's action as the protocol's type (see [`typed_update`]).
pub fn typed_approval(question: &Value) -> ApprovalAction {
    serde_json::from_value::<tandem_protocol::ApprovalRequest>(question.clone())
        .unwrap_or_else(|e| panic!("not an approval request ({e}): {question}"))
        .action
}

/// Names a turn: turn ids count per session, so both are needed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnRef {
    pub session_id: String,
    pub turn_id: String,
}

impl TurnRef {
    pub fn updates_in(&self, updates: &[Value]) -> Vec<Value> {
        updates
            .iter()
            .filter(|u| {
                u["sessionId"] == self.session_id.as_str() && u["turnId"] == self.turn_id.as_str()
            })
            .cloned()
            .collect()
    }
}

#[derive(Clone, Debug)]
pub struct Turn {
    pub updates: Vec<Value>,
}

/// Kinds whose pieces a client may get merged or split: they count once per run.
const STREAMED: [&str; 3] = ["text", "reasoning", "toolOutput"];

impl Turn {
    pub fn new(updates: Vec<Value>) -> Self {
        Self { updates }
    }

    /// The kinds in order, a run of streamed pieces of one kind counted once.
    pub fn kinds(&self) -> Vec<String> {
        let mut kinds: Vec<String> = Vec::new();
        for u in &self.updates {
            let kind = u["kind"].as_str().unwrap_or("?");
            if STREAMED.contains(&kind) && kinds.last().is_some_and(|k| k == kind) {
                continue;
            }
            kinds.push(kind.to_string());
        }
        kinds
    }

    pub fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.updates.iter().filter(|u| u["kind"] == kind).collect()
    }

    /// The answer text: every text delta, joined.
    pub fn text(&self) -> String {
        self.of_kind("text")
            .iter()
            .filter_map(|u| u["delta"].as_str())
            .collect()
    }

    /// The output a running command streamed for this call.
    pub fn tool_output(&self, call_id: &str) -> String {
        self.of_kind("toolOutput")
            .iter()
            .filter(|u| u["toolCallId"] == call_id)
            .filter_map(|u| u["delta"].as_str())
            .collect()
    }

    pub fn ended(&self) -> &Value {
        self.updates
            .iter()
            .find(|u| u["kind"] == "turnEnded")
            .expect("no turnEnded")
    }

    /// The error the turn ended with, through the protocol's type.
    pub fn end_error(&self) -> Option<String> {
        match typed_update(self.ended()) {
            Update::TurnEnded { error, .. } => error,
            other => panic!("not a turn end: {other:?}"),
        }
    }

    /// Whether the turn ended with its answer, or with the answer cut at its output limit (a tiny
    /// model may talk until then: that is the model's business), through the protocol's types.
    pub fn ended_or_cut(&self) -> bool {
        match typed_update(self.ended()) {
            Update::TurnEnded {
                stop_reason,
                error_kind,
                ..
            } => {
                stop_reason == tandem_protocol::StopReason::EndTurn
                    || (stop_reason == tandem_protocol::StopReason::Error
                        && error_kind == Some(tandem_protocol::ErrorKind::AnswerCut))
            }
            other => panic!("not a turn end: {other:?}"),
        }
    }

    /// The one tool result's diff, through the protocol's type.
    pub fn result_diff(&self) -> Option<String> {
        match typed_update(self.tool_result()) {
            Update::ToolResult { diff, .. } => diff,
            other => panic!("not a tool result: {other:?}"),
        }
    }

    pub fn stop_reason(&self) -> &str {
        self.ended()["stopReason"].as_str().unwrap_or("?")
    }

    pub fn tool_calls(&self) -> Vec<&Value> {
        self.of_kind("toolCall")
    }

    pub fn tool_results(&self) -> Vec<&Value> {
        self.of_kind("toolResult")
    }

    /// The one tool result (fails when there is not exactly one).
    pub fn tool_result(&self) -> &Value {
        let results = self.tool_results();
        assert_eq!(results.len(), 1, "tool results: {results:#?}");
        results[0]
    }
}

impl std::fmt::Display for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for u in &self.updates {
            writeln!(f, "  {u}")?;
        }
        Ok(())
    }
}
