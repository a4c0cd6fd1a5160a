//! Finding a SEARCH in the file: whole lines, through a cascade of ever looser comparisons. The
//! first tier that finds anything decides, and it must find exactly one place. Never an
//! anchor-only or similarity-score match.

use std::borrow::Cow;

/// The comparisons, strictest first. Each tier also ignores what the tiers before it ignore.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Tier {
    Exact,
    TrailingWhitespace,
    Punctuation,
    Indentation,
    BlankEdges,
    Entities,
}

impl Tier {
    pub fn describe(self) -> &'static str {
        match self {
            Tier::Exact => "exact lines",
            Tier::TrailingWhitespace => "trailing whitespace ignored",
            Tier::Punctuation => "unicode punctuation folded",
            Tier::Indentation => "leading whitespace ignored",
            Tier::BlankEdges => "blank first/last lines dropped",
            Tier::Entities => "HTML entities decoded",
        }
    }

    /// A line as this tier compares it.
    pub fn key(self, line: &str) -> Cow<'_, str> {
        match self {
            Tier::Exact => Cow::Borrowed(line),
            Tier::TrailingWhitespace => Cow::Borrowed(line.trim_end()),
            Tier::Punctuation => map_cow(fold(line), str::trim_end),
            Tier::Indentation | Tier::BlankEdges | Tier::Entities => map_cow(fold(line), str::trim),
        }
    }
}

fn map_cow<'a>(s: Cow<'a, str>, f: impl Fn(&str) -> &str) -> Cow<'a, str> {
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(f(b)),
        Cow::Owned(o) => Cow::Owned(f(&o).to_string()),
    }
}

/// Where a SEARCH is, at which tier, and the SEARCH/REPLACE lines as that tier used them.
pub(crate) struct Found {
    pub start: usize,
    pub tier: Tier,
    pub search: Vec<String>,
    pub replace: Vec<String>,
}

pub(crate) enum Located {
    Found(Found),
    Ambiguous {
        tier: Tier,
        starts: Vec<usize>,
        len: usize,
    },
    /// Nothing at any tier; the tiers tried, for the message.
    NotFound {
        tried: Vec<Tier>,
    },
}

pub(crate) fn locate(file: &[&str], search: &[String], replace: &[String]) -> Located {
    let mut tried = Vec::new();
    let mut attempt = |tier: Tier, search: &[String], replace: &[String]| {
        tried.push(tier);
        let starts = find_all(file, search, tier);
        match starts.len() {
            0 => None,
            1 => Some(Located::Found(Found {
                start: starts[0],
                tier,
                search: search.to_vec(),
                replace: replace.to_vec(),
            })),
            _ => Some(Located::Ambiguous {
                tier,
                starts,
                len: search.len(),
            }),
        }
    };
    for tier in [
        Tier::Exact,
        Tier::TrailingWhitespace,
        Tier::Punctuation,
        Tier::Indentation,
    ] {
        if let Some(done) = attempt(tier, search, replace) {
            return done;
        }
    }
    let search5 = drop_blank_edges(search);
    let replace5 = drop_blank_edges(replace);
    if search5.len() < search.len()
        && !search5.is_empty()
        && let Some(done) = attempt(Tier::BlankEdges, search5, replace5)
    {
        return done;
    }
    let search6: Vec<String> = search5
        .iter()
        .map(|l| decode_entities(l).into_owned())
        .collect();
    if search6 != search5 && !search6.is_empty() {
        let replace6: Vec<String> = replace5
            .iter()
            .map(|l| decode_entities(l).into_owned())
            .collect();
        if let Some(done) = attempt(Tier::Entities, &search6, &replace6) {
            return done;
        }
    }
    Located::NotFound { tried }
}

/// Every line index where `search` matches whole lines of `file` under `tier` (overlapping
/// occurrences included).
fn find_all(file: &[&str], search: &[String], tier: Tier) -> Vec<usize> {
    let keys: Vec<Cow<'_, str>> = search.iter().map(|l| tier.key(l)).collect();
    let Some(first) = keys.first() else {
        return Vec::new();
    };
    if keys.len() > file.len() {
        return Vec::new();
    }
    (0..=file.len() - keys.len())
        .filter(|&i| {
            tier.key(file[i]) == *first
                && keys[1..]
                    .iter()
                    .zip(&file[i + 1..])
                    .all(|(k, line)| tier.key(line) == *k)
        })
        .collect()
}

fn drop_blank_edges(lines: &[String]) -> &[String] {
    let blank = |l: &String| l.trim().is_empty();
    let start = lines.iter().position(|l| !blank(l)).unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !blank(l))
        .map_or(start, |i| i + 1);
    &lines[start..end]
}

/// Curly quotes, dashes and unusual spaces as their ASCII look-alikes.
pub(crate) fn fold(line: &str) -> Cow<'_, str> {
    if line.is_ascii() || !line.chars().any(|c| folded(c).is_some()) {
        return Cow::Borrowed(line);
    }
    Cow::Owned(line.chars().map(|c| folded(c).unwrap_or(c)).collect())
}

fn folded(c: char) -> Option<char> {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => Some('\''),
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => Some('"'),
        '\u{2010}'..='\u{2015}' | '\u{2212}' => Some('-'),
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => Some(' '),
        _ => None,
    }
}

/// The five entities a model may escape code with, decoded in one pass (`&amp;lt;` is `&lt;`).
pub(crate) fn decode_entities(line: &str) -> Cow<'_, str> {
    const ENTITIES: [(&str, char); 5] = [
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&amp;", '&'),
        ("&quot;", '"'),
        ("&#39;", '\''),
    ];
    if !line.contains('&') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match ENTITIES.iter().find(|(e, _)| rest.starts_with(e)) {
            Some((entity, c)) => {
                out.push(*c);
                rest = &rest[entity.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::owned as v;

    fn tier_of(file: &[&str], search: &[&str]) -> Option<Tier> {
        match locate(file, &v(search), &v(&["x"])) {
            Located::Found(f) => Some(f.tier),
            _ => None,
        }
    }

    #[test]
    fn each_tier_is_reached_only_when_needed() {
        assert_eq!(tier_of(&["a  "], &["a  "]), Some(Tier::Exact));
        assert_eq!(tier_of(&["a  "], &["a"]), Some(Tier::TrailingWhitespace));
        assert_eq!(
            tier_of(&["“a” – b"], &["\"a\" - b"]),
            Some(Tier::Punctuation)
        );
        assert_eq!(tier_of(&["\tif x"], &["if x"]), Some(Tier::Indentation));
        assert_eq!(
            tier_of(&["a", "b"], &["", "a", "b", " "]),
            Some(Tier::BlankEdges)
        );
        assert_eq!(tier_of(&["a < b"], &["a &lt; b"]), Some(Tier::Entities));
        assert_eq!(tier_of(&["a b c"], &["a b"]), None, "a prefix is no match");
    }

    #[test]
    fn overlapping_occurrences_are_ambiguous() {
        match locate(&["x", "x", "x"], &v(&["x", "x"]), &v(&["y"])) {
            Located::Ambiguous { starts, tier, .. } => {
                assert_eq!(starts, vec![0, 1]);
                assert_eq!(tier, Tier::Exact);
            }
            _ => panic!("expected ambiguous"),
        }
    }

    #[test]
    fn entities_decode_in_one_pass() {
        assert_eq!(
            decode_entities("&amp;lt; &#39;&quot;&gt; & x"),
            "&lt; '\"> & x"
        );
    }
}
