//! Scoping: every path a tool touches is resolved here, against the workspace root, before any I/O.
//! A workspace may have additional roots: an absolute path inside any root is inside; a relative
//! path is always the primary root's.
//!
//! Resolution is lexical first (`.` and `..` folded, never above the root), then real: the deepest
//! existing ancestor is canonicalised, so a symbolic link that leads out of the workspace is caught
//! even for a file that does not exist yet. The returned path is that real path plus the missing
//! tail, which is also what the tools read and write: a link inside the workspace is followed once,
//! here, and never again behind the check's back. On Windows `canonicalize` follows junctions and
//! other reparse points as it follows symbolic links (and std's `read_link` reads a dangling
//! junction's target), so they are caught the same way. The text-level rules of each OS (drive letters, UNC and `\\?\`, devices,
//! streams, `.git` in any disguise) are [`rules`], pure functions tested for every OS everywhere.

mod rules;

use std::path::{Component, Path, PathBuf, Prefix};

use super::{ErrorKind, ToolError, Workspace};
use rules::Platform;

impl Workspace {
    /// Resolves a path the model gave (relative to the root, or absolute inside a root) to the
    /// real path the tools use. Refuses, with `outside_workspace`, anything that is or leads
    /// outside every root: `..` escapes, absolute paths elsewhere, symbolic links (and junctions) out, `~`, NUL
    /// bytes, UNC paths, and on Windows devices (`CON`, `\\.\`) and streams (`a.txt:s`).
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let given = path.trim();
        refuse_foreign_forms(given)?;
        let lexical = self.lexical(given)?;
        let real = real_path(&lexical)
            .map_err(|e| ToolError::new(ErrorKind::Io, format!("cannot resolve `{given}`: {e}")))?;
        if self.root_of(&real).is_none() {
            return Err(outside(
                given,
                &format!(
                    "it leads through a symbolic link to {}, outside the workspace ({})",
                    real.display(),
                    self.roots_shown()
                ),
            ));
        }
        Ok(real)
    }

    /// Like [`Workspace::resolve`], for a path a tool reads or lists: also refuses anything
    /// inside a `.git` directory (the repository's data: its config may hold credentials).
    pub fn resolve_for_read(&self, path: &str) -> Result<PathBuf, ToolError> {
        self.resolve_outside_git(path, "read")
    }

    fn resolve_outside_git(&self, path: &str, verb: &str) -> Result<PathBuf, ToolError> {
        let real = self.resolve(path)?;
        // Both what was asked and where it leads: on a case-insensitive disk `.GIT` is `.git`,
        // and on Windows so are `.git.` and `GIT~1`.
        let root = self.root_of(&real).unwrap_or(&self.root);
        let relative = real.strip_prefix(root).unwrap_or(&real);
        if rules::names_git_dir(&relative.to_string_lossy(), Platform::CURRENT)
            || rules::names_git_dir(path.trim(), Platform::CURRENT)
        {
            return Err(ToolError::new(
                ErrorKind::OutsideWorkspace,
                format!(
                    "`{}` is inside a .git directory: the tools never {verb} there (the \
                     repository's own data). Run git commands with execute_command instead.",
                    path.trim()
                ),
            ));
        }
        Ok(real)
    }

    /// Like [`Workspace::resolve`], for a path a tool is about to write: also refuses anything
    /// inside a `.git` directory.
    pub fn resolve_for_write(&self, path: &str) -> Result<PathBuf, ToolError> {
        let real = self.resolve_outside_git(path, "write")?;
        if let Some(dir) = self.protected.iter().find(|d| real.starts_with(d)) {
            return Err(ToolError::new(
                ErrorKind::OutsideWorkspace,
                format!(
                    "`{}` is in {}, Tandem's own config or data folder, which no tool or command \
                     writes (its settings, trust and records are the user's to change)",
                    path.trim(),
                    dir.display()
                ),
            ));
        }
        if self.roots().any(|root| real == root) {
            return Err(ToolError::new(
                ErrorKind::InvalidArguments,
                "the path names a workspace root, which is a directory, not a file",
            ));
        }
        Ok(real)
    }

    /// The path relative to the root with `/` separators (`.` for the root itself): what the user
    /// and the model see. A path in an additional root (and not in the primary one) is shown
    /// whole, as the model must give it: this is also what the undo log keys it by.
    pub fn display_path(&self, path: &Path) -> String {
        match self.root_of(path) {
            Some(root) if root != self.root => {
                let rel = path.strip_prefix(root).unwrap_or(path);
                if rel.as_os_str().is_empty() {
                    root.display().to_string()
                } else {
                    format!("{}/{}", root.display(), tandem_stdx::slash_path(rel))
                }
            }
            _ => tandem_stdx::display_relative(path, &self.root),
        }
    }

    /// What the entries below `start` (a resolved path) are shown relative to, and the prefix
    /// that makes each a path the tools take: nothing in the primary root, the root's absolute
    /// path and `/` in an additional one (as [`Workspace::display_path`] shows them).
    pub(crate) fn listing_base(&self, start: &Path) -> (&Path, String) {
        match self.root_of(start) {
            Some(root) if root != self.root => (root, format!("{}/", root.display())),
            _ => (self.root.as_path(), String::new()),
        }
    }

    /// The roots as an error names them: the primary one, then the additional ones.
    fn roots_shown(&self) -> String {
        let all: Vec<String> = self.roots().map(|r| r.display().to_string()).collect();
        all.join(", ")
    }

    /// Folds `.` and `..` without touching the disk; `..` may not climb above the root.
    fn lexical(&self, given: &str) -> Result<PathBuf, ToolError> {
        let path = Path::new(given);
        // An absolute path starts from its own anchor: `/`, or on Windows its drive and root.
        let mut out = if path.is_absolute() {
            PathBuf::new()
        } else {
            self.root.clone()
        };
        let floor = if path.is_absolute() {
            0
        } else {
            self.root.components().count()
        };
        for component in path.components() {
            match component {
                Component::RootDir if path.is_absolute() => out.push(component),
                Component::RootDir | Component::CurDir => {}
                Component::Prefix(p)
                    if path.is_absolute()
                        && matches!(p.kind(), Prefix::Disk(_) | Prefix::VerbatimDisk(_)) =>
                {
                    out.push(component)
                }
                Component::Prefix(_) => return Err(outside(given, "it has a drive prefix")),
                Component::ParentDir => {
                    if out.components().count() <= floor || !out.pop() {
                        return Err(outside(given, "`..` climbs above the workspace root"));
                    }
                }
                Component::Normal(name) => out.push(name),
            }
        }
        if path.is_absolute() && self.root_of(&out).is_none() {
            // The roots are canonical; the path may name one through a link (e.g. /tmp vs
            // /private/tmp), so judge the real path of what exists.
            let real = real_path(&out).unwrap_or_else(|_| out.clone());
            if self.root_of(&real).is_none() {
                return Err(outside(
                    given,
                    &format!(
                        "it is an absolute path outside the workspace ({})",
                        self.roots_shown()
                    ),
                ));
            }
            return Ok(real);
        }
        Ok(out)
    }
}

