//! Judging a whole command line part by part: which runs unasked inside the walls, which asks
//! (and why), which the user's deny rules refuse.
//!
//! A POSIX line is parsed ([`crate::shell`]) into simple commands and redirections. It runs
//! unasked only when **every** part is admitted:
//!
//! * a simple command by an `allow` rule (the allow-list's word and option rules, [`crate::allow`]),
//!   or, while the sandbox holds, by the read-only list ([`crate::readonly`]); a command inside a
//!   `$(...)`, backticks or `<(...)` is judged as its own command; an `ask` rule makes it ask;
//! * `cd DIR` when DIR resolves inside the workspace (links followed); every relative path later
//!   in the line is judged from each directory the line may be in;
//! * an assignment (`NAME=value cmd`, or alone) when NAME is on a short harmless list and the
//!   value is known;
//! * a redirection that reads, or duplicates a descriptor; one that writes when its target
//!   resolves (links followed) inside a writable root (the workspace, its temp dirs) or is
//!   `/dev/null`, `/dev/stdout`, `/dev/stderr`.
//!
//! A `deny` rule refuses the line, before anything else and whatever else would admit it (an
//! outside-sandbox approval, `--yes`): it is matched against every simple command the parser
//! finds and, whether the line parses or not, against every run of words in the raw text, so
//! quoting (`r''m`, `\rm`) and nesting (`bash -c "rm x"`) don't hide it.
//!
//! A line for a shell that is not POSIX (PowerShell, `cmd.exe`, fish) is judged by the
//! allow-list's rules for one plain command, and nothing is admitted by default.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use crate::allow::AllowList;
use crate::shell::{self, RedirectKind, Simple, Word};

/// The user's rules: word-prefix patterns, as the allow-list's entries.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    pub allow: AllowList,
    pub ask: AllowList,
    pub deny: AllowList,
    /// The read-only list admits too (the caller sets it only while the sandbox holds).
    pub read_only: bool,
}

/// Where the line runs.
#[derive(Clone, Debug)]
pub struct Place {
    /// The directory the line starts in.
    pub cwd: PathBuf,
    /// `cd` may go anywhere under it.
    pub workspace: PathBuf,
    /// Redirections may write anywhere under these (the workspace and its temp dirs).
    pub writable: Vec<PathBuf>,
}

/// The shell that will run the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// sh, bash, dash, ksh, zsh: parsed with bash's grammar.
    Posix,
    /// `cmd.exe`: lists and pipelines of plain commands (`plain_lists`).
    Cmd,
    /// PowerShell: pipelines and lists of plain commands (`plain_lists`).
    PowerShell,
    /// fish and anything else: one plain command only.
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// Every part is admitted; what admitted each (a rule as written, `read-only list`, ...).
    Allowed { by: Vec<String> },
    /// The user must be asked.
    Ask(Question),
    /// A deny rule matches: refused without asking.
    Denied { part: String, rule: String },
}

/// Which part needs the user, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    /// The part as written (the whole line when no one part is to blame).
    pub part: String,
    /// The part runs inside a `$(...)`, backticks or `<(...)`.
    pub substituted: bool,
    pub reason: Reason,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// No rule admits this command.
    NoRule,
    /// A rule or the read-only list would, but not with these words (an option that loads code,
    /// writes a file, an expansion that may become an option); the detail says which.
    Option(String),
    /// A redirection or `cd` reaches outside the workspace and its temp dir.
    Outside(String),
    /// A construct the parser can't place exactly.
    Unparsed(String),
    /// An assignment of a variable not on the harmless list.
    Assignment(String),
    /// The user's `ask` rule.
    AskRule(String),
}

impl fmt::Display for Question {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inside = if self.substituted {
            " (in a substitution)"
        } else {
            ""
        };
        write!(f, "`{}`{inside}: {}", self.part, self.reason)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NoRule => write!(f, "no rule admits this command"),
            Reason::Option(why) => write!(f, "{why}"),
            Reason::Outside(why) => write!(f, "{why}"),
            Reason::Unparsed(why) => write!(f, "{why}, which the allow-list does not judge"),
            Reason::Assignment(name) => write!(
                f,
                "setting `{name}` may change what the command runs or loads (only a short list of harmless variables is admitted)"
            ),
            Reason::AskRule(rule) => write!(f, "your ask rule `{rule}` matches"),
        }
    }
}

