//! Every `.git` under a workspace: the root's, nested repositories', submodules' and worktrees'
//! (`.git` files). Git runs what a `.git` says (hooks, `core.fsmonitor`, filters, `include`d
//! config) whenever anyone runs git there, an editor's git integration included, outside any
//! sandbox. So the launcher binds each one read-only ([`find`]), and the command runner compares
//! a [`GitSnapshot`] taken before a command with one taken after, to tell the user and the model
//! of a repository the command made or changed, naming what in it can run a program.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Directories not searched: package managers' trees, where editors don't look for repositories
/// either (VS Code's `git.repositoryScanIgnoredFolders`).
const SKIPPED: &[&str] = &["node_modules"];

/// At most this many directories are searched; past it [`Found::complete`] is false.
const MAX_DIRS: usize = 100_000;

/// What [`find`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Each `.git`, a directory or a file, in a stable order.
    pub paths: Vec<PathBuf>,
    /// Every directory was searched (not cut at [`MAX_DIRS`]).
    pub complete: bool,
}

/// Whether `dir` is a git directory whatever its name (a bare repository, `x.git`, a
/// repository's data moved out of `.git`): git takes one for a repository when it holds
/// `HEAD`, `objects` and `refs`, and runs what its `config` says there as in any `.git`.
pub fn is_repository_dir(dir: &Path) -> bool {
    let kind = |name: &str| std::fs::symlink_metadata(dir.join(name)).map(|m| m.file_type());
    kind("HEAD").is_ok_and(|k| k.is_file())
        && kind("objects").is_ok_and(|k| k.is_dir())
        && kind("refs").is_ok_and(|k| k.is_dir())
}

/// Every `.git` under `root`, and every directory that is a git directory by another name
/// ([`is_repository_dir`]); not following links, not inside one, not in [`SKIPPED`].
pub fn find(root: &Path) -> Found {
    let mut found = Found {
        paths: Vec::new(),
        complete: true,
    };
    let mut stack = vec![root.to_path_buf()];
    let mut visited = 0usize;
    while let Some(dir) = stack.pop() {
        visited += 1;
        if visited > MAX_DIRS {
            found.complete = false;
            break;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if name == ".git" {
                if !kind.is_symlink() {
                    found.paths.push(entry.path());
                }
            } else if kind.is_dir() && is_repository_dir(&entry.path()) {
                found.paths.push(entry.path());
            } else if kind.is_dir() && !SKIPPED.iter().any(|s| name == *s) {
                stack.push(entry.path());
            }
        }
    }
    found.paths.sort();
    found
}

/// What a `.git` holds that can run a program, fingerprinted by content (a command can restore
/// sizes and times, not contents).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Fingerprint {
    /// The `.git` file's text (a worktree or submodule link), or empty for a directory.
    link: String,
    config: Option<Vec<u8>>,
    /// Hook files (not `*.sample`) and their contents.
    hooks: BTreeMap<String, Vec<u8>>,
}

/// The largest config or hook file read whole; a larger one counts by its first bytes.
const MAX_READ: u64 = 1024 * 1024;

fn read_bounded(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_READ).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The git directory a `.git` stands for: itself, or where its `gitdir:` line points.
fn git_dir(dot_git: &Path) -> Option<PathBuf> {
    if dot_git.is_dir() {
        return Some(dot_git.to_path_buf());
    }
    let text = std::fs::read_to_string(dot_git).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let target = Path::new(target);
    Some(if target.is_absolute() {
        target.to_path_buf()
    } else {
        dot_git.parent()?.join(target)
    })
}

fn fingerprint(dot_git: &Path) -> Fingerprint {
    let mut print = Fingerprint::default();
    if !dot_git.is_dir() {
        print.link = std::fs::read_to_string(dot_git).unwrap_or_default();
    }
    let Some(dir) = git_dir(dot_git) else {
        return print;
    };
    print.config = read_bounded(&dir.join("config"));
    if let Ok(hooks) = std::fs::read_dir(dir.join("hooks")) {
        for hook in hooks.flatten() {
            let name = hook.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".sample") {
                print
                    .hooks
                    .insert(name, read_bounded(&hook.path()).unwrap_or_default());
            }
        }
    }
    print
}

/// The `.git`s under a workspace at one moment.
#[derive(Clone, Debug, Default)]
pub struct GitSnapshot {
    entries: BTreeMap<PathBuf, Fingerprint>,
}

