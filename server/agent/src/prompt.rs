//! What the model is told: the system prompt, and the user's prompt with its attached context.

use std::path::Path;

use tandem_tools::{ReadFile, ReplaceInFile, Workspace, WriteToFile};

/// A piece of the workspace the user attached to a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextItem {
    /// Relative to the session root, or absolute inside it.
    pub path: String,
    /// The text as the editor has it (unsaved changes included); read from disk when absent.
    pub text: Option<String>,
    /// The selected lines; the whole file when absent.
    pub range: Option<Range>,
}

/// Zero-based, end-exclusive character positions, as in LSP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

/// The most of one attached file sent to the model.
const MAX_CONTEXT_BYTES: usize = 256 * 1024;

pub fn system_prompt(root: &Path) -> String {
    format!(
        "You are Tandem, a coding agent working in the user's workspace at {root}.\n\
         You help with software engineering: reading, explaining, changing and testing code.\n\
         \n\
         Work with the tools: read files before changing them; prefer {replace} for \
         targeted edits and {write} for new files; run commands to build and test. Paths \
         are relative to the workspace root; nothing outside it can be read or written. Every \
         edit and most commands wait for the user's approval: if the user rejects one, read \
         their feedback and adjust rather than retrying the same thing. If a tool returns an \
         error, read it, correct the call and try again.\n\
         \n\
         Be concise. When the task is done, say briefly what you changed. Answer in Markdown.\n\
         \n\
         Platform: {os}.",
        root = root.display(),
        os = std::env::consts::OS,
        replace = ReplaceInFile::NAME,
        write = WriteToFile::NAME,
    )
}

/// The system prompt for small context windows (16k tokens or less): the same rules in fewer
/// words, so the fixed part of every request (this and the compact tool definitions) stays
/// small: under 800 tokens with native tools, 450 with tools as text (`cargo bench -p tandem
/// --bench local`, counted by llama-server's tokenizer).
pub fn compact_system_prompt(root: &Path) -> String {
    format!(
        "You are Tandem, a coding agent in the workspace {root} ({os}). Read before editing; \
         edit with {replace}, create with {write}, run commands to build and test. Edits and commands wait for the user's \
         approval. Be brief.",
        root = root.display(),
        os = std::env::consts::OS,
        replace = ReplaceInFile::NAME,
        write = WriteToFile::NAME,
    )
}

/// The user message: the prompt, then each attached piece of context in a tagged block.
/// A piece that cannot be read is named with the reason, so the model knows it is missing.
pub fn user_message(ws: &Workspace, text: &str, context: &[ContextItem]) -> String {
    let mut message = text.to_string();
    for item in context {
        message.push_str("\n\n");
        message.push_str(&render_context(ws, item));
    }
    message
}

fn render_context(ws: &Workspace, item: &ContextItem) -> String {
    let body = match &item.text {
        Some(text) => Ok(text.clone()),
        None => read_for_context(ws, &item.path),
    };
    let (lines_attr, body) = match (body, item.range) {
        (Ok(text), Some(range)) => {
            let first = range.start.line as usize;
            let last = if range.end.character == 0 && range.end.line > range.start.line {
                range.end.line as usize - 1
            } else {
                range.end.line as usize
            };
            let selected: Vec<&str> = text
                .lines()
                .skip(first)
                .take(last.saturating_sub(first) + 1)
                .collect();
            (
                format!(" lines=\"{}-{}\"", first + 1, last + 1),
                Ok(selected.join("\n")),
            )
        }
        (body, _) => (String::new(), body),
    };
    match body {
        Ok(mut body) => {
            if tandem_stdx::truncate_in_place(&mut body, MAX_CONTEXT_BYTES) {
                body.push_str(&format!(
                    "\n[... truncated; use {} for the rest ...]",
                    ReadFile::NAME
                ));
            }
            format!(
                "<context path=\"{}\"{lines_attr}>\n{body}\n</context>",
                item.path
            )
        }
        Err(why) => format!(
            "<context path=\"{}\" unavailable=\"{why}\"></context>",
            item.path
        ),
    }
}

/// Through the tools, so an attached file gets every check a `read_file` would.
fn read_for_context(ws: &Workspace, path: &str) -> Result<String, String> {
    tandem_tools::read_text(ws, path).map_err(|e| e.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_with_range_takes_selected_lines() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let item = ContextItem {
            path: "a.txt".into(),
            text: None,
            range: Some(Range {
                start: Position {
                    line: 1,
                    character: 0,
                },
                end: Position {
                    line: 3,
                    character: 0,
                },
            }),
        };
        let msg = user_message(&ws, "explain", &[item]);
        assert_eq!(
            msg,
            "explain\n\n<context path=\"a.txt\" lines=\"2-3\">\ntwo\nthree\n</context>"
        );
    }

    #[test]
    fn unreadable_context_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let item = ContextItem {
            path: "../secret".into(),
            text: None,
            range: None,
        };
        let msg = user_message(&ws, "x", &[item]);
        assert!(msg.contains("unavailable="), "{msg}");
        assert!(!msg.contains("secret\n"));
    }
}
