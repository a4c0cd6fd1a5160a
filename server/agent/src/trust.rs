//! The projects' MCP servers the user trusted for good, bound to what they run.
//!
//! `mcp-trust.json` in the data dir holds one entry per project root and server: a SHA-256 of
//! the server's whole configuration (command, arguments, environment; or URL and headers) and
//! the state of every workspace file its command line names (a SHA-256 of its content, or that
//! it is missing, a directory, or not a regular file). A project server is trusted only while
//! both are the same: a repository (or a sandboxed command) that edits `tools/server.py`, or
//! plants a file the line names, is asked about again, and the question says what changed.
//!
//! "Names" is read broadly, since the line is the project's: every word of the command, its
//! arguments and its environment values; the value after `=` of an option (`--script=x.py`); the
//! words inside a word with spaces (`sh -c "python3 tools/x.py"`); and for `-m pkg.mod` the
//! module's files (`pkg/mod.py`, `pkg/mod/__main__.py`, `pkg/mod/__init__.py`). Files a server
//! imports at run time without naming them on its line are not covered (docs/security.md).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use sha2::Digest;
use tandem_mcp::McpServerConfig;

/// A named file larger than this is recorded by its size and time, not hashed.
const MAX_HASHED_BYTES: u64 = 64 * 1024 * 1024;
/// The trust store is small (one entry per trusted server); anything larger is not ours.
const MAX_TRUST_BYTES: u64 = 16 * 1024 * 1024;

pub struct TrustStore {
    path: PathBuf,
}

#[derive(Default, serde::Serialize, serde::Deserialize)]
struct TrustFile {
    trusted: Vec<TrustEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct TrustEntry {
    root: PathBuf,
    server: String,
    /// SHA-256 of the server's configuration as JSON.
    fingerprint: String,
    /// Workspace-relative path of each file the line names, to its state (`sha256:…`,
    /// `missing`, `directory`, …). Entries written before this existed have none, so they no
    /// longer match a line that names files: asked again once.
    #[serde(default)]
    files: BTreeMap<String, String>,
}

/// Whether a project's server may start unasked, and if not, what changed since the user last
/// trusted it (empty when they never did).
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Trusted,
    Ask { changed: Vec<String> },
}

