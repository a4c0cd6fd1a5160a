//! Where a path in a line may lead, as the shell and the kernel take it: `cd` folded logically
//! (the shell moves textually, `cd link/..` is where `cd` started), and what a glob may expand
//! to, links in the tree it walks followed.

use std::path::{Component, Path, PathBuf};

/// `path` with `.` and `..` folded textually, as `cd` (without `-P`) does.
pub(crate) fn logical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("/");
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The most entries a glob's walk looks at before it gives up (and the line asks).
const BUDGET: usize = 4096;

/// Whether every file the glob `pattern` (relative, quotes as written) may expand to from `cwd`
/// stays where `inside` says, links followed: the directory before its first glob character,
/// and every entry it matches on the way, a link to a directory or a file outside included.
pub(crate) fn glob_stays(cwd: &Path, pattern: &str, inside: &dyn Fn(&Path) -> bool) -> bool {
    let cleaned: String = pattern
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '\\'))
        .collect();
    let parts: Vec<&str> = cleaned.split('/').filter(|p| !p.is_empty()).collect();
    let first_glob = parts.iter().position(|p| is_glob(p)).unwrap_or(parts.len());
    let mut dir = cwd.to_path_buf();
    for part in &parts[..first_glob] {
        dir.push(part);
    }
    if !inside(&dir) {
        return false;
    }
    let mut budget = BUDGET;
    walk(&dir, &parts[first_glob..], inside, &mut budget)
}

fn walk(dir: &Path, parts: &[&str], inside: &dyn Fn(&Path) -> bool, budget: &mut usize) -> bool {
    let Some((part, rest)) = parts.split_first() else {
        return true;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        // Nothing to expand here: the shell keeps the word as written.
        return true;
    };
    let pieces = pieces(part);
    for entry in entries.flatten() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return false;
        };
        if !matches(&pieces, &name.chars().collect::<Vec<_>>()) {
            continue;
        }
        let path = entry.path();
        if !inside(&path) {
            return false;
        }
        if !rest.is_empty() && path.is_dir() && !walk(&path, rest, inside, budget) {
            return false;
        }
    }
    true
}

fn is_glob(part: &str) -> bool {
    part.contains(['*', '?', '[', ']', '{', '}'])
}

/// A glob component: `None` for what may be any text (`*`, `?`, a class, a brace), over-broad
/// on purpose (a class matches more than its characters).
fn pieces(part: &str) -> Vec<Option<char>> {
    let mut out = Vec::new();
    let mut chars = part.chars();
    while let Some(c) = chars.next() {
        match c {
            '*' | '?' => out.push(None),
            '[' => {
                out.push(None);
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                }
            }
            '{' => {
                out.push(None);
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            c => out.push(Some(c)),
        }
    }
    out
}

fn matches(pieces: &[Option<char>], name: &[char]) -> bool {
    match pieces.split_first() {
        None => name.is_empty(),
        Some((None, rest)) => (0..=name.len()).any(|i| matches(rest, &name[i..])),
        Some((Some(c), rest)) => name.first() == Some(c) && matches(rest, &name[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cd_folds_textually() {
        assert_eq!(logical(Path::new("/w/link/../../..")), PathBuf::from("/"));
        assert_eq!(logical(Path::new("/w/a/./b/..")), PathBuf::from("/w/a"));
        assert_eq!(logical(Path::new("/../..")), PathBuf::from("/"));
    }

    #[test]
    fn glob_pieces_match_over_broadly() {
        let m = |p: &str, n: &str| matches(&pieces(p), &n.chars().collect::<Vec<_>>());
        assert!(m("*.rs", "a.rs"));
        assert!(!m("*.rs", "out"));
        assert!(m("x[abc]", "xq"));
        assert!(m("{a,b}.txt", "zz.txt"));
        assert!(m("*", ".hidden"));
    }
}
