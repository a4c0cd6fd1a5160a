//! The commands that run unasked inside the walls with no rule at all: they read and print,
//! and none of the options they are admitted with writes a file, runs another program or loads
//! code (in the spirit of Codex's safe commands). Only while the sandbox holds; with no sandbox
//! nothing is admitted by default. Keep this table and docs/security.md the same.

use crate::shell::Word;

struct ReadOnly {
    name: &'static str,
    /// Long options refused: the same, an abbreviation or a longer spelling (as the allow-list's).
    long: &'static [&'static str],
    /// Short option letters refused anywhere in a `-abc` word.
    short: &'static [char],
    /// Whole words refused (`find -exec`).
    words: &'static [&'static str],
    /// Any further word is harmless, expanded or not (`echo`).
    any_word: bool,
}

const fn plain(name: &'static str) -> ReadOnly {
    ReadOnly {
        name,
        long: &[],
        short: &[],
        words: &[],
        any_word: false,
    }
}

const LIST: &[ReadOnly] = &[
    plain("cat"),
    plain("head"),
    plain("tail"),
    plain("wc"),
    plain("pwd"),
    plain("true"),
    plain("false"),
    plain("basename"),
    plain("dirname"),
    plain("realpath"),
    plain("readlink"),
    plain("nl"),
    plain("rev"),
    plain("tac"),
    plain("seq"),
    plain("uname"),
    plain("whoami"),
    plain("id"),
    plain("stat"),
    plain("df"),
    plain("cut"),
    plain("tr"),
    plain("paste"),
    plain("comm"),
    plain("cmp"),
    plain("which"),
    plain("strings"),
    plain("od"),
    plain("hexdump"),
    plain("md5sum"),
    plain("sha1sum"),
    plain("sha256sum"),
    plain("sha512sum"),
    plain("cksum"),
    plain("column"),
    plain("jq"),
    plain("sleep"),
    plain("nproc"),
    plain("printenv"),
    ReadOnly {
        any_word: true,
        ..plain("echo")
    },
    // `printf -v NAME` sets a shell variable (PATH included).
    ReadOnly {
        short: &['v'],
        ..plain("printf")
    },
    ReadOnly {
        long: &["--set"],
        short: &['s'],
        ..plain("date")
    },
    // `-T DIR` writes its temporary files there.
    ReadOnly {
        long: &["--output", "--compress-program", "--temporary-directory"],
        short: &['o', 'T'],
        ..plain("sort")
    },
    // `-o` writes the listing, `-R` reruns itself with `-o 00Tree.html` in every directory;
    // `-l` follows links to directories.
    ReadOnly {
        long: &["--fromfile", "--output"],
        short: &['o', 'R', 'l'],
        ..plain("tree")
    },
    // `--pre` and `-z` run other programs on each file; `--hostname-bin` runs one; `-L` follows
    // links out of the tree it searches.
    ReadOnly {
        long: &[
            "--pre",
            "--pre-glob",
            "--search-zip",
            "--hostname-bin",
            "--follow",
        ],
        short: &['z', 'L'],
        ..plain("rg")
    },
    ReadOnly {
        long: &["--exec", "--exec-batch", "--follow"],
        short: &['x', 'X', 'L'],
        ..plain("fd")
    },
    // `-L` and `-follow` follow links out of the tree.
    ReadOnly {
        words: &[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls", "-L", "-follow",
        ],
        ..plain("find")
    },
    // `-L` follows links (`ls -R -L` lists a tree outside).
    ReadOnly {
        long: &["--dereference"],
        short: &['L'],
        ..plain("ls")
    },
    ReadOnly {
        long: &["--dereference"],
        short: &['L'],
        ..plain("du")
    },
    // `-R` follows every link in the tree it searches.
    ReadOnly {
        long: &["--dereference-recursive"],
        short: &['R'],
        ..plain("grep")
    },
    ReadOnly {
        long: &["--dereference-recursive"],
        short: &['R'],
        ..plain("egrep")
    },
    ReadOnly {
        long: &["--dereference-recursive"],
        short: &['R'],
        ..plain("fgrep")
    },
    // `diff -r` reads what the links in both trees point to.
    ReadOnly {
        long: &["--recursive"],
        short: &['r'],
        ..plain("diff")
    },
    // `-C` compiles a magic file, writing `NAME.mgc`.
    ReadOnly {
        long: &["--compile"],
        short: &['C'],
        ..plain("file")
    },
    // `-v NAME[SUB]` and `-R` evaluate an array subscript, which runs `$(...)` in it.
    ReadOnly {
        words: &["-v", "-R"],
        ..plain("test")
    },
    ReadOnly {
        words: &["-v", "-R"],
        ..plain("[")
    },
    // `uniq IN OUT` writes OUT: one file operand at most (`uniq_operands`).
    plain("uniq"),
];

