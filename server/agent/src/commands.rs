//! Custom commands: prompt files the user (or the team, in the repository) keeps, offered as
//! `/name` in every face. A command is a Markdown file; its name is the file's name without
//! `.md`; running it sends its text, with the arguments put in, as the user's prompt. Nothing
//! else: a command changes no setting, widens no approval and runs nothing by itself.
//!
//! Where they are read from, in order of precedence (the first file of a name wins, the others
//! are listed as hidden):
//! 1. the user's own folders: `tandem/commands/` in the platform's config dir (beside
//!    `config.toml`), then `~/.claude/commands/` and `~/.codex/prompts/`;
//! 2. the workspace's: `.tandem/commands/`, then `.claude/commands/` and `.codex/prompts/`.
//!
//! The user's own win over the repository's: a repository cannot replace, under the same name, a
//! command the user wrote. Only the `.md` files directly in a folder count.
//!
//! A file may start with YAML front matter between `---` lines: `description` and
//! `argument-hint` are read, any other key (Claude Code's `allowed-tools`, `model`) is ignored.
//! In the text, `$ARGUMENTS` is everything typed after the name, `$1`, `$2`, … each argument
//! (split as a shell would, quotes grouping words), `$$` a dollar sign. A text that uses none of
//! them gets the arguments appended, so nothing the user typed is lost.
//!
//! The files are read each time they are listed or run (no restart needed for a new one) with the
//! checks rules files get ([`tandem_tools::read_text`]: regular files only, inside the folder
//! after following links, size-capped, not binary), and capped at [`MAX_COMMAND_BYTES`] each and
//! [`MAX_COMMANDS`] in all.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Deserialize;
use tandem_tools::Workspace;

use crate::md_folders;

/// The workspace's folders, in order of precedence.
pub const PROJECT_DIRS: [&str; 3] = [".tandem/commands", ".claude/commands", ".codex/prompts"];

/// The most text of one command file.
pub const MAX_COMMAND_BYTES: usize = 32 * 1024;
/// The most commands offered (a folder of thousands of files costs no more than this many reads).
pub const MAX_COMMANDS: usize = 200;
/// The longest name a command may have.
const MAX_NAME_CHARS: usize = 64;

/// Where a command comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandSource {
    /// One of the user's own folders: text the user wrote.
    User,
    /// The workspace: text from the repository, untrusted like every file in it.
    Project,
}

impl CommandSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
        }
    }
}

/// A command, as listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomCommand {
    /// Typed as `/name`.
    pub name: String,
    pub description: Option<String>,
    /// What the arguments are, e.g. `[issue number]`.
    pub argument_hint: Option<String>,
    pub source: CommandSource,
    pub path: PathBuf,
    /// The text after the front matter.
    pub body: String,
}

/// Every command found, and what could not be used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Commands {
    /// By name.
    pub commands: Vec<CustomCommand>,
    /// Files left out, and names hidden by another file, each said in a sentence.
    pub problems: Vec<String>,
}

impl Commands {
    pub fn get(&self, name: &str) -> Option<&CustomCommand> {
        self.commands.iter().find(|c| c.name == name)
    }
}

/// The user's folders, in order: `tandem/commands` in the platform's config dir
/// (`~/.config/tandem/commands` on Linux, `~/Library/Application Support/tandem/commands` on
/// macOS, `%APPDATA%\tandem\commands` on Windows), then Claude Code's and Codex's.
pub fn default_user_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(config) = dirs::config_dir() {
        dirs.push(config.join("tandem").join("commands"));
    }
    if let Some(home) = dirs::home_dir() {
        dirs.push(home.join(".claude").join("commands"));
        dirs.push(home.join(".codex").join("prompts"));
    }
    dirs
}

/// Reads every command: the user's folders, then the workspace's (see the module's text).
pub fn discover(ws: &Workspace, user_dirs: &[PathBuf]) -> Commands {
    let mut found = Found::default();
    for folder in md_folders::user_folders(user_dirs, "commands", &mut found.problems) {
        found.folder(&folder, "", CommandSource::User);
    }
    for rel in PROJECT_DIRS {
        found.folder(ws, rel, CommandSource::Project);
    }
    let mut commands: Vec<CustomCommand> = found.commands;
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    Commands {
        commands,
        problems: found.problems,
    }
}

#[derive(Default)]
struct Found {
    commands: Vec<CustomCommand>,
    problems: Vec<String>,
    /// Name to the file that has it.
    names: HashMap<String, PathBuf>,
}

