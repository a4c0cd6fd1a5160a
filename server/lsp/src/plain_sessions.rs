//! Saved sessions for plain LSP clients: `tandem.sessions` lists the workspace's, `tandem.resume`
//! reopens one (after an editor restart too), so later `tandem.ask`s continue it with its history.

use crate::convert::IntoWire;
use serde_json::{Value, json};
use tandem_agent::SessionId;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::lsp_types::MessageType;

use super::{Backend, agent_error, invalid_params, lock};
use tandem_agent::HistoryEntry;
use tandem_agent::events::StopReason;
use tandem_agent::view::TurnView;

/// The longest replay shown in one `window/showMessage`: the latest turns are kept.
const MAX_REPLAY: usize = 8000;

/// One earlier turn, as the face showed it: the question and the answer's text.
#[derive(Debug, PartialEq)]
struct Exchange {
    prompt: String,
    answer: String,
}

impl Backend {
    /// `tandem.sessions`: the workspace's saved sessions, most recently used first.
    pub(super) async fn list_workspace_sessions(&self) -> Result<Value> {
        let root = super::documents::canonical(&self.default_root()?);
        let agent = self.ready()?.agent.clone();
        let sessions = tokio::task::spawn_blocking(move || agent.list_sessions())
            .await
            .map_err(|e| invalid_params(format!("could not list the sessions: {e}")))?;
        let current = lock(&self.current).clone();
        let listed: Vec<Value> = sessions
            .into_iter()
            // A session never asked anything has no title and nothing to go back to.
            .filter(|s| s.root == root && !s.title.is_empty())
            .map(|s| {
                let current = current.as_ref() == Some(&s.session_id);
                let wire = s.into_wire();
                json!({
                    "sessionId": wire.session_id,
                    "title": wire.title,
                    "time": wire.updated_at,
                    "createdAt": wire.created_at,
                    "current": current,
                })
            })
            .collect();
        Ok(json!(listed))
    }

    /// `tandem.resume [sessionId]`: makes that session the current one, shows its earlier turns
    /// as answers are shown, and answers them (`{sessionId, title, turns: [{prompt, answer}]}`).
    pub(super) async fn resume(&self, arguments: &[Value]) -> Result<Value> {
        let session_id = arguments
            .first()
            .and_then(|a| {
                a.as_str()
                    .or_else(|| a.get("sessionId").and_then(Value::as_str))
            })
            .filter(|id| !id.trim().is_empty())
            .ok_or_else(|| {
                invalid_params(
                    "tandem.resume takes [sessionId]: one of those tandem.sessions lists".into(),
                )
            })
            .map(SessionId::from)?;
        let ready = self.ready()?;
        let root = super::documents::canonical(&self.default_root()?);
        let loaded = ready.agent.load_session(&session_id).map_err(agent_error)?;
        let session_root = ready.agent.session_root(&session_id).map_err(agent_error)?;
        if session_root != root {
            return Err(invalid_params(format!(
                "session {session_id} belongs to {}, not to this workspace ({}); open that folder \
                 to resume it",
                session_root.display(),
                root.display()
            )));
        }
        // Reopened after a restart, it has its project's MCP servers again.
        let servers = tandem_config::project_mcp_servers(&root)
            .map_err(|e| invalid_params(format!("bad project config file: {e}")))?;
        ready
            .agent
            .set_session_servers(&session_id, servers)
            .await
            .map_err(agent_error)?;
        let title = ready
            .agent
            .list_sessions()
            .into_iter()
            .find(|s| s.session_id == session_id)
            .map(|s| s.title)
            .unwrap_or_default();
        *lock(&self.current) = Some(session_id.clone());

        let exchanges = exchanges(&loaded.history);
        let mut message = replay(&title, &exchanges);
        if loaded.unreadable_lines > 0 {
            message.push_str(&format!(
                "\n\n({} lines of the saved session could not be read and are left out.)",
                loaded.unreadable_lines
            ));
        }
        self.client.show_message(MessageType::INFO, message).await;
        let turns: Vec<Value> = exchanges
            .iter()
            .map(|e| json!({"prompt": e.prompt, "answer": e.answer}))
            .collect();
        Ok(json!({"sessionId": session_id, "title": title, "turns": turns}))
    }
}