impl Judgement {
    pub fn is_allowed(&self) -> bool {
        matches!(self, Judgement::Allowed { .. })
    }
}

/// Variables a command may be given in the line: they change colours, logging, locale or
/// test threads, never what runs or where it loads code from.
const HARMLESS: &[&str] = &[
    "RUST_BACKTRACE",
    "RUST_LOG",
    "RUST_TEST_THREADS",
    "RUST_MIN_STACK",
    "CARGO_TERM_COLOR",
    "CARGO_TERM_VERBOSE",
    "CARGO_INCREMENTAL",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TERM",
    "COLUMNS",
    "LINES",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "CI",
    "NODE_ENV",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
];

/// Writes that go nowhere a file could be changed.
const HARMLESS_DEVICES: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr"];

/// Judges `line` under `rules`, run from `place` by a `dialect` shell.
pub fn judge(line: &str, rules: &Rules, place: &Place, dialect: Dialect) -> Judgement {
    if let Some((part, rule)) = crate::deny::denied(line, &rules.deny) {
        return Judgement::Denied { part, rule };
    }
    if dialect != Dialect::Posix {
        let split = match dialect {
            Dialect::Cmd => crate::plain_lists::split(line, crate::plain_lists::Shell::Cmd),
            Dialect::PowerShell => {
                crate::plain_lists::split(line, crate::plain_lists::Shell::PowerShell)
            }
            Dialect::Posix | Dialect::Other => Ok(vec![line.trim().to_string()]),
        };
        let parts = match split {
            Ok(parts) => parts,
            Err(why) => return ask(line, Reason::Option(why)),
        };
        let mut by = Vec::new();
        for part in &parts {
            let words = crate::allow::split_checked(part).unwrap_or_default();
            if let Some(rule) = rules.deny.matching(&words) {
                return Judgement::Denied {
                    part: part.clone(),
                    rule: rule.to_string(),
                };
            }
            if let Some(rule) = rules.ask.matching(&words) {
                return ask(part, Reason::AskRule(rule.to_string()));
            }
            match rules.allow.check(part) {
                crate::Verdict::Allowed { entry, .. } => by.push(entry),
                crate::Verdict::Ask { reason } => return ask(part, Reason::Option(reason)),
            }
        }
        by.dedup();
        return Judgement::Allowed { by };
    }
    if let Some(why) = crate::precheck::ambiguous(line) {
        return ask(line, Reason::Unparsed(why));
    }
    let script = match shell::parse(line) {
        Ok(script) => script,
        Err(unparsed) => return ask(&unparsed.text, Reason::Unparsed(unparsed.construct)),
    };
    for command in &script.commands {
        if let Some(rule) = denied_words(&command.words, &rules.deny) {
            return Judgement::Denied {
                part: command.text.clone(),
                rule,
            };
        }
    }
    let cwds = match directories(&script.commands, place) {
        Ok(cwds) => cwds,
        Err(question) => return Judgement::Ask(question),
    };
    let mut by = Vec::new();
    for command in &script.commands {
        match admit(command, rules, &cwds, place) {
            Ok(Some(what)) => by.push(what),
            Ok(None) => {}
            Err(reason) => {
                return Judgement::Ask(Question {
                    part: command.text.clone(),
                    substituted: command.substituted,
                    reason,
                });
            }
        }
    }
    for redirect in &script.redirects {
        let refused = match (redirect.kind, &redirect.target) {
            (RedirectKind::Duplicate, _) => None,
            (RedirectKind::Read, Some(t)) if t.known && is_socket(&t.text) => {
                Some("it opens a network connection".to_string())
            }
            // `cat < FILE`, `<FILE cmd`, `0<FILE`: a read of FILE, judged as a read-only
            // command's file words are.
            (RedirectKind::Read, Some(t)) if path_outside(t, &cwds, place) => Some(
                "it reads a file outside the workspace and its temp dir (links followed)"
                    .to_string(),
            ),
            (RedirectKind::Read, _) => None,
            (RedirectKind::Write, Some(t)) if t.known && in_git_dir(&t.text) => {
                Some("it writes into a repository's `.git` (hooks and config run code)".to_string())
            }
            (RedirectKind::Write, Some(t)) if t.known => {
                if HARMLESS_DEVICES.contains(&t.text.as_str())
                    || cwds.iter().all(|cwd| writable(&cwd.join(&t.text), place))
                {
                    None
                } else {
                    Some(
                        "it writes outside the workspace and its temp dir (links followed)"
                            .to_string(),
                    )
                }
            }
            (RedirectKind::Write, _) => Some(
                "its target is expanded by the shell, so where it writes is not known".to_string(),
            ),
        };
        if let Some(why) = refused {
            return ask(&redirect.text, Reason::Outside(why));
        }
    }
    by.dedup();
    Judgement::Allowed { by }
}

