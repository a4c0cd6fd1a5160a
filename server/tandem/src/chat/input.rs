//! What the user types. On a terminal, a line editor (rustyline): cursor keys and word motions,
//! history kept per workspace, Ctrl-R search, Alt-Enter for a new line, a pasted block kept as
//! one message (bracketed paste), Tab completing slash commands and `@file` paths, Ctrl-D to
//! quit. Piped input is read a line at a time, as a script.
//!
//! Lines are read on a thread of their own, only when asked for (a prompt or a question), so
//! keys typed while a turn runs wait in the terminal, where a question can discard them.

use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Cmd, Config, Editor, Helper, KeyCode, KeyEvent, Modifiers};
use tokio::sync::oneshot;

use super::slash::COMMANDS;
use super::style::out;
use super::type_ahead::TypeAhead;

/// A request for one line.
struct Ask {
    prompt: String,
    /// A prompt for the model (kept in the history), not an answer to a question.
    history: bool,
    /// Text the line starts with, for the user to edit (an earlier prompt, for `/rewind`).
    initial: String,
    reply: oneshot::Sender<Option<String>>,
}

pub struct Input {
    asks: std::sync::mpsc::Sender<Ask>,
}

impl Input {
    /// Starts the reader; `history` is the file this workspace's prompts are kept in, `typed`
    /// what the user typed before it started that the terminal no longer holds.
    pub fn start(root: PathBuf, history: Option<PathBuf>, typed: TypeAhead) -> Input {
        let (asks, rx) = std::sync::mpsc::channel::<Ask>();
        std::thread::spawn(move || {
            // A terminal that can't be driven (TERM=dumb, an editor's shell buffer) gets plain
            // lines, as a pipe does.
            let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb" || t.is_empty());
            if std::io::stdin().is_terminal() && !dumb {
                edit_lines(rx, root, history, typed);
            } else {
                read_lines(rx, typed);
            }
        });
        Input { asks }
    }

    /// One line typed after `prompt`; `None` when input ended (Ctrl-D, end of the pipe) or the
    /// user pressed Ctrl-C in the editor.
    pub async fn read(&self, prompt: &str, history: bool) -> Option<String> {
        self.read_from(prompt, history, String::new()).await
    }

    /// A prompt for the model that starts as `initial`, for the user to edit; typed ahead lines
    /// don't answer it (they were typed before the text they would replace was shown).
    pub async fn edit(&self, prompt: &str, initial: &str) -> Option<String> {
        self.read_from(prompt, true, initial.to_string()).await
    }

    async fn read_from(&self, prompt: &str, history: bool, initial: String) -> Option<String> {
        let (reply, answer) = oneshot::channel();
        let ask = Ask {
            prompt: prompt.to_string(),
            history,
            initial,
            reply,
        };
        self.asks.send(ask).ok()?;
        answer.await.ok().flatten()
    }
}

/// Piped input: the prompt is printed, the next line is the answer.
fn read_lines(rx: std::sync::mpsc::Receiver<Ask>, mut typed: TypeAhead) {
    let mut stdin = std::io::stdin().lock();
    for ask in rx {
        out(&ask.prompt);
        if !ask.initial.is_empty() {
            // A pipe can't edit: the next line replaces the text, an empty one keeps it.
            out(&format!("{}\n", ask.initial));
            let mut line = String::new();
            let line = match stdin.read_line(&mut line) {
                Ok(0) | Err(_) => None,
                Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
            };
            let line = line.map(|l| if l.is_empty() { ask.initial.clone() } else { l });
            let _ = ask.reply.send(line);
            continue;
        }
        if ask.history
            && let Some(line) = typed.next_line()
        {
            out(&format!("{}\n", line.as_deref().unwrap_or_default()));
            let _ = ask.reply.send(line);
            continue;
        }
        // The start of a line typed ahead, shown as the terminal would have echoed it.
        let mut line = if ask.history {
            typed.take_partial()
        } else {
            String::new()
        };
        out(&line);
        let line = match stdin.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
        };
        let _ = ask.reply.send(line);
    }
}

