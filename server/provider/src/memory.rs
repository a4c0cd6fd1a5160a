//! What Tandem learnt about a server and model that outlives the session: that its tools must go
//! as text (its template drops them, or the server refuses them). Kept in one small JSON file,
//! keyed by the endpoint and the model, so the next session skips the failing native request.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most of the file read: a handful of entries; anything larger is not ours.
const MAX_BYTES: u64 = 256 * 1024;

/// The file of remembered tool modes.
#[derive(Clone, Debug)]
pub struct ToolModeMemory {
    path: PathBuf,
}

impl ToolModeMemory {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    fn key(base_url: &str, model: &str) -> String {
        format!("{} {model}", base_url.trim_end_matches('/'))
    }

    /// Why text tools were chosen for this endpoint and model, if they were.
    pub fn text_tools(&self, base_url: &str, model: &str) -> Option<String> {
        read(&self.path).remove(&Self::key(base_url, model))
    }

    /// Remembers that this endpoint and model take tools as text, and why. Best effort: a
    /// memory that can't be written only costs the next session one failed request.
    pub fn remember_text_tools(&self, base_url: &str, model: &str, why: &str) {
        let mut entries = read(&self.path);
        entries.insert(Self::key(base_url, model), why.to_string());
        if let Err(e) = write(&self.path, &entries) {
            eprintln!(
                "tandem: could not remember the tool mode in {}: {e}",
                self.path.display()
            );
        }
    }
}

fn read(path: &Path) -> BTreeMap<String, String> {
    let Ok(meta) = std::fs::metadata(path) else {
        return BTreeMap::new();
    };
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return BTreeMap::new();
    }
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Written to a temporary file beside it, then renamed over it: never half a file.
fn write(path: &Path, entries: &BTreeMap<String, String>) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp-{}", uuid::Uuid::new_v4().simple()));
    let body = serde_json::to_vec_pretty(entries).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, body)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_per_endpoint_and_model() {
        let dir = std::env::temp_dir().join(format!("tandem-memory-{}", uuid::Uuid::new_v4()));
        let memory = ToolModeMemory::new(dir.join("tool-modes.json"));
        assert_eq!(memory.text_tools("http://a/v1", "m"), None);
        memory.remember_text_tools("http://a/v1/", "m", "the server refuses tools");
        assert_eq!(
            memory.text_tools("http://a/v1", "m").as_deref(),
            Some("the server refuses tools")
        );
        assert_eq!(memory.text_tools("http://a/v1", "other"), None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