fn ask(part: &str, reason: Reason) -> Judgement {
    Judgement::Ask(Question {
        part: part.trim().to_string(),
        substituted: false,
        reason,
    })
}

/// What admits one simple command (`None` for `cd` and assignments alone), or why none does.
fn admit(
    command: &Simple,
    rules: &Rules,
    cwds: &[PathBuf],
    place: &Place,
) -> Result<Option<String>, Reason> {
    let known: Vec<String> = command
        .words
        .iter()
        .take_while(|w| w.known)
        .map(|w| w.text.clone())
        .collect();
    if let Some(rule) = rules.ask.matching(&known) {
        return Err(Reason::AskRule(rule.to_string()));
    }
    for assignment in &command.assignments {
        if !HARMLESS.contains(&assignment.name.as_str()) || !assignment.value.known {
            return Err(Reason::Assignment(assignment.name.clone()));
        }
    }
    if command.words.is_empty() || known.first().is_some_and(|w| w == "cd") {
        // Checked by `directories`.
        return Ok(None);
    }
    let from_rule = match rules.allow.judge_words(&command.words) {
        Ok(entry) => return Ok(Some(entry)),
        Err(why) => why,
    };
    let from_list = if rules.read_only {
        match crate::readonly::judge(&command.words) {
            Some(Ok(())) => {
                let names_files = crate::readonly::names_files(&command.words[0].text);
                return match reads_outside(&command.words[1..], cwds, place).filter(|_| names_files)
                {
                    Some(why) => Err(Reason::Outside(why)),
                    None => Ok(Some("the read-only list".to_string())),
                };
            }
            Some(Err(why)) => Some(why),
            None => None,
        }
    } else {
        None
    };
    Err(from_rule
        .or(from_list)
        .map(Reason::Option)
        .unwrap_or(Reason::NoRule))
}

/// Every directory the line may be in: where it starts, and each `cd` target (from each of
/// those); a `cd` that may leave the workspace asks.
fn directories(commands: &[Simple], place: &Place) -> Result<Vec<PathBuf>, Question> {
    let mut cwds = vec![place.cwd.clone()];
    for command in commands {
        if !command
            .words
            .first()
            .is_some_and(|w| w.known && w.text == "cd")
        {
            continue;
        }
        let target = match &command.words[1..] {
            [dir] if dir.known && !dir.text.starts_with('-') && !dir.text.is_empty() => {
                dir.text.clone()
            }
            _ => {
                return Err(Question {
                    part: command.text.clone(),
                    substituted: command.substituted,
                    reason: Reason::Outside(
                        "`cd` without one plain directory may leave the workspace".to_string(),
                    ),
                });
            }
        };
        let mut next = Vec::new();
        for cwd in &cwds {
            // The shell moves logically: `cd link/..` is back where it was, whatever `link` is.
            let to = crate::reach::logical(&cwd.join(&target));
            if !inside(&to, &place.workspace) {
                return Err(Question {
                    part: command.text.clone(),
                    substituted: command.substituted,
                    reason: Reason::Outside(format!(
                        "it leaves the workspace (from {})",
                        cwd.display()
                    )),
                });
            }
            next.push(to);
        }
        cwds.extend(next);
    }
    Ok(cwds)
}

