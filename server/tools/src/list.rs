//! `list_files`: what the walker yields, relative to the root, sorted, capped.

use std::path::Path;

use super::args::ListFiles;
use super::{ToolError, Workspace, walk};

const DEFAULT_LIMIT: u64 = 1_000;

pub(crate) fn list_files(ws: &Workspace, args: ListFiles) -> Result<String, ToolError> {
    let given = args.path.as_deref().unwrap_or(".");
    let start = ws.resolve_for_read(given)?;
    let meta = std::fs::metadata(&start).map_err(|_| super::text::no_such_file(ws, &start))?;
    if !meta.is_dir() {
        return Ok(ws.display_path(&start));
    }
    let recursive = args.recursive.unwrap_or(false);
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1) as usize;
    let (base, prefix) = ws.listing_base(&start);
    let mut entries = entries(base, &start, recursive);
    if !prefix.is_empty() {
        for entry in &mut entries {
            entry.insert_str(0, &prefix);
        }
    }
    let total = entries.len();
    if total == 0 {
        return Ok(format!(
            "[{} holds no files (ignored and hidden files are not listed)]",
            ws.display_path(&start)
        ));
    }
    entries.truncate(limit);
    let mut out = entries.join("\n");
    if total > limit {
        out.push_str(&format!(
            "\n[showing {limit} of {total} entries; {} more not shown. List a subdirectory, or \
             raise limit]",
            total - limit
        ));
    }
    Ok(out)
}

/// A folder's entries below it (recursive, ignored and hidden files left out), at most `limit`,
/// for a folder the user attached to a prompt: the same checks and listing as `list_files`.
pub fn folder_listing(ws: &Workspace, path: &str, limit: u64) -> Result<String, ToolError> {
    list_files(
        ws,
        ListFiles {
            path: Some(path.to_string()),
            recursive: Some(true),
            limit: Some(limit),
        },
    )
}

/// Every entry below `start` the ignore rules let through (directories end in `/`), relative to
/// `root`, sorted. `recursive: false` stops at `start`'s children.
pub(crate) fn entries(root: &Path, start: &Path, recursive: bool) -> Vec<String> {
    let mut builder = walk::builder(start);
    if !recursive {
        builder.max_depth(Some(1));
    }
    let per_thread = walk::parallel(
        &builder,
        walk::PerThread {
            init: Vec::new,
            visit: |found: &mut Vec<String>, entry: ignore::DirEntry| {
                if entry.depth() == 0 {
                    return;
                }
                let Ok(rel) = entry.path().strip_prefix(root) else {
                    return;
                };
                let mut name = tandem_stdx::slash_path(rel);
                if entry.file_type().is_some_and(|t| t.is_dir()) {
                    name.push('/');
                }
                found.push(name);
            },
            finish: |found: &mut Vec<String>| found.sort_unstable(),
        },
    );
    let mut all = Vec::with_capacity(per_thread.iter().map(Vec::len).sum());
    for part in per_thread {
        all.extend(part);
    }
    // The stable sort finds the threads' sorted runs and only merges them.
    all.sort();
    all
}
