//! The allow-list: which command lines run without asking the user.
//!
//! An entry is a command line the user trusts, e.g. `cargo test` or `git status`. A command runs
//! unasked only if **every** rule below holds; otherwise the user is asked (nothing is refused
//! outright, so a false "ask" costs one click and a false "allow" costs the machine).
//!
//! 1. **Characters.** Every character of the command is a letter or digit (any script), a space,
//!    a tab, or one of `- _ . / : = @ % + , ' "`; a `~` is admitted only right after a letter or
//!    digit (`HEAD~1`), never where a shell expands it (`~/x`, `--dir=~/x`, `a:~/x`). Everything
//!    else asks, quoted or not: the operators `; & | < > ( )`, `$` and backticks (substitution),
//!    `\`, the glob and brace characters `* ? [ ] { }` (a file the model named `--config=x` would
//!    become an option), `! # ^`, newlines, carriage returns and every other control or
//!    whitespace character. With this alphabet `sh`, `bash`, `dash`, `zsh` and `fish` all split the
//!    line into the same words, which is what makes rule 3 sound.
//! 2. **Word starts.** No word may begin with `=` (zsh replaces `=cmd` with a path) or `%`
//!    (fish's process expansion).
//! 3. **Parsing.** The line is split into words by POSIX rules (the `shell-words` crate). A line
//!    that does not split cleanly (an unclosed quote) or has no words asks.
//! 4. **The entry's words come first, whole.** The command's first words must equal the entry's
//!    words exactly, word for word, after unquoting. The program is compared as written: `cargo`
//!    does not admit `/tmp/x/cargo`, `./cargo` or `RUSTC_WRAPPER=x cargo`; `cargo test` does not
//!    admit `cargo +nightly test`, `cargo -C dir test`, `cargo --config x test` or `cargo testx`.
//! 5. **Further words.** After the entry's words, any number of plain arguments and options
//!    follow, except the options on the program's deny list (below): options that load code or
//!    configuration from elsewhere, or move the working tree, the repository or the output. Every
//!    word is checked, also after `--`, also where it might be the value of another option.
//!    * A long option `--name` or `--name=value` is denied when `--name` and a denied option are
//!      the same or one is a prefix of the other: abbreviations (`--conf`, which git and
//!      getopt accept for `--config`) and longer spellings (`--config-env`) count.
//!    * A short option word `-abc` (one dash, then at least one character) is denied when any
//!      character after the dash is a denied letter, whether the program would read it as a
//!      flag or as a glued value: `-Zunstable-options`, `-qZx` and `-Cdir` all ask.
//!    * The entry's own words are the user's and are never checked.
//!
//! Deny lists, by the program word's file name:
//!
//! | program | long options | short letters | also |
//! |---|---|---|---|
//! | `cargo` | `--config --manifest-path --target-dir --artifact-dir --out-dir --lockfile-path` | `Z C` | any word starting with `+` (a toolchain) |
//! | `git` | `--config --config-env --exec-path --git-dir --work-tree --namespace --super-prefix --upload-pack --receive-pack --exec --ext-diff --output --output-directory --open-files-in-pager --template --separate-git-dir --extcmd` | `c C u O x o` | |
//! | `npm` `pnpm` `yarn` | `--prefix --dir --userconfig --globalconfig --script-shell --node-options --call --config` | `C c` | |
//! | `make` `gmake` | `--file --makefile --directory --include-dir --eval` | `f C I E` | any word with `=` not starting with `-` (a variable override, e.g. `SHELL=`) |
//!
//! Any other program has no deny list: its entry admits every further word that passes rules
//! 1 to 3. An entry made of a program name alone (`git`) admits all of that program's
//! subcommands (`git config core.fsmonitor ...` included); entries should name the subcommand.
//!
//! What the list cannot see: files the model wrote run anyway when an admitted command reads
//! them (`build.rs`, `.cargo/config.toml`, `rust-toolchain.toml`, `package.json` scripts, a
//! `Makefile`). That is why allow-listed commands must run inside the sandbox
//! ([`crate::confine`]), and why without one nothing should run unasked.

