//! `replace_in_file`: SEARCH/REPLACE blocks, located against the original text and applied
//! together, all or nothing. The rules are pinned by `tests/fixtures/edit-cases/README.md`.

mod fixup;
mod lines;
mod matcher;
mod parse;
mod report;

use std::cell::OnceCell;

use self::lines::{FileLines, Splice};
use self::matcher::{Found, Located, Tier};
use self::parse::Block;
use self::report::line_range;
use super::args::ReplaceInFile;
use super::{EditProposal, ErrorKind, ToolContext, ToolError, text};

pub(crate) fn prepare(
    ctx: &ToolContext<'_>,
    args: ReplaceInFile,
) -> Result<EditProposal, ToolError> {
    let ws = ctx.workspace;
    let path = ws.resolve_for_write(&args.path)?;
    let display = ws.display_path(&path);
    let Some(file) = text::load_for(ctx, &path)? else {
        let mut err = text::no_such_file(ws, &path);
        err.message
            .push_str(". replace_in_file edits existing files; write_to_file creates one");
        return Err(err);
    };
    let in_editor = ctx.editor_text_of(&path).is_some();
    let blocks = parse::parse(&args.diff);
    if let Err(stale) = ctx
        .reads
        .check(&path, &display, Some(file.as_bytes()), in_editor)
    {
        // The file changed since the model read it (the user typed elsewhere in it, most
        // often). Its edit is still what it meant when each SEARCH text is still there, exactly
        // and once: it applies to the text as it is now. Otherwise it is stale.
        let still_there = blocks
            .as_ref()
            .is_ok_and(|blocks| blocks.iter().all(|b| found_once(&file, &b.search)));
        if !still_there {
            return Err(stale);
        }
    }
    let proposed = blocks
        .and_then(|blocks| apply_blocks(&file, &blocks))
        .map_err(|e| {
            ToolError::new(
                e.kind,
                format!("{display}: nothing was written. {}", e.message),
            )
        })?;
    Ok(super::write::proposal(path, display, Some(file), proposed))
}

/// Whether `search` (lines) occurs exactly once in `text`, byte for byte but for line endings.
fn found_once(text: &str, search: &[String]) -> bool {
    if search.is_empty() {
        return false;
    }
    let file = FileLines::new(text);
    let n = search.len();
    let mut found = 0;
    for start in 0..file.lines.len().saturating_sub(n - 1) {
        if file.lines[start..start + n]
            .iter()
            .zip(search)
            .all(|(line, wanted)| *line == wanted.as_str())
        {
            found += 1;
            if found > 1 {
                return false;
            }
        }
    }
    found == 1
}

/// The text with every block applied, or the failures of all blocks that failed.
fn apply_blocks(text: &str, blocks: &[Block]) -> Result<String, ToolError> {
    let file = FileLines::new(text);
    let unit = OnceCell::new();
    let mut splices: Vec<(usize, Splice)> = Vec::new();
    let mut failures: Vec<ToolError> = Vec::new();
    for block in blocks {
        match apply_block(&file, block, || {
            unit.get_or_init(|| fixup::indent_unit(&file.lines)).clone()
        }) {
            Ok(splice) => splices.push((block.number, splice)),
            Err(e) => failures.push(e),
        }
    }
    if failures.is_empty() {
        splices.sort_by_key(|(_, s)| s.start);
        let overlaps: Vec<String> = splices
            .windows(2)
            .filter(|pair| pair[0].1.start + pair[0].1.len > pair[1].1.start)
            .map(|pair| {
                let ((a, first), (b, second)) = (&pair[0], &pair[1]);
                format!(
                    "Block {a} ({}) and block {b} ({}) claim the same lines of the file",
                    line_range(first.start, first.len),
                    line_range(second.start, second.len)
                )
            })
            .collect();
        if !overlaps.is_empty() {
            return Err(ToolError::new(
                ErrorKind::Overlap,
                format!(
                    "{}. Blocks must not share lines: make overlapping blocks one block.",
                    overlaps.join("; ")
                ),
            ));
        }
    }
    if let Some(first) = failures.first() {
        let message = if blocks.len() == 1 {
            first.message.clone()
        } else {
            let others = if failures.len() < blocks.len() {
                "; the others matched, but none is applied unless all are: send them again with \
                 the failed ones corrected"
            } else {
                ""
            };
            format!(
                "{} of {} blocks failed{others}.\n\n{}",
                failures.len(),
                blocks.len(),
                failures
                    .iter()
                    .map(|f| f.message.as_str())
                    .collect::<Vec<_>>()
                    .join("\n\n")
            )
        };
        return Err(ToolError::new(first.kind, message));
    }
    let splices: Vec<Splice> = splices.into_iter().map(|(_, s)| s).collect();
    let proposed = file.splice(&splices);
    if proposed == text {
        return Err(ToolError::new(
            ErrorKind::Invalid,
            "the blocks leave the file exactly as it is; nothing to change",
        ));
    }
    Ok(proposed)
}