fn edit_lines(
    rx: std::sync::mpsc::Receiver<Ask>,
    root: PathBuf,
    history: Option<PathBuf>,
    mut typed: TypeAhead,
) {
    let config = Config::builder()
        .auto_add_history(false)
        .history_ignore_dups(true)
        .and_then(|c| c.max_history_size(2000))
        .map(|c| c.bracketed_paste(true).build())
        .unwrap_or_default();
    let Ok(mut editor) = Editor::<ChatHelper, DefaultHistory>::with_config(config) else {
        // No line editor here (an unusual terminal): plain lines still work.
        return read_lines(rx, typed);
    };
    editor.set_helper(Some(ChatHelper { root }));
    // Alt-Enter (and Ctrl-J) start a new line in the same message.
    editor.bind_sequence(KeyEvent(KeyCode::Enter, Modifiers::ALT), Cmd::Newline);
    editor.bind_sequence(KeyEvent::ctrl('J'), Cmd::Newline);
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    for ask in rx {
        // The editor redraws its prompt's last line; the lines before it are printed once.
        let (above, prompt) = match ask.prompt.rsplit_once('\n') {
            Some((above, prompt)) => (Some(above), prompt),
            None => (None, ask.prompt.as_str()),
        };
        if let Some(above) = above {
            out(&format!("{above}\n"));
        }
        // Type-ahead answers prompts only: a question waits for keys typed after it is shown.
        if ask.history
            && let Some(keys) = crate::terminal::unread_input()
        {
            typed.push_keys(&keys);
        }
        let editing = !ask.initial.is_empty();
        let ahead = if ask.history && !editing {
            typed.next_line()
        } else {
            None
        };
        let read = match ahead {
            Some(line) => {
                out(&format!(
                    "{prompt}{}\n",
                    line.as_deref().unwrap_or_default()
                ));
                line.ok_or(ReadlineError::Eof)
            }
            None if editing => editor.readline_with_initial(prompt, (&ask.initial, "")),
            None if ask.history => {
                editor.readline_with_initial(prompt, (&typed.take_partial(), ""))
            }
            None => editor.readline(prompt),
        };
        let line = match read {
            Ok(line) => Some(line),
            // Ctrl-C at a question stops the turn, as it does while the turn runs.
            Err(ReadlineError::Interrupted) if !ask.history => {
                interrupt();
                None
            }
            Err(_) => None,
        };
        if ask.history
            && let Some(line) = &line
            && !line.trim().is_empty()
            && editor.add_history_entry(line.as_str()).unwrap_or(false)
            && let Some(path) = &history
        {
            save_history(&mut editor, path);
        }
        let _ = ask.reply.send(line);
    }
}

fn save_history(editor: &mut Editor<ChatHelper, DefaultHistory>, path: &Path) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = editor.append_history(path);
}

/// Ctrl-C read as a key (the editor's raw mode): raised as the signal the chat waits for.
fn interrupt() {
    #[cfg(unix)]
    // SAFETY: raise sends a signal to this process; tokio's handler takes it.
    unsafe {
        libc::raise(libc::SIGINT);
    }
}

/// The file a workspace's prompt history is kept in, under the data dir: one per workspace,
/// named after its path.
pub fn history_file(data_dir: &Path, root: &Path) -> PathBuf {
    let name: String = root
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // The end of a long path says the most.
    let start = name.len().saturating_sub(150);
    data_dir
        .join("history")
        .join(format!("{}.txt", &name[start..]))
}

/// Tab completion: slash commands at the start of a line, `@path` anywhere.
struct ChatHelper {
    root: PathBuf,
}

impl Completer for ChatHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &before[start..];
        if start == 0 && word.starts_with('/') {
            let pairs = COMMANDS
                .iter()
                .filter(|(name, _, _)| name.starts_with(word))
                .map(|(name, _, _)| Pair {
                    display: name.to_string(),
                    replacement: format!("{name} "),
                })
                .chain(super::custom::complete(&self.root, word))
                .collect();
            return Ok((0, pairs));
        }
        if let Some(path) = word.strip_prefix('@') {
            return Ok((start + 1, complete_path(&self.root, path)));
        }
        Ok((pos, Vec::new()))
    }
}

/// The entries of the workspace folder `partial` names that start as its last part does.
fn complete_path(root: &Path, partial: &str) -> Vec<Pair> {
    let (dir, prefix) = match partial.rfind('/') {
        Some(i) => (&partial[..=i], &partial[i + 1..]),
        None => ("", partial),
    };
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Vec::new();
    };
    let mut pairs: Vec<Pair> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            let slash = if e.file_type().is_ok_and(|t| t.is_dir()) {
                "/"
            } else {
                ""
            };
            Some(Pair {
                display: format!("{name}{slash}"),
                replacement: format!("{dir}{name}{slash}"),
            })
        })
        .take(200)
        .collect();
    pairs.sort_by(|a, b| a.display.cmp(&b.display));
    pairs
}

impl Hinter for ChatHelper {
    type Hint = String;
}
impl Highlighter for ChatHelper {}
impl Validator for ChatHelper {}
impl Helper for ChatHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_complete_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/bin")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        std::fs::write(dir.path().join("src/.hidden"), "").unwrap();
        let names = |p: &str| -> Vec<String> {
            complete_path(dir.path(), p)
                .into_iter()
                .map(|p| p.replacement)
                .collect()
        };
        assert_eq!(names("sr"), ["src/"]);
        assert_eq!(names("src/"), ["src/bin/", "src/main.rs"]);
        assert_eq!(names("src/m"), ["src/main.rs"]);
        assert_eq!(names("src/."), ["src/.hidden"]);
        assert!(names("nowhere/").is_empty());
    }

    #[test]
    fn each_workspace_has_its_history_file() {
        let a = history_file(Path::new("/data"), Path::new("/home/me/app"));
        let b = history_file(Path::new("/data"), Path::new("/home/me/lib"));
        assert_ne!(a, b);
        assert!(a.starts_with("/data/history"));
    }
}
