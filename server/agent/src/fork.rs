//! Forking a session before one of its turns: what a face does when the user edits an earlier
//! prompt and sends it again. The fork is a new session whose transcript is the original's up to
//! that turn; the original stays as it was, in the history, and nothing on disk in the workspace
//! changes (a face offers `undo` of the original for that).

use time::OffsetDateTime;

use super::session::{self, Session};
use super::transcript::{self, Record, StoredMessage};
use super::{Agent, AgentError, SessionInfo, mcp};
use tandem_model::{Message, SessionId, TurnId};

/// What the fork's model is told first: the files it saw may have changed since, by the later
/// turns of the original (whose files stay as they are unless the user restores them).
pub const FORK_NOTE: &str = "This conversation was forked from an earlier one just before a \
prompt the user edited: the turns after this point are gone from the conversation, but the \
workspace files may still hold what they changed. Read a file again before relying on what you \
saw of it.";

impl Agent {
    /// Forks `session_id` just before its turn `before`: a new session (returned) with the
    /// original's conversation, history, title and mode up to that turn, continued by the next
    /// prompt. The original is unchanged. Refused while the original runs a turn (stop it
    /// first), and for a turn the session doesn't have ([`AgentError::UnknownTurn`]). The fork's
    /// undo log starts empty: the files of the kept turns are restored from the original.
    pub fn fork_session(
        &self,
        session_id: &SessionId,
        before: &TurnId,
    ) -> Result<SessionInfo, AgentError> {
        let original = self.session(session_id)?;
        if original.is_running() {
            return Err(AgentError::TurnRunning(session_id.clone()));
        }
        let path = original.transcript.path().to_path_buf();
        let loaded = transcript::read_records(&path).map_err(|e| {
            AgentError::Io(format!(
                "the transcript of session {session_id} ({}) can't be read: {e}",
                path.display()
            ))
        })?;
        let kept = records_before(&loaded.records, before).ok_or_else(|| {
            AgentError::UnknownTurn(unknown_turn(session_id, before, &loaded.records))
        })?;
        let dir = self.sessions_dir();
        let id = SessionId::generate();
        let write = || -> std::io::Result<()> {
            let fork_path = session::transcript_path(&dir, &id);
            let first = Record::Session {
                session_id: id.clone(),
                root: original.workspace.root().to_path_buf(),
                additional_roots: original.workspace.additional_roots().to_vec(),
                created_at: OffsetDateTime::now_utc(),
                format_version: transcript::FORMAT_VERSION,
            };
            let fork = transcript::Transcript::create(&fork_path, &first)?;
            let mut told = false;
            for record in kept {
                if let Record::Message {
                    message: StoredMessage::User { images, .. },
                    ..
                } = record
                {
                    transcript::images::copy(
                        &transcript::images::dir_of(&path),
                        &transcript::images::dir_of(&fork_path),
                        images,
                    )?;
                }
                told |= matches!(record, Record::Message { .. });
                fork.append(record)?;
            }
            // A fork before the first turn has no conversation the note would qualify.
            if told {
                fork.append(&Record::Message {
                    turn_id: TurnId::outside(),
                    at: OffsetDateTime::now_utc(),
                    message: (&Message::user(FORK_NOTE.to_string())).into(),
                })?;
            }
            Ok(())
        };
        write().map_err(|e| {
            AgentError::Io(format!(
                "could not write the fork of session {session_id} in {}: {e}",
                dir.display()
            ))
        })?;
        let mcp = mcp::SessionMcp::new(self.inner.mcp.clone(), Vec::new());
        let protected = self.settings().protected_dirs();
        let fork = std::sync::Arc::new(Session::load(&dir, &id, &protected, mcp)?);
        let info = fork.info();
        self.sessions().insert(id, fork);
        Ok(info)
    }
}

/// The records before the first one of turn `before` (the session's own lines left out), or
/// `None` when no turn of that id started. Records are appended in order and a session runs one
/// turn at a time, so everything before that line is the earlier turns' (and notes and mode
/// switches between them).
fn records_before<'a>(records: &'a [Record], before: &TurnId) -> Option<&'a [Record]> {
    let started = records.iter().any(|r| {
        matches!(r, Record::Update { turn_id, update: transcript::StoredEvent::TurnStarted { .. }, .. } if turn_id == before)
    });
    if !started {
        return None;
    }
    let cut = records
        .iter()
        .position(|r| turn_of(r) == Some(before))
        .unwrap_or(records.len());
    let kept = &records[..cut];
    Some(match kept.first() {
        Some(Record::Session { .. }) => &kept[1..],
        _ => kept,
    })
}

fn turn_of(record: &Record) -> Option<&TurnId> {
    match record {
        Record::Message { turn_id, .. }
        | Record::Update { turn_id, .. }
        | Record::Approval { turn_id, .. }
        | Record::Compaction { turn_id, .. }
        | Record::Turn { turn_id, .. } => Some(turn_id),
        Record::Session { .. } | Record::Title { .. } | Record::Mode { .. } => None,
    }
}

/// Why `before` can't be forked at, naming the turns there are.
fn unknown_turn(session_id: &SessionId, before: &TurnId, records: &[Record]) -> String {
    let turns: Vec<&str> = records
        .iter()
        .filter_map(|r| match r {
            Record::Update {
                turn_id,
                update: transcript::StoredEvent::TurnStarted { .. },
                ..
            } => Some(turn_id.as_str()),
            _ => None,
        })
        .collect();
    if turns.is_empty() {
        format!(
            "session {session_id} has no turn {before}: it has no turns yet, so there is nothing to fork"
        )
    } else {
        format!(
            "session {session_id} has no turn {before}; its turns are {}: fork before one of them",
            turns.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(turn: &str, prompt: &str) -> Record {
        Record::Update {
            turn_id: TurnId::from(turn),
            at: OffsetDateTime::UNIX_EPOCH,
            update: transcript::StoredEvent::TurnStarted {
                prompt: prompt.into(),
                context: Vec::new(),
            },
        }
    }

    fn message(turn: &str, text: &str) -> Record {
        Record::Message {
            turn_id: TurnId::from(turn),
            at: OffsetDateTime::UNIX_EPOCH,
            message: (&Message::user(text.to_string())).into(),
        }
    }

    #[test]
    fn the_cut_keeps_what_came_before_the_turns_first_line_and_the_notes_between() {
        let records = vec![
            Record::Session {
                session_id: "s".into(),
                root: "/tmp".into(),
                additional_roots: Vec::new(),
                created_at: OffsetDateTime::UNIX_EPOCH,
                format_version: transcript::FORMAT_VERSION,
            },
            Record::Title {
                title: "one".into(),
            },
            message("t1", "one"),
            update("t1", "one"),
            message("outside", "a note between turns"),
            message("t2", "two"),
            update("t2", "two"),
            message("t3", "three"),
            update("t3", "three"),
        ];
        let kept = records_before(&records, &TurnId::from("t2")).unwrap();
        assert_eq!(kept, &records[1..5]);
        assert_eq!(
            records_before(&records, &TurnId::from("t1")).unwrap(),
            &records[1..2]
        );
        assert_eq!(records_before(&records, &TurnId::from("t9")), None);
        // A note's id is no turn.
        assert_eq!(records_before(&records, &TurnId::outside()), None);
        let why = unknown_turn(&"s".into(), &TurnId::from("t9"), &records);
        assert_eq!(
            why,
            "session s has no turn t9; its turns are t1, t2, t3: fork before one of them"
        );
    }
}
