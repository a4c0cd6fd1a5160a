//! `search_files`: a regex over what the walker yields, with ripgrep's own crates.
//!
//! Each walker thread searches with its own `Searcher` and keeps its own hits; a thread keeps the
//! text of only as many hits as could still make the final (path-sorted, capped) answer, and counts
//! the rest, so memory stays bounded however many lines match.

use std::io;
use std::path::Path;

use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::overrides::{Override, OverrideBuilder};

use super::args::SearchFiles;
use super::{ErrorKind, ToolError, Workspace, walk};

const DEFAULT_LIMIT: u64 = 200;
/// A matched line longer than this is shown as a window around the match.
const MAX_LINE_BYTES: usize = 300;
/// The most memory one file's search may hold at once: a line longer than this skips the file.
const MAX_LINE_HEAP: usize = 16 * 1024 * 1024;

/// The hits of one file, in line order.
pub(crate) struct FileHits {
    pub path: String,
    pub hits: Vec<(u64, String)>,
}

/// All a search found: the first hits in path order (at least `limit` lines of them when there
/// are that many) and the totals.
pub(crate) struct Found {
    pub files: Vec<FileHits>,
    pub total_matches: u64,
    pub files_matched: u64,
    /// Files skipped because a line outgrew [`MAX_LINE_HEAP`].
    pub too_long: u64,
}

pub(crate) fn search_files(ws: &Workspace, args: SearchFiles) -> Result<String, ToolError> {
    let start = ws.resolve_for_read(args.path.as_deref().unwrap_or("."))?;
    if !start.exists() {
        return Err(super::text::no_such_file(ws, &start));
    }
    let matcher = matcher(&args.regex, args.case_sensitive)?;
    // In an additional root, globs and shown paths are that root's.
    let (base, prefix) = ws.listing_base(&start);
    let glob = args.glob.as_deref().map(|g| glob(base, g)).transpose()?;
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1) as usize;
    let mut found = search(base, &start, &matcher, glob.as_ref(), limit);
    if !prefix.is_empty() {
        for file in &mut found.files {
            file.path.insert_str(0, &prefix);
        }
    }
    Ok(render(&found, limit, &args.regex, &ws.display_path(&start)))
}

/// Smart case unless `case_sensitive` says otherwise; `$` works on CRLF files too.
pub(crate) fn matcher(
    regex: &str,
    case_sensitive: Option<bool>,
) -> Result<RegexMatcher, ToolError> {
    let mut builder = RegexMatcherBuilder::new();
    // As ripgrep: `^` and `$` match at line boundaries (CRLF ones too).
    builder.multi_line(true).crlf(true).ban_byte(Some(0));
    match case_sensitive {
        None => builder.case_smart(true),
        Some(yes) => builder.case_insensitive(!yes),
    };
    builder.build(regex).map_err(|e| {
        ToolError::new(
            ErrorKind::InvalidArguments,
            format!(
                "the regex is not valid: {e}. search_files takes Rust regex syntax (as ripgrep) \
                 and matches within single lines."
            ),
        )
    })
}

/// A glob (gitignore syntax, relative to the root, `*.rs` matching at any depth) that narrows
/// which files are searched. Used as a filter, not as a walker override, so that it never lets
/// ignored or hidden files back in.
fn glob(root: &Path, glob: &str) -> Result<Override, ToolError> {
    let invalid = |e: ignore::Error| {
        ToolError::new(
            ErrorKind::InvalidArguments,
            format!("the glob `{glob}` is not valid: {e}"),
        )
    };
    let mut builder = OverrideBuilder::new(root);
    builder.add(glob).map_err(invalid)?;
    builder.build().map_err(invalid)
}

