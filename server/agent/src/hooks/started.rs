//! A session's `SessionStart` hooks as started when it opened (by `crate::session_start`), kept
//! by the session until its first turn takes up what they said.

use tokio::task::JoinHandle;

use super::reply::Reply;

/// Why the session started: Claude Code's `source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Startup,
    Resume,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Startup => "startup",
            Source::Resume => "resume",
        }
    }
}

/// The user's `SessionStart` hooks as started with the session.
pub struct Started {
    pub source: Source,
    /// `None` when there was no runtime to start them on: the first turn runs them.
    pub run: Option<JoinHandle<Reply>>,
}
