//! A POSIX command line, parsed with bash's grammar (tree-sitter-bash) into the parts the
//! allow-list judges: every simple command (its assignments and words, those inside command and
//! process substitutions included) and every redirection. What this module can't place exactly
//! is [`Unparsed`], and the line asks: functions, loops, conditionals, `eval`, `source`, `exec`,
//! `alias` and the other builtins that run text or change the shell, a parameter expansion with
//! an operator, arithmetic, a parse error.
//!
//! A word keeps what a judge needs: its value when the shell can't change it (quotes removed),
//! else whether it could become an option (`-x`) once expanded: an unquoted expansion may split
//! into several words, and a word whose first character is not a literal may start with `-`.

use tree_sitter::{Node, Parser};

/// The parts of a parsed line, in the order they appear.
#[derive(Clone, Debug, Default)]
pub struct Script {
    pub commands: Vec<Simple>,
    pub redirects: Vec<Redirect>,
}

/// One simple command: `NAME=value ... word word ...`.
#[derive(Clone, Debug)]
pub struct Simple {
    /// As written, for the question.
    pub text: String,
    pub assignments: Vec<Assignment>,
    /// The command name first; empty for a line of assignments alone.
    pub words: Vec<Word>,
    /// Inside `$(...)`, backticks or `<(...)`.
    pub substituted: bool,
}

#[derive(Clone, Debug)]
pub struct Assignment {
    pub name: String,
    pub value: Word,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The value after quote removal when `known`, else the word as written.
    pub text: String,
    /// Nothing in it is expanded: no parameter, substitution, glob, brace or tilde.
    pub known: bool,
    /// Once expanded it may be or include a word starting with `-` or `+`.
    pub may_be_option: bool,
}

#[derive(Clone, Debug)]
pub struct Redirect {
    /// As written, for the question.
    pub text: String,
    pub kind: RedirectKind,
    /// The file, for a read or a write.
    pub target: Option<Word>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedirectKind {
    /// `<`, `<<<`, a here-document.
    Read,
    /// `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>& file`.
    Write,
    /// `2>&1`, `>&2`, `<&0`, `>&-`: between descriptors the command already has.
    Duplicate,
}

/// A construct the parser can't place exactly; the line asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unparsed {
    /// What it is, e.g. "a function definition".
    pub construct: String,
    /// The text, as written.
    pub text: String,
}

impl std::fmt::Display for Unparsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is {}", self.text, self.construct)
    }
}

/// Builtins that run text as a command, read a file as commands, replace or change the shell:
/// their effect can't be judged from their words.
const SHELL_CHANGING: &[&str] = &[
    "eval",
    "source",
    ".",
    "exec",
    "alias",
    "unalias",
    "builtin",
    "command",
    "trap",
    "set",
    "shopt",
    "enable",
    "hash",
    "fc",
    "let",
    "read",
    "mapfile",
    "readarray",
    "getopts",
    "export",
    "declare",
    "typeset",
    "local",
    "readonly",
    "unset",
    "autoload",
    "emulate",
    "setopt",
    "unsetopt",
    "zmodload",
    "bindkey",
    "coproc",
    "time",
    "nohup",
    "env",
    "xargs",
    "sudo",
    "doas",
];

/// Parses `line`; a line the grammar doesn't accept whole is [`Unparsed`].
pub fn parse(line: &str) -> Result<Script, Unparsed> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|e| {
            unparsed(
                "a line the shell grammar could not load for",
                &e.to_string(),
            )
        })?;
    let tree = parser
        .parse(line, None)
        .ok_or_else(|| unparsed("a line the parser gave up on", line))?;
    let root = tree.root_node();
    let mut walk = Walk {
        src: line.as_bytes(),
        script: Script::default(),
    };
    if root.has_error() {
        return Err(walk.first_error(root));
    }
    walk.statements(root, false)?;
    if walk.script.commands.is_empty() && walk.script.redirects.is_empty() {
        return Err(unparsed("empty", line));
    }
    Ok(walk.script)
}