/// Searches every file below `start` (or `start` itself) that the walker yields and `glob` lets
/// through. `limit` bounds the hits whose text is kept, not the counting.
pub(crate) fn search(
    root: &Path,
    start: &Path,
    matcher: &RegexMatcher,
    glob: Option<&Override>,
    limit: usize,
) -> Found {
    let builder = walk::builder(start);
    let per_thread = walk::parallel(
        &builder,
        walk::PerThread {
            init: || Collector::new(limit),
            visit: |c: &mut Collector, entry: ignore::DirEntry| {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return;
                }
                if glob.is_some_and(|g| !g.matched(entry.path(), false).is_whitelist()) {
                    return;
                }
                let Ok(rel) = entry.path().strip_prefix(root) else {
                    return;
                };
                c.search_file(matcher, entry.path(), tandem_stdx::slash_path(rel));
            },
            finish: |c: &mut Collector| c.files.sort_unstable_by(|a, b| a.path.cmp(&b.path)),
        },
    );
    let mut found = Found {
        files: Vec::new(),
        total_matches: 0,
        files_matched: 0,
        too_long: 0,
    };
    for c in per_thread {
        found.total_matches += c.total;
        found.files_matched += c.files_matched;
        found.too_long += c.too_long;
        found.files.extend(c.files);
    }
    // The stable sort finds the threads' sorted runs and only merges them.
    found.files.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

fn render(found: &Found, limit: usize, regex: &str, start: &str) -> String {
    let mut out = render_hits(found, limit, regex, start);
    if found.too_long > 0 {
        out.push_str(&format!(
            "\n[{} file(s) not searched: a line longer than {} MiB]",
            found.too_long,
            MAX_LINE_HEAP / (1024 * 1024)
        ));
    }
    out
}

fn render_hits(found: &Found, limit: usize, regex: &str, start: &str) -> String {
    use std::fmt::Write;
    if found.total_matches == 0 {
        return format!(
            "No matches for /{regex}/ in {start} (ignored and hidden files are not searched)"
        );
    }
    let mut out = String::new();
    let mut shown = 0usize;
    'files: for file in &found.files {
        for (line, text) in &file.hits {
            if shown == limit {
                break 'files;
            }
            let _ = writeln!(out, "{}:{line}: {text}", file.path);
            shown += 1;
        }
    }
    let total = found.total_matches;
    let files = match found.files_matched {
        1 => "1 file".to_string(),
        n => format!("{n} files"),
    };
    if (shown as u64) < total {
        let _ = write!(
            out,
            "[showing {shown} of {total} matches in {files}; {} more not shown. Narrow the search \
             with path or glob, or raise limit]",
            total - shown as u64
        );
    } else {
        let _ = write!(
            out,
            "[{total} {} in {files}]",
            if total == 1 { "match" } else { "matches" }
        );
    }
    out
}

/// One walker thread's searcher and findings.
struct Collector {
    searcher: Searcher,
    files: Vec<FileHits>,
    /// Hit lines whose text is kept.
    stored: usize,
    /// Files sorting after this cannot make the answer any more: counted, not kept.
    cutoff: Option<String>,
    total: u64,
    files_matched: u64,
    too_long: u64,
    limit: usize,
}

impl Collector {
    fn new(limit: usize) -> Self {
        let searcher = SearcherBuilder::new()
            // A file with one enormous line must not take the heap with it: past this the file
            // is skipped (and counted).
            .heap_limit(Some(MAX_LINE_HEAP))
            .binary_detection(BinaryDetection::quit(0))
            .line_terminator(LineTerminator::crlf())
            .line_number(true)
            .build();
        Self {
            searcher,
            files: Vec::new(),
            stored: 0,
            cutoff: None,
            total: 0,
            files_matched: 0,
            too_long: 0,
            limit,
        }
    }

