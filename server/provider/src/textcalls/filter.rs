//! Keeps tool-call markup from the user while an answer streams.

/// An answer that opens with this may be a `functions.NAME:` call.
const FUNCTIONS: &str = "functions.";

/// Where a written tool call can begin.
const MARKERS: [&str; 7] = [
    "<tool_call>",
    "\nfunctions.",
    "<function=",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<|channel|>",
    "<|start|>",
];

/// Passes text through until tool-call markup may begin, then holds the rest back. A piece that
/// may be the start of a marker waits for the next piece; an answer that opens with `{` or a code
/// fence (maybe a bare JSON call) is held whole. Whatever is held is shown by [`finish`] when no
/// call was found in it after all.
///
/// [`finish`]: MarkupFilter::finish
#[derive(Debug, Default)]
pub struct MarkupFilter {
    /// Not shown yet: a possible marker start, or everything once holding.
    pending: String,
    holding: bool,
    shown_any: bool,
}

impl MarkupFilter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes a piece of the answer; returns what can be shown now.
    pub fn push(&mut self, piece: &str) -> String {
        self.pending.push_str(piece);
        if self.holding {
            return String::new();
        }
        if !self.shown_any {
            let start = self.pending.trim_start();
            if start.is_empty() {
                return String::new();
            }
            if start.starts_with('{') || start.starts_with("```") || start.starts_with(FUNCTIONS) {
                self.holding = true;
                return String::new();
            }
            // Maybe the start of `functions.NAME:`: wait for more.
            if FUNCTIONS.starts_with(start) {
                return String::new();
            }
        }
        let cut = match MARKERS.iter().filter_map(|m| self.pending.find(m)).min() {
            Some(at) => {
                self.holding = true;
                at
            }
            None => self.pending.len() - partial_marker_len(&self.pending),
        };
        let shown: String = self.pending.drain(..cut).collect();
        if !shown.is_empty() {
            self.shown_any = true;
        }
        shown
    }

    /// Whether some of the answer is being held back.
    pub fn is_holding(&self) -> bool {
        self.holding || !self.pending.is_empty()
    }

    /// What was held back, for when the answer held no tool call.
    pub fn finish(self) -> String {
        self.pending
    }
}

/// The length of the longest end of `text` that is the start of a marker.
fn partial_marker_len(text: &str) -> usize {
    MARKERS
        .iter()
        .flat_map(|m| (1..m.len()).rev().map(move |n| &m[..n]))
        .filter(|prefix| text.ends_with(prefix))
        .map(str::len)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pieces: &[&str]) -> (String, String) {
        let mut filter = MarkupFilter::new();
        let shown: String = pieces.iter().map(|p| filter.push(p)).collect();
        (shown, filter.finish())
    }

    #[test]
    fn markup_split_across_pieces_is_never_shown() {
        let (shown, held) = run(&[
            "Let me look.\n<to",
            "ol_c",
            "all>{\"name\":",
            " \"read_file\"}</tool_call>",
        ]);
        assert_eq!(shown, "Let me look.\n");
        assert!(held.starts_with("<tool_call>"));
    }

    #[test]
    fn plain_text_flows_with_at_most_a_marker_prefix_held() {
        let (shown, held) = run(&["a < b and ", "[TOOL", " is fine"]);
        assert_eq!(format!("{shown}{held}"), "a < b and [TOOL is fine");
        assert_eq!(held, "");
    }

    #[test]
    fn a_functions_line_is_held_at_the_start_or_after_a_newline() {
        let (shown, held) = run(&["func", "tions.read_file:\n{}"]);
        assert_eq!(
            (shown.as_str(), held.as_str()),
            ("", "functions.read_file:\n{}")
        );
        let (shown, held) = run(&["Let me read.\nfunc", "tions.read_file:\n{}"]);
        assert_eq!(shown, "Let me read.");
        assert_eq!(held, "\nfunctions.read_file:\n{}");
        let (shown, held) = run(&["fun", " fact"]);
        assert_eq!((shown.as_str(), held.as_str()), ("fun fact", ""));
    }

    #[test]
    fn an_answer_opening_with_json_is_held() {
        let (shown, held) = run(&["  {\"name\": \"read_file\"", "}"]);
        assert_eq!(shown, "");
        assert_eq!(held, "  {\"name\": \"read_file\"}");
        // Later in an answer, a brace is just text.
        let (shown, _) = run(&["Use ", "{x}"]);
        assert_eq!(shown, "Use {x}");
    }
}