impl Found {
    /// The `.md` files directly in `rel` (a folder of `ws`; `""` for its root), by name.
    fn folder(&mut self, ws: &Workspace, rel: &str, source: CommandSource) {
        for file in md_folders::md_files(ws, rel) {
            let (path, name) = (file.path, file.stem);
            if let Err(why) = check_name(&name) {
                self.problems
                    .push(format!("{} is not a command: {why}", path.display()));
                continue;
            }
            if let Some(first) = self.names.get(&name) {
                self.problems.push(format!(
                    "{} is not offered: /{name} is {} (the user's folders come first, then \
                     .tandem/commands, .claude/commands, .codex/prompts)",
                    path.display(),
                    first.display()
                ));
                continue;
            }
            if self.commands.len() >= MAX_COMMANDS {
                self.problems.push(format!(
                    "{} is not offered: commands are capped at {MAX_COMMANDS}",
                    path.display()
                ));
                continue;
            }
            match read(ws, &file.rel) {
                Ok((front, body)) => {
                    self.names.insert(name.clone(), path.clone());
                    self.commands.push(CustomCommand {
                        name,
                        description: front.description,
                        argument_hint: front.argument_hint,
                        source,
                        path,
                        body,
                    });
                }
                Err(why) => self.problems.push(format!(
                    "the command {} was not read: {why}",
                    path.display()
                )),
            }
        }
    }
}

/// A name is typed after `/`: letters, digits, `-`, `_` and `.`, starting with a letter or digit.
fn check_name(name: &str) -> Result<(), String> {
    let ok = name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name.chars().next().is_some_and(char::is_alphanumeric)
        && name.chars().count() <= MAX_NAME_CHARS;
    if ok {
        Ok(())
    } else {
        Err(format!(
            "a command's name (the file name without .md) is letters, digits, '-', '_' and '.', \
             starting with a letter or digit, at most {MAX_NAME_CHARS} characters"
        ))
    }
}

/// What the front matter may say.
#[derive(Debug, Default, Deserialize)]
struct FrontMatter {
    #[serde(default)]
    description: Option<String>,
    #[serde(default, rename = "argument-hint")]
    argument_hint: Option<String>,
}

fn read(ws: &Workspace, rel: &str) -> Result<(FrontMatter, String), String> {
    let text = tandem_tools::read_text(ws, rel).map_err(|e| e.message)?;
    if text.len() > MAX_COMMAND_BYTES {
        return Err(format!(
            "it is {} bytes, over the cap of {MAX_COMMAND_BYTES} bytes for a command",
            text.len()
        ));
    }
    split_front_matter(&text)
}

/// The front matter (between a first line `---` and the next `---` line) and the text after it
/// (subagent definitions are read the same way).
pub(crate) fn split_front_matter<F: serde::de::DeserializeOwned + Default>(
    text: &str,
) -> Result<(F, String), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((F::default(), text.to_string()));
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            let front: Option<F> = serde_norway::from_str(yaml)
                .map_err(|e| format!("its front matter is not valid: {e}"))?;
            return Ok((front.unwrap_or_default(), body.to_string()));
        }
        offset += line.len();
    }
    Err("its front matter (from the first line `---`) has no closing `---` line".into())
}

impl CustomCommand {
    /// The prompt this command sends with `arguments` (what was typed after its name).
    pub fn expand(&self, arguments: &str) -> String {
        expand(&self.body, arguments.trim())
    }
}

/// Puts the arguments into `body`: `$ARGUMENTS`, `$1`…, `$$`.
fn expand(body: &str, arguments: &str) -> String {
    let positional = shell_words::split(arguments)
        .unwrap_or_else(|_| arguments.split_whitespace().map(str::to_string).collect());
    let mut out = String::with_capacity(body.len() + arguments.len());
    let mut used = false;
    let mut rest = body;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(arguments);
            used = true;
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else {
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            match after[..digits].parse::<usize>() {
                Ok(n) if n >= 1 => {
                    out.push_str(positional.get(n - 1).map_or("", String::as_str));
                    used = true;
                    rest = &after[digits..];
                }
                _ => {
                    out.push('$');
                    rest = after;
                }
            }
        }
    }
    out.push_str(rest);
    if !used && !arguments.is_empty() {
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push_str("\n\n");
        out.push_str(arguments);
    }
    out
}