use crate::programs::{self, DenyList};
use crate::shell::Word;

/// The user's allow-list entries, parsed once.
#[derive(Clone, Debug, Default)]
pub struct AllowList {
    entries: Vec<Entry>,
    unusable: Vec<(String, String)>,
}

#[derive(Clone, Debug)]
struct Entry {
    text: String,
    words: Vec<String>,
}

/// What to do with a command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Runs without asking.
    Allowed {
        /// The entry that admitted it, as the user wrote it.
        entry: String,
        /// The words the line splits into. Running these directly (no shell) runs exactly what
        /// was checked, whatever the user's shell would have made of the line.
        argv: Vec<String>,
    },
    /// The user must be asked; the reason says which rule the line failed.
    Ask { reason: String },
}

impl Verdict {
    pub fn is_allowed(&self) -> bool {
        matches!(self, Verdict::Allowed { .. })
    }
}

impl AllowList {
    /// Parses the entries. An entry that breaks rules 1 to 3 itself never admits anything; it is
    /// kept, with the reason, in [`AllowList::unusable`] so the caller can tell the user.
    pub fn new<I, S>(entries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut list = AllowList::default();
        for entry in entries {
            let text = entry.as_ref().trim().to_string();
            match split_checked(&text) {
                Ok(words) => list.entries.push(Entry { text, words }),
                Err(reason) => list.unusable.push((text, reason)),
            }
        }
        list
    }

    /// Entries that can never admit anything, each with the reason.
    pub fn unusable(&self) -> &[(String, String)] {
        &self.unusable
    }

    /// Whether `command` runs unasked.
    pub fn allows(&self, command: &str) -> bool {
        self.check(command).is_allowed()
    }

    /// The verdict on `command`, by the rules in the module documentation.
    pub fn check(&self, command: &str) -> Verdict {
        let argv = match split_checked(command) {
            Ok(words) => words,
            Err(reason) => return Verdict::Ask { reason },
        };
        let mut reason = None;
        for entry in &self.entries {
            if !argv.starts_with(&entry.words) {
                continue;
            }
            match check_rest(&entry.words[0], &argv[entry.words.len()..]) {
                Ok(()) => {
                    return Verdict::Allowed {
                        entry: entry.text.clone(),
                        argv,
                    };
                }
                Err(why) => {
                    reason.get_or_insert(format!("after `{}`, {why}", entry.text));
                }
            }
        }
        Verdict::Ask {
            reason: reason.unwrap_or_else(|| "no allow-list entry starts this command".to_string()),
        }
    }
}

/// Rules 1 to 3: the alphabet, the word starts, and a clean split into at least one word.
pub fn split_checked(line: &str) -> Result<Vec<String>, String> {
    let mut previous: Option<char> = None;
    for c in line.chars() {
        let ok = c.is_alphanumeric()
            || matches!(
                c,
                ' ' | '\t' | '-' | '_' | '.' | '/' | ':' | '=' | '@' | '%' | '+' | ',' | '\'' | '"'
            )
            || (c == '~' && previous.is_some_and(char::is_alphanumeric));
        if !ok {
            return Err(format!(
                "it contains {}, which a shell may treat specially",
                describe(c)
            ));
        }
        previous = Some(c);
    }
    let words = shell_words::split(line)
        .map_err(|_| "it does not split into words cleanly (an unclosed quote)".to_string())?;
    if words.is_empty() {
        return Err("it is empty".to_string());
    }
    if let Some(word) = words
        .iter()
        .find(|w| w.starts_with('=') || w.starts_with('%'))
    {
        return Err(format!(
            "the word `{word}` starts with `{}`, which some shells expand",
            &word[..1]
        ));
    }
    Ok(words)
}

