//! Which tool is which: the one place that maps a tool's name to what it is (its kind, the file
//! it works on, its title), so no caller guesses from names or substrings.

use serde_json::Value;

/// The built-in tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    ReadFile,
    ListFiles,
    SearchFiles,
    WriteToFile,
    ReplaceInFile,
    ExecuteCommand,
}

/// What a tool call does, for the faces' icons and grouping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolKind {
    Read,
    Search,
    Edit,
    Execute,
    /// `fetch_url`: a web page read (asked unless its host is listed).
    Fetch,
    /// A tool from elsewhere (an MCP server) or one the model made up.
    Other,
}

/// Where a tool call works: the file or folder it names (as the model wrote it, relative to the
/// workspace root) and the first line it reads from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolTarget {
    pub path: String,
    /// One-based.
    pub line: Option<u32>,
}

impl Tool {
    pub const ALL: [Tool; 6] = [
        Tool::ReadFile,
        Tool::ListFiles,
        Tool::SearchFiles,
        Tool::WriteToFile,
        Tool::ReplaceInFile,
        Tool::ExecuteCommand,
    ];

    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The name the model calls it by.
    pub fn name(self) -> &'static str {
        match self {
            Tool::ReadFile => "read_file",
            Tool::ListFiles => "list_files",
            Tool::SearchFiles => "search_files",
            Tool::WriteToFile => "write_to_file",
            Tool::ReplaceInFile => "replace_in_file",
            Tool::ExecuteCommand => "execute_command",
        }
    }

    pub fn kind(self) -> ToolKind {
        match self {
            Tool::ReadFile => ToolKind::Read,
            Tool::ListFiles | Tool::SearchFiles => ToolKind::Search,
            Tool::WriteToFile | Tool::ReplaceInFile => ToolKind::Edit,
            Tool::ExecuteCommand => ToolKind::Execute,
        }
    }

    /// Whether the tool reads or edits exactly one file, named by its `path` argument: the file
    /// whose editor text the agent fetches first.
    pub fn works_on_one_file(self) -> bool {
        matches!(
            self,
            Tool::ReadFile | Tool::WriteToFile | Tool::ReplaceInFile
        )
    }

    /// The path the call names, if any (`list_files` and `search_files` default to the root).
    pub fn target(self, args: &Value) -> Option<ToolTarget> {
        let path = args.get("path").and_then(Value::as_str);
        let path = match (self, path) {
            (Tool::ExecuteCommand, _) => return None,
            (_, Some(p)) => p.to_string(),
            (Tool::ListFiles | Tool::SearchFiles, None) => ".".to_string(),
            (_, None) => return None,
        };
        let line = match self {
            Tool::ReadFile => args
                .get("offset")
                .and_then(Value::as_u64)
                .and_then(|l| u32::try_from(l).ok()),
            _ => None,
        };
        Some(ToolTarget { path, line })
    }

    /// A short human title, e.g. `Read src/main.rs` or `Run cargo test`.
    pub fn title(self, args: &Value) -> String {
        let field = |key: &str| args.get(key).and_then(Value::as_str).map(|s| short(s, 60));
        let path = field("path");
        let name = self.name().to_string();
        match self {
            Tool::ReadFile => match (&path, args.get("offset").and_then(Value::as_u64)) {
                (Some(p), Some(offset)) if offset > 1 => format!("Read {p} from line {offset}"),
                (Some(p), _) => format!("Read {p}"),
                _ => name,
            },
            Tool::ListFiles => {
                let dir = path.unwrap_or_else(|| ".".to_string());
                if args.get("recursive").and_then(Value::as_bool) == Some(true) {
                    format!("List {dir} (recursive)")
                } else {
                    format!("List {dir}")
                }
            }
            Tool::SearchFiles => match (field("regex"), path) {
                (Some(re), Some(p)) => format!("Search /{re}/ in {p}"),
                (Some(re), None) => format!("Search /{re}/"),
                _ => name,
            },
            Tool::WriteToFile => path.map_or(name, |p| format!("Write {p}")),
            Tool::ReplaceInFile => path.map_or(name, |p| format!("Edit {p}")),
            Tool::ExecuteCommand => field("command").map_or(name, |c| format!("Run {c}")),
        }
    }
}

/// A tool call as the user sees it before it runs: its kind, title and target, from the raw
/// arguments (an unknown tool or arguments that don't parse still get a title: the name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallInfo {
    pub kind: ToolKind,
    pub title: String,
    pub target: Option<ToolTarget>,
}

pub fn describe(name: &str, arguments: &str) -> CallInfo {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    match Tool::from_name(name) {
        Some(tool) => CallInfo {
            kind: tool.kind(),
            title: tool.title(&args),
            target: tool.target(&args),
        },
        None if name == crate::fetch::TOOL_NAME => CallInfo {
            kind: ToolKind::Fetch,
            title: match args.get("url").and_then(Value::as_str) {
                Some(url) => format!("Fetch {}", short(url, 120)),
                None => name.to_string(),
            },
            target: None,
        },
        None => CallInfo {
            kind: ToolKind::Other,
            title: name.to_string(),
            target: None,
        },
    }
}

/// The first line of `s`, cut to `max` characters.
fn short(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if line.len() < s.trim_end().len() => format!("{line} …"),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn title(name: &str, args: &str) -> String {
        describe(name, args).title
    }

    #[test]
    fn titles() {
        assert_eq!(
            title("read_file", r#"{"path":"src/main.rs"}"#),
            "Read src/main.rs"
        );
        assert_eq!(
            title("read_file", r#"{"path":"a","offset":20}"#),
            "Read a from line 20"
        );
        assert_eq!(title("list_files", "{}"), "List .");
        assert_eq!(
            title("search_files", r#"{"regex":"fn main","path":"src"}"#),
            "Search /fn main/ in src"
        );
        assert_eq!(
            title("replace_in_file", r#"{"path":"a.rs","diff":""}"#),
            "Edit a.rs"
        );
        assert_eq!(
            title("execute_command", r#"{"command":"cargo test"}"#),
            "Run cargo test"
        );
        assert_eq!(title("execute_command", r#"{"command":"a\nb"}"#), "Run a …");
        assert_eq!(title("write_to_file", "{not json"), "write_to_file");
        assert_eq!(title("nope", "{}"), "nope");
    }

    #[test]
    fn kinds_and_targets_come_from_the_tool_not_its_name() {
        assert_eq!(describe("execute_command", "{}").kind, ToolKind::Execute);
        assert_eq!(describe("list_files", "{}").kind, ToolKind::Search);
        // A made-up tool whose name sounds like one of ours is still unknown.
        assert_eq!(describe("run_read_write", "{}").kind, ToolKind::Other);
        let t = Tool::ReadFile.target(&json!({"path": "a.rs", "offset": 7}));
        assert_eq!(
            t,
            Some(ToolTarget {
                path: "a.rs".into(),
                line: Some(7)
            })
        );
        assert_eq!(Tool::ExecuteCommand.target(&json!({"path": "x"})), None);
        for tool in Tool::ALL {
            assert_eq!(Tool::from_name(tool.name()), Some(tool));
        }
    }
}
