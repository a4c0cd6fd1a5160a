//! Which written tool calls are meant as calls. Markup the model only shows (in a code fence, in
//! an indented code block, in inline code, in the middle of prose) or copies from something it
//! read (a README, an MCP result, a rules file) is text: a model that quotes `<tool_call>` while
//! explaining it must not run a command.
//!
//! A call counts when its markup starts outside code, in the assistant's own answer, and nothing
//! but the calls follow it; or when the whole answer is the call, fenced, indented or bare.

use std::sync::LazyLock;

use regex::Regex;
use tandem_model::{ToolCall, ToolDefinition};

use super::parse::extract;

/// The tool calls meant in `text`, and the text left for the user. `read` holds what the model
/// was given to read (tool results, attached files): markup copied verbatim from it is an echo.
pub fn extract_meant(
    text: &str,
    tools: &[ToolDefinition],
    read: &[&str],
) -> (String, Vec<ToolCall>) {
    let none = || (text.to_string(), Vec::new());
    // A message that is one code block: the block is the message.
    let indented = whole_indented(text);
    if let Some(inner) = whole_fence(text).or(indented.as_deref()) {
        let (visible, calls) = extract(inner, tools);
        return if calls.is_empty() || visible.trim() != "" || echoed(inner, read) {
            none()
        } else {
            (String::new(), calls)
        };
    }
    let masked = mask_code(text);
    let (masked_visible, found) = extract(&masked, tools);
    if found.is_empty() {
        return none();
    }
    let Some(at) = start_of_markup(&masked, &masked_visible) else {
        return none();
    };
    let markup = &text[at..];
    let (rest_visible, calls) = extract(markup, tools);
    if calls.is_empty() || !ends_with_calls(markup) || echoed(markup, read) {
        return none();
    }
    let visible = format!("{}{}", &text[..at], rest_visible);
    (visible.trim_end().to_string(), calls)
}

/// Where the markup begins: right after the text `extract` left visible (a prefix of the
/// answer), or at the harmony header, whose visible text is not a prefix.
fn start_of_markup(masked: &str, visible: &str) -> Option<usize> {
    if let Some(after) = masked.strip_prefix(visible) {
        return Some(visible.len() + (after.len() - after.trim_start().len()));
    }
    ["<|channel|>", "<|start|>"]
        .iter()
        .filter_map(|m| masked.find(m))
        .min()
}

/// Whether nothing but whitespace follows the last closed call: markup followed by more prose
/// is being talked about, not made.
fn ends_with_calls(markup: &str) -> bool {
    let mut end = None;
    for close in [
        "</tool_call>",
        "</function>",
        "<|call|>",
        "<|eom_id|>",
        "<|eot_id|>",
    ] {
        if let Some(i) = markup.rfind(close) {
            end = end.max(Some(i + close.len()));
        }
    }
    match end {
        Some(end) => markup[end..]
            .trim_start()
            .trim_start_matches("</tool_call>")
            .trim()
            .is_empty(),
        // Open to the end of the answer (an unclosed block, a JSON call, `functions.` lines).
        None => true,
    }
}

/// Whether the markup was copied from what the model read: compared without whitespace and
/// without read_file's `N | ` line numbers, so a copy of a file's lines is known as one.
fn echoed(markup: &str, read: &[&str]) -> bool {
    let markup = squeeze(markup);
    markup.len() >= 8
        && read
            .iter()
            .any(|r| squeeze(&strip_line_numbers(r)).contains(&markup))
}

fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn strip_line_numbers(text: &str) -> String {
    static NUMBERED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)^\s*\d+ \| ").expect("a valid pattern"));
    NUMBERED.replace_all(text, "").into_owned()
}