fn unparsed(construct: &str, text: &str) -> Unparsed {
    Unparsed {
        construct: construct.to_string(),
        text: text.trim().to_string(),
    }
}

struct Walk<'a> {
    src: &'a [u8],
    script: Script,
}

/// A word being put together from its pieces.
#[derive(Default)]
struct Build {
    text: String,
    known: bool,
    splits: bool,
    /// The first character, when it is a literal one.
    first: Option<Option<char>>,
}

impl Build {
    fn new() -> Self {
        Build {
            known: true,
            ..Default::default()
        }
    }
    fn literal(&mut self, s: &str) {
        if self.first.is_none() && !s.is_empty() {
            self.first = Some(s.chars().next());
        }
        self.text.push_str(s);
    }
    fn unknown(&mut self, written: &str, quoted: bool) {
        if self.first.is_none() {
            self.first = Some(None);
        }
        self.known = false;
        self.splits |= !quoted;
        self.text.push_str(written);
    }
    fn finish(self, written: &str) -> Word {
        if self.known {
            // An empty known word is no option.
            let may_be_option = self.text.starts_with('-') || self.text.starts_with('+');
            return Word {
                text: self.text,
                known: true,
                may_be_option,
            };
        }
        // An unknown word may be an option unless it starts with a literal that is not `-` or
        // `+` and nothing in it splits.
        let literal_start = matches!(self.first, Some(Some(c)) if c != '-' && c != '+');
        Word {
            text: written.to_string(),
            known: false,
            may_be_option: self.splits || !literal_start,
        }
    }
}

