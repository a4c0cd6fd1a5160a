//! The model's Markdown rendered for a terminal: headings, emphasis, lists, block quotes,
//! tables, links, and code blocks highlighted by syntect; paragraphs wrapped at word boundaries
//! to the terminal's width. Streamed a line at a time ([`Lines`]): a line is printed once it is
//! complete, so nothing already shown is redrawn. Code is highlighted in a theme for the
//! terminal's background (`COLORFGBG`, else the terminal's answer to OSC 11; dark when unknown:
//! [`super::background`]).
//!
//! Everything the model wrote passes through [`inert`] first: only our own escapes reach the
//! terminal.

use std::sync::OnceLock;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::parsing::SyntaxSet;
use syntect::util::as_24_bit_terminal_escaped;

use crate::display::inert;

/// Streamed text rendered a line at a time, as each line completes: Markdown by line (a line's
/// indent kept, so nested lists stay nested), a code block line by line (its highlighting carried
/// from line to line), a table once its last row came (its columns need every row). Nothing
/// shown is redrawn.
#[derive(Default)]
pub struct Lines {
    /// The last line, still being streamed.
    partial: String,
    /// The code block we are in.
    code: Option<Code>,
    /// The rows of a table being read.
    table: String,
    /// The last thing shown was a blank line: another adds nothing.
    gap: bool,
}

/// An open code block: its fence (```` ``` ```` or `~~~`) and, with colours, its highlighter.
struct Code {
    fence: String,
    highlighter: Option<HighlightLines<'static>>,
}

impl Lines {
    /// Adds a piece of the answer; returns the terminal text of the lines it completed.
    pub fn push(&mut self, delta: &str, look: Look) -> String {
        self.partial.push_str(delta);
        let mut shown = String::new();
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            shown.push_str(&self.line(&line, look));
        }
        shown
    }

    /// What is left at the end of the answer, rendered; `None` when nothing is.
    pub fn finish(&mut self, look: Look) -> Option<String> {
        let rest = std::mem::take(&mut self.partial);
        let mut shown = if rest.is_empty() {
            String::new()
        } else {
            self.line(&format!("{rest}\n"), look)
        };
        shown.push_str(&self.end_table(look));
        if self.code.take().is_some() && look.color {
            shown.push_str("\x1b[0m");
        }
        self.gap = false;
        (!shown.trim().is_empty()).then_some(shown)
    }

    fn line(&mut self, line: &str, look: Look) -> String {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let marker: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        let is_fence = marker.len() >= 3 && indent <= 3;
        if let Some(code) = &mut self.code {
            if is_fence && marker.starts_with(code.fence.as_str()) {
                self.code = None;
                self.gap = true;
                // The blank line after a code block.
                return if look.color { "\x1b[0m\n" } else { "\n" }.to_string();
            }
            self.gap = false;
            return highlight_line(code.highlighter.as_mut(), &inert(line, false));
        }
        let is_row = trimmed.starts_with('|');
        let mut shown = if is_row {
            String::new()
        } else {
            self.end_table(look)
        };
        if is_fence {
            let lang = trimmed[marker.len()..]
                .split([' ', ',', '\n'])
                .next()
                .unwrap_or("");
            self.code = Some(Code {
                fence: marker,
                highlighter: look.color.then(|| highlighter(lang)),
            });
        } else if is_row {
            self.table.push_str(line);
        } else if trimmed.is_empty() {
            if !self.gap {
                shown.push('\n');
                self.gap = true;
            }
        } else {
            let rendered = render(trimmed, look);
            let pad = " ".repeat(indent);
            for l in rendered.trim_end_matches('\n').lines() {
                shown.push_str(&format!("{pad}{l}\n"));
            }
            self.gap = false;
        }
        shown
    }

    /// A held table, rendered now that a line after it came (or the answer ended).
    fn end_table(&mut self, look: Look) -> String {
        let table = std::mem::take(&mut self.table);
        if table.is_empty() {
            return String::new();
        }
        self.gap = true;
        render(&table, look)
    }
}

/// How to render: the width to wrap at, and whether colours and styles may be used.
#[derive(Clone, Copy)]
pub struct Look {
    pub width: usize,
    pub color: bool,
}

/// One block (or more) of Markdown as terminal lines, each ending with a newline.
pub fn render(markdown: &str, look: Look) -> String {
    let mut r = Renderer {
        look,
        out: String::new(),
        text: String::new(),
        styles: Vec::new(),
        prefixes: Vec::new(),
        lists: Vec::new(),
        code: None,
        table: None,
        link: Vec::new(),
    };
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(markdown, options) {
        r.event(event);
    }
    r.flush(true);
    r.out
}