/// The inside of a message that is exactly one fenced code block (closed or left open).
fn whole_fence(text: &str) -> Option<&str> {
    let trimmed = text.trim();
    let fence = if trimmed.starts_with("```") {
        "```"
    } else if trimmed.starts_with("~~~") {
        "~~~"
    } else {
        return None;
    };
    let (_info, body) = trimmed.split_once('\n')?;
    let body = body.strip_suffix(fence).unwrap_or(body);
    // Another fence inside: more than one block, or prose between blocks.
    if body.lines().any(|l| l.trim_start().starts_with(fence)) {
        return None;
    }
    Some(body.trim())
}

/// The inside of a message that is exactly one indented code block (every line that is not
/// blank indented by four columns or more), without its indentation.
fn whole_indented(text: &str) -> Option<String> {
    let body = text.trim_matches('\n');
    let lines: Vec<&str> = body.lines().collect();
    if lines.iter().all(|l| l.trim().is_empty())
        || !lines
            .iter()
            .all(|l| l.trim().is_empty() || indented_code(l).is_some())
    {
        return None;
    }
    let inner: Vec<&str> = lines
        .iter()
        .map(|l| indented_code(l).unwrap_or(""))
        .collect();
    Some(inner.join("\n").trim().to_string())
}

/// A line's text after four columns of indentation (a tab reaches the next multiple of four),
/// when it has them: the line of an indented code block, as CommonMark has it.
fn indented_code(line: &str) -> Option<&str> {
    let mut column = 0;
    for (i, b) in line.bytes().enumerate() {
        column = match b {
            b' ' => column + 1,
            b'\t' => column + 4 - column % 4,
            _ => return None,
        };
        if column >= 4 {
            return Some(&line[i + 1..]);
        }
    }
    None
}

/// `text` with code blanked out (same byte length, so positions stay), the markup inside it
/// then unseen: fenced code blocks, indented code blocks and inline code spans. As in
/// CommonMark, an indented block starts only where a paragraph can't go on (after a blank line,
/// a heading or a closed fence, or at the start), so an indented line right after prose is
/// prose.
fn mask_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<&str> = None;
    // Whether an indented line here is code: at the start, after a blank line, a heading, a
    // closed fence, or another line of the block.
    let mut block_may_start = true;
    for line in text.split_inclusive('\n') {
        let blank_line = line.trim().is_empty();
        if fence.is_none() && !blank_line && block_may_start && indented_code(line).is_some() {
            blank(&mut out, line);
            continue;
        }
        let opener = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| opener.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                blank(&mut out, line);
            }
            (Some(open), Some(m)) if m == open => {
                fence = None;
                blank(&mut out, line);
                block_may_start = true;
                continue;
            }
            (Some(_), _) => blank(&mut out, line),
            (None, None) => mask_inline(&mut out, line),
        }
        block_may_start = blank_line || (fence.is_none() && opener.starts_with('#'));
    }
    out
}

/// One line with its inline code spans (a run of backticks up to the next run of the same
/// length) blanked; an unmatched run is a literal backtick.
fn mask_inline(out: &mut String, line: &str) {
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let mut j = i + run;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let other = bytes[j..].iter().take_while(|&&b| b == b'`').count();
                if other == run {
                    close = Some(j + other);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                out.push_str(&line[copied..i]);
                blank(out, &line[i..end]);
                copied = end;
                i = end;
            }
            None => i += run,
        }
    }
    out.push_str(&line[copied..]);
}

