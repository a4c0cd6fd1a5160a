//! `/rewind [TURN]`: an earlier prompt, edited and sent again in a fork of the session from just
//! before its turn (the agent's `fork_session`, as VS Code's Edit and resend). The original stays
//! in `/sessions`; the files stay as the later turns left them (`/undo` there restores them).

use tandem_agent::events::Event;
use tandem_agent::{Agent, SessionId, TurnId};

use super::turn_diff::turn_arg;

/// A turn to rewind to, and the prompt it was sent with.
pub struct Target {
    pub turn: TurnId,
    pub prompt: String,
}

/// The session's last turn, or `wanted` (`3` or `t3`), with its prompt.
pub fn target(agent: &Agent, session: &SessionId, wanted: Option<&str>) -> Result<Target, String> {
    let history = agent
        .load_session(session)
        .map_err(|e| e.to_string())?
        .history;
    let mut turns: Vec<Target> = history
        .into_iter()
        .filter_map(|entry| match entry.event {
            Event::TurnStarted { prompt, .. } => Some(Target {
                turn: entry.turn_id,
                prompt,
            }),
            _ => None,
        })
        .collect();
    let Some(wanted) = wanted else {
        return turns
            .pop()
            .ok_or_else(|| "This session has no prompt yet to rewind to.".to_string());
    };
    let id = turn_arg(wanted);
    let known: Vec<String> = turns.iter().map(|t| t.turn.to_string()).collect();
    turns.into_iter().find(|t| t.turn == id).ok_or_else(|| {
        format!(
            "This session has no turn {}; its turns are: {}.",
            crate::display::inert(wanted, true),
            if known.is_empty() {
                "none yet".to_string()
            } else {
                known.join(", ")
            }
        )
    })
}
