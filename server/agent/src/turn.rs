//! The turn loop: ask the model, run the tools it calls, feed the results back, until it answers
//! with text alone, the step cap is reached, or the user cancels. Each part is a module of its own:
//! `steps` (the loop), `prepare` (the request, fitted to the window), `fit` (sizing and the
//! token estimate), `stream` (the answer), `record` (events and history), `dispatch` (the tool
//! calls), `approve` (decisions), `stop` (the stop rules); the tools with approvals of their own
//! in `edit`, `command`, `fetch`, and `extend` (rules and MCP); the user's hooks in `hook` (what they write in `hook_writes`).

mod approve;
mod command;
mod dispatch;
mod edit;
mod extend;
mod fetch;
mod fit;
mod hook;
mod hook_writes;
mod prepare;
mod record;
mod review;
mod steps;
mod stop;
mod stream;
mod task;

use std::sync::Arc;
use tracing::Instrument;

use tokio_util::sync::CancellationToken;

use super::events::{Event, StopReason, ToolStatus, TurnErrorKind};
use super::prompt::ContextItem;
use super::session::Session;
use super::{Agent, Frontend};
use tandem_model::TurnId;
use tandem_tools::{ErrorKind, FileDiff, ToolError};

pub(super) struct Turn {
    pub agent: Agent,
    pub session: Arc<Session>,
    pub turn_id: TurnId,
    pub frontend: Arc<dyn Frontend>,
    pub cancel: CancellationToken,
    /// The images attached to the prompt, sent after its text.
    pub images: Vec<tandem_model::Image>,
    /// What the user's hooks said in this turn.
    pub hooks: hook::HookState,
    /// Set when this turn is a subagent's (`task`): its conversation, tools and step cap.
    pub child: Option<Arc<crate::subagent::ChildScope>>,
    /// The requests of the turn's whole tree, shared with its subagents.
    pub tree: Arc<stop::TreeSteps>,
}

/// What a tool call came to, for the model and the user.
struct Outcome {
    status: ToolStatus,
    output: String,
    diff: Option<FileDiff>,
    /// The kind of a tool's own error (`None`: it ran, or failed on its own terms).
    error_kind: Option<ErrorKind>,
    /// Shown to the user otherwise (a plan is shown as a plan, not as a call and its result).
    silent: bool,
}

impl Outcome {
    /// A tool's own error: the model reads `Error (KIND): message`, the face gets the kind.
    fn failed(error: ToolError) -> Self {
        Self {
            error_kind: Some(error.kind),
            ..Self::error(format!("Error ({}): {}", error.kind, error.message))
        }
    }
    fn ok(output: String) -> Self {
        Self {
            status: ToolStatus::Ok,
            output,
            diff: None,
            error_kind: None,
            silent: false,
        }
    }
    fn error(output: String) -> Self {
        Self {
            status: ToolStatus::Error,
            output,
            diff: None,
            error_kind: None,
            silent: false,
        }
    }
    fn rejected(output: String) -> Self {
        Self {
            status: ToolStatus::Rejected,
            output,
            diff: None,
            error_kind: None,
            silent: false,
        }
    }
}

impl Turn {
    pub async fn run(&self, text: String, context: Vec<ContextItem>) {
        // Everything logged while the turn runs carries its ids (the log file's spans).
        let span = tracing::info_span!("turn", session = %self.session.id, turn = %self.turn_id);
        let (stop_reason, error) = async {
            tracing::info!("turn started");
            let ended = self.run_steps(text, context).await;
            tracing::info!(stop_reason = ?ended.0, error = ended.1.is_some(), "turn ended");
            ended
        }
        .instrument(span)
        .await;
        match error {
            Some((kind, message)) => self.end(stop_reason, Some(message), Some(kind)),
            None => self.end(stop_reason, None, None),
        }
    }

    /// Releases the session, then says so: a client that prompts again as soon as it sees
    /// `TurnEnded` must find the session free.
    pub fn end(
        &self,
        stop_reason: StopReason,
        error: Option<String>,
        error_kind: Option<TurnErrorKind>,
    ) {
        self.session.end_turn();
        self.emit(Event::TurnEnded {
            stop_reason,
            error,
            error_kind,
        });
    }
}
