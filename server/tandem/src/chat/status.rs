//! Signs of life: a spinner with the time waited while the model has not answered yet, and after
//! each turn one line with the model, the window used, tokens in and out, time and speed.
//!
//! The spinner is drawn only on a terminal, by a thread of its own, on the line the answer will
//! start on; whatever the chat prints next first calls [`Status::quiet`], which clears it.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tandem_stdx::lock;

const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK: Duration = Duration::from_millis(100);

#[derive(Default)]
struct Inner {
    /// Waiting for the model since then; the spinner shows.
    waiting_since: Option<Instant>,
    /// The spinner is on the screen.
    drawn: bool,
    frame: usize,
    turn_started: Option<Instant>,
    /// The current answer began streaming then.
    streaming_since: Option<Instant>,
    streamed: Duration,
    prompt_tokens: u64,
    completion_tokens: u64,
    window: Option<u64>,
    requests: u32,
    /// The answer is coming (gathered until a block is complete).
    answering: bool,
}

#[derive(Clone)]
pub struct Status {
    inner: Arc<Mutex<Inner>>,
    /// stdout is a terminal: the spinner may draw.
    live: bool,
}

impl Status {
    pub fn new(live: bool) -> Status {
        let status = Status {
            inner: Arc::new(Mutex::new(Inner::default())),
            live,
        };
        if live {
            let ticking = status.clone();
            std::thread::spawn(move || {
                loop {
                    std::thread::sleep(TICK);
                    ticking.draw();
                }
            });
        }
        status
    }

    /// A turn began: the clock starts, the spinner shows.
    pub fn turn_started(&self) {
        let mut inner = lock(&self.inner);
        *inner = Inner {
            turn_started: Some(Instant::now()),
            ..Inner::default()
        };
        drop(inner);
        self.wait();
    }

    /// The model is asked again (after a tool's result): the spinner shows until it answers.
    pub fn wait(&self) {
        let mut inner = lock(&self.inner);
        inner.waiting_since = Some(Instant::now());
        inner.answering = false;
        drop(inner);
        self.draw();
    }

    /// Something is about to be printed: the spinner goes; `answer` starts the speed clock.
    pub fn quiet(&self, answer: bool) {
        let mut inner = lock(&self.inner);
        inner.waiting_since = None;
        inner.answering = false;
        if inner.drawn {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(b"\r\x1b[2K");
            let _ = stdout.flush();
            inner.drawn = false;
        }
        if answer && inner.streaming_since.is_none() {
            inner.streaming_since = Some(Instant::now());
        }
    }

    /// The answer streams but nothing of it shows yet: the spinner says so, the speed clock runs.
    pub fn answering(&self) {
        let mut inner = lock(&self.inner);
        if inner.streaming_since.is_none() {
            inner.streaming_since = Some(Instant::now());
        }
        inner.answering = true;
    }

    /// A request's token counts.
    pub fn usage(&self, prompt_tokens: u64, completion_tokens: u64, window: Option<u64>) {
        let mut inner = lock(&self.inner);
        if let Some(since) = inner.streaming_since.take() {
            inner.streamed += since.elapsed();
        }
        inner.prompt_tokens = prompt_tokens;
        inner.completion_tokens += completion_tokens;
        inner.window = window.or(inner.window);
        inner.requests += 1;
    }

    /// The line after a turn: `[model: 1830 of 32768 tokens in, 50 out, 2.1 s, 24 tok/s]`;
    /// none when no request was answered.
    pub fn summary(&self, model: &str) -> Option<String> {
        self.quiet(false);
        let inner = lock(&self.inner);
        if inner.requests == 0 {
            return None;
        }
        let window = inner.window.map(|w| format!(" of {w}")).unwrap_or_default();
        let took = inner
            .turn_started
            .map(|t| format!(", {:.1} s", t.elapsed().as_secs_f64()))
            .unwrap_or_default();
        let secs = inner.streamed.as_secs_f64();
        let speed = if secs > 0.05 && inner.completion_tokens > 0 {
            format!(", {:.0} tok/s", inner.completion_tokens as f64 / secs)
        } else {
            String::new()
        };
        Some(format!(
            "[{model}: {}{window} tokens in, {} out{took}{speed}]",
            inner.prompt_tokens, inner.completion_tokens
        ))
    }

    fn draw(&self) {
        if !self.live {
            return;
        }
        let mut inner = lock(&self.inner);
        let Some(since) = inner.waiting_since else {
            return;
        };
        let frame = FRAMES[inner.frame % FRAMES.len()];
        inner.frame += 1;
        let mut stdout = std::io::stdout().lock();
        let doing = if inner.answering {
            "the model is answering…"
        } else {
            "waiting for the model…"
        };
        let _ = write!(
            stdout,
            "\r\x1b[2K{frame} {doing} {:.1}s",
            since.elapsed().as_secs_f64()
        );
        let _ = stdout.flush();
        inner.drawn = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_has_the_model_the_window_and_the_tokens() {
        let status = Status::new(false);
        status.turn_started();
        assert_eq!(status.summary("qwen"), None, "no request answered yet");
        status.quiet(true);
        status.usage(1830, 40, Some(32768));
        status.usage(1900, 10, None);
        let line = status.summary("qwen").unwrap();
        assert!(
            line.starts_with("[qwen: 1900 of 32768 tokens in, 50 out, "),
            "{line}"
        );
        assert!(line.ends_with(" s]") || line.ends_with("tok/s]"), "{line}");
    }
}
