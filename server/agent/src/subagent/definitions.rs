//! Subagent definitions: Markdown files with YAML front matter (`name`, `description`, `tools`,
//! `model`, `max-steps`), the text after it the child's own prompt; and the built-in `explore`.
//!
//! Where they are read from, in order of precedence (the first of a name wins, the others are
//! reported): the user's folders (`tandem/agents/` in the platform's config dir, then
//! `~/.claude/agents/`), the built-in ones, then the workspace's `.tandem/agents/` and
//! `.claude/agents/`. A workspace's definitions are untrusted text (a cloned repository or the
//! model wrote them): they are size-capped, can't replace the user's or the built-in ones, and
//! what they grant goes through the same approvals as the parent's calls.
//!
//! Claude Code's tool names (`Read`, `Grep`, `Glob`, `LS`, `WebFetch`, `Edit`, `MultiEdit`,
//! `Write`, `Bash`) are mapped to Tandem's, so its definitions work; a name neither knows is
//! reported and left out (a definition never gets a tool by a name that means nothing here).
//! Files are read with the checks rules files get ([`tandem_tools::read_text`]).

use std::collections::HashSet;
use std::path::PathBuf;

use serde::Deserialize;
use tandem_tools::Workspace;

use crate::md_folders;

/// The workspace's folders, in order of precedence.
pub const PROJECT_DIRS: [&str; 2] = [".tandem/agents", ".claude/agents"];
/// The most text of one definition file.
pub const MAX_DEFINITION_BYTES: usize = 16 * 1024;
/// The most definitions offered.
pub const MAX_DEFINITIONS: usize = 32;
/// The longest description listed in the `task` tool's own description (characters).
pub const MAX_LISTED_DESCRIPTION: usize = 120;
const MAX_NAME_CHARS: usize = 64;

/// Where a definition comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    BuiltIn,
    /// The user's own folders.
    User,
    /// The workspace: untrusted.
    Project,
}

/// A subagent as defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub description: String,
    /// Tandem's tool names; `None`: the read-only ones.
    pub tools: Option<Vec<String>>,
    /// The model it asks for: its requests go to that model of the session's endpoint when the
    /// server lists it, else to the session's model (with a notice).
    pub model: Option<String>,
    pub max_steps: Option<u32>,
    /// The text after the front matter: the child's own instructions.
    pub prompt: String,
    pub source: Source,
    pub path: Option<PathBuf>,
}

/// Every definition found, and what could not be used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Definitions {
    pub definitions: Vec<Definition>,
    pub problems: Vec<String>,
}

impl Definitions {
    pub fn get(&self, name: &str) -> Option<&Definition> {
        self.definitions.iter().find(|d| d.name == name)
    }

    /// One line per subagent, for the `task` tool's description: `- name: description`.
    pub fn listing(&self) -> String {
        self.definitions
            .iter()
            .map(|d| {
                let first = d.description.lines().next().unwrap_or("").trim();
                let cut = tandem_stdx::truncated(first, MAX_LISTED_DESCRIPTION, "…");
                format!("- {}: {cut}", d.name)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The built-in `explore`: read-only, searches the codebase and reports facts with file:line.
pub fn explore() -> Definition {
    Definition {
        name: "explore".into(),
        description: "Searches and reads; reports facts as path:line.".into(),
        tools: None,
        model: None,
        max_steps: None,
        prompt: "Search before you read: list the folders and search for names, then read only \
                 the parts that matter. Report what the job asked, each fact with its path:line, \
                 and nothing else."
            .into(),
        source: Source::BuiltIn,
        path: None,
    }
}

/// The user's folders, in order: `tandem/agents` in the platform's config dir, then Claude
/// Code's `~/.claude/agents`.
pub fn default_user_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(config) = dirs::config_dir() {
        dirs.push(config.join("tandem").join("agents"));
    }
    if let Some(home) = dirs::home_dir() {
        dirs.push(home.join(".claude").join("agents"));
    }
    dirs
}

/// Reads every definition: the user's folders, the built-in ones, then the workspace's.
pub fn discover(ws: &Workspace, user_dirs: &[PathBuf]) -> Definitions {
    let mut found = Found::default();
    for folder in md_folders::user_folders(user_dirs, "subagents", &mut found.problems) {
        found.folder(&folder, "", Source::User);
    }
    found.add(explore());
    for rel in PROJECT_DIRS {
        found.folder(ws, rel, Source::Project);
    }
    Definitions {
        definitions: found.definitions,
        problems: found.problems,
    }
}

#[derive(Default)]
struct Found {
    definitions: Vec<Definition>,
    problems: Vec<String>,
    names: HashSet<String>,
}

impl Found {
    fn add(&mut self, definition: Definition) {
        self.names.insert(definition.name.clone());
        self.definitions.push(definition);
    }

    fn folder(&mut self, ws: &Workspace, rel: &str, source: Source) {
        for file in md_folders::md_files(ws, rel) {
            let path = file.path;
            if self.definitions.len() >= MAX_DEFINITIONS {
                self.problems.push(format!(
                    "{} is not offered: subagents are capped at {MAX_DEFINITIONS}",
                    path.display()
                ));
                continue;
            }
            match read(ws, &file.rel, &file.stem, source) {
                Ok((mut definition, problems)) => {
                    for p in problems {
                        self.problems.push(format!("{}: {p}", path.display()));
                    }
                    if self.names.contains(&definition.name) {
                        self.problems.push(format!(
                            "{} is not offered: a subagent named {} comes first (the user's \
                             folders, then the built-in ones, then the workspace's)",
                            path.display(),
                            definition.name
                        ));
                        continue;
                    }
                    definition.path = Some(path);
                    self.add(definition);
                }
                Err(why) => self.problems.push(format!(
                    "the subagent {} was not read: {why}",
                    path.display()
                )),
            }
        }
    }
}

/// What the front matter may say; other keys (Claude Code's `color`) are ignored.
#[derive(Debug, Default, Deserialize)]
struct FrontMatter {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    tools: Option<ToolList>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default, alias = "max_steps", alias = "maxSteps", rename = "max-steps")]
    max_steps: Option<u32>,
}

/// Claude Code writes `tools: Read, Grep, Glob`; a YAML list works too.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolList {
    Text(String),
    List(Vec<String>),
}

