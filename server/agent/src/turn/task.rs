//! The `task` tool's call: a child turn on the same session, model, approvals and cancel, with a
//! conversation, tools and step cap of its own; its final answer (capped) is the call's result.
//! The child runs the same steps as the parent (`steps`), its events tagged with the call's id.

use std::sync::Arc;

use super::{Outcome, Turn};
use crate::events::{Event, StopReason};
use crate::rules;
use crate::subagent::{self, ChildScope, TaskArgs};
use tandem_model::{Message, ToolCall};
use tandem_provider::ModelClient;
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
        let client = self
            .definition_client(&definition.name, definition.model.as_deref())
            .await;
        // A definition's cap (a project's file may set one) never goes past the user's.
        let max_steps = (definition.max_steps)
            .unwrap_or(subagent::DEFAULT_MAX_STEPS)
            .min(settings.max_steps);
        let mut conversation = vec![Message::System {
            content: subagent::system_prompt(&self.session.workspace, definition),
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
                client,
            })),
            tree: self.tree.clone(),
        };
        // Boxed: a child's steps run inside the parent's (`steps` → `task` → `steps`).
        let (stop_reason, error) = Box::pin(child.steps(&mut conversation)).await;
        let last = last_answer(&conversation);
        match stop_reason {
            StopReason::EndTurn => Outcome::ok(subagent::capped_answer(&last)),
            StopReason::Cancelled => Outcome::rejected("The user cancelled the subagent.".into()),
            StopReason::MaxSteps => Outcome::error(format!(
                "The subagent {wanted} reached its cap of {max_steps} steps, or the turn's of {} \
                 requests (the subagents' count too), before answering. What it said last: {}",
                settings.max_steps,
                subagent::capped_answer(&last)
            )),
            _ => Outcome::error(format!(
                "The subagent {wanted} failed: {}",
                error.map_or_else(|| format!("{stop_reason:?}"), |(_, message)| message)
            )),
        }
    }
}

impl Turn {
    /// The client this turn's requests go to: a subagent's own model's, else the session's.
    pub(super) fn client(&self) -> &Arc<dyn ModelClient> {
        match self.child.as_ref().and_then(|c| c.client.as_ref()) {
            Some(client) => client,
            None => &self.agent.inner.client,
        }
    }

    /// The window this turn's requests must fit: its model's.
    pub(super) async fn window(&self) -> Option<tandem_provider::Window> {
        self.agent.window_of(self.client().as_ref()).await
    }

    /// The client of the model a definition names, where the server lists it; `None` (the
    /// session's model) otherwise, with a notice saying so. `inherit` (Claude Code's word for
    /// the session's model) needs no notice.
    async fn definition_client(
        &self,
        name: &str,
        model: Option<&str>,
    ) -> Option<Arc<dyn ModelClient>> {
        let model = model
            .map(str::trim)
            .filter(|m| !m.is_empty() && *m != "inherit")?;
        let session_model = self.agent.inner.client.model();
        if model == session_model {
            return None;
        }
        let listed = match self.agent.list_models().await {
            Ok(models) => models.iter().any(|m| m.id == model),
            Err(_) => false,
        };
        let client = if listed {
            self.agent.inner.client.for_model(model).await
        } else {
            None
        };
        if client.is_none() {
            self.emit(Event::Notice {
                message: format!(
                    "The subagent {name} asks for the model {model:?}, which the server does not                      list; it uses the session's model {session_model:?}."
                ),
            });
        }
        client
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
