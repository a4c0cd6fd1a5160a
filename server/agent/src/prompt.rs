//! What the model is told: the system prompt, and the user's prompt with its attached context.

use std::path::Path;

use tandem_tools::{ReadFile, ReplaceInFile, Workspace, WriteToFile};

/// What an attached piece of context is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContextKind {
    /// A file (or a selection of it): `path` names it.
    #[default]
    File,
    /// A folder: `path` names it; the model gets its listing.
    Folder,
    /// Text the editor holds that is no file (its problems, a terminal's output, the uncommitted
    /// changes): `path` is its label, `text` the content.
    Editor,
    /// A web page: `path` is its URL; the turn fetches it first, through `fetch_url`'s approval.
    Url,
}

/// A piece of the workspace (or of the editor) the user attached to a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextItem {
    pub kind: ContextKind,
    /// Relative to the session root, or absolute inside one of its roots (a file's, a folder's);
    /// a label for the editor's text; a URL.
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
/// The most entries of an attached folder's listing.
const MAX_FOLDER_ENTRIES: u64 = 500;
/// The most of the editor's text (problems, a terminal's output, changes) sent to the model: it
/// is pasted in whole, unlike a file the model could read on.
const MAX_EDITOR_BYTES: usize = 64 * 1024;

impl ContextItem {
    /// A whole file, read from the editor or the disk.
    pub fn file(path: impl Into<String>) -> Self {
        ContextItem {
            kind: ContextKind::File,
            path: path.into(),
            text: None,
            range: None,
        }
    }

    /// Whether the model gets it in the user's message (a URL is fetched as a tool call).
    pub fn in_message(&self) -> bool {
        self.kind != ContextKind::Url
    }

    /// A file or folder of the workspace (what a face can link to).
    pub fn in_workspace(&self) -> bool {
        matches!(self.kind, ContextKind::File | ContextKind::Folder)
    }
}

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

/// The system prompt of a session on `ws`: [`system_prompt`], with its additional roots named.
pub fn workspace_system_prompt(ws: &Workspace) -> String {
    with_additional_roots(system_prompt(ws.root()), ws, "\n\n")
}

/// The compact system prompt of a session on `ws`: [`compact_system_prompt`], with its
/// additional roots named.
pub fn compact_workspace_system_prompt(ws: &Workspace) -> String {
    with_additional_roots(compact_system_prompt(ws.root()), ws, " ")
}

/// `prompt` and one short line naming the additional roots, after `gap`; a workspace without
/// any gets `prompt` unchanged (the same prompt, and cache, as ever).
pub(crate) fn with_additional_roots(mut prompt: String, ws: &Workspace, gap: &str) -> String {
    let extra = ws.additional_roots();
    if extra.is_empty() {
        return prompt;
    }
    let names: Vec<String> = extra.iter().map(|r| r.display().to_string()).collect();
    prompt.push_str(gap);
    prompt.push_str(&format!(
        "Also in the workspace (use absolute paths there): {}.",
        names.join(", ")
    ));
    prompt
}

/// The system prompt for small context windows (16k tokens or less): the same rules in fewer
/// words, so the fixed part of every request (this and the compact tool definitions) stays
/// small: the goals were 800 tokens with native tools and 450 with tools as text (`cargo bench
/// -p tandem --bench local`, counted by llama-server's tokenizer, which also prints the floor
/// the tools' structure alone sets). Creating a file needs no hint: its tool says so.
pub fn compact_system_prompt(root: &Path) -> String {
    format!(
        "You are Tandem, a coding agent in the workspace {root} ({os}). Read before editing; \
         edit with {replace}; run commands to build and test. Edits and commands wait for the \
         user's approval. Be brief.",
        root = root.display(),
        os = std::env::consts::OS,
        replace = ReplaceInFile::NAME,
    )
}

/// The prompt of an inline edit: the user's instruction for the attached selection. The faces
/// that offer "edit selection" (VS Code's Ctrl+I, plain LSP's code action) send it with the
/// selection as context, so the model changes those lines and the change comes back as a
/// proposal like any other edit.
pub fn edit_selection(instruction: &str) -> String {
    format!(
        "Edit the attached selection: {}\nChange only the selected lines (and whatever they \
         need elsewhere to stay correct), with {}; then say in one line what changed.",
        instruction.trim(),
        ReplaceInFile::NAME
    )
}

/// The user message: the prompt, then each attached piece of context in a tagged block.
/// A piece that cannot be read is named with the reason, so the model knows it is missing.
pub fn user_message(ws: &Workspace, text: &str, context: &[ContextItem]) -> String {
    let mut message = text.to_string();
    for item in context.iter().filter(|c| c.in_message()) {
        message.push_str("\n\n");
        message.push_str(&render_context(ws, item));
    }
    message
}

fn render_context(ws: &Workspace, item: &ContextItem) -> String {
    match item.kind {
        ContextKind::File | ContextKind::Url => render_file(ws, item),
        ContextKind::Folder => render_folder(ws, item),
        ContextKind::Editor => render_editor(item),
    }
}

/// A folder as its listing, with every check `list_files` makes.
fn render_folder(ws: &Workspace, item: &ContextItem) -> String {
    let path = attribute(&item.path);
    match tandem_tools::folder_listing(ws, &item.path, MAX_FOLDER_ENTRIES) {
        Ok(listing) => format!("<context folder=\"{path}\">\n{listing}\n</context>"),
        Err(e) => format!(
            "<context folder=\"{path}\" unavailable=\"{}\"></context>",
            attribute(&e.message)
        ),
    }
}

