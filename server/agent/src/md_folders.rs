//! Folders of Markdown files that define things by name (custom commands, subagents): the
//! user's folders, each read as a workspace of its own (so a link in one can't lead out of it),
//! and the project's, inside the session's workspace. Only the `.md` files directly in a folder
//! count, by name.

use std::path::PathBuf;

use tandem_tools::Workspace;

/// A `.md` file directly in a folder.
pub struct MdFile {
    /// Where it is, for messages and listings.
    pub path: PathBuf,
    /// Its path in the folder's workspace, to read it through.
    pub rel: String,
    /// The file's name without `.md`.
    pub stem: String,
}

/// The user's folders that exist, each as a workspace, in order; one that can't be one is
/// reported as "the `what` in DIR were not read: why".
pub fn user_folders(dirs: &[PathBuf], what: &str, problems: &mut Vec<String>) -> Vec<Workspace> {
    dirs.iter()
        .filter(|dir| dir.is_dir())
        .filter_map(|dir| match Workspace::new(dir) {
            Ok(folder) => Some(folder),
            Err(e) => {
                problems.push(format!(
                    "the {what} in {} were not read: {e}",
                    dir.display()
                ));
                None
            }
        })
        .collect()
}

/// The `.md` files directly in `rel` of `ws` (`""` for its root), by name; none when it is not
/// a folder.
pub fn md_files(ws: &Workspace, rel: &str) -> Vec<MdFile> {
    let dir = ws.root().join(rel);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| !e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| MdFile {
            path: dir.join(&name),
            rel: if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            },
            stem: name.trim_end_matches(".md").to_string(),
        })
        .collect()
}