/// A word of a read-only command that may name a file outside the workspace and its temp dir:
/// the file tools read only inside it, and a command the model runs unasked must not read more
/// (`cat ~/.ssh/id_ed25519` would send the key to the model).
fn reads_outside(words: &[Word], cwds: &[PathBuf], place: &Place) -> Option<String> {
    for word in words {
        let text = word.text.as_str();
        let outside = if word.known && text.starts_with('-') {
            match text.split_once('=') {
                Some((_, value)) => !value.is_empty() && !reads_inside(value, cwds, place),
                None => text.contains('/'),
            }
        } else {
            path_outside(word, cwds, place)
        };
        if outside {
            return Some(format!(
                "`{text}` may name a file outside the workspace, which a command runs unasked only by your own rule"
            ));
        }
    }
    None
}

/// A file word (or a read redirection's target) that may name a file outside the workspace
/// and its temp dir. An expansion of a variable or a command's output may be any path
/// (`"$(echo /etc/shadow)"`, `.$X` with `X=/../..`); a glob is walked, links followed
/// (`vendor/*` where `vendor` or an entry in it links out).
fn path_outside(word: &Word, cwds: &[PathBuf], place: &Place) -> bool {
    let text = word.text.as_str();
    if word.known {
        return !reads_inside(text, cwds, place);
    }
    if text.starts_with(['/', '~', '=']) || text.contains(['$', '`']) || text.contains("..") {
        return true;
    }
    let inside = |path: &Path| writable(path, place);
    !cwds
        .iter()
        .all(|cwd| crate::reach::glob_stays(cwd, text, &inside))
}

fn reads_inside(path: &str, cwds: &[PathBuf], place: &Place) -> bool {
    HARMLESS_DEVICES.contains(&path) || cwds.iter().all(|cwd| writable(&cwd.join(path), place))
}

fn writable(path: &Path, place: &Place) -> bool {
    place.writable.iter().any(|root| inside(path, root))
}

/// Whether `path`, links followed, is `root` or under it (both resolved).
fn inside(path: &Path, root: &Path) -> bool {
    match (resolve(path), std::fs::canonicalize(root)) {
        (Some(path), Ok(root)) => path.starts_with(&root),
        _ => false,
    }
}

/// `path` with its longest existing ancestor resolved (links followed) and the rest appended;
/// `None` when the rest has `..` or `.` in it, or a link that points nowhere (a write would
/// follow it anywhere).
fn resolve(path: &Path) -> Option<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(&existing).is_err() {
        match existing.components().next_back()? {
            Component::Normal(name) => rest.push(name.to_os_string()),
            _ => return None,
        }
        existing = existing.parent()?.to_path_buf();
    }
    let mut resolved = std::fs::canonicalize(&existing).ok()?;
    for name in rest.iter().rev() {
        resolved.push(name);
    }
    Some(resolved)
}

/// A path with a `.git` component, in any letter case.
fn in_git_dir(path: &str) -> bool {
    path.split(['/', '\\'])
        .any(|c| c.eq_ignore_ascii_case(".git"))
}

fn is_socket(path: &str) -> bool {
    path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/")
}

/// A deny rule whose words start these (the program compared by its file name: `/bin/rm`
/// matches `rm`).
fn denied_words(words: &[Word], deny: &AllowList) -> Option<String> {
    let known: Vec<String> = words
        .iter()
        .take_while(|w| w.known)
        .enumerate()
        .map(|(i, w)| {
            if i == 0 {
                crate::deny::base(&w.text)
            } else {
                w.text.clone()
            }
        })
        .collect();
    deny.matching(&known).map(str::to_string)
}