struct Table {
    rows: Vec<Vec<String>>,
    cell: String,
    row: Vec<String>,
}

struct Renderer {
    look: Look,
    out: String,
    /// The paragraph (or heading, or item) being gathered, with its inline styles.
    text: String,
    /// Open inline styles (SGR codes), re-applied after each reset.
    styles: Vec<&'static str>,
    /// Block quote bars and list indents, outermost first.
    prefixes: Vec<String>,
    /// Open lists: the next number of an ordered one.
    lists: Vec<Option<u64>>,
    /// A code block being gathered: its language and text.
    code: Option<(String, String)>,
    table: Option<Table>,
    /// Open links' targets.
    link: Vec<String>,
}

impl Renderer {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.look.color && !code.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m{}", self.reopen())
        } else {
            text.to_string()
        }
    }

    /// The styles still open after a reset.
    fn reopen(&self) -> String {
        if !self.look.color || self.styles.is_empty() {
            return String::new();
        }
        format!("\x1b[{}m", self.styles.join(";"))
    }

    fn push_style(&mut self, code: &'static str) {
        self.styles.push(code);
        if self.look.color {
            self.text.push_str(&format!("\x1b[{code}m"));
        }
    }

    fn pop_style(&mut self) {
        self.styles.pop();
        if self.look.color {
            self.text.push_str("\x1b[0m");
            let reopen = self.reopen();
            self.text.push_str(&reopen);
        }
    }

    fn push_text(&mut self, text: &str) {
        let text = inert(text, false);
        if let Some(table) = &mut self.table {
            table.cell.push_str(&text);
        } else {
            self.text.push_str(&text);
        }
    }

    /// Writes the gathered text wrapped under the current prefixes; `gap`: a blank line after.
    fn flush(&mut self, gap: bool) {
        let text = std::mem::take(&mut self.text);
        if !text.trim().is_empty() {
            let first: String = self.prefixes.concat();
            // Continuation lines keep quote bars but not list bullets.
            let rest: String = self
                .prefixes
                .iter()
                .map(|p| {
                    if p.contains('│') {
                        p.clone()
                    } else {
                        " ".repeat(textwrap::core::display_width(p))
                    }
                })
                .collect();
            let options = textwrap::Options::new(self.look.width.max(10))
                .initial_indent(&first)
                .subsequent_indent(&rest)
                .break_words(false);
            for line in textwrap::wrap(text.trim_end(), options) {
                self.out.push_str(line.trim_end());
                self.out.push('\n');
            }
            // List bullets show once.
            if let Some(last) = self.prefixes.last_mut()
                && !last.contains('│')
            {
                *last = " ".repeat(textwrap::core::display_width(last));
            }
        }
        if gap && !self.out.is_empty() && !self.out.ends_with("\n\n") && self.lists.is_empty() {
            self.out.push('\n');
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => match &mut self.code {
                Some((_, code)) => code.push_str(&text),
                None => self.push_text(&text),
            },
            Event::Code(code) => {
                let code = inert(&code, true).into_owned();
                let shown = if self.look.color {
                    self.paint("36", &code)
                } else {
                    format!("`{code}`")
                };
                match &mut self.table {
                    Some(table) => table.cell.push_str(&shown),
                    None => self.text.push_str(&shown),
                }
            }
            Event::SoftBreak => self.push_text(" "),
            Event::HardBreak => self.text.push('\n'),
            Event::Rule => {
                self.flush(false);
                let rule = "─".repeat(self.look.width.clamp(3, 40));
                let rule = self.paint("2", &rule);
                self.out.push_str(&format!("{rule}\n\n"));
            }
            Event::Html(html) | Event::InlineHtml(html) => self.push_text(&html),
            Event::TaskListMarker(done) => self.push_text(if done { "[x] " } else { "[ ] " }),
            Event::FootnoteReference(name) => self.push_text(&format!("[{name}]")),
            Event::InlineMath(m) | Event::DisplayMath(m) => self.push_text(&m),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush(true);
                self.push_style(if level == HeadingLevel::H1 {
                    "1;4"
                } else {
                    "1"
                });
                if !self.look.color {
                    let hashes = "#".repeat(level as usize);
                    self.text.push_str(&format!("{hashes} "));
                }
            }
            Tag::Emphasis => self.push_style("3"),
            Tag::Strong => self.push_style("1"),
            Tag::Strikethrough => self.push_style("9"),
            Tag::Link { dest_url, .. } => {
                self.push_style("4");
                self.link.push(dest_url.to_string());
            }
            Tag::Image { dest_url, .. } => self.link.push(dest_url.to_string()),
            Tag::BlockQuote(_) => {
                self.flush(true);
                let bar = self.paint("2", "│ ");
                self.prefixes.push(bar);
            }
            Tag::List(start) => {
                self.flush(false);
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush(false);
                let bullet = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => "• ".to_string(),
                };
                self.prefixes.push(bullet);
            }
            Tag::CodeBlock(kind) => {
                self.flush(true);
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split([' ', ',']).next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::Table(_) => {
                self.flush(true);
                self.table = Some(Table {
                    rows: Vec::new(),
                    cell: String::new(),
                    row: Vec::new(),
                });
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.flush(true),
            TagEnd::Heading(_) => {
                self.pop_style();
                self.flush(true);
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some(url) = self.link.pop()
                    && !self.text.contains(&url)
                {
                    let shown = self.paint("2", &format!(" ({})", inert(&url, true)));
                    self.text.push_str(&shown);
                }
            }
            TagEnd::Image => {
                if let Some(url) = self.link.pop() {
                    self.push_text(&format!(" ({url})"));
                }
            }
            TagEnd::BlockQuote(_) => {
                self.flush(true);
                self.prefixes.pop();
            }
            TagEnd::Item => {
                self.flush(false);
                self.prefixes.pop();
            }
            TagEnd::List(_) => {
                self.flush(false);
                self.lists.pop();
                if self.lists.is_empty() {
                    self.out.push('\n');
                }
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    let shown = highlight(&lang, &inert(&code, false), self.look.color);
                    self.out.push_str(&shown);
                    self.out.push('\n');
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let cell = std::mem::take(&mut t.cell);
                    t.row.push(cell.trim().to_string());
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    let table = self.table_text(&t.rows);
                    self.out.push_str(&table);
                    self.out.push('\n');
                }
            }
            _ => {}
        }
    }

    /// Columns padded to their widest cell; the head bold, a rule under it.
    fn table_text(&self, rows: &[Vec<String>]) -> String {
        let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                rows.iter()
                    .filter_map(|r| r.get(c))
                    .map(|cell| textwrap::core::display_width(cell))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut text = String::new();
        for (i, row) in rows.iter().enumerate() {
            let cells: Vec<String> = (0..columns)
                .map(|c| {
                    let cell = row.get(c).map(String::as_str).unwrap_or("");
                    let pad = widths[c].saturating_sub(textwrap::core::display_width(cell));
                    let cell = if i == 0 {
                        self.paint("1", cell)
                    } else {
                        cell.to_string()
                    };
                    format!("{cell}{}", " ".repeat(pad))
                })
                .collect();
            text.push_str(cells.join(" │ ").trim_end());
            text.push('\n');
            if i == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                text.push_str(&self.paint("2", &rule.join("─┼─")));
                text.push('\n');
            }
        }
        text
    }
}

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn theme() -> &'static Theme {
    static THEME: OnceLock<Theme> = OnceLock::new();
    THEME.get_or_init(|| {
        let name = if super::background::light() {
            "base16-ocean.light"
        } else {
            "base16-ocean.dark"
        };
        let mut themes = ThemeSet::load_defaults().themes;
        themes
            .remove(name)
            .or_else(|| themes.into_values().next())
            .unwrap_or_default()
    })
}

