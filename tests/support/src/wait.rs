//! Waiting for a condition, never for a time.

use std::time::Duration;

/// Polls `done` until it holds; fails the test, naming `what`, when `timeout` (a safety net,
/// not a measure) runs out first.
pub async fn wait_until(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + timeout;
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Runs a future to its end on a runtime of its own: for synchronous tests of async APIs.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime")
        .block_on(f)
}

/// Ends the test process if it is still alive `bound` from now: for calls that must return at
/// once (a FIFO opened without a writer), so a call that blocks fails rather than hangs the run.
/// Dropping the guard ends the watch.
pub struct HangGuard(Option<std::sync::mpsc::Sender<()>>);

pub fn hang_guard(what: &'static str, bound: Duration) -> HangGuard {
    let (done, watched) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = watched.recv_timeout(bound) {
            eprintln!("{what}: still blocked after {bound:?}");
            std::process::exit(101);
        }
    });
    HangGuard(Some(done))
}

impl Drop for HangGuard {
    fn drop(&mut self) {
        self.0.take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_that_holds_ends_the_wait() {
        let mut calls = 0;
        block_on(wait_until("the third call", Duration::from_secs(5), || {
            calls += 1;
            calls == 3
        }));
        assert_eq!(calls, 3);
    }

    #[test]
    #[should_panic(expected = "timed out after 20ms waiting for never")]
    fn a_condition_that_never_holds_fails_with_its_name() {
        block_on(wait_until("never", Duration::from_millis(20), || false));
    }
}