/// The narrowest rules that would let `line` run unasked, for "always allow": for each part no
/// rule admits, its program and the words after it up to the first option, at most three
/// (`cargo test -p core` gives `cargo test`). `None` when no rule can: a part asks for another
/// reason (an option that loads code, a write outside, an unparsed construct), or a deny rule
/// matches.
pub fn always_patterns(
    line: &str,
    rules: &Rules,
    place: &Place,
    dialect: Dialect,
) -> Option<Vec<String>> {
    let mut patterns: Vec<String> = Vec::new();
    let mut rules = rules.clone();
    // A line has a bounded number of parts; each round adds one rule or gives up.
    for _ in 0..16 {
        let question = match judge(line, &rules, place, dialect) {
            Judgement::Allowed { .. } => return (!patterns.is_empty()).then_some(patterns),
            Judgement::Denied { .. } => return None,
            Judgement::Ask(q) if q.reason == Reason::NoRule => q,
            Judgement::Ask(_) => return None,
        };
        let words = match dialect {
            Dialect::Posix => shell::parse(&question.part)
                .ok()?
                .commands
                .into_iter()
                .find(|c| !c.words.is_empty())?
                .words
                .into_iter()
                .take_while(|w| w.known)
                .map(|w| w.text)
                .collect::<Vec<_>>(),
            Dialect::Cmd | Dialect::PowerShell | Dialect::Other => {
                crate::allow::split_checked(&question.part).ok()?
            }
        };
        let pattern = shell_join(&narrowest(&words)?)?;
        if patterns.contains(&pattern) {
            return None;
        }
        patterns.push(pattern);
        rules.allow = AllowList::new(
            rules
                .allow
                .entries()
                .chain(patterns.last().map(String::as_str)),
        );
        if !rules.allow.unusable().is_empty() {
            return None;
        }
    }
    None
}

/// Programs that run whatever follows them (another command, text as code): a rule naming one
/// alone would admit every program.
fn launches(name: &str) -> bool {
    crate::programs::RUNS_A_COMMAND.contains(&name)
        || ["awk", "gawk", "mawk", "nawk", "sed"].contains(&name)
}

/// Shells, interpreters and package runners: a rule must name the script, module or package
/// they run (`python3 -m pytest`, `bash scripts/x.sh`, `npx jest`), never the program alone.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "dash",
    "zsh",
    "ksh",
    "mksh",
    "ash",
    "yash",
    "fish",
    "csh",
    "tcsh",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "luajit",
    "tclsh",
    "Rscript",
    "julia",
    "pwsh",
    "powershell",
    "osascript",
    "npx",
    "uvx",
    "pipx",
    "bunx",
    "pnpx",
    "uv",
    "poetry",
    "pipenv",
    "conda",
    "npm",
    "pnpm",
    "yarn",
];

fn runs_anything(word: &str) -> bool {
    let name = crate::deny::base(word);
    // `python3.12`, `node22`: the same interpreter.
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.contains(&name.as_str()) || INTERPRETERS.contains(&stem)
}

/// The words of the narrowest rule for a command: its program and the words after it up to the
/// first option, at most three (`cargo test -p core` gives `cargo test`). An interpreter, shell
/// or package runner among them must be followed by what it runs (`python3 -m MOD`, a script, a
/// subcommand); code given inline (`-c`, `-e`) or a launcher (`env`, `sudo`, `xargs`) gets
/// no rule at all.
fn narrowest(words: &[String]) -> Option<Vec<String>> {
    let mut pattern: Vec<String> = words
        .iter()
        .take_while(|w| !w.starts_with('-'))
        .take(3)
        .cloned()
        .collect();
    for (i, word) in words.iter().enumerate() {
        if i >= pattern.len() {
            break;
        }
        let name = crate::deny::base(word);
        if launches(&name) {
            return None;
        }
        if !runs_anything(word) {
            continue;
        }
        match words.get(i + 1).map(String::as_str) {
            // `python3 -m pytest`: the module.
            Some("-m") if name.starts_with("python") || name.starts_with("pypy") => {
                let module = words.get(i + 2).filter(|m| !m.starts_with('-'))?;
                pattern.truncate(i + 1);
                pattern.extend(["-m".to_string(), module.clone()]);
                return Some(pattern);
            }
            // `-c`, `-e`, `-` (its input), any option before the script: no narrow rule.
            Some(next) if !next.starts_with('-') && !next.starts_with('+') => {
                if pattern.len() < i + 2 {
                    pattern.push(next.to_string());
                }
            }
            _ => return None,
        }
    }
    Some(pattern)
}

/// Words as an allow-list entry: each must pass the entry rules unquoted.
fn shell_join(words: &[String]) -> Option<String> {
    if words.is_empty() {
        return None;
    }
    let line = words.join(" ");
    (crate::allow::split_checked(&line).ok()? == words).then_some(line)
}
