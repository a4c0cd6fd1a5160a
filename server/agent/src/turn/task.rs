//! The `task` tool's call: a child turn on the same session, model, approvals and cancel, with a
//! conversation, tools and step cap of its own; its final answer (capped) is the call's result.
//! The child runs the same steps as the parent (`steps`), its events tagged with the call's id.

use std::sync::Arc;

use super::{Outcome, Turn};
use crate::events::StopReason;
use crate::rules;
use crate::subagent::{self, ChildScope, TaskArgs};
use tandem_model::{Message, ToolCall};
use tandem_tools::{ErrorKind, ToolError};

impl Turn {
    pub(super) async fn task(&self, call: &ToolCall) -> Outcome {
        self.show_call(call);
        if self.child.is_some() {
            // Never granted to a child; said plainly should a model call it anyway.
            return Outcome::rejected(
                "not granted: task. A subagent can't start subagents.".into(),
            );
        }
        let args = match TaskArgs::parse(&call.arguments) {
            Ok(args) => args,
            Err(why) => return Outcome::failed(ToolError::new(ErrorKind::InvalidArguments, why)),
        };
        let settings = &self.agent.inner.settings;
        let found = {
            let ws = self.session.workspace.clone();
            let dirs = settings.subagents.user_dirs.clone();
            tokio::task::spawn_blocking(move || subagent::discover(&ws, &dirs))
                .await
                .unwrap_or_default()
        };
        let wanted = args.subagent_type.as_deref().unwrap_or("explore");
        let Some(definition) = found.get(wanted) else {
            let names: Vec<&str> = found.definitions.iter().map(|d| d.name.as_str()).collect();
            return Outcome::failed(ToolError::new(
                ErrorKind::InvalidArguments,
                format!(
                    "no subagent named {wanted:?}; there are: {}",
                    names.join(", ")
                ),
            ));
        };
        let granted = subagent::granted_tools(definition, &self.agent.inner.registry);
        let max_steps = definition.max_steps.unwrap_or(subagent::DEFAULT_MAX_STEPS);
        let mut conversation = vec![Message::System {
            content: subagent::system_prompt(self.session.workspace.root(), definition),
        }];
        // The session's rules hold for the child as they do for the parent.
        let session_rules = {
            let ws = self.session.workspace.clone();
            let user_file = settings.user_rules.clone();
            tokio::task::spawn_blocking(move || rules::session_rules(&ws, user_file.as_deref()))
                .await
                .unwrap_or_default()
        };
        if !session_rules.text.is_empty() {
            conversation.push(Message::System {
                content: session_rules.text,
            });
        }
        conversation.push(Message::user(args.prompt));
        // Waits for a free slot; a cancel while waiting ends the call.
        let slot = tokio::select! {
            slot = self.agent.inner.subagent_slots.acquire() => slot,
            () = self.cancel.cancelled() => {
                return Outcome::rejected("Not run: the user cancelled the turn.".into());
            }
        };
        let Ok(_slot) = slot else {
            return Outcome::error("The subagents are shutting down.".into());
        };
        let child = Turn {
            agent: self.agent.clone(),
            session: self.session.clone(),
            turn_id: self.turn_id.clone(),
            frontend: self.frontend.clone(),
            cancel: self.cancel.child_token(),
            images: Vec::new(),
            // The user's hooks guard a subagent's calls too; what they say stays in its turn.
            hooks: Default::default(),
            child: Some(Arc::new(ChildScope {
                parent: call.id.clone(),
                agent: definition.name.clone(),
                granted,
                max_steps,
            })),
        };
        // Boxed: a child's steps run inside the parent's (`steps` → `task` → `steps`).
        let (stop_reason, error) = Box::pin(child.steps(&mut conversation)).await;
        let last = last_answer(&conversation);
        match stop_reason {
            StopReason::EndTurn => Outcome::ok(subagent::capped_answer(&last)),
            StopReason::Cancelled => Outcome::rejected("The user cancelled the subagent.".into()),
            StopReason::MaxSteps => Outcome::error(format!(
                "The subagent {wanted} reached its cap of {max_steps} steps before answering. \
                 What it said last: {}",
                subagent::capped_answer(&last)
            )),
            _ => Outcome::error(format!(
                "The subagent {wanted} failed: {}",
                error.map_or_else(|| format!("{stop_reason:?}"), |(_, message)| message)
            )),
        }
    }
}

/// The text of the child's last answer (empty when it gave none).
fn last_answer(conversation: &[Message]) -> String {
    conversation
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Assistant { content, .. } if !content.is_empty() => Some(content.clone()),
            _ => None,
        })
        .unwrap_or_default()
}
