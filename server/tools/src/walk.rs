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

/// How each walker thread builds its share of the result.
pub(crate) struct PerThread<I, V, F> {
    /// Makes a thread's empty state.
    pub init: I,
    /// Folds one entry into the thread's state.
    pub visit: V,
    /// Runs on the thread when its walk is over (e.g. sorting, so that the work is parallel too).
    pub finish: F,
}

/// Walks in parallel; each thread folds the entries it sees into its own `S`, and the states of
/// all threads come back at the end. Unreadable entries are skipped.
pub(crate) fn parallel<S, I, V, F>(builder: &WalkBuilder, per_thread: PerThread<I, V, F>) -> Vec<S>
where
    S: Send,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, DirEntry) + Sync,
    F: Fn(&mut S) + Sync,
{
    let out = Mutex::new(Vec::new());
    builder.build_parallel().visit(&mut Threads {
        per_thread: &per_thread,
        out: &out,
    });
    out.into_inner().unwrap_or_else(|e| e.into_inner())
}

struct Threads<'a, S, I, V, F> {
    per_thread: &'a PerThread<I, V, F>,
    out: &'a Mutex<Vec<S>>,
}

impl<'a, S, I, V, F> ParallelVisitorBuilder<'a> for Threads<'a, S, I, V, F>
where
    S: Send,
    I: Fn() -> S + Sync,
    V: Fn(&mut S, DirEntry) + Sync,
    F: Fn(&mut S) + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'a> {
        Box::new(Thread {
            state: Some((self.per_thread.init)()),
            per_thread: self.per_thread,
            out: self.out,
        })
    }
}

struct Thread<'a, S: Send, I, V, F: Fn(&mut S)> {
    state: Option<S>,
    per_thread: &'a PerThread<I, V, F>,
    out: &'a Mutex<Vec<S>>,
}

impl<S, I, V, F> ParallelVisitor for Thread<'_, S, I, V, F>
where
    S: Send,
    I: Sync,
    V: Fn(&mut S, DirEntry) + Sync,
    F: Fn(&mut S) + Sync,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if let (Ok(entry), Some(state)) = (entry, self.state.as_mut()) {
            (self.per_thread.visit)(state, entry);
        }
        WalkState::Continue
    }
}

impl<S: Send, I, V, F: Fn(&mut S)> Drop for Thread<'_, S, I, V, F> {
    // A thread's results join the others when it finishes.
    fn drop(&mut self) {
        if let Some(mut state) = self.state.take() {
            (self.per_thread.finish)(&mut state);
            tandem_stdx::lock(self.out).push(state);
        }
    }
}
