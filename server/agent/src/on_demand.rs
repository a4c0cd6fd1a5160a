//! What a user asks of a session between turns, beside prompting it: compact its conversation
//! now (`/compact`), and see its MCP servers with their state and tools (`/mcp`).

use time::OffsetDateTime;

use crate::context::{self, SMALL_WINDOW, Sizing};
use crate::transcript::Record;
use crate::{Agent, AgentError};
use tandem_model::SessionId;

/// The window assumed when no one says: the summary's room is sized by it.
const UNKNOWN_WINDOW: u64 = 8 * 1024;

/// What compacting a session did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactOutcome {
    /// Earlier tool outputs replaced by a one-line stub.
    pub elided: u32,
    /// Messages replaced by the model's summary.
    pub summarized: u32,
    /// The conversation's estimated size before and after, in tokens.
    pub tokens_before: u64,
    pub tokens_after: u64,
    /// The model's window, when known.
    pub context_window: Option<u64>,
}

/// One MCP server a session can use.
#[derive(Clone, Debug, PartialEq)]
pub struct McpServerView {
    pub name: String,
    /// The command line, or the URL.
    pub target: String,
    pub state: McpServerState,
    /// Its tools as the model sees them (the server's own names); empty unless running.
    pub tools: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum McpServerState {
    Running {
        pid: Option<u32>,
    },
    /// Not started yet (a project's trusted server starts at the session's next turn).
    NotStarted,
    /// It failed or died: why.
    Down(String),
    ShutDown,
    /// A project's config names it; the user is asked at the next turn whether to start it.
    AwaitingTrust {
        file: std::path::PathBuf,
    },
}

impl Agent {
    /// Compacts a session's conversation now, as far as it goes (see
    /// [`context::compact_now`]); what the model is sent from now on. The transcript keeps every
    /// message (a reopened session starts whole again, and is compacted when it must be).
    /// Refused while a turn runs.
    pub async fn compact(&self, session_id: &SessionId) -> Result<CompactOutcome, AgentError> {
        let session = self.session(session_id)?;
        if session.is_running() {
            return Err(AgentError::TurnRunning(session_id.clone()));
        }
        let mut conversation = session.conversation.lock().await;
        let known = self.window().await;
        let window = known.clone().unwrap_or_else(|| {
            tandem_provider::Window::new(UNKNOWN_WINDOW, "assumed: the server does not say")
        });
        let tools = if window.tokens <= SMALL_WINDOW {
            self.inner.compact_tools()
        } else {
            self.inner.tools()
        };
        let mut sizing = Sizing {
            window,
            kind: self.inner.client.server_kind(),
            counter: tandem_stdx::lock(&self.inner.counter).clone(),
            text_tools: self.inner.client.text_tools(),
            answer_limit: self.inner.client.output_limit(),
        };
        let client = self.inner.client.clone();
        let report =
            context::compact_now(client.as_ref(), &mut conversation, tools, &mut sizing).await;
        tandem_stdx::lock(&self.inner.counter).absorb(&sizing.counter);
        if report.elided + report.summarized > 0 {
            session.persist(&Record::Compaction {
                turn_id: tandem_model::TurnId::outside(),
                at: OffsetDateTime::now_utc(),
                elided: report.elided,
                summarized: report.summarized,
                summary: report.summary.clone(),
            });
        }
        Ok(CompactOutcome {
            elided: report.elided,
            summarized: report.summarized,
            tokens_before: report.tokens_before,
            tokens_after: report.tokens_after,
            context_window: known.map(|w| w.tokens),
        })
    }

    /// The MCP servers a session can use, the agent's and its own, with their state and
    /// tools. Servers not started yet are started to list their tools (as the next turn
    /// would); a project's server waiting for the user's trust is not.
    pub async fn mcp_servers(
        &self,
        session_id: &SessionId,
    ) -> Result<Vec<McpServerView>, AgentError> {
        Ok(self.session(session_id)?.mcp.servers().await)
    }
}