/// A `.git` a command made or changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GitChange {
    /// The `.git` (directory or file).
    pub path: PathBuf,
    /// It was not there before the command.
    pub new: bool,
    /// What in it runs programs: config keys with their values (`core.fsmonitor = …`) and hooks
    /// (`hooks/pre-commit`), control characters removed.
    pub dangerous: Vec<String>,
}

impl GitSnapshot {
    pub fn take(root: &Path) -> GitSnapshot {
        GitSnapshot {
            entries: find(root)
                .paths
                .into_iter()
                .map(|p| {
                    let print = fingerprint(&p);
                    (p, print)
                })
                .collect(),
        }
    }

    /// What is new or changed in `self` against `before`.
    pub fn changes_since(&self, before: &GitSnapshot) -> Vec<GitChange> {
        self.entries
            .iter()
            .filter(|(path, print)| before.entries.get(*path) != Some(print))
            .map(|(path, print)| GitChange {
                path: path.clone(),
                new: !before.entries.contains_key(path),
                dangerous: dangerous(print),
            })
            .collect()
    }
}

impl GitChange {
    /// One line for the user and the model, with the path relative to `root`.
    pub fn describe(&self, root: &Path) -> String {
        let path = self.path.strip_prefix(root).unwrap_or(&self.path);
        let what = if self.new {
            format!("created a git repository at {}", path.display())
        } else {
            format!("changed the git repository at {}", path.display())
        };
        if self.dangerous.is_empty() {
            format!("The command {what} (nothing in it runs a program).")
        } else {
            format!(
                "The command {what}, which runs programs when anyone (an editor too) runs git \
                 there: {}. Check it before you use git in that folder.",
                self.dangerous.join(", ")
            )
        }
    }
}

/// Config keys that name a program git runs (`*` stands for any subsection).
const RUNS_PROGRAMS: &[&str] = &[
    "core.fsmonitor",
    "core.hookspath",
    "core.sshcommand",
    "core.editor",
    "core.pager",
    "core.askpass",
    "core.gitproxy",
    "sequence.editor",
    "diff.external",
    "diff.*.command",
    "diff.*.textconv",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "include.path",
    "includeif.*.path",
    "credential.helper",
    "credential.*.helper",
    "gpg.program",
    "gpg.*.program",
    "uploadpack.packobjectshook",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "pager.*",
    "alias.*",
    "interactive.difffilter",
];

fn dangerous(print: &Fingerprint) -> Vec<String> {
    let mut found = Vec::new();
    if let Some(config) = &print.config {
        found.extend(dangerous_keys(&String::from_utf8_lossy(config)));
    }
    found.extend(print.hooks.keys().map(|h| format!("hooks/{}", clean(h))));
    found
}

/// The keys of a git config text that run programs, as `key = value`.
pub fn dangerous_keys(config: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut section = String::new();
    let mut sub: Option<String> = None;
    for line in config.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let mut rest = line;
        if let Some(header) = line.strip_prefix('[') {
            let Some((inside, after)) = header.split_once(']') else {
                continue;
            };
            match inside.split_once(char::is_whitespace) {
                Some((name, subsection)) => {
                    section = name.to_ascii_lowercase();
                    sub = Some(subsection.trim().trim_matches('"').to_string());
                }
                None => match inside.split_once('.') {
                    Some((name, subsection)) => {
                        section = name.to_ascii_lowercase();
                        sub = Some(subsection.to_string());
                    }
                    None => {
                        section = inside.trim().to_ascii_lowercase();
                        sub = None;
                    }
                },
            }
            // `[core] fsmonitor = x` on one line is valid git config.
            rest = after.trim();
            if rest.is_empty() {
                continue;
            }
        }
        let (key, value) = match rest.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (rest, "true"),
        };
        let key = key.to_ascii_lowercase();
        let matches = RUNS_PROGRAMS.iter().any(|pattern| {
            let parts: Vec<&str> = pattern.split('.').collect();
            match (parts.as_slice(), &sub) {
                ([s, k], None) => *s == section && (*k == "*" || *k == key),
                ([s, "*"], Some(_)) => *s == section,
                ([s, "*", k], Some(_)) => *s == section && *k == key,
                _ => false,
            }
        });
        if matches {
            let name = match &sub {
                Some(sub) => format!("{section}.{}.{key}", clean(sub)),
                None => format!("{section}.{key}"),
            };
            let mut value = clean(value);
            if value.chars().count() > 80 {
                value = value.chars().take(80).collect::<String>() + "…";
            }
            found.push(format!("{name} = {value}"));
        }
    }
    found
}

