//! Making a REPLACE fit where a loose tier matched it (re-indenting, curly quotes), and spotting
//! what a model writes instead of code (elision placeholders, `N | ` line numbers).

use std::sync::LazyLock;

use regex::Regex;

/// Columns a tab counts for when comparing the model's indentation widths.
const TAB_WIDTH: usize = 4;

fn lead(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

fn width(lead: &str) -> usize {
    lead.chars()
        .map(|c| if c == '\t' { TAB_WIDTH } else { 1 })
        .sum()
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Whether any non-blank SEARCH line is indented differently from the file line it matched.
pub(crate) fn indentation_differs(search: &[String], matched: &[&str]) -> bool {
    search
        .iter()
        .zip(matched)
        .any(|(s, f)| !is_blank(s) && lead(s) != lead(f))
}

/// Re-indents `replace`: each line keeps its indentation relative to the first (non-blank) SEARCH
/// line, counted in the model's indentation unit and written in the file's (`unit`), under the
/// indentation of the file line that SEARCH line matched.
pub(crate) fn reindent(
    replace: &[String],
    search: &[String],
    matched: &[&str],
    unit: &str,
) -> Vec<String> {
    let Some(anchor) = search.iter().position(|l| !is_blank(l)) else {
        return replace.to_vec();
    };
    let base = lead(matched[anchor]);
    let reference = width(lead(&search[anchor]));
    let model_unit = search
        .iter()
        .chain(replace)
        .filter(|l| !is_blank(l))
        .map(|l| width(lead(l)).abs_diff(reference))
        .filter(|d| *d > 0)
        .min()
        .unwrap_or(TAB_WIDTH);
    replace
        .iter()
        .map(|line| {
            if is_blank(line) {
                return String::new();
            }
            let relative = width(lead(line)) as isize - reference as isize;
            let levels = relative.div_euclid(model_unit as isize);
            let extra = relative.rem_euclid(model_unit as isize) as usize;
            let mut indent = base.to_string();
            if levels >= 0 {
                indent.push_str(&unit.repeat(levels as usize));
            } else {
                for _ in 0..levels.unsigned_abs() {
                    let cut = if indent.ends_with(unit) {
                        unit.len()
                    } else {
                        indent.chars().next_back().map_or(0, char::len_utf8)
                    };
                    indent.truncate(indent.len() - cut);
                }
            }
            indent.push_str(&" ".repeat(extra));
            indent + line.trim_start()
        })
        .collect()
}

/// The file's indentation unit: a tab when most indented lines start with one, else the most
/// common step between consecutive lines' indentation (4 spaces when nothing says otherwise).
pub(crate) fn indent_unit(lines: &[&str]) -> String {
    let (mut tabs, mut spaces) = (0usize, 0usize);
    let mut steps = [0usize; 9];
    let mut previous = 0usize;
    for line in lines.iter().filter(|l| !is_blank(l)) {
        let lead = lead(line);
        match lead.chars().next() {
            Some('\t') => tabs += 1,
            Some(' ') => spaces += 1,
            _ => {}
        }
        if !lead.contains('\t') {
            let w = lead.len();
            if w > previous && w - previous < steps.len() {
                steps[w - previous] += 1;
            }
            previous = w;
        }
    }
    if tabs > spaces {
        return "\t".to_string();
    }
    let step = (1..steps.len())
        .max_by_key(|&s| (steps[s], s == 4))
        .filter(|&s| steps[s] > 0)
        .unwrap_or(4);
    " ".repeat(step)
}

/// Where the file spells quotes curly and SEARCH spelled them straight, the straight quotes of
/// REPLACE become curly: opening after a space, bracket or line start, closing otherwise.
pub(crate) fn curl_quotes(
    replace: Vec<String>,
    search: &[String],
    matched: &[&str],
) -> Vec<String> {
    let file_has = |set: &[char]| matched.iter().any(|l| l.contains(set));
    let search_has = |c: char| search.iter().any(|l| l.contains(c));
    let double = file_has(&['\u{201C}', '\u{201D}']) && search_has('"');
    let single = file_has(&['\u{2018}', '\u{2019}']) && search_has('\'');
    if !double && !single {
        return replace;
    }
    replace
        .into_iter()
        .map(|line| {
            let mut out = String::with_capacity(line.len() + 8);
            let mut previous: Option<char> = None;
            for c in line.chars() {
                let opening = previous.is_none_or(|p| p.is_whitespace() || "([{<=,:;".contains(p));
                let curled = match c {
                    '"' if double => {
                        if opening {
                            '\u{201C}'
                        } else {
                            '\u{201D}'
                        }
                    }
                    '\'' if single => {
                        if opening {
                            '\u{2018}'
                        } else {
                            '\u{2019}'
                        }
                    }
                    _ => c,
                };
                out.push(curled);
                previous = Some(c);
            }
            out
        })
        .collect()
}

static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?xi)^
        (?: (?: /{2,} | \#+ | /\*+ | \{/\* | \* | <!-- | -- | ;+ | %+ | " ) \s* )?   # comment opener
        (?:
            (?: \.{3,} | … ) (?: [\s(\[] [^.…]*? )? (?: \s* (?: \.{3,} | … ) )?     # ... words ...
          | [^.…]*? \b (?: existing | rest | remaining | unchanged | omitted | previous | same ) \b
            [^.…]* (?: \.{3,} | … )                                                 # words ...
        )
        \s* [)\]]? \s* (?: \*+/ \}? | --> )? $"#,
    )
    .expect("placeholder pattern")
});