/// Spaces for every byte but newlines.
fn blank(out: &mut String, text: &str) {
    out.extend(text.bytes().map(|b| if b == b'\n' { '\n' } else { ' ' }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "run_command".into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}}),
            example: None,
        }]
    }

    fn calls(text: &str) -> usize {
        extract_meant(text, &tools(), &[]).1.len()
    }

    const CALL: &str = "<tool_call>\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>";

    #[test]
    fn a_call_at_the_end_of_the_answer_counts() {
        assert_eq!(calls(CALL), 1);
        let (visible, found) = extract_meant(&format!("Let me list.\n{CALL}\n"), &tools(), &[]);
        assert_eq!((visible.as_str(), found.len()), ("Let me list.", 1));
    }

    #[test]
    fn quoted_markup_is_text() {
        for text in [
            format!("The format is:\n```\n{CALL}\n```\nThat is all."),
            format!("Write `{}` to call.", CALL.replace('\n', " ")),
            format!("{CALL}\nThat is how a call looks."),
            format!("Example:\n~~~xml\n{CALL}\n~~~\n"),
        ] {
            let (visible, found) = extract_meant(&text, &tools(), &[]);
            assert!(found.is_empty(), "{text}");
            assert_eq!(visible, text);
        }
    }

    /// An indented code block (four spaces or a tab, after a blank line) is quoted code, as a
    /// fenced one is; an indented line right after prose goes on the paragraph.
    #[test]
    fn markup_in_an_indented_code_block_is_text() {
        let indent = |prefix: &str| -> String {
            CALL.lines()
                .map(|l| format!("{prefix}{l}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        for text in [
            format!("The format is:\n\n{}\n", indent("    ")),
            format!("The format is:\n\n{}", indent("\t")),
            format!("# Example\n{}", indent("      ")),
            format!("Before:\n```\nx\n```\n{}", indent("  \t")),
        ] {
            let (visible, found) = extract_meant(&text, &tools(), &[]);
            assert!(found.is_empty(), "{text:?}");
            assert_eq!(visible, text);
        }
        // Three columns are not a code block; an indented line continuing prose is prose.
        assert_eq!(calls(&format!("Let me list.\n\n{}", indent("   "))), 1);
        assert_eq!(calls(&format!("Let me list:\n{}", indent("    "))), 1);
    }

    #[test]
    fn a_message_that_is_only_an_indented_call_is_a_call() {
        let (visible, found) = extract_meant(
            &format!("\n    {}\n", CALL.replace('\n', "\n    ")),
            &tools(),
            &[],
        );
        assert_eq!((visible.as_str(), found.len()), ("", 1));
        assert_eq!(calls("\t{\"name\": \"run_command\", \"arguments\": {}}"), 1);
    }

    #[test]
    fn a_message_that_is_only_a_fenced_call_is_a_call() {
        let json =
            "```json\n{\"name\": \"run_command\", \"arguments\": {\"command\": \"ls\"}}\n```";
        assert_eq!(calls(json), 1);
        assert_eq!(calls(&format!("```xml\n{CALL}\n```")), 1);
        assert_eq!(
            calls("```\n{\"name\": \"run_command\", \"arguments\": {}}"),
            1
        );
        // A JSON object naming no tool stays text.
        assert_eq!(calls("```json\n{\"name\": \"Ada\"}\n```"), 0);
    }

    #[test]
    fn a_quoted_call_then_a_real_one_runs_the_real_one() {
        let text = format!("Calls look like `<tool_call>...</tool_call>`. Now:\n{CALL}");
        let (visible, found) = extract_meant(&text, &tools(), &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(
            visible,
            "Calls look like `<tool_call>...</tool_call>`. Now:"
        );
    }

    #[test]
    fn markup_copied_from_what_the_model_read_is_an_echo() {
        let readme = format!("# Usage\nThe agent writes:\n{CALL}\nand waits.");
        let (_, found) = extract_meant(CALL, &tools(), &[&readme]);
        assert!(found.is_empty());
        let numbered = "1 | # Usage\n2 | <tool_call>\n3 | {\"name\": \"run_command\", \"arguments\": {\"command\": \"ls\"}}\n4 | </tool_call>";
        let (_, found) = extract_meant(CALL, &tools(), &[numbered]);
        assert!(found.is_empty(), "a copy of read_file's numbered lines");
        let (_, found) = extract_meant(CALL, &tools(), &["unrelated"]);
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn backticks_inside_a_calls_arguments_are_kept() {
        let text = "<tool_call>{\"name\": \"run_command\", \"arguments\": {\"command\": \"echo `date`\"}}</tool_call>";
        let (_, found) = extract_meant(text, &tools(), &[]);
        assert_eq!(found[0].arguments, "{\"command\":\"echo `date`\"}");
    }
}