/// The editor's own text (problems, terminal output, changes), capped.
fn render_editor(item: &ContextItem) -> String {
    let source = attribute(&item.path);
    let Some(text) = &item.text else {
        return format!(
            "<context source=\"{source}\" unavailable=\"the editor sent no text\"></context>"
        );
    };
    let mut body = text.clone();
    if tandem_stdx::truncate_in_place(&mut body, MAX_EDITOR_BYTES) {
        body.push_str(&format!(
            "\n[... cut at {MAX_EDITOR_BYTES} bytes of {} ...]",
            text.len()
        ));
    }
    format!("<context source=\"{source}\">\n{body}\n</context>")
}

/// Text for an attribute value: no quote or newline can end it early.
fn attribute(text: &str) -> String {
    text.replace('"', "'").replace(['\n', '\r'], " ")
}

fn render_file(ws: &Workspace, item: &ContextItem) -> String {
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
    fn additional_roots_are_one_line_and_a_single_root_prompt_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let extra = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        // Byte for byte what a session has always had (and the prompt cache with it).
        assert_eq!(workspace_system_prompt(&ws), system_prompt(ws.root()));
        assert_eq!(
            compact_workspace_system_prompt(&ws),
            compact_system_prompt(ws.root())
        );
        let ws = ws.with_additional_roots([extra.path()]).unwrap();
        let extra = ws.additional_roots()[0].display().to_string();
        let line = format!("Also in the workspace (use absolute paths there): {extra}.");
        let full = workspace_system_prompt(&ws);
        assert_eq!(full, format!("{}\n\n{line}", system_prompt(ws.root())));
        let compact = compact_workspace_system_prompt(&ws);
        assert_eq!(
            compact,
            format!("{} {line}", compact_system_prompt(ws.root()))
        );
    }

    #[test]
    fn context_with_range_takes_selected_lines() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let item = ContextItem {
            kind: ContextKind::File,
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
            kind: ContextKind::File,
            path: "../secret".into(),
            text: None,
            range: None,
        };
        let msg = user_message(&ws, "x", &[item]);
        assert!(msg.contains("unavailable="), "{msg}");
        assert!(!msg.contains("secret\n"));
    }

    #[test]
    fn a_folder_is_its_listing_inside_the_workspace_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "").unwrap();
        std::fs::write(dir.path().join("src/deep/b.rs"), "").unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let folder = |path: &str| ContextItem {
            kind: ContextKind::Folder,
            ..ContextItem::file(path)
        };
        let msg = user_message(&ws, "x", &[folder("src")]);
        assert!(msg.contains("<context folder=\"src\">"), "{msg}");
        assert!(msg.contains("src/deep/b.rs"), "{msg}");
        let out = user_message(&ws, "x", &[folder("..")]);
        assert!(out.contains("unavailable="), "{out}");
    }

    #[test]
    fn a_mention_in_an_additional_root_is_read_as_its_root_and_the_rest() {
        // What the VS Code extension sends for `@lib/src/u.ts` in a window whose second folder
        // is `lib`: the folder's path as the editor knows it, "/", and the rest.
        let dir = tempfile::tempdir().unwrap();
        let extra = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(extra.path().join("src")).unwrap();
        std::fs::write(extra.path().join("src/u.ts"), "export const u = 1;\n").unwrap();
        let ws = Workspace::new(dir.path())
            .unwrap()
            .with_additional_roots([extra.path()])
            .unwrap();
        let root = extra.path().display().to_string();
        let file = format!("{root}/src/u.ts");
        let msg = user_message(&ws, "x", &[ContextItem::file(&file)]);
        assert!(msg.contains("export const u = 1;"), "{msg}");
        let folder = ContextItem {
            kind: ContextKind::Folder,
            ..ContextItem::file(&root)
        };
        let msg = user_message(&ws, "x", &[folder]);
        assert!(msg.contains("src/u.ts"), "{msg}");
        assert!(!msg.contains("unavailable="), "{msg}");
        // The folder-relative path alone is the primary root's, where there is no such file.
        let msg = user_message(&ws, "x", &[ContextItem::file("src/u.ts")]);
        assert!(msg.contains("unavailable="), "{msg}");
    }

    #[test]
    fn the_editors_text_is_capped_and_cannot_close_its_tag_attribute() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let item = ContextItem {
            kind: ContextKind::Editor,
            path: "terminal\" evil=\"1".into(),
            text: Some("x".repeat(MAX_EDITOR_BYTES * 3)),
            range: None,
        };
        let msg = user_message(&ws, "x", &[item]);
        assert!(
            msg.contains("<context source=\"terminal' evil='1\">"),
            "{msg:.200}"
        );
        assert!(msg.len() < MAX_EDITOR_BYTES + 300, "{}", msg.len());
        assert!(msg.contains(&format!("of {} ...]", MAX_EDITOR_BYTES * 3)));
    }

    #[test]
    fn a_url_is_not_in_the_message() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let item = ContextItem {
            kind: ContextKind::Url,
            ..ContextItem::file("https://example.com/")
        };
        assert_eq!(user_message(&ws, "x", &[item]), "x");
    }
}