    fn search_file(&mut self, matcher: &RegexMatcher, path: &Path, rel: String) {
        let keep = self.cutoff.as_ref().is_none_or(|cut| rel <= *cut);
        let mut sink = HitSink {
            matcher,
            keep,
            hits: Vec::new(),
            count: 0,
            binary: false,
        };
        // Opened only if it is a regular file (never blocking on a FIFO swapped in after the
        // walk). An unreadable file is skipped, as ripgrep skips it; one whose line outgrew the
        // heap limit is counted, so the model knows the search was not complete.
        let Ok((file, _)) = tandem_stdx::regular::open(path) else {
            return;
        };
        match self.searcher.search_file(matcher, &file, &mut sink) {
            // grep-searcher says so only in the message.
            Err(e) if e.to_string().contains("allocation limit") => {
                self.too_long += 1;
                return;
            }
            Err(_) => return,
            Ok(()) if sink.binary => return,
            Ok(()) => {}
        }
        if sink.count == 0 {
            return;
        }
        self.total += sink.count;
        self.files_matched += 1;
        if keep {
            self.stored += sink.hits.len();
            self.files.push(FileHits {
                path: rel,
                hits: sink.hits,
            });
            if self.stored > self.limit.saturating_mul(2).saturating_add(64) {
                self.prune();
            }
        }
    }

    /// Keeps the first files (by path) that hold `limit` hits, and sets the cutoff after them.
    fn prune(&mut self) {
        self.files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let mut kept = 0;
        let mut keep_files = 0;
        for file in &self.files {
            if kept >= self.limit {
                break;
            }
            kept += file.hits.len();
            keep_files += 1;
        }
        self.files.truncate(keep_files);
        self.stored = kept;
        self.cutoff = self.files.last().map(|f| f.path.clone());
    }
}

struct HitSink<'m> {
    matcher: &'m RegexMatcher,
    keep: bool,
    hits: Vec<(u64, String)>,
    count: u64,
    binary: bool,
}

impl Sink for HitSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.count += 1;
        if self.keep {
            let line = mat.line_number().unwrap_or(0);
            self.hits.push((line, excerpt(self.matcher, mat.bytes())));
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        // Binary files are skipped whole, like ripgrep does when walking a tree.
        self.binary = true;
        Ok(false)
    }
}

/// The matched line without its terminator; a long line as a window around the match.
fn excerpt(matcher: &RegexMatcher, line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() <= MAX_LINE_BYTES {
        return String::from_utf8_lossy(line).into_owned();
    }
    let (start, end) = match matcher.find(line) {
        Ok(Some(m)) => (m.start(), m.end()),
        _ => (0, 0),
    };
    let from = floor_char(line, start.saturating_sub(MAX_LINE_BYTES / 3));
    let to = floor_char(line, end.max(from + MAX_LINE_BYTES).min(line.len()));
    let mut out = String::new();
    if from > 0 {
        out.push_str(&format!("[{from} bytes cut] ..."));
    }
    out.push_str(&String::from_utf8_lossy(&line[from..to]));
    if to < line.len() {
        out.push_str(&format!("... [{} bytes cut]", line.len() - to));
    }
    out
}

/// `i` moved back to the start of the UTF-8 character it falls in.
fn floor_char(bytes: &[u8], mut i: usize) -> usize {
    while i > 0 && i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_case_and_explicit_case() {
        let lower = matcher("foo", None).unwrap();
        assert!(lower.is_match(b"FOO").unwrap());
        let upper = matcher("Foo", None).unwrap();
        assert!(!upper.is_match(b"foo").unwrap());
        let sensitive = matcher("foo", Some(true)).unwrap();
        assert!(!sensitive.is_match(b"FOO").unwrap());
        let insensitive = matcher("Foo", Some(false)).unwrap();
        assert!(insensitive.is_match(b"foo").unwrap());
        let eol = matcher("x$", None).unwrap();
        assert!(eol.is_match(b"x\r\n").unwrap());
    }

    #[test]
    fn invalid_regex_says_why() {
        let err = matcher("a(b", None).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArguments);
        assert!(err.message.contains("unclosed"), "{}", err.message);
    }

    #[test]
    fn long_lines_are_windowed_around_the_match() {
        let m = matcher("needle", None).unwrap();
        let line = format!("{}needle{}\n", "a".repeat(1000), "b".repeat(1000));
        let out = excerpt(&m, line.as_bytes());
        assert!(out.contains("needle"));
        assert!(out.starts_with("[900 bytes cut] ..."), "{out}");
        assert!(out.len() < 400, "{}", out.len());
    }
}
