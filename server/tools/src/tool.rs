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
