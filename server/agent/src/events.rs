//! What the core tells a face while a turn runs. Faces translate these to their protocol (the
//! `tandem lsp` wire types live in `tandem-protocol`); the transcript stores them in its own
//! records.

use std::path::PathBuf;

pub use tandem_model::Retrying;
use tandem_model::ToolCallId;
use tandem_tools::{ErrorKind, FileDiff, ToolKind};

/// One thing that happened in a turn.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A turn began; `prompt` is the user's text as sent, `context` the files it pointed at
    /// (absolute paths, as a face's links or selections gave them), so a replay shows them too.
    TurnStarted {
        prompt: String,
        context: Vec<PathBuf>,
    },
    /// A piece of the answer.
    Text { delta: String },
    /// A piece of the model's reasoning.
    Reasoning { delta: String },
    /// The model called a tool.
    ToolCall(ToolCallEvent),
    /// Output of a running command, as it comes.
    ToolOutput {
        tool_call_id: ToolCallId,
        delta: String,
    },
    /// A tool call finished.
    ToolResult {
        tool_call_id: ToolCallId,
        status: ToolStatus,
        output: String,
        /// The change an edit made (or would have made, when rejected).
        diff: Option<FileDiff>,
        /// With an error a tool's own check found: which (`Stale`: the file changed since the
        /// edit was proposed). `None` when the tool ran and failed on its own terms.
        error_kind: Option<ErrorKind>,
    },
    /// The files a tool call changed in the workspace other than through an edit proposal: a
    /// command's writes (captured in its walls and applied), an MCP tool's. Sent after the
    /// changes are on disk and in the undo log, before the call's `ToolResult`.
    FilesChanged {
        tool_call_id: ToolCallId,
        changes: Vec<FileChange>,
    },
    /// Tokens used by the last request.
    Usage {
        prompt_tokens: u64,
        completion_tokens: u64,
        context_window: Option<u64>,
    },
    /// Rules files now in effect: the project's and the user's at the first turn, a folder's
    /// own `AGENTS.md` when the agent first works in that folder.
    Rules { files: Vec<RulesFile> },
    /// The model's plan as it now stands (it sends the whole plan each time).
    Plan(crate::plan::Plan),
    /// The conversation was compacted to fit the model's context window: `elided` old tool
    /// outputs became one-line stubs, `summarized` messages were replaced by a summary. The
    /// transcript on disk keeps everything.
    Compaction {
        elided: u32,
        summarized: u32,
        tokens_before: u64,
        tokens_after: u64,
        context_window: u64,
    },
    /// Something the user should know that is not part of the answer: the model server cut the
    /// prompt or tools switched to text, an MCP server did not start or its tools were left out,
    /// a project's MCP server was declined, a rules file could not be read.
    Notice { message: String },
    /// The model request failed before its answer was used and is tried again after a wait
    /// (a 5xx, a 429, a refused connection). Transient: a face shows it until the next event,
    /// and the transcript does not keep it.
    Retrying(Retrying),
    /// Something a subagent did (its own `Text`, `ToolCall`, `ToolResult`, `Usage`, …), under
    /// the `task` call that started it: a face nests it there. Never a `TurnStarted` or
    /// `TurnEnded` (the `task` call's own result ends the child), never nested twice.
    Subagent {
        /// The parent's `task` call.
        parent: ToolCallId,
        /// The subagent's name (its definition's).
        agent: String,
        event: Box<Event>,
    },
    /// The turn is over.
    TurnEnded {
        stop_reason: StopReason,
        error: Option<String>,
        /// What kind of failure `error` is, so a face can offer the fix (settings, a key, retry).
        error_kind: Option<TurnErrorKind>,
    },
}

/// One file a tool call changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    /// Relative to the workspace root, `/`-separated.
    pub path: String,
    pub kind: FileChangeKind,
    /// Lines added and removed (0 and 0 for a binary file or a mode change alone).
    pub added: u32,
    pub removed: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileChangeKind {
    Created,
    Modified,
    Deleted,
    /// Moved here from `from` (workspace-relative); the content may have changed too.
    Renamed {
        from: String,
    },
    /// Only the permission bits changed.
    ModeChanged,
}

/// A file the core deleted or put back on its own (an undo or restore, a command the agent
/// ran), not through an edit the editor applied: a face that holds the file open drops or
/// reloads its copy, so neither the user nor the agent keeps seeing what is gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEvent {
    /// Absolute.
    pub path: PathBuf,
    pub kind: FileEventKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileEventKind {
    /// The file is gone from the disk.
    Deleted,
    /// The file holds earlier content again (or exists again).
    Restored,
}

/// What went wrong, as far as the user can act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnErrorKind {
    /// No model server is configured and none was found on this machine.
    NoServer,
    /// The server refused the key (401, 403).
    Auth,
    /// The server could not be reached or the connection broke.
    Connection,
    /// The conversation does not fit the model's context window.
    ContextOverflow,
    /// The answer reached its output token limit and was cut; what came is kept.
    AnswerCut,
    Other,
}

impl TurnErrorKind {
    /// The kind of a model failure, by the provider's kind alone: the provider recognises an
    /// overflow once (whatever the server's words), and the refit keys on the same kind, so a
    /// turn is never labelled an overflow the overflow path did not see.
    pub fn of(error: &tandem_provider::ProviderError) -> TurnErrorKind {
        use tandem_provider::ProviderErrorKind as K;
        match error.kind {
            K::ContextOverflow { .. } => TurnErrorKind::ContextOverflow,
            K::NoServer => TurnErrorKind::NoServer,
            K::Connect | K::Interrupted | K::Timeout => TurnErrorKind::Connection,
            K::Status(401 | 403) => TurnErrorKind::Auth,
            K::Status(_)
            | K::Stream
            | K::BadResponse
            | K::EmptyStream
            | K::ToolsUnsupported
            | K::ImagesUnsupported => TurnErrorKind::Other,
        }
    }
}

