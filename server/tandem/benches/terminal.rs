//! `tandem chat` as a user feels it in a terminal: `cargo bench -p tandem --bench terminal`.
//!
//! - first frame: from starting `tandem chat` in a pty to its `you>` prompt on the screen;
//! - keystroke to echo: from a key written to the pty to the line editor showing it.
//!
//! Printed against a 60 Hz frame (16.7 ms): a ratio under 1 is within one frame.

#[cfg(unix)]
fn main() {
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::process::{Command, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    const FRAME_MS: f64 = 1000.0 / 60.0;
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: 80,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the integers and reads the size; nothing else.
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
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let dir = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args([
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
        .env("TERM", "xterm-256color")
        .env("HOME", dir.path())
        .stdin(Stdio::from(slave.try_clone().unwrap()))
        .stdout(Stdio::from(slave.try_clone().unwrap()))
        .stderr(Stdio::from(slave))
        .spawn()
        .expect("cannot start tandem chat");
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
            assert!(Instant::now() < deadline, "tandem chat did not answer");
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
    let median = echoes[echoes.len() / 2];
    let p95 = echoes[echoes.len() * 95 / 100];
    println!(
        "first frame        {first_frame:8.1} ms  ({:.2} frames)",
        first_frame / FRAME_MS
    );
    println!(
        "keystroke to echo  {median:8.2} ms median, {p95:.2} ms p95  ({:.3} frames median)",
        median / FRAME_MS
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(not(unix))]
fn main() {
    println!("the terminal bench drives a Unix pty; nothing measured here");
}
