//! Preparing a step's request: the tools on offer (the window's, MCP servers', the mode's), the
//! system prompt for a small window, and the conversation fitted to the window (compacted when
//! needed).

use time::OffsetDateTime;

use super::Turn;
use super::stop::{Ended, Sent};
use crate::context::{self, Fit, SMALL_WINDOW, Sizing, count};
use crate::events::{Event, StopReason, TurnErrorKind};
use crate::prompt;
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
        if small && let Some(Message::System { content }) = conversation.first_mut() {
            *content = prompt::compact_system_prompt(self.session.workspace.root());
        }
        if let Some(sizing) = &sizing {
            let client = self.agent.inner.client.clone();
            let key = context::conversation_key(&self.session.id);
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

    /// Fits the conversation to the window at the current estimate; a compaction is recorded and
    /// shown. Whether it compacted.
    async fn fit(
        &self,
        conversation: &mut Vec<Message>,
        tools: &[ToolDefinition],
        sizing: &Sizing,
    ) -> Result<bool, Ended> {
        let client = self.agent.inner.client.clone();
        let mut sizing = Sizing {
            counter: tandem_stdx::lock(&self.agent.inner.counter).clone(),
            ..sizing.clone()
        };
        let fitted = context::fit(client.as_ref(), conversation, tools, &mut sizing).await;
        tandem_stdx::lock(&self.agent.inner.counter).absorb(&sizing.counter);
        match fitted {
            Fit::Fits => Ok(false),
            Fit::Compacted(report) => {
                self.session.persist(&Record::Compaction {
                    turn_id: self.turn_id.clone(),
                    at: OffsetDateTime::now_utc(),
                    elided: report.elided,
                    summarized: report.summarized,
                    summary: report.summary.clone(),
                });
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