/// The text without control characters (it reaches the user's terminal).
fn clean(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_run_programs_are_named_with_their_values() {
        let config = "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ./x.sh\n\
                      [filter \"lfs\"]\n\tsmudge = evil %f\n[include]\n\tpath = ../other\n\
                      [remote \"origin\"]\n\turl = x\n\tuploadpack = sh -c boom\n\
                      [alias]\n\tst = !sh -c id\n[user]\n\tname = x\n[core] hooksPath = h\n";
        assert_eq!(
            dangerous_keys(config),
            [
                "core.fsmonitor = ./x.sh",
                "filter.lfs.smudge = evil %f",
                "include.path = ../other",
                "remote.origin.uploadpack = sh -c boom",
                "alias.st = !sh -c id",
                "core.hookspath = h",
            ]
        );
        assert!(dangerous_keys("[core]\n\tbare = false\n[user]\nname = me\n").is_empty());
    }

    #[test]
    fn a_value_loses_its_control_characters() {
        let found = dangerous_keys("[core]\nfsmonitor = a\u{1b}]11;#000000\u{7}b\n");
        assert_eq!(found, ["core.fsmonitor = a]11;#000000b"]);
    }

    #[test]
    fn nested_repositories_are_found_and_changes_told() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(root.join("a/b/.git")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x/.git")).unwrap();
        std::fs::write(root.join("sub.git"), "").unwrap();
        std::fs::create_dir_all(root.join("wt")).unwrap();
        std::fs::write(root.join("wt/.git"), "gitdir: ../.git/worktrees/wt\n").unwrap();
        let found = find(root);
        assert!(found.complete);
        assert_eq!(
            found.paths,
            [
                root.join(".git"),
                root.join("a/b/.git"),
                root.join("wt/.git")
            ]
        );

        let before = GitSnapshot::take(root);
        assert!(GitSnapshot::take(root).changes_since(&before).is_empty());
        std::fs::create_dir_all(root.join("c/.git")).unwrap();
        std::fs::write(root.join("c/.git/config"), "[core]\nfsmonitor = x\n").unwrap();
        std::fs::write(root.join(".git/hooks/pre-commit"), "#!/bin/sh\n").unwrap();
        std::fs::write(root.join(".git/hooks/pre-push.sample"), "").unwrap();
        let changes = GitSnapshot::take(root).changes_since(&before);
        assert_eq!(changes.len(), 2, "{changes:?}");
        assert_eq!(
            changes[0],
            GitChange {
                path: root.join(".git"),
                new: false,
                dangerous: vec!["hooks/pre-commit".to_string()],
            }
        );
        assert!(changes[1].new);
        assert_eq!(
            changes[1].describe(root),
            format!(
                "The command created a git repository at {}, which runs programs when anyone \
                 (an editor too) runs git there: core.fsmonitor = x. Check it before you use git \
                 in that folder.",
                Path::new("c").join(".git").display()
            )
        );
    }

    /// A bare repository (`x.git`) or a git directory by any name is a repository git runs in,
    /// found as a `.git` is; a folder that only looks like one in part is not.
    #[test]
    fn a_git_directory_by_another_name_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for repo in ["x.git", "vendor/data"] {
            std::fs::create_dir_all(root.join(repo).join("objects")).unwrap();
            std::fs::create_dir_all(root.join(repo).join("refs")).unwrap();
            std::fs::write(root.join(repo).join("HEAD"), "ref: refs/heads/main\n").unwrap();
        }
        std::fs::create_dir_all(root.join("half/objects")).unwrap();
        std::fs::write(root.join("half/HEAD"), "").unwrap();
        assert_eq!(
            find(root).paths,
            [root.join("vendor/data"), root.join("x.git")]
        );
        let before = GitSnapshot::take(root);
        std::fs::write(root.join("x.git/config"), "[core]\nfsmonitor = ./evil\n").unwrap();
        let changes = GitSnapshot::take(root).changes_since(&before);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].dangerous, ["core.fsmonitor = ./evil"]);
    }
}
