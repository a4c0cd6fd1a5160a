//! Signs of life: a spinner with the time waited while the model has not answered yet, the
//! speed while the answer streams (estimated from its characters until the server counts), and
//! after each turn one line with the model, the window used, tokens in and out (from the turn's
//! view), time and speed.
//!
//! The spinner is drawn only on a terminal, by a thread of its own, on the line the answer will
//! start on; whatever the chat prints next first calls [`Status::quiet`], which clears it.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tandem_agent::view::Usage;
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
    /// The answer is coming: the spinner shows its speed.
    answering: bool,
    /// Characters of the current answer so far, for the live speed.
    answer_chars: usize,
}

/// Characters per token for the live estimate (English prose and code run 3 to 5).
const CHARS_PER_TOKEN: f64 = 4.0;

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

    /// `chars` more of the answer came: the speed clock runs, and the spinner (where the answer
    /// is shown a block at a time, on the line below the blocks shown) says how fast it comes.
    pub fn answering(&self, chars: usize) {
        let mut inner = lock(&self.inner);
        if inner.streaming_since.is_none() {
            inner.streaming_since = Some(Instant::now());
        }
        inner.answer_chars += chars;
        inner.answering = true;
        inner.waiting_since.get_or_insert_with(Instant::now);
    }

    /// What the spinner says while the answer streams: `answering… 2.1 s, ~24 tok/s`.
    fn live_speed(inner: &Inner) -> String {
        let Some(since) = inner.streaming_since else {
            return "answering…".to_string();
        };
        let secs = since.elapsed().as_secs_f64();
        let tokens = inner.answer_chars as f64 / CHARS_PER_TOKEN;
        if secs < 0.2 || tokens < 1.0 {
            return format!("answering… {secs:.1} s");
        }
        format!("answering… {secs:.1} s, ~{:.0} tok/s", tokens / secs)
    }

    /// A model request ended: its answer's streaming time counts toward the speed.
    pub fn request_done(&self) {
        let mut inner = lock(&self.inner);
        if let Some(since) = inner.streaming_since.take() {
            inner.streamed += since.elapsed();
        }
        inner.answer_chars = 0;
    }

    /// The line after a turn: `[model: 1830 of 32768 tokens in, 50 out, 2.1 s, 24 tok/s]`, the
    /// last request's prompt and the turn's completion tokens (counted by the turn's view); none
    /// when no request was answered.
    pub fn summary(&self, model: &str, usage: &Usage) -> Option<String> {
        self.quiet(false);
        let inner = lock(&self.inner);
        let last = usage.last?;
        let window = usage
            .context_window
            .map(|w| format!(" of {w}"))
            .unwrap_or_default();
        let took = inner
            .turn_started
            .map(|t| format!(", {:.1} s", t.elapsed().as_secs_f64()))
            .unwrap_or_default();
        let secs = inner.streamed.as_secs_f64();
        let speed = if secs > 0.05 && usage.completion_tokens > 0 {
            format!(", {:.0} tok/s", usage.completion_tokens as f64 / secs)
        } else {
            String::new()
        };
        Some(format!(
            "[{model}: {}{window} tokens in, {} out{took}{speed}]",
            last.prompt_tokens, usage.completion_tokens
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
        let line = if inner.answering {
            Status::live_speed(&inner)
        } else {
            format!(
                "waiting for the model… {:.1}s",
                since.elapsed().as_secs_f64()
            )
        };
        let _ = write!(stdout, "\r\x1b[2K{frame} {line}");
        let _ = stdout.flush();
        inner.drawn = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_has_the_model_the_window_and_the_tokens() {
        use tandem_agent::events::Event;
        let status = Status::new(false);
        status.turn_started();
        let mut view = tandem_agent::view::TurnView::new();
        assert_eq!(
            status.summary("qwen", view.usage()),
            None,
            "no request answered yet"
        );
        status.quiet(true);
        for (prompt, completion, window) in [(1830, 40, Some(32768)), (1900, 10, None)] {
            view.event(Event::Usage {
                prompt_tokens: prompt,
                completion_tokens: completion,
                context_window: window,
            });
            status.request_done();
        }
        let line = status.summary("qwen", view.usage()).unwrap();
        assert!(
            line.starts_with("[qwen: 1900 of 32768 tokens in, 50 out, "),
            "{line}"
        );
        assert!(line.ends_with(" s]") || line.ends_with("tok/s]"), "{line}");
    }

    #[test]
    fn the_speed_shows_while_the_answer_streams() {
        let status = Status::new(false);
        status.turn_started();
        status.answering(400);
        // Backdated: the answer began streaming a second ago.
        lock(&status.inner).streaming_since = Some(Instant::now() - Duration::from_secs(1));
        let line = Status::live_speed(&lock(&status.inner));
        assert!(line.starts_with("answering… 1.0 s, ~"), "{line}");
        let speed: f64 = line
            .rsplit_once('~')
            .and_then(|(_, r)| r.strip_suffix(" tok/s"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!((90.0..=100.0).contains(&speed), "{line}");
        // A request's end restarts the count for the next answer.
        status.request_done();
        assert_eq!(lock(&status.inner).answer_chars, 0);
    }
}