impl<'a> Walk<'a> {
    fn text(&self, node: Node) -> &'a str {
        node.utf8_text(self.src).unwrap_or("")
    }

    fn first_error(&self, node: Node) -> Unparsed {
        for i in 0..node.child_count() {
            if let Some(child) = node.child(i)
                && child.has_error()
            {
                if child.is_error() || child.is_missing() {
                    let text = self.text(child);
                    return unparsed(
                        "not parsed exactly (a syntax error or a construct of another shell)",
                        if text.trim().is_empty() {
                            self.text(node)
                        } else {
                            text
                        },
                    );
                }
                return self.first_error(child);
            }
        }
        unparsed(
            "not parsed exactly (a syntax error or a construct of another shell)",
            self.text(node),
        )
    }

    /// Every statement under `node`.
    fn statements(&mut self, node: Node, substituted: bool) -> Result<(), Unparsed> {
        // `cmd &`: a job that goes on after the next part starts (and after the line ends).
        if let Some(amp) = (0..node.child_count())
            .filter_map(|i| node.child(i))
            .find(|c| !c.is_named() && self.text(*c) == "&")
        {
            let _ = amp;
            return Err(unparsed("a background job (`&`)", self.text(node)));
        }
        for i in 0..node.named_child_count() {
            let Some(child) = node.named_child(i) else {
                continue;
            };
            self.statement(child, substituted)?;
        }
        Ok(())
    }

    fn statement(&mut self, node: Node, substituted: bool) -> Result<(), Unparsed> {
        match node.kind() {
            "comment" => Ok(()),
            "list" | "pipeline" | "subshell" | "compound_statement" | "negated_command" => {
                self.statements(node, substituted)
            }
            "redirected_statement" => {
                let mut body = false;
                for i in 0..node.child_count() {
                    let Some(child) = node.child(i) else { continue };
                    if !child.is_named() {
                        continue;
                    }
                    if node.field_name_for_child(i as u32) == Some("body") {
                        body = true;
                        self.statement(child, substituted)?;
                    } else {
                        self.redirect(child, substituted)?;
                    }
                }
                if body {
                    Ok(())
                } else {
                    // zsh runs `$NULLCMD` (`cat`) or `$READNULLCMD` (a pager) for a bare one.
                    Err(unparsed("a redirection without a command", self.text(node)))
                }
            }
            "command" => self.command(node, substituted),
            "variable_assignment" => {
                let assignment = self.assignment(node, substituted)?;
                self.push(node, vec![assignment], Vec::new(), substituted);
                Ok(())
            }
            "variable_assignments" => {
                let mut all = Vec::new();
                for i in 0..node.named_child_count() {
                    if let Some(child) = node.named_child(i) {
                        all.push(self.assignment(child, substituted)?);
                    }
                }
                self.push(node, all, Vec::new(), substituted);
                Ok(())
            }
            kind => Err(unparsed(construct(kind), self.text(node))),
        }
    }

    fn push(&mut self, node: Node, assignments: Vec<Assignment>, words: Vec<Word>, sub: bool) {
        self.script.commands.push(Simple {
            text: self.text(node).trim().to_string(),
            assignments,
            words,
            substituted: sub,
        });
    }

    fn command(&mut self, node: Node, substituted: bool) -> Result<(), Unparsed> {
        let mut assignments = Vec::new();
        let mut words = Vec::new();
        for i in 0..node.child_count() {
            let Some(child) = node.child(i) else { continue };
            if !child.is_named() {
                continue;
            }
            match (node.field_name_for_child(i as u32), child.kind()) {
                (_, "variable_assignment") => {
                    assignments.push(self.assignment(child, substituted)?);
                }
                (Some("redirect"), _) => self.redirect(child, substituted)?,
                (Some("name"), _) => {
                    let name = child.named_child(0).unwrap_or(child);
                    let word = self.word(name, substituted)?;
                    if !word.known || word.text.starts_with('=') {
                        return Err(unparsed(
                            "a command name the shell expands",
                            self.text(child),
                        ));
                    }
                    if SHELL_CHANGING.contains(&word.text.as_str()) {
                        return Err(unparsed(
                            "a builtin or wrapper that runs other text as commands or changes the shell",
                            self.text(node),
                        ));
                    }
                    words.push(word);
                }
                (Some("argument"), _) => words.push(self.word(child, substituted)?),
                (_, "comment") => {}
                (_, kind) => return Err(unparsed(construct(kind), self.text(child))),
            }
        }
        self.push(node, assignments, words, substituted);
        Ok(())
    }

    fn assignment(&mut self, node: Node, substituted: bool) -> Result<Assignment, Unparsed> {
        let name = node
            .child_by_field_name("name")
            .filter(|n| n.kind() == "variable_name")
            .ok_or_else(|| unparsed("an array assignment", self.text(node)))?;
        let value = match node.child_by_field_name("value") {
            Some(value) => self.word(value, substituted)?,
            None => Word {
                text: String::new(),
                known: true,
                may_be_option: false,
            },
        };
        // `+=` appends: still an assignment of this name.
        Ok(Assignment {
            name: self.text(name).to_string(),
            value,
        })
    }

    fn redirect(&mut self, node: Node, substituted: bool) -> Result<(), Unparsed> {
        let text = self.text(node).trim().to_string();
        match node.kind() {
            "file_redirect" => {
                let operator = (0..node.child_count())
                    .filter_map(|i| node.child(i))
                    .find(|c| !c.is_named())
                    .map(|c| self.text(c))
                    .unwrap_or("");
                let destination = node.child_by_field_name("destination");
                let target = match destination {
                    Some(d) => Some(self.word(d, substituted)?),
                    None => None,
                };
                let kind = match operator {
                    "<" => RedirectKind::Read,
                    ">&" | "<&" | ">&-" | "<&-"
                        if target.as_ref().is_none_or(|t| {
                            t.known && (t.text == "-" || t.text.chars().all(|c| c.is_ascii_digit()))
                        }) =>
                    {
                        RedirectKind::Duplicate
                    }
                    ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&" => RedirectKind::Write,
                    _ => return Err(unparsed("a redirection of an unknown kind", &text)),
                };
                self.script.redirects.push(Redirect { text, kind, target });
                Ok(())
            }
            "herestring_redirect" => {
                for i in 0..node.named_child_count() {
                    if let Some(child) = node.named_child(i)
                        && child.kind() != "file_descriptor"
                    {
                        self.word(child, substituted)?;
                    }
                }
                self.script.redirects.push(Redirect {
                    text,
                    kind: RedirectKind::Read,
                    target: None,
                });
                Ok(())
            }
            "heredoc_redirect" => {
                let (delimiter, quoted) = node
                    .child_by_field_name("delimiter")
                    .or_else(|| {
                        (0..node.named_child_count())
                            .filter_map(|i| node.named_child(i))
                            .find(|c| c.kind() == "heredoc_start")
                    })
                    .map(|start| heredoc_delimiter(self.text(start)))
                    .ok_or_else(|| unparsed("a here-document without a delimiter", &text))?
                    .ok_or_else(|| {
                        unparsed(
                            "a here-document whose delimiter is partly quoted or escaped",
                            &text,
                        )
                    })?;
                let dash = (0..node.child_count())
                    .filter_map(|i| node.child(i))
                    .any(|c| !c.is_named() && self.text(c) == "<<-");
                for i in 0..node.child_count() {
                    let Some(child) = node.child(i) else { continue };
                    if !child.is_named() {
                        continue;
                    }
                    match child.kind() {
                        "heredoc_start" | "file_descriptor" => {}
                        "heredoc_end" => {
                            if self.text(child).trim_start_matches('\t') != delimiter {
                                return Err(unparsed(
                                    "a here-document whose end the parser may place elsewhere than the shell",
                                    &text,
                                ));
                            }
                        }
                        "heredoc_body" => {
                            self.check_heredoc_body(child, &delimiter, quoted, dash, &text)?;
                            self.substitutions_in(child, substituted)?
                        }
                        "file_redirect" | "herestring_redirect" => {
                            self.redirect(child, substituted)?
                        }
                        // `cat <<EOF | sh`, `cat <<EOF && rm x`: the rest of the line.
                        _ => self.statement(child, substituted)?,
                    }
                }
                self.script.redirects.push(Redirect {
                    text: text.lines().next().unwrap_or("").to_string(),
                    kind: RedirectKind::Read,
                    target: None,
                });
                Ok(())
            }
            kind => Err(unparsed(construct(kind), &text)),
        }
    }

    /// A body the parser and the shell may end or expand differently: a line ending in a
    /// backslash (the shell joins it to the next in an unquoted body, so a delimiter split
    /// across two lines ends it), a line that is the delimiter inside what the parser took for
    /// the body, and in an unquoted body backticks, `$(` and `$[` (the grammar's heredoc scanner
    /// misses some of them; the shell runs them all).
    fn check_heredoc_body(
        &self,
        body: Node,
        delimiter: &str,
        quoted: bool,
        dash: bool,
        text: &str,
    ) -> Result<(), Unparsed> {
        let content = self.text(body);
        let odd = content.lines().any(|line| {
            let line = if dash {
                line.trim_start_matches('\t')
            } else {
                line
            };
            line.ends_with('\\') || line == delimiter
        }) || (!quoted
            && (content.contains('`') || content.contains("$(") || content.contains("$[")));
        if odd {
            return Err(unparsed(
                "a here-document whose body the parser and the shell may read differently \
                 (a line ending in a backslash, or a substitution in an unquoted body)",
                text,
            ));
        }
        Ok(())
    }

    /// The command substitutions in a here-document's body, each judged as a command.
    fn substitutions_in(&mut self, node: Node, substituted: bool) -> Result<(), Unparsed> {
        for i in 0..node.named_child_count() {
            let Some(child) = node.named_child(i) else {
                continue;
            };
            match child.kind() {
                "heredoc_content" | "simple_expansion" => {}
                "expansion" => self.check_expansion(child)?,
                "command_substitution" => self.substitution(child)?,
                kind => return Err(unparsed(construct(kind), self.text(child))),
            }
        }
        let _ = substituted;
        Ok(())
    }

    fn substitution(&mut self, node: Node) -> Result<(), Unparsed> {
        for i in 0..node.child_count() {
            let Some(child) = node.child(i) else { continue };
            if !child.is_named() {
                continue;
            }
            if node.field_name_for_child(i as u32) == Some("redirect") {
                // `$(< file)`: a read.
                self.redirect(child, true)?;
            } else {
                self.statement(child, true)?;
            }
        }
        Ok(())
    }

    /// `${NAME}` alone is a value; operators (`${x:-$(cmd)}`, `${x@P}`, `${!x}`) ask.
    fn check_expansion(&self, node: Node) -> Result<(), Unparsed> {
        let plain = node.named_child_count() == 1
            && node
                .named_child(0)
                .is_some_and(|c| matches!(c.kind(), "variable_name" | "special_variable_name"))
            && (0..node.child_count())
                .filter_map(|i| node.child(i))
                .filter(|c| !c.is_named())
                .all(|c| matches!(self.text(c), "${" | "}"));
        if plain {
            Ok(())
        } else {
            Err(unparsed(
                "a parameter expansion with an operator",
                self.text(node),
            ))
        }
    }

    fn word(&mut self, node: Node, substituted: bool) -> Result<Word, Unparsed> {
        let mut build = Build::new();
        self.piece(node, &mut build, false, substituted)?;
        Ok(build.finish(self.text(node)))
    }

    fn piece(
        &mut self,
        node: Node,
        build: &mut Build,
        quoted: bool,
        substituted: bool,
    ) -> Result<(), Unparsed> {
        let text = self.text(node);
        match node.kind() {
            "word" | "number" if node.named_child_count() == 0 => {
                self.bare(text, build, quoted);
                Ok(())
            }
            "raw_string" => {
                build.literal(text.get(1..text.len().saturating_sub(1)).unwrap_or(""));
                Ok(())
            }
            "string" => {
                if node.named_child_count() == 0 {
                    // `""`: an empty word, still a literal one.
                    if build.first.is_none() {
                        build.first = Some(Some('"'));
                    }
                }
                for i in 0..node.named_child_count() {
                    if let Some(child) = node.named_child(i) {
                        self.piece(child, build, true, substituted)?;
                    }
                }
                Ok(())
            }
            "string_content" => {
                build.literal(&unescape_quoted(text));
                Ok(())
            }
            "concatenation" => {
                for i in 0..node.named_child_count() {
                    if let Some(child) = node.named_child(i) {
                        self.piece(child, build, quoted, substituted)?;
                    }
                }
                Ok(())
            }
            "simple_expansion" => {
                build.unknown(text, quoted);
                Ok(())
            }
            "expansion" => {
                self.check_expansion(node)?;
                build.unknown(text, quoted);
                Ok(())
            }
            "ansi_c_string" | "translated_string" => {
                build.unknown(text, true);
                Ok(())
            }
            "command_substitution" => {
                self.substitution(node)?;
                build.unknown(text, quoted);
                Ok(())
            }
            "process_substitution" => {
                self.statements(node, true)?;
                // Becomes one `/dev/fd/N` path.
                if build.first.is_none() {
                    build.first = Some(Some('/'));
                }
                build.unknown(text, true);
                Ok(())
            }
            kind => {
                let _ = substituted;
                Err(unparsed(construct(kind), text))
            }
        }
    }

    /// An unquoted word as written: backslash escapes, and the characters that expand.
    fn bare(&self, text: &str, build: &mut Build, quoted: bool) {
        let mut literal = String::new();
        let mut chars = text.chars().peekable();
        let mut at_start = build.first.is_none();
        while let Some(c) = chars.next() {
            match c {
                '\\' if !quoted => match chars.next() {
                    Some('\n') | None => {}
                    Some(next) => literal.push(next),
                },
                // Globs, braces, a tilde at the start, `$`, zsh's `=cmd` and fish's `%`:
                // expanded by some shell. Parentheses in a word are zsh glob qualifiers.
                '*' | '?' | '[' | ']' | '{' | '}' | '$' | '(' | ')' if !quoted => {
                    build.literal(&literal);
                    literal.clear();
                    let one = c.to_string();
                    build.unknown(&one, true);
                    if matches!(c, '$' | '(' | ')') {
                        build.splits = true;
                    }
                }
                // `~` and zsh's `=cmd` become a path: `/...`, never an option.
                '~' | '=' if !quoted && at_start && literal.is_empty() => {
                    build.first = Some(Some('/'));
                    build.unknown(&c.to_string(), true);
                }
                c => literal.push(c),
            }
            at_start = false;
        }
        build.literal(&literal);
    }
}

