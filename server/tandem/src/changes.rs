//! `@changes` at the terminal: the workspace's uncommitted changes, as `git diff` shows them, for
//! the user's prompt. The user asked for it, so git runs outside the sandbox, but with the repo
//! config that would run programs switched off (a cloned repository's `.git/config` is not the
//! user's): no fsmonitor, no external diff, no textconv filters, and none of the clean, smudge or
//! process filters the repository's own config defines (a `.gitattributes` line names them, and
//! `git diff` runs a clean filter on every file it compares). The user's own filters (git-lfs's,
//! in their global config) still run: they are the user's programs.

use std::path::Path;
use std::process::{Command, Stdio};

/// How the error for a git that can't be run begins.
const NO_GIT: &str = "could not run git for @changes";

/// The most of git's output read; the prompt cuts it further.
const MAX_BYTES: usize = 1024 * 1024;

/// [`uncommitted`] of each folder of a session: of the root alone, as is, when it is the only
/// one; else each under a `## FOLDER` heading, a folder that is no git repository said so
/// rather than failing the whole.
pub fn uncommitted_in(root: &Path, additional: &[std::path::PathBuf]) -> Result<String, String> {
    if additional.is_empty() {
        return uncommitted(root);
    }
    let mut out = String::new();
    for folder in std::iter::once(root).chain(additional.iter().map(|p| p.as_path())) {
        let text = match git(folder, &["rev-parse", "--is-inside-work-tree"]) {
            Ok(_) => uncommitted(folder)?,
            // git missing is said as such, not as every folder being no repository.
            Err(e) if e.starts_with(NO_GIT) => return Err(e),
            Err(_) => "Not a git repository.".to_string(),
        };
        out.push_str(&format!("## {}\n{}\n", folder.display(), text.trim_end()));
    }
    Ok(out)
}

/// The diff of the working tree (staged and not) against `HEAD`, then the untracked files by
/// name; a repository without commits yet diffs against the empty tree.
pub fn uncommitted(root: &Path) -> Result<String, String> {
    let head = if git(root, &["rev-parse", "--verify", "--quiet", "HEAD"]).is_ok() {
        "HEAD"
    } else {
        // git's empty tree: every staged file is new.
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    };
    let diff = git(
        root,
        &["diff", head, "--no-color", "--no-ext-diff", "--no-textconv"],
    )?;
    let untracked = git(root, &["ls-files", "--others", "--exclude-standard", "-z"])?;
    let untracked: Vec<&str> = untracked.split('\0').filter(|p| !p.is_empty()).collect();
    let mut out = diff;
    if !untracked.is_empty() {
        out.push_str(&format!("\nUntracked files ({}):\n", untracked.len()));
        for path in untracked {
            out.push_str(path);
            out.push('\n');
        }
    }
    if out.trim().is_empty() {
        return Ok("No uncommitted changes.".into());
    }
    Ok(out)
}

/// `-c KEY=` for every filter command the repository's own config (`.git/config`, a worktree's,
/// and the files they include) sets: an empty command is no filter. Reading the config runs
/// nothing.
fn repository_filters_off(root: &Path) -> Vec<String> {
    let Ok(output) = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "config",
            "--includes",
            "--show-scope",
            "--name-only",
            "--get-regexp",
        ])
        .arg(r"^filter\..*\.(clean|smudge|process)$")
        .stdin(Stdio::null())
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .filter(|(scope, _)| matches!(*scope, "local" | "worktree"))
        .flat_map(|(_, key)| ["-c".to_string(), format!("{key}=")])
        .collect()
}

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.fsmonitor=false", "-c", "diff.external="])
        .args(repository_filters_off(root))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{NO_GIT}: {e}; is git installed?"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "git {} failed in {} ({}): {}",
            args.first().unwrap_or(&""),
            root.display(),
            output.status,
            stderr.trim()
        ));
    }
    let mut bytes = output.stdout;
    bytes.truncate(MAX_BYTES);
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(root: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn staged_unstaged_and_untracked_changes_and_a_repo_without_commits() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        run(root, &["init", "-q"]);
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        run(root, &["add", "a.txt"]);
        // No commit yet: staged files are new.
        let first = uncommitted(root).unwrap();
        assert!(first.contains("+one"), "{first}");
        run(root, &["commit", "-qm", "first"]);
        assert_eq!(uncommitted(root).unwrap(), "No uncommitted changes.");
        std::fs::write(root.join("a.txt"), "two\n").unwrap();
        std::fs::write(root.join("new.txt"), "x").unwrap();
        let out = uncommitted(root).unwrap();
        assert!(out.contains("-one") && out.contains("+two"), "{out}");
        assert!(out.contains("Untracked files (1):\nnew.txt"), "{out}");
    }

    #[test]
    fn each_folder_of_a_session_has_its_changes_under_its_name() {
        let (a, b, plain) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        for (dir, text) in [(a.path(), "in a\n"), (b.path(), "in b\n")] {
            run(dir, &["init", "-q"]);
            std::fs::write(dir.join("f.txt"), text).unwrap();
            run(dir, &["add", "f.txt"]);
        }
        let out = uncommitted_in(
            a.path(),
            &[b.path().to_path_buf(), plain.path().to_path_buf()],
        )
        .unwrap();
        let heading = |p: &Path| format!("## {}\n", p.display());
        let (at_a, at_b, at_plain) = (
            out.find(&heading(a.path())).unwrap(),
            out.find(&heading(b.path())).unwrap(),
            out.find(&heading(plain.path())).unwrap(),
        );
        assert!(at_a < at_b && at_b < at_plain, "{out}");
        assert!(out[at_a..at_b].contains("+in a"), "{out}");
        assert!(out[at_b..at_plain].contains("+in b"), "{out}");
        assert!(out[at_plain..].contains("Not a git repository."), "{out}");
        // One folder: as before, no heading.
        assert!(!uncommitted_in(a.path(), &[]).unwrap().contains("## "));
    }

    #[test]
    fn a_repositorys_own_config_runs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        run(root, &["init", "-q"]);
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        run(root, &["add", "a.txt"]);
        run(root, &["commit", "-qm", "first"]);
        let mark = root.join("ran");
        let evil = format!("touch {}", mark.display());
        for key in ["core.fsmonitor", "diff.external"] {
            run(root, &["config", key, &evil]);
        }
        std::fs::write(root.join(".gitattributes"), "*.txt diff=evil filter=evil\n").unwrap();
        run(root, &["config", "diff.evil.textconv", &evil]);
        // A clean filter runs on every file `git diff` compares with the index; so would a
        // process filter, here from a file the repository's config includes.
        run(root, &["config", "filter.evil.clean", &evil]);
        std::fs::write(
            root.join("included"),
            format!("[filter \"evil\"]\n\tprocess = {evil}\n"),
        )
        .unwrap();
        run(root, &["config", "include.path", "../included"]);
        std::fs::write(root.join("a.txt"), "two\n").unwrap();
        let out = uncommitted(root).unwrap();
        assert!(out.contains("+two"), "{out}");
        assert!(!mark.exists(), "the repository's config ran a program");
    }

    #[test]
    fn outside_a_repository_it_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let err = uncommitted(dir.path()).unwrap_err();
        assert!(err.contains("failed"), "{err}");
    }
}
