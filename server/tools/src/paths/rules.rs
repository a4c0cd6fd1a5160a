//! The path rules of each OS, as pure functions of the text the model gave: which forms never
//! name a file in the workspace, and which names are the repository's `.git`. They take the OS
//! as an argument, so every platform's tests check Windows' and macOS' rules too; the resolver
//! applies [`Platform::CURRENT`]'s.
//!
//! Containment itself is judged on real paths (canonicalised, so in the disk's own letter case),
//! not here: a case-insensitive comparison would be wrong on a case-sensitive macOS volume.

/// Whose rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    /// Linux and the BSDs: `/` only, case-sensitive.
    Unix,
    /// `/` only; the default file system (APFS) is case-insensitive.
    MacOs,
    /// `\` and `/`, drive letters, UNC and `\\?\` prefixes, device names, streams after `:`;
    /// case-insensitive.
    Windows,
}

impl Platform {
    pub const CURRENT: Platform = if cfg!(windows) {
        Platform::Windows
    } else if cfg!(target_os = "macos") {
        Platform::MacOs
    } else {
        Platform::Unix
    };

    fn is_separator(self, c: char) -> bool {
        c == '/' || (self == Platform::Windows && c == '\\')
    }

    /// The names between separators (empty ones and the anchor's included, as written).
    pub fn components(self, given: &str) -> impl Iterator<Item = &str> {
        given.split(move |c| self.is_separator(c))
    }
}

/// Why `given` can never name a file inside the workspace under `os`'s rules, whatever the
/// disk holds; `None` if it may (it is then folded and checked against the real root).
pub fn foreign_form(given: &str, os: Platform) -> Option<&'static str> {
    if given.contains('\0') {
        return Some("it contains a NUL byte");
    }
    if given.starts_with('~') {
        return Some("`~` (a home directory) is not expanded and lies outside");
    }
    let b = given.as_bytes();
    let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    let sep = |i: usize| b.get(i).is_some_and(|&c| os.is_separator(c as char));
    match os {
        Platform::Windows => {
            let rest = match given.get(..4) {
                // `\\?\C:\...` is a drive path written verbatim; `\\?\UNC\...`, `\\.\...`
                // (devices, pipes) and `\??\...` are not files of the workspace.
                Some(p) if p == r"\\?\" || p == "//?/" => {
                    let rest = &given[4..];
                    let r = rest.as_bytes();
                    if !(r.len() >= 3
                        && r[0].is_ascii_alphabetic()
                        && r[1] == b':'
                        && r[2] == b'\\')
                    {
                        return Some("it is a verbatim (`\\\\?\\`) path to a share or a device");
                    }
                    rest
                }
                _ if sep(0) && sep(1) => {
                    return Some("it is a UNC (network share) or device path");
                }
                _ if sep(0) => return Some("it is a Windows root-relative path"),
                _ if drive && !sep(2) => {
                    return Some("it has a drive letter without a root (relative to that drive)");
                }
                _ => given,
            };
            let names = Platform::Windows
                .components(rest)
                .skip(usize::from(drive_anchor(rest)));
            for name in names {
                if name.contains(':') {
                    return Some("a `:` in a name names an alternate data stream");
                }
                if is_device_name(name) {
                    return Some("it names a Windows device (CON, NUL, COM1, ...), not a file");
                }
            }
            None
        }
        Platform::Unix | Platform::MacOs => {
            if given.starts_with("//") {
                return Some("it is a UNC (network share) path");
            }
            // Not a path on this OS, but meant as one elsewhere: say so rather than create
            // a file named `C:\x` in the workspace.
            if drive || given.starts_with('\\') {
                return Some("it is a Windows path (a drive letter or `\\`), not one of this OS");
            }
            None
        }
    }
}

fn drive_anchor(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

/// Windows' reserved device names: `CON`, `nul.txt`, `COM1 ` open a device in any directory.
fn is_device_name(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or("").trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" => true,
        _ => {
            let b = upper.as_bytes();
            b.len() == 4
                && (upper.starts_with("COM") || upper.starts_with("LPT"))
                && matches!(b[3], b'1'..=b'9')
        }
    }
}

