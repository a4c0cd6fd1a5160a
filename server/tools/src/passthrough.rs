//! What a command's writes pass through unrecorded: the workspace's ignored build and
//! dependency folders (its root `.gitignore`, `.git/info/exclude`, and the pass-through names
//! such as `target/` and `node_modules/`). The overlay capture binds them through; the snapshot
//! leaves them out; applying a capture writes them without saves.

use std::path::{Path, PathBuf};

/// How deep the pass-through names are looked for below the root.
const PASSTHROUGH_DEPTH: usize = 3;

/// The workspace's ignore rules: its `.gitignore` and `.git/info/exclude` at the root, and the
/// pass-through names as directories anywhere.
pub(crate) fn ignore_rules(root: &Path, names: &[String]) -> ignore::gitignore::Gitignore {
    let mut builder = ignore::gitignore::GitignoreBuilder::new(root);
    builder.add(root.join(".gitignore"));
    builder.add(root.join(".git/info/exclude"));
    for name in names {
        let _ = builder.add_line(None, &format!("{name}/"));
    }
    builder
        .build()
        .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty())
}

pub(crate) fn ignored(
    rules: &ignore::gitignore::Gitignore,
    root: &Path,
    rel: &Path,
    is_dir: bool,
) -> bool {
    rules
        .matched_path_or_any_parents(root.join(rel), is_dir)
        .is_ignore()
}

/// The real directories the overlay lets writes pass through: those under `root`, in its first
/// levels, that the ignore rules ignore (not following links, not inside `.git`).
pub(crate) fn passthrough_dirs(root: &Path, names: &[String]) -> Vec<PathBuf> {
    let rules = ignore_rules(root, names);
    let mut found = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if !entry.file_type().is_ok_and(|t| t.is_dir()) || entry.file_name() == ".git" {
                continue;
            }
            let path = entry.path();
            if rules.matched(&path, true).is_ignore() {
                found.push(path);
            } else if depth + 1 < PASSTHROUGH_DEPTH {
                stack.push((path, depth + 1));
            }
        }
    }
    found.sort();
    found
}
