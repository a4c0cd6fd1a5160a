//! What a failed SEARCH is told: where the closest region of the file is, and how it differs,
//! line by line, so that the model's next try matches.

use std::collections::HashMap;
use std::fmt::Write;

use super::matcher::Tier;

/// Rows of the line-by-line comparison shown at most.
const MAX_ROWS: usize = 40;
/// A line shown in a comparison is cut past this many characters.
const MAX_SHOWN_CHARS: usize = 160;

/// The closest region to `search` in `file`, and how each line differs.
pub(crate) fn closest_region(file: &[&str], search: &[String]) -> String {
    if file.is_empty() {
        return "The file is empty.".to_string();
    }
    let Some(start) = best_window(file, search) else {
        return "No line of the file resembles the SEARCH lines, even ignoring whitespace and \
                punctuation: read the file again and copy the lines from it."
            .to_string();
    };
    let end = (start + search.len()).min(file.len());
    let same = (start..end)
        .zip(search)
        .filter(|(p, s)| file[*p] == s.as_str())
        .count();
    let mut out = format!(
        "The closest region is {} ({same} of {} SEARCH lines identical). Line by line, the file \
         against SEARCH:",
        line_range(start, end - start),
        search.len()
    );
    let mut rows = 0;
    let mut j = 0;
    while j < search.len() {
        if rows == MAX_ROWS {
            let _ = write!(
                out,
                "\n  ... ({} more lines not compared)",
                search.len() - j
            );
            break;
        }
        let p = start + j;
        if p < file.len() && file[p] == search[j] {
            let mut k = j;
            while k + 1 < search.len()
                && start + k + 1 < file.len()
                && file[start + k + 1] == search[k + 1]
            {
                k += 1;
            }
            if k == j {
                let _ = write!(out, "\n  line {}: same", p + 1);
            } else {
                let _ = write!(out, "\n  lines {}-{}: same", p + 1, start + k + 1);
            }
            j = k + 1;
        } else {
            let _ = write!(
                out,
                "\n  line {}: {}",
                p + 1,
                difference(file.get(p).copied(), &search[j])
            );
            j += 1;
        }
        rows += 1;
    }
    out
}

/// `line 3` or `lines 3-5`, for `len` lines from index `start`.
pub(crate) fn line_range(start: usize, len: usize) -> String {
    if len <= 1 {
        format!("line {}", start + 1)
    } else {
        format!("lines {}-{}", start + 1, start + len)
    }
}

fn difference(file: Option<&str>, search: &str) -> String {
    let Some(file) = file else {
        return format!(
            "the file ends before this line; SEARCH has {}",
            shown(search)
        );
    };
    let how = if file.trim_end() == search.trim_end() {
        "differs only in trailing whitespace"
    } else if Tier::Punctuation.key(file) == Tier::Punctuation.key(search) {
        "differs only in unicode punctuation (quotes, dashes, spaces)"
    } else if Tier::Indentation.key(file) == Tier::Indentation.key(search) {
        "differs in indentation"
    } else {
        "differs"
    };
    format!(
        "{how}:\n      file:   {}\n      SEARCH: {}",
        shown(file),
        shown(search)
    )
}

/// A line quoted with escapes, so tabs and trailing spaces show.
fn shown(line: &str) -> String {
    match line.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((cut, _)) => format!("{:?}...", &line[..cut]),
        None => format!("{line:?}"),
    }
}

/// The window start where most non-blank SEARCH lines equal the file's (ignoring whitespace and
/// punctuation); when no line is equal, the window around the file line most like the longest
/// SEARCH line. `None` when nothing resembles.
fn best_window(file: &[&str], search: &[String]) -> Option<usize> {
    let key = |l: &str| Tier::Indentation.key(l).into_owned();
    let mut wanted: HashMap<String, Vec<usize>> = HashMap::new();
    for (j, line) in search.iter().enumerate() {
        if !line.trim().is_empty() {
            wanted.entry(key(line)).or_default().push(j);
        }
    }
    // score[s]: how many SEARCH lines agree with the window starting at file line s.
    let mut score = vec![0u32; file.len()];
    for (p, line) in file.iter().enumerate() {
        if let Some(js) = wanted.get(&key(line)) {
            for &j in js {
                if let Some(s) = p.checked_sub(j) {
                    score[s] += 1;
                }
            }
        }
    }
    let (best, &top) = score
        .iter()
        .enumerate()
        .rev()
        .max_by_key(|(_, s)| **s)
        .expect("file is not empty");
    if top > 0 {
        return Some(best);
    }
    let (j, longest) = search
        .iter()
        .enumerate()
        .max_by_key(|(_, l)| l.trim().len())?;
    let target = bigrams(&key(longest));
    let (p, similarity) = file
        .iter()
        .enumerate()
        .map(|(p, l)| (p, dice(&target, &bigrams(&key(l)))))
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
    (similarity >= 0.5).then(|| p.saturating_sub(j))
}

fn bigrams(s: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
    out.sort_unstable();
    out
}

/// Dice's coefficient of two sorted bigram multisets: 1.0 for equal, 0.0 for nothing shared.
fn dice(a: &[(char, char)], b: &[(char, char)]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut k, mut shared) = (0, 0, 0);
    while i < a.len() && k < b.len() {
        match a[i].cmp(&b[k]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => k += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                k += 1;
            }
        }
    }
    2.0 * shared as f64 / (a.len() + b.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::owned as v;

    #[test]
    fn points_at_the_differing_interior_line() {
        let file = ["x", "{", "\tx:=1", "\ty:=2", "\treturn", "}"];
        let out = closest_region(&file, &v(&["{", "\tx:=1", "\ty:=99", "\treturn", "}"]));
        assert!(
            out.starts_with("The closest region is lines 2-6 (4 of 5"),
            "{out}"
        );
        assert!(out.contains("lines 2-3: same"), "{out}");
        assert!(
            out.contains("line 4: differs:\n      file:   \"\\ty:=2\"\n      SEARCH: \"\\ty:=99\""),
            "{out}"
        );
        assert!(out.contains("lines 5-6: same"), "{out}");
    }

    #[test]
    fn similar_line_when_none_is_equal() {
        let out = closest_region(&["fn a(){}", "let x = 1;"], &v(&["fn b(){}"]));
        assert!(
            out.starts_with("The closest region is line 1 (0 of 1"),
            "{out}"
        );
        assert!(out.contains("\"fn a(){}\""), "{out}");
        let out = closest_region(&["zzz"], &v(&["fn b(){}"]));
        assert!(out.starts_with("No line of the file resembles"), "{out}");
    }

    #[test]
    fn names_whitespace_only_differences() {
        let out = closest_region(&["a  ", "b", "c"], &v(&["a", "b", "q"]));
        assert!(
            out.contains("line 1: differs only in trailing whitespace"),
            "{out}"
        );
    }
}