/// `git` subcommands that only read (git's own deny list of the allow-list applies too).
const GIT_READING: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "rev-parse",
    "ls-files",
    "blame",
    "grep",
    "describe",
    "shortlog",
    "show-ref",
    "ls-tree",
    "cat-file",
    "merge-base",
    "branch",
    "remote",
];

/// For `git branch` and `git remote` (which also create and delete): only these listing options.
const GIT_LISTING: &[&str] = &[
    "-a",
    "-r",
    "-v",
    "-vv",
    "-l",
    "--list",
    "--all",
    "--remotes",
    "--verbose",
    "--show-current",
];

/// Whether the program's words may name files (all but `echo`'s).
pub(crate) fn names_files(program: &str) -> bool {
    !LIST.iter().any(|e| e.name == program && e.any_word)
}

/// `None`: not on the list. `Some(Err(why))`: on it, but these words are not admitted.
pub(crate) fn judge(words: &[Word]) -> Option<Result<(), String>> {
    let program = words.first()?;
    if program.text == "git" {
        return Some(git(&words[1..]));
    }
    if program.text == "sed" {
        return Some(sed(&words[1..]));
    }
    let entry = LIST.iter().find(|e| e.name == program.text)?;
    Some(
        words[1..]
            .iter()
            .try_for_each(|w| check(entry, w))
            .and_then(|()| match program.text.as_str() {
                "uniq" => uniq_operands(&words[1..]),
                _ => Ok(()),
            }),
    )
}

fn check(entry: &ReadOnly, word: &Word) -> Result<(), String> {
    if entry.any_word {
        return Ok(());
    }
    if !word.known {
        return if word.may_be_option {
            Err(format!(
                "`{}` is expanded by the shell and may become an option of `{}`",
                word.text, entry.name
            ))
        } else {
            Ok(())
        };
    }
    let w = word.text.as_str();
    if let Some(bad) = entry.words.iter().find(|d| w == **d) {
        return Err(format!("`{bad}` runs a program or changes files"));
    }
    crate::allow::option_denied(w, entry.long, entry.short).map_or(Ok(()), |denied| {
        Err(format!(
            "`{w}` is or may stand for `{denied}` of `{}`, which writes a file or runs a program",
            entry.name
        ))
    })
}

/// `uniq [OPTION]... [INPUT [OUTPUT]]`: a second operand is a file it writes.
fn uniq_operands(rest: &[Word]) -> Result<(), String> {
    let mut operands = 0;
    let mut options = true;
    let mut words = rest.iter();
    while let Some(w) = words.next() {
        let t = w.text.as_str();
        if options && w.known && t == "--" {
            options = false;
        } else if options && w.known && t.starts_with('-') && t.len() > 1 {
            // Options with a separate value: `-f N`, `-s N`, `-w N`.
            if matches!(t, "-f" | "-s" | "-w") {
                words.next();
            }
        } else {
            operands += 1;
        }
    }
    if operands > 1 {
        return Err("`uniq IN OUT` writes its second file".to_string());
    }
    Ok(())
}

fn git(rest: &[Word]) -> Result<(), String> {
    crate::allow::check_rest_words("git", rest)?;
    let Some(sub) = rest.iter().find(|w| !w.text.starts_with('-')) else {
        return Err("`git` with no subcommand".to_string());
    };
    if !sub.known || !GIT_READING.contains(&sub.text.as_str()) {
        return Err(format!(
            "`git {}` is not one of git's reading subcommands",
            sub.text
        ));
    }
    let before = rest.iter().take_while(|w| w.text.starts_with('-'));
    if let Some(global) = before
        .clone()
        .find(|w| w.text != "--no-pager" && w.text != "-P")
    {
        return Err(format!("`git {}` before the subcommand", global.text));
    }
    if matches!(sub.text.as_str(), "branch" | "remote") {
        let after = rest.iter().skip_while(|w| *w != sub).skip(1);
        if let Some(w) = after
            .clone()
            .find(|w| !GIT_LISTING.contains(&w.text.as_str()))
        {
            return Err(format!(
                "`git {} {}` may create, rename or delete",
                sub.text, w.text
            ));
        }
    }
    Ok(())
}

/// `sed -n 'N,Mp' FILE...` only: printing lines. Any other script may write (`w`) or run (`e`).
fn sed(rest: &[Word]) -> Result<(), String> {
    let printing = |s: &str| {
        let s = s.strip_suffix('p').unwrap_or("x");
        !s.is_empty()
            && s.split(',').count() <= 2
            && s.split(',')
                .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '$'))
    };
    match rest {
        [n, script, files @ ..]
            if n.known
                && n.text == "-n"
                && script.known
                && printing(&script.text)
                && files.iter().all(|f| !f.may_be_option) =>
        {
            Ok(())
        }
        _ => Err("`sed` is admitted only as `sed -n 'N,Mp' FILE` (printing lines)".to_string()),
    }
}
