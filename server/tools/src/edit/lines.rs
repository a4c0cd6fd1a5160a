//! A file as lines that remember their own endings, and splicing replacements into it so that the
//! file keeps its byte-order mark, each line's ending (CRLF, LF, or mixed) and the presence or
//! absence of a final newline.

/// A file's text split into lines; `lines[i]` is without its ending, `endings[i]` is `"\r\n"`,
/// `"\n"`, or `""` (the last line of a file without a final newline).
pub(crate) struct FileLines<'a> {
    pub bom: bool,
    pub lines: Vec<&'a str>,
    pub endings: Vec<&'a str>,
}

/// One located block: `len` lines from `start` become `replacement`.
pub(crate) struct Splice {
    pub start: usize,
    pub len: usize,
    pub replacement: Vec<String>,
}

impl<'a> FileLines<'a> {
    pub fn new(text: &'a str) -> Self {
        let (bom, body) = match text.strip_prefix('\u{feff}') {
            Some(body) => (true, body),
            None => (false, text),
        };
        let mut lines = Vec::new();
        let mut endings = Vec::new();
        for piece in body.split_inclusive('\n') {
            let (line, ending) = if let Some(l) = piece.strip_suffix("\r\n") {
                (l, "\r\n")
            } else if let Some(l) = piece.strip_suffix('\n') {
                (l, "\n")
            } else {
                (piece, "")
            };
            lines.push(line);
            endings.push(ending);
        }
        Self {
            bom,
            lines,
            endings,
        }
    }

    fn final_newline(&self) -> bool {
        self.endings.last().is_none_or(|e| !e.is_empty())
    }

    /// The ending most lines use (`"\n"` when none has one).
    fn dominant_ending(&self) -> &'a str {
        let crlf = self.endings.iter().filter(|e| **e == "\r\n").count();
        let lf = self.endings.iter().filter(|e| **e == "\n").count();
        if crlf > lf { "\r\n" } else { "\n" }
    }

    /// The text with `splices` (sorted, not overlapping) applied. A replacement line takes the
    /// ending of the line it stands in for; extra lines take the region's own ending; the last
    /// replacement line takes the region's last ending (so a final line without newline stays so).
    pub fn splice(&self, splices: &[Splice]) -> String {
        let mut out = String::with_capacity(
            self.lines.iter().map(|l| l.len() + 2).sum::<usize>()
                + splices
                    .iter()
                    .flat_map(|s| &s.replacement)
                    .map(|l| l.len() + 2)
                    .sum::<usize>(),
        );
        if self.bom {
            out.push('\u{feff}');
        }
        let mut next = 0;
        for splice in splices {
            for i in next..splice.start {
                out.push_str(self.lines[i]);
                out.push_str(self.endings[i]);
            }
            let region = &self.endings[splice.start..splice.start + splice.len];
            let region_ending = region
                .iter()
                .find(|e| !e.is_empty())
                .copied()
                .unwrap_or_else(|| self.dominant_ending());
            let count = splice.replacement.len();
            for (j, line) in splice.replacement.iter().enumerate() {
                out.push_str(line);
                out.push_str(if j + 1 == count {
                    region[region.len() - 1]
                } else if j + 1 < region.len() {
                    region[j]
                } else {
                    region_ending
                });
            }
            next = splice.start + splice.len;
        }
        for i in next..self.lines.len() {
            out.push_str(self.lines[i]);
            out.push_str(self.endings[i]);
        }
        // Deleting a file's last lines must not leave a newline the file did not end with.
        if !self.final_newline()
            && let Some(s) = out.strip_suffix("\r\n").or_else(|| out.strip_suffix('\n'))
        {
            out.truncate(s.len());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(text: &str, start: usize, len: usize, with: &[&str]) -> String {
        FileLines::new(text).splice(&[Splice {
            start,
            len,
            replacement: with.iter().map(|s| s.to_string()).collect(),
        }])
    }

    #[test]
    fn endings_are_per_line() {
        assert_eq!(
            splice("a\r\nb\r\nc\r\n", 0, 2, &["A", "X", "B"]),
            "A\r\nX\r\nB\r\nc\r\n"
        );
        assert_eq!(splice("a\r\nb\nc\n", 0, 2, &["A", "B"]), "A\r\nB\nc\n");
        assert_eq!(splice("a\nb", 1, 1, &["B", "C"]), "a\nB\nC");
        assert_eq!(splice("a\nb", 1, 1, &[]), "a");
        assert_eq!(splice("a\nb\n", 1, 1, &[]), "a\n");
        assert_eq!(splice("\u{feff}a\n", 0, 1, &["b"]), "\u{feff}b\n");
        assert_eq!(splice("a\n", 0, 1, &[]), "");
    }
}