/// A highlighter for a code block in `lang` (plain text when unknown).
fn highlighter(lang: &str) -> HighlightLines<'static> {
    let set = syntaxes();
    let syntax = set
        .find_syntax_by_token(lang)
        .unwrap_or_else(|| set.find_syntax_plain_text());
    HighlightLines::new(syntax, theme())
}

/// One line of a code block, highlighted by the block's highlighter (which carries what the
/// lines before it opened: a string, a comment), or as written without colours.
fn highlight_line(highlighter: Option<&mut HighlightLines<'static>>, line: &str) -> String {
    let Some(lines) = highlighter else {
        return line.to_string();
    };
    match lines.highlight_line(line, syntaxes()) {
        Ok(ranges) => as_24_bit_terminal_escaped(&ranges, false),
        Err(_) => line.to_string(),
    }
}

/// A code block: highlighted for its language when colours are on, else as written.
fn highlight(lang: &str, code: &str, color: bool) -> String {
    if !color {
        return code.to_string();
    }
    let mut lines = highlighter(lang);
    let mut shown = String::new();
    for line in syntect::util::LinesWithEndings::from(code) {
        shown.push_str(&highlight_line(Some(&mut lines), line));
    }
    shown.push_str("\x1b[0m");
    shown
}

/// The terminal's width in columns (80 when it cannot be told).
pub fn terminal_width() -> usize {
    crate::terminal::columns()
        .or_else(|| std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()))
        .filter(|c| *c > 0)
        .unwrap_or(80)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Look = Look {
        width: 40,
        color: false,
    };

    #[test]
    fn each_line_shows_as_it_completes() {
        let mut l = Lines::default();
        assert_eq!(l.push("# Title\n\nSome **bo", PLAIN), "# Title\n\n");
        assert_eq!(
            l.push("ld** text", PLAIN),
            "",
            "a line shows once it is whole"
        );
        assert_eq!(l.push(" and more\n", PLAIN), "Some bold text and more\n");
        // A paragraph's second line shows without waiting for its end; blank lines show once.
        assert_eq!(l.push("second line\n\n\n", PLAIN), "second line\n\n");
        // Code line by line, without its fences; nested list items keep their indent.
        assert_eq!(l.push("```rust\nfn main() {}\n", PLAIN), "fn main() {}\n");
        assert_eq!(l.push("```\n- a\n  - b\n", PLAIN), "\n• a\n  • b\n");
        // A table waits for its last row.
        assert_eq!(l.push("| a | bb |\n|---|---|\n| ccc | d |\n", PLAIN), "");
        let after = l.push("done\n", PLAIN);
        assert!(after.starts_with("a   │ bb\n"), "{after}");
        assert!(after.ends_with("ccc │ d\n\ndone\n"), "{after}");
        assert_eq!(l.finish(PLAIN), None);
        l.push("tail", PLAIN);
        assert_eq!(l.finish(PLAIN).as_deref(), Some("tail\n"));
    }

    #[test]
    fn code_keeps_its_highlighting_from_line_to_line() {
        let look = Look {
            width: 80,
            color: true,
        };
        let mut l = Lines::default();
        let first = l.push("```rust\n/* a comment\n", look);
        let second = l.push("still the comment */ let x = 1;\n", look);
        // The comment's colour carries to the next line, as the whole block's highlight has it.
        let whole = highlight(
            "rust",
            "/* a comment\nstill the comment */ let x = 1;\n",
            true,
        );
        assert_eq!(format!("{first}{second}\x1b[0m"), whole);
        assert!(second.contains("\x1b[38;2;"), "{second:?}");
        // An escape the model wrote inside code stays inert.
        assert!(!l.push("\x1b[2J\n", look).contains("\x1b[2J"));
    }

    #[test]
    fn markdown_renders_without_its_markers_and_wraps_at_spaces() {
        let text = render(
            "## Plan\n\nThis is **bold** and *soft* with `code` and a [link](https://x.y).\n\n\
             - one\n- two\n\n> quoted words here\n",
            PLAIN,
        );
        assert!(!text.contains("**"), "{text}");
        assert!(text.contains("## Plan"), "{text}");
        assert!(text.contains("• one\n• two"), "{text}");
        assert!(text.contains("│ quoted words here"), "{text}");
        assert!(text.contains("(https://x.y)"), "{text}");
        for line in text.lines() {
            assert!(
                textwrap::core::display_width(line) <= 40,
                "{line:?} too wide"
            );
        }
        // Words are whole: every word of the paragraph is on some line.
        for word in ["This", "bold", "soft", "`code`"] {
            assert!(
                text.lines()
                    .any(|l| l.split_whitespace().any(|w| w == word)),
                "{word} broken:\n{text}"
            );
        }
    }

    #[test]
    fn tables_line_up_and_code_is_highlighted_in_colour() {
        let text = render("| a | bb |\n|---|---|\n| ccc | d |\n", PLAIN);
        assert_eq!(text.lines().next(), Some("a   │ bb"), "{text}");
        assert!(text.contains("ccc │ d"), "{text}");
        let look = Look {
            width: 80,
            color: true,
        };
        let code = render("```rust\nfn main() { let x = 1; }\n```\n", look);
        assert!(code.contains("\x1b[38;2;"), "no colours: {code:?}");
        assert!(code.contains("main"), "{code:?}");
    }

    #[test]
    fn the_models_escapes_stay_inert() {
        let look = Look {
            width: 80,
            color: true,
        };
        let text = render("hi \x1b[2J there\n\n```\nx\x1b]0;title\x07\n```\n", look);
        assert!(
            !text.contains("\x1b[2J") && !text.contains("\x1b]0"),
            "{text:?}"
        );
    }
}
