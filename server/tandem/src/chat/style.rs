//! Colours for the terminal, or none when stdout is not one (or NO_COLOR is set).

use std::io::Write;

/// ANSI styles, or nothing when stdout is not a terminal (or NO_COLOR is set).
#[derive(Clone, Copy)]
pub struct Style {
    pub on: bool,
}

impl Style {
    pub fn paint(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }
    pub fn diff(&self, diff: &str) -> String {
        diff.lines()
            .map(|line| {
                let code = if line.starts_with("+++") || line.starts_with("---") {
                    "1"
                } else if line.starts_with('+') {
                    "32"
                } else if line.starts_with('-') {
                    "31"
                } else if line.starts_with("@@") {
                    "36"
                } else {
                    ""
                };
                if code.is_empty() {
                    line.to_string()
                } else {
                    self.paint(code, line)
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Writes to stdout at once.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// stdout is a terminal that understands cursor and colour escapes (not `TERM=dumb`): the
/// spinner and rendered Markdown are for it.
pub fn capable_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
        && std::env::var("TERM").map_or(cfg!(windows), |t| !t.is_empty() && t != "dumb")
}
