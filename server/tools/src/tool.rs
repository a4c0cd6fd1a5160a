//! What the user is shown of a tool call: its kind, its title, the file it works on. Each tool
//! says its own ([`crate::ToolSpec`]); the registry finds the tool by name.

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

/// A tool call as the user sees it before it runs: its kind, title and target, from the raw
/// arguments (an unknown tool or arguments that don't parse still get a title: the name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallInfo {
    pub kind: ToolKind,
    pub title: String,
    pub target: Option<ToolTarget>,
}

/// The first line of `s`, cut to `max` characters.
pub(crate) fn short(s: &str, max: usize) -> String {
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
        let t = describe("read_file", r#"{"path": "a.rs", "offset": 7}"#).target;
        assert_eq!(
            t,
            Some(ToolTarget {
                path: "a.rs".into(),
                line: Some(7)
            })
        );
        assert_eq!(describe("execute_command", r#"{"path": "x"}"#).target, None);
        assert_eq!(describe("list_files", "{}").target.unwrap().path, ".");
        assert_eq!(describe("fetch_url", "{}").kind, ToolKind::Fetch);
        assert_eq!(
            describe("fetch_url", r#"{"url": "https://example.com/a"}"#).title,
            "Fetch https://example.com/a"
        );
    }
}
