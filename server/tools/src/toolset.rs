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
