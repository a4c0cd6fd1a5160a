//! Shared by the `tools_*` integration tests: a temp workspace and calls through the real API.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use tandem_tools::{
    self, AppliedEdit, EditProposal, Prepared, ReadTracker, ToolContext, ToolError, UndoLog,
    Workspace,
};

pub struct Env {
    pub dir: tempfile::TempDir,
    pub ws: Workspace,
    pub reads: ReadTracker,
    pub undo_dir: tempfile::TempDir,
    pub undo: UndoLog,
}

impl Env {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let undo_dir = tempfile::tempdir().unwrap();
        let undo = UndoLog::open(undo_dir.path()).unwrap();
        Self {
            dir,
            ws,
            reads: ReadTracker::new(),
            undo_dir,
            undo,
        }
    }

    pub fn ctx(&self) -> ToolContext<'_> {
        ToolContext::new(&self.ws, &self.reads)
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.ws.root().join(rel)
    }

    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).exists()
    }

    pub fn call(&self, name: &str, args: Value) -> Result<Prepared, ToolError> {
        self.call_raw(name, &args.to_string())
    }

    pub fn call_raw(&self, name: &str, args: &str) -> Result<Prepared, ToolError> {
        block_on(tandem_tools::prepare(&self.ctx(), name, args))
    }

    /// A read-only tool's output; panics on anything else.
    pub fn done(&self, name: &str, args: Value) -> String {
        match self.call(name, args) {
            Ok(Prepared::Done(out)) => out,
            other => panic!("{name}: expected output, got {other:?}"),
        }
    }

    pub fn proposal(&self, name: &str, args: Value) -> EditProposal {
        match self.call(name, args) {
            Ok(Prepared::Edit(p)) => p,
            other => panic!("{name}: expected an edit proposal, got {other:?}"),
        }
    }

    pub fn apply(&self, proposal: &EditProposal, turn: &str) -> Result<AppliedEdit, ToolError> {
        let turn = tandem_model::TurnId::from(turn);
        tandem_tools::apply_edit(&self.ctx(), proposal, &proposal.proposed, &self.undo, &turn)
    }

    /// Proposes and applies an edit in `turn`.
    pub fn edit(&self, name: &str, args: Value, turn: &str) -> AppliedEdit {
        let p = self.proposal(name, args);
        self.apply(&p, turn).unwrap()
    }

    /// Files in the workspace (recursively), relative, sorted; `.git` left out.
    pub fn files(&self) -> Vec<String> {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let e = e.unwrap();
                let p = e.path();
                if e.file_type().unwrap().is_dir() {
                    walk(root, &p, out);
                } else {
                    out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
                }
            }
        }
        let mut out = Vec::new();
        walk(self.ws.root(), self.ws.root(), &mut out);
        out.sort();
        out
    }
}

// hang_guard is for the Unix-only FIFO tests.
#[cfg_attr(not(unix), allow(unused_imports))]
pub use tandem_test_support::wait::{block_on, hang_guard};
