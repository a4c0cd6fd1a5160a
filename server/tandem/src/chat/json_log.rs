//! `--json-log`: one line per turn with the messages it added to the conversation.

use std::io::Write;
use std::path::PathBuf;

use serde_json::json;
use time::OffsetDateTime;

use tandem_agent::{Agent, SessionId, TurnId};

pub struct JsonLog {
    pub path: Option<PathBuf>,
}

impl JsonLog {
    pub fn write(&self, agent: &Agent, session: &SessionId, turn: &TurnId) {
        let Some(path) = &self.path else { return };
        let messages = agent.turn_messages(session, turn).unwrap_or_default();
        let line = json!({
            "turn": turn,
            "sessionId": session,
            "timestamp": OffsetDateTime::now_utc()
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            "model": agent.model(),
            "messages": messages,
        });
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = written {
            eprintln!("tandem: could not write {}: {e}", path.display());
        }
    }
}