fn outside(given: &str, why: &str) -> ToolError {
    ToolError::new(
        ErrorKind::OutsideWorkspace,
        format!(
            "`{given}` is outside the workspace: {why}. Use a path relative to the workspace root."
        ),
    )
}

/// Forms that never name a file inside the workspace, whatever the disk holds (see
/// [`rules::foreign_form`]).
fn refuse_foreign_forms(given: &str) -> Result<(), ToolError> {
    match rules::foreign_form(given, Platform::CURRENT) {
        Some(why) => Err(outside(&given.replace('\0', "\\0"), why)),
        None => Ok(()),
    }
}

/// The canonical path of the deepest existing ancestor, with the rest appended. A dangling
/// symbolic link counts as missing: reads of it fail, and an atomic write replaces the link itself.
fn real_path(path: &Path) -> std::io::Result<PathBuf> {
    real_path_within(path, 0)
}

/// Links followed by hand (dangling ones) before giving up: a loop of dangling links.
const MAX_DANGLING_HOPS: usize = 40;

/// Where `path` really leads: its deepest existing part with links followed, and the rest as
/// written. A dangling link leads where its target would be, so a link to a missing file outside
/// the workspace is outside, not a missing file inside.
fn real_path_within(path: &Path, hops: usize) -> std::io::Result<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut tail = Vec::new();
    loop {
        match dunce::canonicalize(&existing) {
            Ok(mut real) => {
                for name in tail.iter().rev() {
                    real.push(name);
                }
                return Ok(real);
            }
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    || e.kind() == std::io::ErrorKind::NotADirectory =>
            {
                if let Ok(target) = std::fs::read_link(&existing) {
                    if hops >= MAX_DANGLING_HOPS {
                        return Err(std::io::Error::other("too many levels of symbolic links"));
                    }
                    let parent = existing.parent().unwrap_or(Path::new("/"));
                    let mut real = real_path_within(&parent.join(target), hops + 1)?;
                    for name in tail.iter().rev() {
                        real.push(name);
                    }
                    return Ok(real);
                }
                match (existing.parent(), existing.file_name()) {
                    (Some(parent), Some(name)) => {
                        tail.push(name.to_owned());
                        existing = parent.to_path_buf();
                    }
                    _ => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn relative_and_inside_absolute_paths_resolve() {
        let (_d, ws) = ws();
        std::fs::create_dir(ws.root().join("src")).unwrap();
        assert_eq!(ws.resolve("src/a.rs").unwrap(), ws.root().join("src/a.rs"));
        assert_eq!(ws.resolve("./src/../b").unwrap(), ws.root().join("b"));
        assert_eq!(ws.resolve(".").unwrap(), ws.root());
        let abs = ws.root().join("src/new/deep.txt");
        assert_eq!(ws.resolve(abs.to_str().unwrap()).unwrap(), abs);
        assert_eq!(ws.display_path(&abs), "src/new/deep.txt");
        assert_eq!(ws.display_path(ws.root()), ".");
    }

    #[test]
    fn every_foreign_form_is_outside() {
        let (_d, ws) = ws();
        for p in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "~",
            "~/x",
            "a\0b",
            "C:\\x",
            "C:",
            "c:/x",
            "\\\\server\\share",
            "//server/share",
            "\\x",
        ] {
            let err = ws.resolve(p).unwrap_err();
            assert_eq!(err.kind, ErrorKind::OutsideWorkspace, "{p}: {err}");
        }
    }

    /// Tandem's own folders in a root (the user opened their home) are never written by a
    /// tool, through a link or not; they may still be read, and the rest of the root written.
    #[cfg(unix)]
    #[test]
    fn tandems_own_folders_are_not_writable_though_in_a_root() {
        let (_d, ws) = ws();
        std::fs::create_dir_all(ws.root().join(".config/tandem")).unwrap();
        std::os::unix::fs::symlink(ws.root().join(".config"), ws.root().join("cfg")).unwrap();
        let config = ws.root().join(".config/tandem");
        let ws = ws.protecting([config]);
        for p in [
            ".config/tandem/config.toml",
            "cfg/tandem/x",
            ".config/tandem",
        ] {
            let err = ws.resolve_for_write(p).unwrap_err();
            assert_eq!(err.kind, ErrorKind::OutsideWorkspace, "{p}: {err}");
            assert!(err.message.contains("Tandem's own config or data"), "{err}");
        }
        assert!(ws.resolve_for_read(".config/tandem/config.toml").is_ok());
        assert!(ws.resolve_for_write(".config/other.toml").is_ok());
    }

    #[test]
    fn git_dirs_are_not_writable() {
        let (_d, ws) = ws();
        for p in [
            ".git/config",
            "sub/.git/HEAD",
            ".GIT/x",
            ".Git/hooks/pre-commit",
            ".git./config",
            "GIT~1/config",
        ] {
            assert!(ws.resolve(p).is_ok());
            let err = ws.resolve_for_write(p).unwrap_err();
            assert_eq!(err.kind, ErrorKind::OutsideWorkspace, "{p}");
        }
        assert!(ws.resolve_for_write(".gitignore").is_ok());
        assert!(ws.resolve_for_write(".").is_err());
    }

    /// The spellings of one file Windows accepts: drive-letter case, `/` for `\`, `\\?\`.
    #[cfg(windows)]
    #[test]
    fn windows_spellings_of_a_path_inside_resolve_and_devices_do_not() {
        let (_d, ws) = ws();
        std::fs::write(ws.root().join("a.txt"), "x").unwrap();
        let root = ws.root().to_str().unwrap().to_owned();
        let lower = root[..1].to_ascii_lowercase() + &root[1..];
        for p in [
            format!(r"{root}\a.txt"),
            format!(r"{lower}\a.txt"),
            format!("{}/a.txt", root.replace('\\', "/")),
            format!(r"\\?\{root}\a.txt"),
        ] {
            assert_eq!(ws.resolve(&p).unwrap(), ws.root().join("a.txt"), "{p}");
        }
        for p in [
            "CON",
            r"sub\nul.txt",
            "a.txt:hidden",
            r".git::$INDEX_ALLOCATION\config",
            r"\\.\pipe\x",
            r"\\?\UNC\server\share",
        ] {
            let err = ws.resolve_for_read(p).unwrap_err();
            assert_eq!(err.kind, ErrorKind::OutsideWorkspace, "{p}: {err}");
        }
    }
}
