//! The documents an LSP client has open, as it last sent them (full text sync): the agent
//! reads and edits what the user sees, unsaved changes included.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tower_lsp_server::UriExt;
use tower_lsp_server::lsp_types::Uri;

/// Keyed by canonical path, not URI: clients spell URIs differently (percent-encoding, drive
/// letters), and a workspace reached through a symlink (macOS `/tmp`, a linked home) has two
/// spellings for each file. The agent asks with canonical paths; the client's own URI is kept
/// for edits, so the editor finds the buffer it has rather than opening a second one.
#[derive(Clone, Default)]
pub struct Documents(Arc<Mutex<HashMap<PathBuf, Document>>>);

/// An open document as the client last sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// As the client names it.
    pub uri: Uri,
    pub text: String,
    /// The client's version of this text; `None` once we changed the buffer ourselves and the
    /// client has not yet said which version that made (an edit with a stale version would be
    /// refused, or dropped unseen by Neovim).
    pub version: Option<i32>,
}

/// The path a file is known by: symlinks resolved. A file that does not exist yet (a new,
/// unsaved buffer) is its canonical folder joined with its name.
pub fn canonical(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|dir| dir.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

impl Documents {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Document>> {
        tandem_stdx::lock(&self.0)
    }

    /// The client opened or changed a document.
    pub fn set(&self, uri: &Uri, text: String, version: i32) {
        if let Some(path) = uri.to_file_path() {
            let document = Document {
                uri: uri.clone(),
                text,
                version: Some(version),
            };
            self.lock().insert(canonical(&path), document);
        }
    }

    /// We changed an open document's buffer: its text is `text` now, its version unknown until
    /// the client's next `didChange`.
    pub fn changed_by_us(&self, path: &Path, text: String) {
        if let Some(document) = self.lock().get_mut(&canonical(path)) {
            document.text = text;
            document.version = None;
        }
    }

    pub fn remove(&self, uri: &Uri) {
        if let Some(path) = uri.to_file_path() {
            self.lock().remove(&canonical(&path));
        }
    }

    /// Forgets the document at `path` (the file was deleted behind the editor): the agent no
    /// longer reads the editor's copy. The client's next `didOpen` or `didChange` brings it back.
    pub fn forget(&self, path: &Path) -> Option<Document> {
        self.lock().remove(&canonical(path))
    }

    pub fn get(&self, uri: &Uri) -> Option<String> {
        self.get_path(uri.to_file_path()?.as_ref())
    }

    pub fn get_path(&self, path: &Path) -> Option<String> {
        self.document(path).map(|d| d.text)
    }

    /// The open document at `path` (any spelling of it).
    pub fn document(&self, path: &Path) -> Option<Document> {
        self.lock().get(&canonical(path)).cloned()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A workspace reached through a symlink: the client names files by the link, the agent by
    /// the real path; both find the same document, and edits go to the client's URI.
    #[test]
    fn documents_are_found_by_any_spelling_of_their_path() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("a.py"), "disk\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();

        let docs = Documents::default();
        let uri = Uri::from_file_path(link.join("a.py")).unwrap();
        docs.set(&uri, "buffer\n".into(), 3);
        let found = docs
            .document(&real.join("a.py"))
            .expect("found by the real path");
        assert_eq!(found.text, "buffer\n");
        assert_eq!(found.uri, uri, "edits must name the buffer the client has");
        assert_eq!(found.version, Some(3));
        assert_eq!(docs.get(&uri).as_deref(), Some("buffer\n"));

        docs.changed_by_us(&real.join("a.py"), "ours\n".into());
        let found = docs.document(&link.join("a.py")).unwrap();
        assert_eq!((found.text.as_str(), found.version), ("ours\n", None));

        // A new buffer, not yet on disk, is found too.
        let new = Uri::from_file_path(link.join("new.py")).unwrap();
        docs.set(&new, "x\n".into(), 1);
        assert!(docs.document(&real.join("new.py")).is_some());

        docs.remove(&Uri::from_file_path(real.join("a.py")).unwrap());
        assert!(docs.document(&link.join("a.py")).is_none());
    }
}