/// Whether a line is only an elision placeholder (`...`, `// ... existing code ...`, `# ...`).
pub(crate) fn is_placeholder(line: &str) -> bool {
    let line = line.trim();
    !line.is_empty() && PLACEHOLDER.is_match(line)
}

static NUMBERED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+ ?\|(?: |$)").expect("numbered pattern"));

/// Whether a line carries `read_file`'s `N | ` prefix.
pub(crate) fn has_line_number(line: &str) -> bool {
    NUMBERED.is_match(line)
}

/// The line without its `N | ` prefix (unchanged when it has none).
pub(crate) fn strip_line_number(line: &str) -> String {
    match NUMBERED.find(line) {
        Some(m) => line[m.end()..].to_string(),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::owned as v;

    #[test]
    fn reindents_into_the_files_unit() {
        let search = v(&["if x {", "    y();", "}"]);
        let replace = v(&["if x {", "    z();", "", "}"]);
        let matched = ["    if x {", "        y();", "    }"];
        assert_eq!(
            reindent(&replace, &search, &matched, "    "),
            v(&["    if x {", "        z();", "", "    }"])
        );
        // Model indents with 2 spaces, file with tabs; a dedent below the first line works too.
        let search = v(&["  a", "    b"]);
        let replace = v(&["  a", "    b", "c"]);
        let matched = ["\t\ta", "\t\t\tb"];
        assert_eq!(
            reindent(&replace, &search, &matched, "\t"),
            v(&["\t\ta", "\t\t\tb", "\tc"])
        );
    }

    #[test]
    fn detects_the_indent_unit() {
        assert_eq!(indent_unit(&["a", "\tb", "\t\tc"]), "\t");
        assert_eq!(indent_unit(&["a", "  b", "    c", "  d"]), "  ");
        assert_eq!(
            indent_unit(&["a", "    b", "        c", "         d"]),
            "    "
        );
        assert_eq!(indent_unit(&["a"]), "    ");
    }

    #[test]
    fn curls_straight_quotes_in_the_files_style() {
        let out = curl_quotes(v(&["m = \"it's\""]), &v(&["m = \"x's\""]), &["m = “x’s”"]);
        assert_eq!(out, v(&["m = “it’s”"]));
        let out = curl_quotes(v(&["m = \"a\""]), &v(&["m = \"b\""]), &["m = \"b\""]);
        assert_eq!(out, v(&["m = \"a\""]), "straight file, straight REPLACE");
    }

    #[test]
    fn placeholders() {
        for p in [
            "...",
            "…",
            "    // ...",
            "# ...",
            "// ... existing code ...",
            "# ... rest of the code ...",
            "/* ... */",
            "<!-- ... -->",
            "// existing code...",
            "{/* ... */}",
            "// ... (unchanged)",
            "-- ...",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        for not in [
            "...props,",
            "[...a, ...b]",
            "// loading...",
            "fn f(..) {}",
            "x = 1 // ...",
            "",
            "// TODO: finish...",
        ] {
            assert!(!is_placeholder(not), "{not}");
        }
    }

    #[test]
    fn line_number_prefixes() {
        assert!(has_line_number("12 | fn a()"));
        assert!(has_line_number("  7 | x"));
        assert!(has_line_number("3 |"));
        assert!(!has_line_number("a | b"));
        assert!(!has_line_number("1 |x"));
        assert_eq!(strip_line_number("12 |     x"), "    x");
        assert_eq!(strip_line_number("3 |"), "");
    }
}
