//! What the user types: lines from stdin, read on a thread of their own.

use std::sync::Arc;

use tokio::sync::mpsc;

/// Lines typed by the user, shared by the prompt loop and approval questions.
pub type Lines = Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<String>>>;

/// Reads stdin a line at a time on a thread of its own. Not tokio's stdin: its read runs on a
/// blocking thread that the runtime waits for when it shuts down, so `/exit` or Ctrl-C would
/// wait for (and swallow) one more line.
pub fn read_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
