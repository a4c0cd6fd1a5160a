//! Where no overlay can catch a command's writes (no user namespaces, Landlock alone, macOS,
//! Windows): a bounded snapshot of the files a command may change, taken before it runs and
//! compared after, gives the same record (see [`crate::capture`]).
//!
//! What it covers: the workspace's regular files that the ignore rules don't ignore (no `.git`),
//! each up to [`MAX_FILE_BYTES`], at most [`MAX_FILES`] files and [`MAX_TOTAL_BYTES`] in all;
//! a change to anything else is not recorded (the model is told how much was covered).
//!
//! Cheap on repeated commands: the contents are kept per workspace between commands with the
//! stat they were read at (size, modification time, inode, mode), and only a file whose stat
//! changed is read again.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The largest file the snapshot keeps.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// The most files it keeps.
pub const MAX_FILES: usize = 20_000;
/// The most bytes it keeps in all.
pub const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;

/// One file as the snapshot saw it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    stat: Stat,
    /// `None`: over [`MAX_FILE_BYTES`] or past the caps: known to exist, content not kept.
    pub(crate) content: Option<Arc<Vec<u8>>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stat {
    size: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
    pub(crate) mode: u32,
}

/// The workspace's files before a command: by `/`-separated path relative to the root.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub(crate) files: BTreeMap<String, Entry>,
    /// Files whose content was not kept (too large, or past the caps).
    pub(crate) uncovered: usize,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("files", &self.files.len())
            .field("uncovered", &self.uncovered)
            .finish()
    }
}

impl Entry {
    pub(crate) fn mode(&self) -> u32 {
        self.stat.mode
    }
}

/// The contents kept between commands, per workspace root.
fn cache() -> &'static Mutex<HashMap<PathBuf, BTreeMap<String, Entry>>> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<PathBuf, BTreeMap<String, Entry>>>> =
        std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn stat_of(meta: &std::fs::Metadata) -> Stat {
    #[cfg(unix)]
    let (inode, mode) = {
        use std::os::unix::fs::MetadataExt;
        (meta.ino(), meta.mode() & 0o7777)
    };
    #[cfg(not(unix))]
    let (inode, mode) = (
        0,
        if meta.permissions().readonly() {
            0o444
        } else {
            0o644
        },
    );
    Stat {
        size: meta.len(),
        modified: meta.modified().ok(),
        inode,
        mode,
    }
}

/// The files a command may change: under `root`, not ignored, not in `.git`.
fn walk(root: &Path, passthrough: &[String]) -> Vec<(String, PathBuf, std::fs::Metadata)> {
    let rules = super::passthrough::ignore_rules(root, passthrough);
    let mut out = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            e.file_name() != ".git"
                && !rules
                    .matched(e.path(), e.file_type().is_some_and(|t| t.is_dir()))
                    .is_ignore()
        })
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let rel = tandem_stdx::display_relative(entry.path(), root);
        out.push((rel, entry.into_path(), meta));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

impl Snapshot {
    /// The workspace's files now, reading only those whose stat changed since the last
    /// snapshot of this root.
    pub fn take(root: &Path, passthrough: &[String]) -> Snapshot {
        let previous = tandem_stdx::lock(cache()).remove(root).unwrap_or_default();
        let mut snapshot = Snapshot::default();
        let mut total = 0u64;
        for (rel, path, meta) in walk(root, passthrough) {
            let stat = stat_of(&meta);
            let fits = stat.size <= MAX_FILE_BYTES
                && snapshot.files.len() < MAX_FILES
                && total + stat.size <= MAX_TOTAL_BYTES;
            let content = if !fits {
                None
            } else if let Some(kept) = previous
                .get(&rel)
                .filter(|e| e.stat == stat && e.content.is_some())
            {
                kept.content.clone()
            } else {
                tandem_stdx::regular::read(&path, MAX_FILE_BYTES)
                    .ok()
                    .map(|(bytes, _)| Arc::new(bytes))
            };
            match &content {
                Some(bytes) => total += bytes.len() as u64,
                None => snapshot.uncovered += 1,
            }
            snapshot.files.insert(rel, Entry { stat, content });
        }
        tandem_stdx::lock(cache()).insert(root.to_path_buf(), snapshot.files.clone());
        snapshot
    }
}

/// One difference between a snapshot and the workspace now.
pub(crate) enum Difference {
    /// New or changed: `before` is the old content (`None`: new), `mode` the mode it had.
    Written {
        rel: String,
        before: Option<(Arc<Vec<u8>>, u32)>,
    },
    Deleted {
        rel: String,
        before: (Arc<Vec<u8>>, u32),
    },
    /// Changed, but its content before was not kept: not recorded.
    Uncovered { rel: String },
}

/// What changed under `root` since `before` (the cache is refreshed on the way).
pub(crate) fn differences(
    root: &Path,
    passthrough: &[String],
    before: &Snapshot,
) -> Vec<Difference> {
    let now = Snapshot::take(root, passthrough);
    let mut out = Vec::new();
    for (rel, entry) in &now.files {
        match before.files.get(rel) {
            None => out.push(Difference::Written {
                rel: rel.clone(),
                before: None,
            }),
            Some(old) if old.stat == entry.stat => {}
            Some(old) => match &old.content {
                Some(bytes) => out.push(Difference::Written {
                    rel: rel.clone(),
                    before: Some((bytes.clone(), old.mode())),
                }),
                None => out.push(Difference::Uncovered { rel: rel.clone() }),
            },
        }
    }
    for (rel, old) in &before.files {
        if now.files.contains_key(rel) {
            continue;
        }
        match &old.content {
            Some(bytes) => out.push(Difference::Deleted {
                rel: rel.clone(),
                before: (bytes.clone(), old.mode()),
            }),
            None => out.push(Difference::Uncovered { rel: rel.clone() }),
        }
    }
    out
}
