//! `/rewind [TURN]`: an earlier prompt, edited and sent again in a fork of the session from just
//! before its turn (the agent's `fork_session`, as VS Code's Edit and resend). The original stays
//! in `/sessions`; the files stay as the later turns left them (`/undo` there restores them).

use tandem_agent::events::Event;
use tandem_agent::{Agent, SessionId, TurnId};

use super::input::Input;
use super::slash;
use super::style::{Style, out};
use super::turn_diff::turn_arg;

/// Asks for the edited prompt of the session's last turn (or `wanted`'s), then forks the session
/// from before that turn: the fork and the prompt to send in it. `None` when there is nothing to
/// send (no such turn, the user kept the session, the fork failed); the user was told why.
pub async fn edit_and_fork(
    agent: &Agent,
    input: &Input,
    style: Style,
    session: &SessionId,
    wanted: Option<&str>,
) -> Option<(SessionId, String)> {
    let error = |e: &dyn std::fmt::Display| out(&style.paint("31", &format!("error: {e}\n")));
    let target = target(agent, session, wanted).map_err(|e| error(&e)).ok()?;
    out(&style.dim(&format!(
        "Edit the prompt of turn {}: Enter sends it in a new session from before that turn; \
         Ctrl-C keeps this session as it is.\n",
        target.turn
    )));
    let edited = tokio::select! {
        line = input.edit("you> ", &target.prompt) => line,
        _ = tokio::signal::ctrl_c() => None,
    };
    let Some(text) = edited.filter(|t| !t.trim().is_empty()) else {
        out(&style.dim("Not rewound: this session goes on.\n"));
        return None;
    };
    let forked = agent
        .fork_session(session, &target.turn)
        .map_err(|e| error(&e))
        .ok()?
        .session_id;
    out(&style.dim(&format!(
        "New session {forked}, from before turn {turn}. The files are as the later turns left \
         them: `/resume {session}` then `/undo {turn}` restores them.\n",
        turn = target.turn,
    )));
    Some((forked, slash::prompt_text(&text).to_string()))
}

/// A turn to rewind to, and the prompt it was sent with.
struct Target {
    turn: TurnId,
    prompt: String,
}

/// The session's last turn, or `wanted` (`3` or `t3`), with its prompt.
fn target(agent: &Agent, session: &SessionId, wanted: Option<&str>) -> Result<Target, String> {
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
