//! Whether the terminal's background is light, for the code blocks' colours: `COLORFGBG` when it
//! names a background colour, else the terminal's own answer to OSC 11 (asked once, at the
//! start), else dark, as most terminals are.

use std::sync::OnceLock;
use std::time::Duration;

/// OSC 11 asks the background colour; DA1 (primary device attributes), which terminals answer
/// in order and every one of them answers, marks the end: a terminal that ignores OSC 11 answers
/// DA1 alone, and the wait ends there.
const QUERY: &[u8] = b"\x1b]11;?\x07\x1b[c";

/// The bound for a terminal that answers nothing at all (a bare pty). Long enough for a terminal
/// over a slow link, whose late answer would otherwise land in the first prompt as keys; short
/// enough not to be noticed, as the sidecar starts meanwhile.
const WAIT: Duration = Duration::from_millis(200);

const ESC: u8 = 0x1b;

static LIGHT: OnceLock<bool> = OnceLock::new();

/// The background, as decided at the start (by `COLORFGBG` alone when nothing was asked).
pub fn light() -> bool {
    *LIGHT.get_or_init(|| colorfgbg(std::env::var("COLORFGBG").ok().as_deref()).unwrap_or(false))
}

/// Decides the background: by `COLORFGBG` when it says, else by asking the terminal when `ask`
/// (colours are on, on a terminal). Returns what the user typed while the terminal was asked,
/// for the first prompt: the keys were read with the answer.
pub fn detect(ask: bool) -> Vec<u8> {
    let from_env = colorfgbg(std::env::var("COLORFGBG").ok().as_deref());
    let (light, typed) = match from_env {
        Some(light) => (light, Vec::new()),
        None if ask => match crate::terminal::ask(QUERY, &|read| scan(read).answered, WAIT) {
            Some(read) => {
                let scan = scan(&read);
                let light = scan.background.as_deref().and_then(light_colour);
                (light.unwrap_or(false), scan.typed)
            }
            None => (false, Vec::new()),
        },
        None => (false, Vec::new()),
    };
    let _ = LIGHT.set(light);
    typed
}

/// Whether `COLORFGBG` (`fg;bg` or `fg;x;bg`, as rxvt, Konsole and others set it) names a light
/// background: colour 7 (light grey) or 9 to 15 (the bright ones, white last) is light, 0 to 6
/// and 8 dark; `None` when it names none (unset, or not a number).
pub fn colorfgbg(value: Option<&str>) -> Option<bool> {
    let bg = value?.rsplit(';').next()?;
    let colour = bg.trim().parse::<u8>().ok()?;
    Some(matches!(colour, 7 | 9..=15))
}

/// Whether an OSC 11 answer's colour (`rgb:RRRR/GGGG/BBBB`, each part 1 to 4 hex digits, or
/// `rgba:` with alpha after) is light: its luminance above half. `None` when it is no such colour.
pub fn light_colour(spec: &str) -> Option<bool> {
    let parts = spec
        .strip_prefix("rgb:")
        .or_else(|| spec.strip_prefix("rgba:"))?;
    let channel = |part: &str| -> Option<f64> {
        if part.is_empty() || part.len() > 4 {
            return None;
        }
        let value = u32::from_str_radix(part, 16).ok()?;
        Some(f64::from(value) / f64::from((1u32 << (4 * part.len())) - 1))
    };
    let mut parts = parts.split('/');
    let (r, g, b) = (
        channel(parts.next()?)?,
        channel(parts.next()?)?,
        channel(parts.next()?)?,
    );
    // Rec. 709's weights: green counts most, blue least.
    Some(0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5)
}

/// What came back from the terminal, taken apart.
#[derive(Debug, Default, PartialEq)]
struct Scan {
    /// The OSC 11 answer's colour, when it came.
    background: Option<String>,
    /// DA1's answer came: the terminal has answered all it will.
    answered: bool,
    /// Everything else: what the user typed meanwhile (escape sequences of keys left out).
    typed: Vec<u8>,
}

