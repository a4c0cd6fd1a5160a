//! The one walk `list_files` and `search_files` share: ripgrep's `ignore` crate, honouring
//! `.gitignore`, `.ignore`, `.git/info/exclude`, the global gitignore and hidden-file conventions,
//! in or out of a git repository, in parallel with one buffer per thread (no lock per entry).

use std::path::Path;
use std::sync::Mutex;

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

/// A walker from `start` with the workspace's filtering rules.
pub(crate) fn builder(start: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    builder
        .standard_filters(true)
        // Ignore files apply in a plain directory too, not only in a git checkout.
        .require_git(false)
        .follow_links(false);
    builder
}

/// Walks in parallel; each thread folds the entries it sees into its own `S` (made by `init`),
/// and the states of all threads come back at the end. Unreadable entries are skipped.
pub(crate) fn parallel<S, I, F>(builder: &WalkBuilder, init: I, visit: F) -> Vec<S>
where
    S: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, DirEntry) + Sync,
{
    let out = Mutex::new(Vec::new());
    builder.build_parallel().visit(&mut Threads {
        init: &init,
        visit: &visit,
        out: &out,
    });
    out.into_inner().unwrap_or_else(|e| e.into_inner())
}

struct Threads<'a, S, I, F> {
    init: &'a I,
    visit: &'a F,
    out: &'a Mutex<Vec<S>>,
}

impl<'a, S, I, F> ParallelVisitorBuilder<'a> for Threads<'a, S, I, F>
where
    S: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, DirEntry) + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'a> {
        Box::new(Thread {
            state: Some((self.init)()),
            visit: self.visit,
            out: self.out,
        })
    }
}

struct Thread<'a, S: Send, F> {
    state: Option<S>,
    visit: &'a F,
    out: &'a Mutex<Vec<S>>,
}

impl<S: Send, F: Fn(&mut S, DirEntry) + Sync> ParallelVisitor for Thread<'_, S, F> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if let (Ok(entry), Some(state)) = (entry, self.state.as_mut()) {
            (self.visit)(state, entry);
        }
        WalkState::Continue
    }
}

impl<S: Send, F> Drop for Thread<'_, S, F> {
    // A thread's results join the others when it finishes.
    fn drop(&mut self) {
        if let Some(state) = self.state.take() {
            self.out
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(state);
        }
    }
}
