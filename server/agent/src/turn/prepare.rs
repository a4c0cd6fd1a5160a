//! Preparing a step's request: the tools on offer (the window's, MCP servers', the mode's), the
//! system prompt for a small window, and the conversation fitted to the window (compacted when
//! needed).

use time::OffsetDateTime;

use super::Turn;
use super::stop::{Ended, Sent};
use crate::context::{self, Fit, SMALL_WINDOW, Sizing, count};
use crate::events::{Event, StopReason, TurnErrorKind};
use crate::prompt;
use crate::subagent::{self, Task};
use crate::transcript::Record;
use tandem_model::{Message, ToolDefinition};
use tandem_provider::{CompletionRequest, tokens};

/// A step's request, ready to send with the conversation.
pub(super) struct Request {
    pub tools: Vec<ToolDefinition>,
    /// The window and the server, when the window is known.
    pub sizing: Option<Sizing>,
    pub sent: Sent,
}

impl Turn {
    /// The next step's request, the conversation fitted to the window; the turn ends when even
    /// the smallest fit is too big.
    pub(super) async fn prepare(&self, conversation: &mut Vec<Message>) -> Result<Request, Ended> {
        let sizing = self.sizing().await;
        let small = sizing
            .as_ref()
            .is_some_and(|s| s.window.tokens <= SMALL_WINDOW);
        let base: &[ToolDefinition] = if small {
            self.agent.inner.compact_tools()
        } else {
            self.agent.inner.tools()
        };
        // MCP servers' tools beside the built-in ones, within the window's budget.
        let mut tools = self
            .with_mcp_tools(base, sizing.as_ref().map(|s| s.window.tokens))
            .await;
        // Read at each step: the user may switch modes while the turn runs.
        let mode = self.session.mode();
        let registry = &self.agent.inner.registry;
        tools.retain(|t| mode.allows(registry, &t.name));
        match &self.child {
            Some(child) => tools.retain(|t| child.grants(&t.name)),
            None => self.describe_task(&mut tools, small).await,
        }
        // A subagent keeps its own system prompt.
        if small
            && self.child.is_none()
            && let Some(Message::System { content }) = conversation.first_mut()
        {
            *content = prompt::compact_workspace_system_prompt(&self.session.workspace);
        }
        if let Some(sizing) = &sizing {
            let client = self.client().clone();
            let key = self.conversation_key();
            let request = CompletionRequest::conversation(conversation, &tools, key);
            count::count_new(client.as_ref(), &self.agent.inner.counter, request).await;
            if self.fit(conversation, &tools, sizing).await? {
                // What a compaction removed and rewrote was weighed with the framing of the
                // request before it: where the server counts whole requests, the compacted one
                // is counted too, and fitted again when that count is over.
                let request = CompletionRequest::conversation(conversation, &tools, key);
                count::count_new(client.as_ref(), &self.agent.inner.counter, request).await;
                self.fit(conversation, &tools, sizing).await?;
            }
        }
        let tools_chars = tokens::tools_chars(&tools);
        let sent = Sent {
            chars: conversation.iter().map(tokens::message_chars).sum::<u64>() + tools_chars,
            messages: conversation.len(),
            tools_chars,
        };
        Ok(Request {
            tools,
            sizing,
            sent,
        })
    }

    /// The `task` tool's description lists the subagents of this workspace (read at each step:
    /// a definition may be added while the session runs).
    async fn describe_task(&self, tools: &mut [ToolDefinition], small: bool) {
        let Some(task) = tools.iter_mut().find(|t| t.name == Task::NAME) else {
            return;
        };
        let ws = self.session.workspace.clone();
        let dirs = self.agent.inner.settings.subagents.user_dirs.clone();
        let found = tokio::task::spawn_blocking(move || subagent::discover(&ws, &dirs))
            .await
            .unwrap_or_default();
        task.description = Task::described(&found.listing(), small);
    }

    /// The key a request's prompt cache is kept under: the session's, or a subagent's own (so
    /// a child does not push the parent's prompt out of a server's slot).
    pub(super) fn conversation_key(&self) -> u64 {
        match &self.child {
            Some(child) => context::conversation_key(&tandem_model::SessionId::from(format!(
                "{}/{}",
                self.session.id, child.parent
            ))),
            None => context::conversation_key(&self.session.id),
        }
    }

    /// Fits the conversation to the window at the current estimate; a compaction is recorded and
    /// shown. Whether it compacted.
    async fn fit(
        &self,
        conversation: &mut Vec<Message>,
        tools: &[ToolDefinition],
        sizing: &Sizing,
    ) -> Result<bool, Ended> {
        let client = self.client().clone();
        let mut sizing = Sizing {
            counter: tandem_stdx::lock(&self.agent.inner.counter).clone(),
            ..sizing.clone()
        };
        let fitted = context::fit(client.as_ref(), conversation, tools, &mut sizing).await;
        tandem_stdx::lock(&self.agent.inner.counter).absorb(&sizing.counter);
        match fitted {
            Fit::Fits => Ok(false),
            Fit::Compacted(report) => {
                // A subagent's conversation is not stored as messages, so neither is its
                // compaction (its event is, tagged).
                if self.child.is_none() {
                    self.session.persist(&Record::Compaction {
                        turn_id: self.turn_id.clone(),
                        at: OffsetDateTime::now_utc(),
                        elided: report.elided,
                        summarized: report.summarized,
                        summary: report.summary.clone(),
                    });
                }
                self.emit(Event::Compaction {
                    elided: report.elided,
                    summarized: report.summarized,
                    tokens_before: report.tokens_before,
                    tokens_after: report.tokens_after,
                    context_window: sizing.window.tokens,
                });
                Ok(true)
            }
            Fit::TooSmall(message) => Err((
                StopReason::Error,
                Some((TurnErrorKind::ContextOverflow, message)),
            )),
        }
    }
}