/// A tool call as the user is shown it when the model makes it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCallEvent {
    pub tool_call_id: ToolCallId,
    pub name: String,
    /// The parsed JSON, or the raw text as a string when it did not parse.
    pub arguments: serde_json::Value,
    pub title: String,
    pub kind: ToolKind,
    /// The file or folder it works on, absolute, with the first line it reads from.
    pub location: Option<Location>,
}

/// A rules file the model was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesFile {
    /// Absolute.
    pub path: PathBuf,
    /// Its size on disk.
    pub bytes: u64,
    /// Only its beginning was given (the size cap).
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    /// One-based.
    pub line: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolStatus {
    Ok,
    Error,
    Rejected,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    EndTurn,
    Cancelled,
    MaxSteps,
    Error,
}

/// What a face says of a retry: "The model server answered 500; retrying (2/5) in 1.2 s…".
pub fn retry_line(r: &Retrying) -> String {
    let what = match r.status {
        Some(status) => format!("The model server answered {status}"),
        None => {
            const SHOWN: usize = 160;
            let error = r.error.trim();
            match error.char_indices().nth(SHOWN) {
                Some((cut, _)) => format!("The model request failed ({}…)", &error[..cut]),
                None => format!("The model request failed ({error})"),
            }
        }
    };
    format!(
        "{what}; retrying ({}/{}) in {:.1} s…",
        r.retry,
        r.max_retries,
        r.wait.as_secs_f64()
    )
}

impl Event {
    /// A streamed piece (text, reasoning, command output), which a face may merge with the next
    /// piece of the same stream.
    pub fn is_piece(&self) -> bool {
        match self {
            Event::Text { .. } | Event::Reasoning { .. } | Event::ToolOutput { .. } => true,
            Event::Subagent { event, .. } => event.is_piece(),
            _ => false,
        }
    }

    /// Appends `next` to `self` when both are pieces of the same stream; whether it did.
    pub fn merge(&mut self, next: &Event) -> bool {
        match (self, next) {
            (Event::Text { delta: a }, Event::Text { delta: b })
            | (Event::Reasoning { delta: a }, Event::Reasoning { delta: b }) => {
                a.push_str(b);
                true
            }
            (
                Event::ToolOutput {
                    tool_call_id: a_id,
                    delta: a,
                },
                Event::ToolOutput {
                    tool_call_id: b_id,
                    delta: b,
                },
            ) if a_id == b_id => {
                a.push_str(b);
                true
            }
            (
                Event::Subagent {
                    parent: a_parent,
                    event: a,
                    ..
                },
                Event::Subagent {
                    parent: b_parent,
                    event: b,
                    ..
                },
            ) if a_parent == b_parent => a.merge(b),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_server_is_told_by_its_kind_not_its_words() {
        use tandem_provider::{ProviderError, ProviderErrorKind as K};
        let none = ProviderError::new(K::NoServer, tandem_provider::no_server_message());
        assert_eq!(TurnErrorKind::of(&none), TurnErrorKind::NoServer);
        // A server that cannot be reached, whatever its message says, is a connection error.
        let refused =
            ProviderError::new(K::Connect, "no model server is configured (a proxy said)");
        assert_eq!(TurnErrorKind::of(&refused), TurnErrorKind::Connection);
    }

    #[test]
    fn an_overflow_is_told_by_its_kind_not_its_words() {
        use tandem_provider::{ProviderError, ProviderErrorKind as K};
        // Words about the window on an error the provider did not call an overflow: the refit
        // never ran, so the turn is not labelled one.
        for kind in [K::Status(500), K::Stream, K::BadResponse] {
            let error = ProviderError::new(kind, "context_length_exceeded: the context window");
            assert_eq!(TurnErrorKind::of(&error), TurnErrorKind::Other, "{kind:?}");
        }
        let overflow = ProviderError::new(
            K::ContextOverflow {
                window: None,
                requested: None,
            },
            "refused",
        );
        assert_eq!(TurnErrorKind::of(&overflow), TurnErrorKind::ContextOverflow);
    }

    #[test]
    fn pieces_of_one_stream_merge() {
        let mut held = Event::Text {
            delta: "Hel".into(),
        };
        assert!(held.merge(&Event::Text { delta: "lo".into() }));
        assert_eq!(
            held,
            Event::Text {
                delta: "Hello".into()
            }
        );
        assert!(!held.merge(&Event::Reasoning { delta: "r".into() }));
        let mut out = Event::ToolOutput {
            tool_call_id: "a".into(),
            delta: "1".into(),
        };
        let other = Event::ToolOutput {
            tool_call_id: "b".into(),
            delta: "2".into(),
        };
        assert!(!out.merge(&other));
    }

    #[test]
    fn a_retry_says_what_failed_which_try_and_how_long() {
        let retry = |status, error: &str| Retrying {
            retry: 2,
            max_retries: 5,
            status,
            error: error.into(),
            wait: std::time::Duration::from_millis(1234),
        };
        assert_eq!(
            retry_line(&retry(Some(500), "HTTP 500: boom")),
            "The model server answered 500; retrying (2/5) in 1.2 s…"
        );
        assert_eq!(
            retry_line(&retry(None, "connection refused")),
            "The model request failed (connection refused); retrying (2/5) in 1.2 s…"
        );
        let long = retry_line(&retry(None, &"é".repeat(500)));
        assert!(long.contains(&format!("({}…)", "é".repeat(160))), "{long}");
    }
}
