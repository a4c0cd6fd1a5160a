//! Deciding an approval: the policy, an earlier "accept always", or the user, bounded in time
//! and by a cancel; every decision recorded.

use time::OffsetDateTime;

use super::Turn;
use crate::approval::{
    ApprovalAction, ApprovalReply, ApprovalRequest, AskingSubagent, DecidedBy, Decision,
};
use crate::transcript::Record;
use tandem_model::ToolCall;

impl Turn {
    /// Asks the user unless the policy or an earlier "accept always" already says yes.
    pub(super) async fn approve(&self, request: ApprovalRequest, auto: bool) -> ApprovalReply {
        self.decide(request, auto, true).await
    }

    /// Asks the user, whatever the policy or "accept always" say (a command outside the sandbox).
    pub(super) async fn ask_always(&self, request: ApprovalRequest) -> ApprovalReply {
        self.decide(request, false, false).await
    }

    pub(super) async fn decide(
        &self,
        request: ApprovalRequest,
        auto: bool,
        honour_always: bool,
    ) -> ApprovalReply {
        let action = request.action.clone();
        let tool_call_id = request.tool_call_id.clone();
        let (reply, by) = if auto {
            (ApprovalReply::accept(), DecidedBy::Policy)
        } else if honour_always && self.session.always(&action) {
            (ApprovalReply::accept(), DecidedBy::Session)
        } else {
            // Bounded: an editor that drops the question (or a user who walked away) must not
            // hold the session; an unanswered question is a "no" and the turn goes on.
            let limit = self.agent.inner.settings.policy.timeout();
            let asked =
                tokio::time::timeout(limit, self.frontend.request_approval(request.clone()));
            tokio::select! {
                reply = asked => match reply {
                    Ok(reply) => (reply, DecidedBy::Face),
                    Err(_) => (ApprovalReply::reject(format!(
                        "Nobody answered within {} s, so it was not done.",
                        limit.as_secs()
                    )), DecidedBy::Timeout),
                },
                () = self.cancel.cancelled() => (
                    ApprovalReply::reject("The user cancelled the turn."),
                    DecidedBy::Cancelled,
                ),
            }
        };
        self.frontend.approval_decided(&request, &reply, by);
        if reply.decision == Decision::AcceptAlways && honour_always {
            self.session.set_always(&action);
            if let ApprovalAction::Command(command) = &action {
                self.save_rules(&command.always);
            }
        }
        self.session.persist(&Record::Approval {
            turn_id: self.turn_id.clone(),
            tool_call_id,
            at: OffsetDateTime::now_utc(),
            decision: reply.decision.into(),
            edited: reply.content.is_some(),
            feedback: reply.feedback.clone(),
        });
        reply
    }

    /// Keeps a command's "always" rules for later sessions, and tells the face where (or why
    /// not).
    fn save_rules(&self, rules: &[String]) {
        let Some(store) = &self.agent.inner.settings.rule_store else {
            return;
        };
        if rules.is_empty() {
            return;
        }
        let shown: Vec<String> = rules.iter().map(|r| format!("`{r}`")).collect();
        let message = match store.save_allow(self.session.workspace.root(), rules) {
            Ok(place) => format!("Always allowed {}: saved in {place}.", shown.join(", ")),
            Err(e) => {
                tracing::warn!(error = %e, "the always-allow rules could not be saved");
                format!(
                    "Always allowed {} for this session only: they could not be saved ({e}).",
                    shown.join(", ")
                )
            }
        };
        self.tell(crate::events::Event::Notice { message });
    }

    pub(super) fn request(&self, call: &ToolCall, action: ApprovalAction) -> ApprovalRequest {
        ApprovalRequest {
            session_id: self.session.id.clone(),
            turn_id: self.turn_id.clone(),
            tool_call_id: call.id.clone(),
            action,
            subagent: self.asking_subagent(),
        }
    }

    /// Who asks, when this turn is a subagent's.
    pub(super) fn asking_subagent(&self) -> Option<AskingSubagent> {
        self.child.as_ref().map(|child| AskingSubagent {
            parent: child.parent.clone(),
            agent: child.agent.clone(),
        })
    }
}

/// What the model is told when the user says no.
pub(super) fn rejection(what: &str, reply: &ApprovalReply) -> String {
    match reply.feedback.as_deref().map(str::trim) {
        Some(note) if !note.is_empty() => {
            format!("The user rejected this {what}. Their feedback: {note}")
        }
        _ => format!("The user rejected this {what}."),
    }
}