impl ToolList {
    fn names(self) -> Vec<String> {
        match self {
            ToolList::Text(text) => text
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            ToolList::List(list) => list,
        }
    }
}

/// Tandem's name for a tool: its own, or Claude Code's mapped; `None` for a name neither has.
pub fn tool_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "Read" | "read_file" => "read_file",
        "Grep" | "search_files" => "search_files",
        "Glob" | "LS" | "list_files" => "list_files",
        "WebFetch" | "fetch_url" => "fetch_url",
        "Edit" | "MultiEdit" | "replace_in_file" => "replace_in_file",
        "Write" | "write_to_file" => "write_to_file",
        "Bash" | "execute_command" => "execute_command",
        _ => return None,
    })
}

/// Reads one definition; the problems it has that still leave it usable (a tool left out).
fn read(
    ws: &Workspace,
    rel: &str,
    stem: &str,
    source: Source,
) -> Result<(Definition, Vec<String>), String> {
    let text = tandem_tools::read_text(ws, rel).map_err(|e| e.message)?;
    if text.len() > MAX_DEFINITION_BYTES {
        return Err(format!(
            "it is {} bytes, over the cap of {MAX_DEFINITION_BYTES} bytes for a subagent",
            text.len()
        ));
    }
    let (front, body): (FrontMatter, String) = crate::commands::split_front_matter(&text)?;
    let name = front.name.unwrap_or_else(|| stem.to_string());
    check_name(&name)?;
    let mut problems = Vec::new();
    let tools = front.tools.map(|list| {
        let mut names: Vec<String> = Vec::new();
        for given in list.names() {
            match tool_name(&given) {
                Some(mapped) if !names.iter().any(|n| n == mapped) => names.push(mapped.into()),
                Some(_) => {}
                // An MCP tool by its Tandem name.
                None if given.contains("__") => names.push(given),
                None => problems.push(format!(
                    "the tool {given:?} is not one Tandem has; left out"
                )),
            }
        }
        names
    });
    Ok((
        Definition {
            name,
            description: front.description.unwrap_or_default(),
            tools,
            model: front.model,
            max_steps: front.max_steps.filter(|n| *n > 0),
            prompt: body,
            source,
            path: None,
        },
        problems,
    ))
}

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
            "a subagent's name is letters, digits, '-', '_' and '.', starting with a letter or \
             digit, at most {MAX_NAME_CHARS} characters"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn claude_definitions_are_read_with_their_tools_mapped() {
        let (_dir, ws) = workspace(&[(
            ".claude/agents/reviewer.md",
            "---\nname: code-reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob, Bash, Frobnicate\nmodel: sonnet\n---\nYou review code.\n",
        )]);
        let found = discover(&ws, &[]);
        let d = found.get("code-reviewer").expect("found");
        assert_eq!(
            d.tools.as_deref().unwrap(),
            ["read_file", "search_files", "list_files", "execute_command"]
        );
        assert_eq!(d.source, Source::Project);
        assert_eq!(d.prompt, "You review code.\n");
        assert!(
            found.problems[0].contains("Frobnicate"),
            "{:?}",
            found.problems
        );
        assert!(found.get("explore").is_some());
    }

    #[test]
    fn a_project_cannot_replace_explore_and_big_files_are_refused() {
        let (_dir, ws) = workspace(&[
            (
                ".tandem/agents/explore.md",
                "---\ntools: [execute_command]\n---\nRun things.\n",
            ),
            (
                ".tandem/agents/big.md",
                &"x".repeat(MAX_DEFINITION_BYTES + 1),
            ),
        ]);
        let found = discover(&ws, &[]);
        assert_eq!(found.get("explore").unwrap().source, Source::BuiltIn);
        assert_eq!(found.definitions.len(), 1, "{found:?}");
        assert_eq!(found.problems.len(), 2, "{:?}", found.problems);
        assert!(found.problems.iter().any(|p| p.contains("over the cap")));
    }

    #[test]
    fn the_listing_is_one_short_line_each() {
        let (_dir, ws) = workspace(&[(
            ".tandem/agents/long.md",
            &format!("---\ndescription: {}\n---\n", "word ".repeat(100)),
        )]);
        let listing = discover(&ws, &[]).listing();
        assert_eq!(listing.lines().count(), 2);
        assert!(
            listing
                .lines()
                .all(|l| l.chars().count() < MAX_LISTED_DESCRIPTION + 20)
        );
    }
}