/// A prompt that starts with `/name` (a word with no second slash): the name and the rest.
/// `/etc/hosts: what is it?` is not one.
pub fn invocation(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (name, arguments) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    (!name.is_empty() && !name.contains('/')).then_some((name, arguments.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), files);
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn reads_front_matter_and_every_folder_with_the_users_first() {
        let (_d, ws) = workspace(&[
            (
                ".tandem/commands/review.md",
                "---\ndescription: Review a change\nargument-hint: \"[file]\"\nallowed-tools: \
                 Bash(rm -rf /)\n---\nReview $1 carefully.\n",
            ),
            (".claude/commands/fix.md", "Fix issue #$ARGUMENTS."),
            (".claude/commands/review.md", "the repo's second review"),
            (".codex/prompts/explain.md", "Explain $1"),
            (".tandem/commands/notes.txt", "not a command"),
            (".tandem/commands/sub/deep.md", "not read: in a folder"),
        ]);
        let user = tempfile::tempdir().unwrap();
        write(user.path(), &[("fix.md", "My own fix for $1")]);
        let found = discover(&ws, &[user.path().to_path_buf()]);
        let names: Vec<&str> = found.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["explain", "fix", "review"]);
        let review = found.get("review").unwrap();
        assert_eq!(review.description.as_deref(), Some("Review a change"));
        assert_eq!(review.argument_hint.as_deref(), Some("[file]"));
        assert_eq!(review.source, CommandSource::Project);
        assert_eq!(review.body, "Review $1 carefully.\n");
        // The user's own /fix wins over the repository's; the clashes are said.
        let fix = found.get("fix").unwrap();
        assert_eq!(fix.source, CommandSource::User);
        assert_eq!(fix.expand("42"), "My own fix for 42");
        assert_eq!(found.problems.len(), 2, "{:?}", found.problems);
        assert!(found.problems[0].contains("fix.md is not offered: /fix is "));
        assert!(found.problems[1].contains(".claude/commands/review.md is not offered"));
    }

    #[test]
    fn arguments_are_put_in() {
        assert_eq!(expand("Fix #$ARGUMENTS now", "12 fast"), "Fix #12 fast now");
        assert_eq!(
            expand("$2 then $1, $3 is empty; $$1 costs $5.", "a 'b c'"),
            "b c then a,  is empty; $1 costs ."
        );
        assert_eq!(expand("Price: $ and $x", ""), "Price: $ and $x");
        // Unused arguments are appended, not lost.
        assert_eq!(
            expand("Summarize the diff.\n", "briefly"),
            "Summarize the diff.\n\nbriefly"
        );
        assert_eq!(expand("No arguments.", ""), "No arguments.");
        // An unbalanced quote still splits on spaces.
        assert_eq!(expand("<$1>", "it's here"), "<it's>");
        // The arguments are put in once: a `$1` inside them stays as typed.
        assert_eq!(expand("$ARGUMENTS / $1", "$1"), "$1 / $1");
    }

    #[test]
    fn bad_files_are_said_and_left_out() {
        let (_d, ws) = workspace(&[
            (
                ".tandem/commands/open.md",
                "---\ndescription: never closed\n",
            ),
            (
                ".tandem/commands/bad-yaml.md",
                "---\ndescription: [1, 2\n---\nx",
            ),
            (".tandem/commands/-dash.md", "x"),
            (".tandem/commands/bin.md", "a\0b"),
            (".tandem/commands/ok.md", "---\n---\nFine."),
        ]);
        let big = "x".repeat(MAX_COMMAND_BYTES + 1);
        write(ws.root(), &[(".tandem/commands/big.md", &big)]);
        let found = discover(&ws, &[]);
        let names: Vec<&str> = found.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["ok"]);
        assert_eq!(found.get("ok").unwrap().body, "Fine.");
        let problems = found.problems.join("\n");
        for expected in [
            "-dash.md is not a command",
            "bad-yaml.md was not read: its front matter is not valid",
            "big.md was not read: it is 32769 bytes, over the cap of 32768",
            "bin.md was not read",
            "open.md was not read: its front matter (from the first line `---`) has no closing",
        ] {
            assert!(
                problems.contains(expected),
                "{expected} missing:\n{problems}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_workspace_and_fifos_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        write(
            outside.path(),
            &[
                ("secret.md", "the user's secret"),
                ("commands/leak.md", "the user's secret"),
            ],
        );
        let (_d, ws) = workspace(&[(".tandem/commands/keep.md", "kept")]);
        let commands = ws.root().join(".tandem/commands");
        std::os::unix::fs::symlink(outside.path().join("secret.md"), commands.join("secret.md"))
            .unwrap();
        // A FIFO would hang a plain read forever.
        let fifo = commands.join("fifo.md");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // A linked folder is read with the same checks: nothing outside comes in.
        std::os::unix::fs::symlink(outside.path(), ws.root().join(".claude")).unwrap();
        let found = discover(&ws, &[]);
        let names: Vec<&str> = found.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["keep"], "{:?}", found.problems);
        assert!(!format!("{found:?}").contains("the user's secret"));
        let problems = found.problems.join("\n");
        assert!(problems.contains("secret.md was not read"), "{problems}");
        assert!(problems.contains("fifo.md was not read"), "{problems}");
        assert!(problems.contains("leak.md was not read"), "{problems}");
    }

    #[test]
    fn a_prompt_names_a_command_only_with_a_single_word() {
        assert_eq!(invocation("/fix 12 now"), Some(("fix", "12 now")));
        assert_eq!(invocation("  /review"), Some(("review", "")));
        assert_eq!(invocation("/etc/hosts: what?"), None);
        assert_eq!(invocation("fix /x"), None);
        assert_eq!(invocation("/ x"), None);
    }
}