/// A here-document's delimiter as the shell ends it, and whether it is quoted (the body then
/// expands nothing): only a plain word, or one wholly in single or double quotes. Partly quoted
/// (`E"O"F`), escaped (`\EOF`) or `$'…'` delimiters are `None`: the grammar's scanner and the
/// shell may end the body at different lines.
fn heredoc_delimiter(start: &str) -> Option<(String, bool)> {
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    for q in ['\'', '"'] {
        if let Some(inner) = start.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return plain(inner).then(|| (inner.to_string(), true));
        }
    }
    plain(start).then(|| (start.to_string(), false))
}

/// Inside double quotes a backslash escapes only `$`, a backtick, `"`, `\` and a newline.
fn unescape_quoted(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => out.push(chars.next().unwrap_or('\\')),
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A grammar node's kind, as the user would name it.
fn construct(kind: &str) -> &'static str {
    match kind {
        "function_definition" => "a function definition",
        "for_statement" | "c_style_for_statement" | "while_statement" => "a loop",
        "if_statement" => "an `if`",
        "case_statement" => "a `case`",
        "declaration_command" => "a declaration (`export`, `declare`, `local`, `readonly`)",
        "unset_command" => "`unset`",
        "test_command" => "a `[[ ]]` or `(( ))` test",
        "arithmetic_expansion" => "arithmetic, which may run commands through array subscripts",
        "brace_expression" => "a brace expansion",
        "subshell" => "a subshell in an unusual place",
        "ERROR" => "not parsed exactly (a syntax error)",
        _ => "a construct the allow-list does not judge",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        parse(line)
            .unwrap()
            .commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_lists_pipelines_and_substitutions() {
        assert_eq!(
            words("cd server && cargo test 2>&1 | tail -20"),
            [
                vec!["cd", "server"],
                vec!["cargo", "test"],
                vec!["tail", "-20"]
            ]
        );
        assert_eq!(
            words("echo \"$(git rev-parse HEAD)\" 'a b' c\\ d"),
            [
                vec!["git", "rev-parse", "HEAD"],
                vec!["echo", "\"$(git rev-parse HEAD)\"", "a b", "c d"]
            ]
        );
    }

    #[test]
    fn words_that_may_become_options() {
        let script = parse("ls src/*.rs *.rs \"$X\" $X \"-$X\" x$X ~/a").unwrap();
        let w = &script.commands[0].words;
        let opt: Vec<bool> = w.iter().map(|w| w.may_be_option).collect();
        assert_eq!(opt, [false, false, true, true, true, true, true, false]);
        assert!(w[0].known && !w[1].known && !w[7].known);
    }

    #[test]
    fn constructs_that_ask() {
        for line in [
            "f() { rm x; }; f",
            "for x in a; do rm $x; done",
            "if true; then ls; fi",
            "eval ls",
            ". ./x",
            "$CMD x",
            "echo ${x:-$(rm y)}",
            "echo $((1+2))",
            "ls &&",
            "> out",
        ] {
            assert!(parse(line).is_err(), "{line}");
        }
    }
}