impl TrustStore {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join("mcp-trust.json"),
        }
    }

    fn entry(root: &Path, config: &McpServerConfig) -> TrustEntry {
        let json = serde_json::to_string(config).unwrap_or_default();
        TrustEntry {
            root: root.to_path_buf(),
            server: config.name().to_string(),
            fingerprint: hex(&sha2::Sha256::digest(json.as_bytes())),
            files: named_files(root, config),
        }
    }

    fn load(&self) -> TrustFile {
        tandem_stdx::regular::read_string(&self.path, MAX_TRUST_BYTES)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Whether `config` is trusted in `root` as it is now, files included.
    pub fn check(&self, root: &Path, config: &McpServerConfig) -> Verdict {
        let now = Self::entry(root, config);
        let file = self.load();
        if file.trusted.contains(&now) {
            return Verdict::Trusted;
        }
        let Some(before) = file
            .trusted
            .iter()
            .rev()
            .find(|e| e.root == now.root && e.server == now.server)
        else {
            return Verdict::Ask {
                changed: Vec::new(),
            };
        };
        let mut changed = Vec::new();
        if before.fingerprint != now.fingerprint {
            changed.push("its command line, environment or URL".to_string());
        }
        let paths: std::collections::BTreeSet<&String> =
            before.files.keys().chain(now.files.keys()).collect();
        for path in paths {
            let (was, is) = (before.files.get(path), now.files.get(path));
            if was != is {
                changed.push(match (was.map(String::as_str), is.map(String::as_str)) {
                    (Some("missing") | None, Some(_)) => format!("{path} (new)"),
                    (Some(_), Some("missing")) => format!("{path} (deleted)"),
                    _ => format!("{path} (content)"),
                });
            }
        }
        Verdict::Ask { changed }
    }

    pub fn is_trusted(&self, root: &Path, config: &McpServerConfig) -> bool {
        self.check(root, config) == Verdict::Trusted
    }

    /// Remembers the user's "always" for this server in this project, as it is now (replacing
    /// what was trusted of it before).
    pub fn trust(&self, root: &Path, config: &McpServerConfig) -> std::io::Result<()> {
        let mut file = self.load();
        let entry = Self::entry(root, config);
        file.trusted
            .retain(|e| !(e.root == entry.root && e.server == entry.server));
        file.trusted.push(entry);
        if let Some(dir) = self.path.parent() {
            tandem_stdx::private_dir(dir)?;
        }
        let text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &self.path)
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every workspace file the server's line names, with its state now.
fn named_files(root: &Path, config: &McpServerConfig) -> BTreeMap<String, String> {
    let McpServerConfig::Stdio(s) = config else {
        return BTreeMap::new();
    };
    let words: Vec<&str> = std::iter::once(s.command.as_str())
        .chain(s.args.iter().map(String::as_str))
        .chain(s.env.iter().map(|e| e.value.as_str()))
        .collect();
    let mut candidates: Vec<String> = Vec::new();
    for (i, word) in words.iter().enumerate() {
        for part in word.split_whitespace() {
            let part = part.trim_matches(|c| c == '\'' || c == '"');
            candidates.push(part.to_string());
            if part.starts_with('-')
                && let Some((_, value)) = part.split_once('=')
            {
                candidates.push(value.to_string());
            }
        }
        if i > 0 && words[i - 1] == "-m" {
            let module = word.replace('.', "/");
            candidates.push(format!("{module}.py"));
            candidates.push(format!("{module}/__main__.py"));
            candidates.push(format!("{module}/__init__.py"));
        }
    }
    let mut files = BTreeMap::new();
    for candidate in candidates {
        if let Some(rel) = in_workspace(root, &candidate) {
            let state = state_of(&root.join(&rel));
            // A word that names nothing and does not look like a path (`stdio`, `-y`) is no file.
            let pathlike = candidate.contains('/') || candidate.contains('.');
            if state != "missing" || pathlike {
                files.insert(tandem_stdx::slash_path(&rel), state);
            }
        }
    }
    files
}

/// `word` as a path relative to `root`, when it is one inside it (judged by its text, then by
/// where its links lead when it exists).
fn in_workspace(root: &Path, word: &str) -> Option<PathBuf> {
    if word.is_empty() || word.starts_with('-') && !word.contains('/') {
        return None;
    }
    let path = Path::new(word);
    let rel: PathBuf = if path.is_absolute() {
        path.strip_prefix(root).ok()?.to_path_buf()
    } else {
        path.to_path_buf()
    };
    if rel
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    let rel: PathBuf = rel
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    if rel.as_os_str().is_empty() {
        return None;
    }
    if let Ok(real) = root.join(&rel).canonicalize() {
        let real_root = root.canonicalize().ok()?;
        // A link out of the workspace names a file the project cannot change from inside.
        real.strip_prefix(&real_root).ok()?;
    }
    Some(rel)
}

/// `sha256:…` of a regular file's content, or what it is instead.
fn state_of(path: &Path) -> String {
    use tandem_stdx::regular::NotRegular;
    match tandem_stdx::regular::open(path) {
        Ok((file, meta)) if meta.len() <= MAX_HASHED_BYTES => {
            let mut hasher = sha2::Sha256::new();
            let mut reader = file.take(MAX_HASHED_BYTES);
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => break format!("sha256:{}", hex(&hasher.finalize())),
                    Ok(n) => hasher.update(&buf[..n]),
                    Err(e) => break format!("unreadable: {e}"),
                }
            }
        }
        Ok((_, meta)) => format!("{} bytes, modified {:?}", meta.len(), meta.modified().ok()),
        Err(NotRegular::Missing) => "missing".into(),
        Err(NotRegular::Directory) => "directory".into(),
        Err(e) => format!("unusable: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(json: serde_json::Value) -> McpServerConfig {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn trust_is_per_project_and_per_command_line() {
        let data = tempfile::tempdir().unwrap();
        let store = TrustStore::new(data.path());
        let a = server(json!({"name": "fs", "command": "srv", "args": ["/x"]}));
        let root = Path::new("/work/project");
        assert!(!store.is_trusted(root, &a));
        store.trust(root, &a).unwrap();
        assert!(store.is_trusted(root, &a));
        // Another project, another command line, another environment: asked again.
        assert!(!store.is_trusted(Path::new("/work/other"), &a));
        let changed = server(json!({"name": "fs", "command": "srv", "args": ["/"]}));
        assert_eq!(
            store.check(root, &changed),
            Verdict::Ask {
                changed: vec!["its command line, environment or URL".into()]
            }
        );
        let env = server(json!({"name": "fs", "command": "srv", "args": ["/x"],
            "env": [{"name": "NODE_OPTIONS", "value": "--require evil.js"}]}));
        assert!(!store.is_trusted(root, &env));
        // Kept across stores (a new sidecar).
        assert!(TrustStore::new(data.path()).is_trusted(root, &a));
    }

    #[test]
    fn trust_covers_every_workspace_file_the_line_names() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        let write = |p: &str, t: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        write("tools/server.py", "print('hi')\n");
        write("tools/helper.js", "1\n");
        write("pkg/srv/__main__.py", "x\n");
        let store = TrustStore::new(data.path());
        let cases = [
            (
                json!({"name": "a", "command": "python3", "args": ["tools/server.py"]}),
                "tools/server.py",
            ),
            (
                json!({"name": "b", "command": "sh", "args": ["-c", "exec python3 './tools/server.py'"]}),
                "tools/server.py",
            ),
            (
                json!({"name": "c", "command": "node", "args": ["--require=tools/helper.js", "x"]}),
                "tools/helper.js",
            ),
            (
                json!({"name": "d", "command": "node", "args": ["x"],
                       "env": [{"name": "NODE_OPTIONS", "value": "--require ./tools/helper.js"}]}),
                "tools/helper.js",
            ),
            (
                json!({"name": "e", "command": "python3", "args": ["-m", "pkg.srv"]}),
                "pkg/srv/__main__.py",
            ),
            (
                json!({"name": "f", "command": format!("{}/tools/server.py", root.display())}),
                "tools/server.py",
            ),
        ];
        for (config, file) in cases {
            let config = server(config);
            store.trust(root, &config).unwrap();
            assert!(store.is_trusted(root, &config), "{config:?}");
            let before = std::fs::read_to_string(root.join(file)).unwrap();
            write(file, &format!("{before}# changed\n"));
            assert_eq!(
                store.check(root, &config),
                Verdict::Ask {
                    changed: vec![format!("{file} (content)")]
                },
                "{config:?}"
            );
            write(file, &before);
            assert!(store.is_trusted(root, &config), "{config:?}");
        }
        // A file the line names that did not exist, planted later.
        let late = server(json!({"name": "g", "command": "node", "args": ["tools/later.js"]}));
        store.trust(root, &late).unwrap();
        write("tools/later.js", "evil\n");
        assert_eq!(
            store.check(root, &late),
            Verdict::Ask {
                changed: vec!["tools/later.js (new)".into()]
            }
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_named_fifo_is_recorded_without_blocking() {
        let ws = tempfile::tempdir().unwrap();
        let fifo = ws.path().join("srv.py");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string and a mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let config = server(json!({"name": "a", "command": "python3", "args": ["srv.py"]}));
        let files = named_files(ws.path(), &config);
        assert!(files["srv.py"].contains("FIFO"), "{files:?}");
    }
}