/// The earlier turns: each prompt with the answer's text (the text before a tool call on a line
/// of its own, as the face showed it live), and how the turn ended when it did not end well.
fn exchanges(history: &[HistoryEntry]) -> Vec<Exchange> {
    let events = history.iter().map(|e| e.event.clone());
    TurnView::turns(events)
        .iter()
        .map(|turn| {
            let mut answer = turn.answer().trim().to_string();
            let note = turn.end().and_then(|end| match end.stop_reason {
                StopReason::EndTurn => None,
                StopReason::Cancelled => Some("(cancelled)".to_string()),
                StopReason::MaxSteps => Some("(stopped at the step limit)".to_string()),
                StopReason::Error => Some(format!(
                    "(failed: {})",
                    end.error.as_deref().unwrap_or("the turn failed")
                )),
            });
            if let Some(note) = note {
                if !answer.is_empty() {
                    answer.push('\n');
                }
                answer.push_str(&note);
            }
            Exchange {
                prompt: turn.prompt().to_string(),
                answer,
            }
        })
        .collect()
}

/// The message that shows a resumed session: its title, then each turn, the latest last. Cut
/// from the front when long: the latest turns are what the user continues from.
fn replay(title: &str, exchanges: &[Exchange]) -> String {
    let head = match exchanges.len() {
        0 => format!("Tandem: resumed \"{title}\" (no earlier turns)."),
        1 => format!("Tandem: resumed \"{title}\" (1 earlier turn):"),
        n => format!("Tandem: resumed \"{title}\" ({n} earlier turns):"),
    };
    let mut turns: Vec<String> = Vec::new();
    let mut size = 0;
    for e in exchanges.iter().rev() {
        let quoted: Vec<String> = e.prompt.lines().map(|l| format!("> {l}")).collect();
        let turn = format!("{}\n\n{}", quoted.join("\n"), e.answer);
        size += turn.len() + 2;
        if size > MAX_REPLAY && !turns.is_empty() {
            turns.push(format!(
                "… ({} earlier turns: run tandem.showTranscript)",
                exchanges.len() - turns.len()
            ));
            break;
        }
        turns.push(turn);
    }
    turns.push(head);
    turns.reverse();
    turns.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_agent::events::{Event, ToolCallEvent, ToolStatus};

    fn entry(event: Event) -> HistoryEntry {
        HistoryEntry {
            turn_id: "t".into(),
            event,
        }
    }

    #[test]
    fn a_resumed_session_shows_each_prompt_with_its_answer() {
        let history = [
            entry(Event::TurnStarted {
                prompt: "Make it 42\nplease".into(),
                context: Vec::new(),
            }),
            entry(Event::Text {
                delta: "Changing it.".into(),
            }),
            entry(Event::ToolCall(ToolCallEvent {
                tool_call_id: "c".into(),
                name: "replace_in_file".into(),
                arguments: json!({}),
                title: "Edit a.py".into(),
                kind: tandem_tools::ToolKind::Edit,
                location: None,
            })),
            entry(Event::ToolResult {
                tool_call_id: "c".into(),
                status: ToolStatus::Ok,
                output: "Applied.".into(),
                diff: None,
                error_kind: None,
            }),
            entry(Event::Text {
                delta: "It is 42.\n\nSecond paragraph.".into(),
            }),
            entry(Event::TurnEnded {
                stop_reason: StopReason::EndTurn,
                error: None,
                error_kind: None,
            }),
            entry(Event::TurnStarted {
                prompt: "Think".into(),
                context: Vec::new(),
            }),
            entry(Event::TurnEnded {
                stop_reason: StopReason::Cancelled,
                error: None,
                error_kind: None,
            }),
        ];
        let turns = exchanges(&history);
        assert_eq!(
            turns,
            [
                Exchange {
                    prompt: "Make it 42\nplease".into(),
                    answer: "Changing it.\nIt is 42.\n\nSecond paragraph.".into()
                },
                Exchange {
                    prompt: "Think".into(),
                    answer: "(cancelled)".into()
                }
            ]
        );
        assert_eq!(
            replay("Make it 42", &turns),
            "Tandem: resumed \"Make it 42\" (2 earlier turns):\n\n> Make it 42\n> please\n\n\
             Changing it.\nIt is 42.\n\nSecond paragraph.\n\n> Think\n\n(cancelled)"
        );
    }

    #[test]
    fn a_long_replay_keeps_the_latest_turns() {
        let turns: Vec<Exchange> = (0..100)
            .map(|i| Exchange {
                prompt: format!("question {i}"),
                answer: "x".repeat(500),
            })
            .collect();
        let text = replay("t", &turns);
        assert!(text.len() < MAX_REPLAY + 1000, "{}", text.len());
        assert!(text.starts_with("Tandem: resumed \"t\" (100 earlier turns):"));
        assert!(text.contains("earlier turns: run tandem.showTranscript"));
        assert!(text.contains("> question 99") && !text.contains("> question 0\n"));
        assert_eq!(
            replay("t", &[]),
            "Tandem: resumed \"t\" (no earlier turns)."
        );
    }
}