fn apply_block(
    file: &FileLines<'_>,
    block: &Block,
    unit: impl Fn() -> String,
) -> Result<Splice, ToolError> {
    let n = block.number;
    let fail = |kind, message: String| Err(ToolError::new(kind, format!("Block {n}: {message}")));
    if block.search.is_empty() {
        return fail(
            ErrorKind::Invalid,
            "SEARCH is empty. To insert lines, SEARCH for a line next to the place and repeat it \
             in REPLACE along with the new lines; to replace a whole file, use write_to_file."
                .into(),
        );
    }
    if block.search == block.replace {
        return fail(
            ErrorKind::Invalid,
            "SEARCH and REPLACE are identical, so the block changes nothing.".into(),
        );
    }
    let (located, search_used, stripped) = locate(&file.lines, block);
    match located {
        Located::Found(found) => {
            let matched = &file.lines[found.start..found.start + found.search.len()];
            if let Some((i, line)) = found.replace.iter().enumerate().find(|(_, l)| {
                fixup::is_placeholder(l) && !matched.iter().any(|m| m.trim() == l.trim())
            }) {
                return fail(
                    ErrorKind::Placeholder,
                    format!(
                        "REPLACE line {} `{}` is an elision placeholder: it would be written into \
                         the file in place of code ({} of the file). Write out every line REPLACE \
                         should hold; to keep lines as they are, leave them out of the block (use \
                         several smaller blocks).",
                        i + 1,
                        line.trim(),
                        line_range(found.start, found.search.len())
                    ),
                );
            }
            let replacement = fit(&found, matched, unit);
            Ok(Splice {
                start: found.start,
                len: found.search.len(),
                replacement,
            })
        }
        Located::Ambiguous { tier, starts, len } => {
            let mut places: Vec<String> = starts
                .iter()
                .take(10)
                .map(|&s| line_range(s, len))
                .collect();
            if starts.len() > 10 {
                places.push(format!("and {} more", starts.len() - 10));
            }
            fail(
                ErrorKind::Ambiguous,
                format!(
                    "the SEARCH lines match {} places ({}): {}. Add lines from around the place \
                     you mean to SEARCH (and REPLACE), so that it matches exactly one.",
                    starts.len(),
                    tier.describe(),
                    places.join(", ")
                ),
            )
        }
        Located::NotFound { tried } => {
            if let Some((i, line)) = search_used
                .iter()
                .enumerate()
                .find(|(_, l)| fixup::is_placeholder(l))
            {
                return fail(
                    ErrorKind::Placeholder,
                    format!(
                        "SEARCH line {} `{}` is an elision placeholder, and the file has no such \
                         line there. SEARCH must repeat the file's lines exactly, eliding none; to \
                         change places far apart, use one block for each.",
                        i + 1,
                        line.trim()
                    ),
                );
            }
            let mut tried: Vec<&str> = tried.iter().map(|t| t.describe()).collect();
            if stripped {
                tried.push("then all of those again with the `N | ` line numbers stripped");
            }
            fail(
                ErrorKind::NotFound,
                format!(
                    "the SEARCH lines are not in the file (tried: {}). {}\nCopy the SEARCH lines \
                     exactly from the file as it is now (read_file shows it) and try again.",
                    tried.join("; "),
                    report::closest_region(&file.lines, &search_used)
                ),
            )
        }
    }
}

/// Locates the block's SEARCH; when it has `N | ` prefixes on every line (copied from read_file's
/// view) and matches nothing as written, again without them. Also returns the SEARCH lines last
/// tried and whether the prefixes were stripped.
fn locate(file: &[&str], block: &Block) -> (Located, Vec<String>, bool) {
    let located = matcher::locate(file, &block.search, &block.replace);
    if !matches!(located, Located::NotFound { .. })
        || !block.search.iter().all(|l| fixup::has_line_number(l))
    {
        return (located, block.search.clone(), false);
    }
    let search: Vec<String> = block
        .search
        .iter()
        .map(|l| fixup::strip_line_number(l))
        .collect();
    let replace: Vec<String> = block
        .replace
        .iter()
        .map(|l| fixup::strip_line_number(l))
        .collect();
    match matcher::locate(file, &search, &replace) {
        Located::NotFound { .. } => (located, search, true),
        found => (found, search, true),
    }
}

/// The REPLACE lines as they go into the file: re-indented where indentation was ignored and
/// differed, with curly quotes where the file has them and SEARCH had straight ones.
fn fit(found: &Found, matched: &[&str], unit: impl Fn() -> String) -> Vec<String> {
    let mut replace = found.replace.clone();
    if found.tier >= Tier::Indentation && fixup::indentation_differs(&found.search, matched) {
        replace = fixup::reindent(&replace, &found.search, matched, &unit());
    }
    if found.tier >= Tier::Punctuation {
        replace = fixup::curl_quotes(replace, &found.search, matched);
    }
    replace
}

/// Owned lines, for the submodules' tests.
#[cfg(test)]
fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

/// A `replace_in_file` diff's SEARCH/REPLACE pairs as texts (lines joined with `\n`), for those
/// who speak of an edit as old and new strings (the user's hooks); `None` when it doesn't parse.
pub fn search_replace_pairs(diff: &str) -> Option<Vec<(String, String)>> {
    let blocks = parse::parse(diff).ok()?;
    Some(
        blocks
            .into_iter()
            .map(|b| (b.search.join("\n"), b.replace.join("\n")))
            .collect(),
    )
}
