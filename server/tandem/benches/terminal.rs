//! `tandem chat` as a user feels it in a terminal: `cargo bench -p tandem --bench terminal`.
//!
//! - first frame: from starting `tandem chat` in a pty to its `you>` prompt on the screen;
//! - keystroke to echo: from a key written to the pty to the line editor showing it.
//!
//! Printed against a 60 Hz frame (16.7 ms: a ratio under 1 is within one frame), and against a
//! reference measured the same way in the same pty: `sh` printing the prompt then `cat` (the
//! kernel's own echo, no line editor), the least any terminal program can do.

#[cfg(unix)]
fn main() {
    const FRAME_MS: f64 = 1000.0 / 60.0;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut chat = std::process::Command::new(env!("CARGO_BIN_EXE_tandem"));
    chat.args([
        "chat",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "bench",
    ])
    .arg("--root")
    .arg(dir.path())
    .arg("--data-dir")
    .arg(dir.path().join("data"))
    .env("HOME", dir.path());
    let mut reference = std::process::Command::new("sh");
    reference.args(["-c", "printf 'you> '; exec cat"]);

    let tandem = pty::measure(chat);
    let floor = pty::measure(reference);
    println!(
        "first frame        {:8.1} ms  ({:.2} frames; {:.1}x sh+cat's {:.1} ms)",
        tandem.first_frame,
        tandem.first_frame / FRAME_MS,
        tandem.first_frame / floor.first_frame,
        floor.first_frame
    );
    println!(
        "keystroke to echo  {:8.2} ms median, {:.2} ms p95  ({:.3} frames; {:.1}x the kernel echo's {:.2} ms)",
        tandem.echo_median,
        tandem.echo_p95,
        tandem.echo_median / FRAME_MS,
        tandem.echo_median / floor.echo_median,
        floor.echo_median
    );
}

#[cfg(unix)]
mod pty {
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::{Command, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    pub struct Times {
        pub first_frame: f64,
        pub echo_median: f64,
        pub echo_p95: f64,
    }

    /// Starts `command` on an 80x24 pty, times its first `you> `, then 40 keys' echoes.
    pub fn measure(mut command: Command) -> Times {
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize {
            ws_row: 24,
            ws_col: 80,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two descriptors into the integers and reads the size.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                // `*const` on Linux, `*mut` on macOS: a `*mut` coerces to both.
                std::ptr::null_mut(),
                &size as *const _ as *mut _,
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened and are owned here alone.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let started = Instant::now();
        let mut child = command
            .env("TERM", "xterm-256color")
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave))
            .spawn()
            .expect("cannot start the program");
        drop(command);
        let mut master = std::fs::File::from(master);
        let output = Arc::new(Mutex::new(Vec::<u8>::new()));
        let (mut reader, sink) = (master.try_clone().unwrap(), output.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        // Bounded polls: the bench fails rather than hangs.
        let wait = |done: &dyn Fn(&[u8]) -> bool| {
            let deadline = Instant::now() + Duration::from_secs(30);
            while !done(&output.lock().unwrap()) {
                assert!(Instant::now() < deadline, "the program did not answer");
                std::thread::sleep(Duration::from_micros(200));
            }
        };
        wait(&|o| o.windows(5).any(|w| w == b"you> "));
        let first_frame = started.elapsed().as_secs_f64() * 1000.0;

        let mut echoes = Vec::new();
        for i in 0..40 {
            let key = b'a' + (i % 26) as u8;
            let before = output.lock().unwrap().len();
            let pressed = Instant::now();
            master.write_all(&[key]).unwrap();
            wait(&|o| o.len() > before && o[before..].contains(&key));
            echoes.push(pressed.elapsed().as_secs_f64() * 1000.0);
        }
        echoes.sort_by(f64::total_cmp);
        let _ = child.kill();
        let _ = child.wait();
        Times {
            first_frame,
            echo_median: echoes[echoes.len() / 2],
            echo_p95: echoes[echoes.len() * 95 / 100],
        }
    }
}

#[cfg(not(unix))]
fn main() {
    println!("the terminal bench drives a Unix pty; nothing measured here");
}