fn scan(read: &[u8]) -> Scan {
    let mut scan = Scan::default();
    let mut i = 0;
    while i < read.len() {
        if read[i] == ESC {
            match read.get(i + 1) {
                // An OSC answer, up to BEL or ST (ESC \).
                Some(b']') => {
                    let body = &read[i + 2..];
                    let end = body.iter().enumerate().find_map(|(at, &b)| match b {
                        0x07 => Some((at, 1)),
                        ESC if body.get(at + 1) == Some(&b'\\') => Some((at, 2)),
                        _ => None,
                    });
                    // Cut off by the wait: half an answer is nobody's keys.
                    let Some((at, terminator)) = end else { break };
                    if let Some(colour) = body[..at].strip_prefix(b"11;") {
                        scan.background = Some(String::from_utf8_lossy(colour).into_owned());
                    }
                    i += 2 + at + terminator;
                    continue;
                }
                // A CSI sequence: DA1's answer (`ESC [ ? … c`), else a key (an arrow).
                Some(b'[') => {
                    let body = &read[i + 2..];
                    let Some(last) = body.iter().position(|b| (0x40..=0x7e).contains(b)) else {
                        break;
                    };
                    if body.first() == Some(&b'?') && body[last] == b'c' {
                        scan.answered = true;
                    }
                    i += 2 + last + 1;
                    continue;
                }
                // SS3, a key in application mode.
                Some(b'O') => {
                    i += 3;
                    continue;
                }
                _ => {}
            }
        }
        scan.typed.push(read[i]);
        i += 1;
    }
    scan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colorfgbg_names_the_background_or_nothing() {
        assert_eq!(colorfgbg(None), None);
        assert_eq!(colorfgbg(Some("15;0")), Some(false));
        assert_eq!(colorfgbg(Some("0;15")), Some(true));
        assert_eq!(colorfgbg(Some("0;default;7")), Some(true));
        assert_eq!(colorfgbg(Some("7;8")), Some(false));
        assert_eq!(colorfgbg(Some("garbage")), None);
        assert_eq!(colorfgbg(Some("")), None);
    }

    #[test]
    fn an_osc_11_colour_is_light_by_its_luminance() {
        assert_eq!(light_colour("rgb:ffff/ffff/ffff"), Some(true));
        assert_eq!(light_colour("rgb:0000/0000/0000"), Some(false));
        // Solarized light and dark, xterm's answer form.
        assert_eq!(light_colour("rgb:fdfd/f6f6/e3e3"), Some(true));
        assert_eq!(light_colour("rgb:0000/2b2b/3636"), Some(false));
        // Fewer digits are scaled as X11 does: `f` is full, `8` about half.
        assert_eq!(light_colour("rgb:f/f/f"), Some(true));
        assert_eq!(light_colour("rgb:ee/ee/ee"), Some(true));
        assert_eq!(light_colour("rgb:30/30/30"), Some(false));
        // Pure blue is dark, pure green light: the weights count.
        assert_eq!(light_colour("rgb:0000/0000/ffff"), Some(false));
        assert_eq!(light_colour("rgb:0000/ffff/0000"), Some(true));
        assert_eq!(light_colour("rgba:ffff/ffff/ffff/8000"), Some(true));
        for bad in [
            "",
            "rgb:",
            "rgb:ffff/ffff",
            "rgb:fffff/0/0",
            "rgb:zz/0/0",
            "#ffffff",
        ] {
            assert_eq!(light_colour(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_answers_are_taken_out_and_the_keys_typed_meanwhile_kept() {
        // BEL-terminated, then DA1: answered.
        let s = scan(b"\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?64;1;2c");
        assert_eq!(s.background.as_deref(), Some("rgb:ffff/ffff/ffff"));
        assert!(s.answered);
        assert!(s.typed.is_empty());
        // ST-terminated, with keys before, between and after (an arrow key left out).
        let s = scan(b"Go\n\x1b]11;rgb:0/0/0\x1b\\x\x1b[Ay\x1b[?1;2c");
        assert_eq!(s.background.as_deref(), Some("rgb:0/0/0"));
        assert!(s.answered);
        assert_eq!(s.typed, b"Go\nxy");
        // A terminal without OSC 11 answers DA1 alone.
        let s = scan(b"\x1b[?6c");
        assert_eq!((s.background, s.answered), (None, true));
        // Nothing answered yet; half an answer when the wait ended is dropped, not typed.
        assert_eq!(scan(b"hello").typed, b"hello");
        assert!(!scan(b"hello").answered);
        let s = scan(b"ab\x1b]11;rgb:ff");
        assert_eq!((s.typed.as_slice(), s.background), (&b"ab"[..], None));
        // Another OSC answer is not the background.
        assert_eq!(scan(b"\x1b]10;rgb:0/0/0\x07").background, None);
    }
}
