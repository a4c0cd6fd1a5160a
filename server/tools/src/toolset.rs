//! This crate's own tools as one registry: the one module that knows them all, so the registry
//! itself and each tool know only what they share.

use std::sync::LazyLock;

use crate::builtin::{
    ExecuteCommand, ListFiles, ReadFile, ReplaceInFile, SearchFiles, WriteToFile,
};
use crate::fetch::FetchUrl;
use crate::registry::Registry;
use crate::tool::CallInfo;

static WORKSPACE: LazyLock<Registry> = LazyLock::new(|| {
    Registry::empty()
        .with(ReadFile)
        .with(ListFiles)
        .with(SearchFiles)
        .with(WriteToFile)
        .with(ReplaceInFile)
        .with(ExecuteCommand)
        .with(FetchUrl)
});

impl Registry {
    /// This crate's tools: reading, listing, searching, writing, editing, running, fetching.
    /// The agent adds its own (the plan).
    pub fn workspace() -> &'static Registry {
        &WORKSPACE
    }
}

/// A call to one of this crate's tools (or to a tool it does not know) as the user sees it; the
/// agent asks its own registry, which adds the plan ([`Registry::describe`]).
pub fn describe(name: &str, arguments: &str) -> CallInfo {
    Registry::workspace().describe(name, arguments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{ToolKind, ToolTarget};

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
