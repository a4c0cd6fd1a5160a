//! The documents a plain LSP client has open, as it last sent them (full text sync): the agent
//! reads and edits what the user sees, unsaved changes included.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tower_lsp_server::UriExt;
use tower_lsp_server::lsp_types::Uri;

/// Keyed by path, not URI: clients spell URIs differently (percent-encoding, drive letters).
#[derive(Clone, Default)]
pub struct Documents(Arc<Mutex<HashMap<PathBuf, String>>>);

impl Documents {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, String>> {
        tandem_stdx::lock(&self.0)
    }

    pub fn set(&self, uri: &Uri, text: String) {
        if let Some(path) = uri.to_file_path() {
            self.set_path(path.into_owned(), text);
        }
    }

    pub fn set_path(&self, path: PathBuf, text: String) {
        self.lock().insert(path, text);
    }

    pub fn remove(&self, uri: &Uri) {
        if let Some(path) = uri.to_file_path() {
            self.lock().remove(path.as_ref());
        }
    }

    pub fn get(&self, uri: &Uri) -> Option<String> {
        self.get_path(uri.to_file_path()?.as_ref())
    }

    pub fn get_path(&self, path: &std::path::Path) -> Option<String> {
        self.lock().get(path).cloned()
    }
}