/// Whether `name` is the repository's `.git` on some OS that may hold this workspace, as git
/// itself judges (its `core.protectNTFS` and `core.protectHFS`, on by default everywhere): any
/// letter case, trailing dots and spaces (Windows drops them), the 8.3 short name `GIT~1`, and
/// characters macOS ignores in names (zero-width joiners and the like).
pub fn is_git_dir_name(name: &str) -> bool {
    let visible: String = name.chars().filter(|c| !is_hfs_ignored(*c)).collect();
    let trimmed = visible.trim_end_matches(['.', ' ']);
    if trimmed.eq_ignore_ascii_case(".git") {
        return true;
    }
    let upper = trimmed.to_ascii_uppercase();
    upper
        .strip_prefix("GIT~")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Characters HFS+ ignores when comparing names (git's list in `is_hfs_dotgit`).
fn is_hfs_ignored(c: char) -> bool {
    matches!(
        c,
        '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}'
    )
}

/// Whether any name of `given` is a `.git` (see [`is_git_dir_name`]), split by `os`'s rules;
/// on Windows a name's `::$INDEX_ALLOCATION` or other stream suffix counts as the name.
pub fn names_git_dir(given: &str, os: Platform) -> bool {
    os.components(given).any(|name| {
        let name = match os {
            Platform::Windows => name.split(':').next().unwrap_or(name),
            Platform::Unix | Platform::MacOs => name,
        };
        is_git_dir_name(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Platform; 3] = [Platform::Unix, Platform::MacOs, Platform::Windows];

    #[test]
    fn git_in_any_letter_case_or_disguise_is_git_on_every_os() {
        for os in ALL {
            for p in [
                ".git/config",
                ".GIT/config",
                ".Git/hooks/pre-commit",
                "sub/.gIt/HEAD",
                ".git./config",
                ".git /config",
                ".git. . /config",
                "GIT~1/config",
                "git~12/hooks",
                ".g\u{200c}it/config",
                "\u{feff}.GIT/hooks",
                ".git",
            ] {
                assert!(names_git_dir(p, os), "{os:?}: {p}");
            }
            for p in [
                ".gitignore",
                ".github/x",
                "git/x",
                "a.git/x",
                "git~/x",
                ".gitx",
            ] {
                assert!(!names_git_dir(p, os), "{os:?}: {p}");
            }
        }
        assert!(names_git_dir(r"sub\.GIT\config", Platform::Windows));
        assert!(names_git_dir(
            r".git::$INDEX_ALLOCATION\config",
            Platform::Windows
        ));
        // On Unix `\` is a character of a name: `sub\.GIT\config` is one file, not in a .git.
        assert!(!names_git_dir(r"sub\.GIT\config", Platform::Unix));
    }

    #[test]
    fn windows_forms_outside_any_workspace_are_refused_on_windows() {
        for p in [
            r"\\server\share\x",
            "//server/share/x",
            r"\\?\UNC\server\share\x",
            r"\\.\PhysicalDrive0",
            r"\\.\pipe\p",
            r"\\?\GLOBALROOT\Device\x",
            r"\x",
            "/x",
            "C:x",
            "c:",
            r"C:\ws\a.txt:secret",
            r"c:\ws\.git::$INDEX_ALLOCATION\config",
            "CON",
            r"sub\nul.txt",
            "com1",
            "LPT9.log",
            "aux .md",
            "conin$",
            "a\0b",
            "~/x",
        ] {
            assert!(foreign_form(p, Platform::Windows).is_some(), "{p}");
        }
        for p in [
            r"C:\ws\x",
            r"c:\ws\x",
            "c:/ws/x",
            r"\\?\C:\ws\x",
            r"src\main.rs",
            "src/main.rs",
            "console.log",
            "com10",
            "com.txt",
            ".git/x",
        ] {
            assert_eq!(foreign_form(p, Platform::Windows), None, "{p}");
        }
    }

    #[test]
    fn windows_forms_are_refused_on_unix_and_macos() {
        for os in [Platform::Unix, Platform::MacOs] {
            for p in [
                r"C:\x",
                "c:/x",
                "C:",
                r"\x",
                r"\\server\share",
                "//server/share",
                "~",
            ] {
                assert!(foreign_form(p, os).is_some(), "{os:?}: {p}");
            }
            // What is a device or a stream on Windows is an ordinary name here.
            for p in ["/ws/x", "src/main.rs", "CON", "x/a:b", "nul.txt"] {
                assert_eq!(foreign_form(p, os), None, "{os:?}: {p}");
            }
        }
    }
}