fn describe(c: char) -> String {
    match c {
        '\n' => "a newline".to_string(),
        '\r' => "a carriage return".to_string(),
        '~' => "`~` where a shell expands it".to_string(),
        c if c.is_control() || c.is_whitespace() => format!("the character U+{:04X}", c as u32),
        c => format!("`{c}`"),
    }
}

/// Rule 5: the words after the entry's, against the program's deny list.
fn check_rest(program: &str, rest: &[String]) -> Result<(), String> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let Some(deny) = programs::deny_list(name) else {
        return Ok(());
    };
    rest.iter().try_for_each(|word| check_word(deny, word))
}

fn check_word(deny: &DenyList, word: &str) -> Result<(), String> {
    if word.starts_with('-') {
        if let Some(denied) = option_denied(word, deny.long, deny.short) {
            return Err(if denied.starts_with("--") {
                format!(
                    "`{word}` is not admitted: it is or may abbreviate `{denied}`, {}",
                    deny.why
                )
            } else {
                format!(
                    "`{word}` is not admitted: it holds `{denied}`, {}",
                    deny.why
                )
            });
        }
        return Ok(());
    }
    if let Some(extra) = deny.extra {
        extra(word)?;
    }
    Ok(())
}

/// The denied option `word` is or may stand for: a long option that is the same as a denied one
/// or a prefix of it (or longer), or a short cluster holding a denied letter (`-x`).
pub(crate) fn option_denied(word: &str, long: &[&str], short: &[char]) -> Option<String> {
    if let Some(rest) = word.strip_prefix("--") {
        if rest.is_empty() {
            return None;
        }
        let name = &word[..2 + rest.find('=').unwrap_or(rest.len())];
        return long
            .iter()
            .find(|d| d.starts_with(name) || name.starts_with(**d))
            .map(|d| d.to_string());
    }
    let cluster = word.strip_prefix('-')?;
    cluster
        .chars()
        .find(|c| short.contains(c))
        .map(|c| format!("-{c}"))
}

/// Rule 5 for parsed words: a word the shell expands is admitted only where it can't become an
/// option, and never for a program that also judges plain words (`cargo +x`, `make X=y`).
pub(crate) fn check_rest_words(program: &str, rest: &[Word]) -> Result<(), String> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let deny = programs::deny_list(name);
    for word in rest {
        if word.known {
            if let Some(deny) = deny {
                check_word(deny, &word.text)?;
            }
        } else if word.may_be_option {
            return Err(format!(
                "`{}` is expanded by the shell and may become an option",
                word.text
            ));
        } else if deny.is_some_and(|d| d.extra.is_some()) {
            return Err(format!(
                "`{}` is expanded by the shell, and `{name}` judges every word",
                word.text
            ));
        }
    }
    Ok(())
}

impl AllowList {
    /// The entry admitting one parsed simple command, or why none does (`None`: none starts it).
    pub(crate) fn judge_words(&self, words: &[Word]) -> Result<String, Option<String>> {
        let mut reason = None;
        for entry in &self.entries {
            if !starts_with(words, &entry.words) {
                continue;
            }
            match check_rest_words(&entry.words[0], &words[entry.words.len()..]) {
                Ok(()) => return Ok(entry.text.clone()),
                Err(why) => {
                    reason.get_or_insert(format!("after `{}`, {why}", entry.text));
                }
            }
        }
        Err(reason)
    }

    /// The entries, as the user wrote them.
    pub fn entries(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.text.as_str())
    }

    /// Whether an entry's words start these known words (ask and deny rules: no option checks).
    pub(crate) fn matching(&self, words: &[String]) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| words.starts_with(&e.words))
            .map(|e| e.text.as_str())
    }
}

/// The command's first words are the entry's, each known and equal.
fn starts_with(words: &[Word], entry: &[String]) -> bool {
    words.len() >= entry.len()
        && words
            .iter()
            .zip(entry)
            .all(|(w, e)| w.known && w.text == *e)
}
