/// Discards what sits unread in the terminal's input, a half-typed line included.
pub fn discard_unread_input() {
    // SAFETY: tcflush on our own stdin; it only discards bytes not yet read.
    unsafe { libc::tcflush(libc::STDIN_FILENO, libc::TCIFLUSH) };
}

/// The terminal's width in columns, when stdout is one.
pub fn columns() -> Option<usize> {
    // SAFETY: `winsize` is plain old data; all zeroes is a valid value.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ fills the winsize we pass; nothing else is touched.
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

/// Writes `query` to the terminal and reads what comes back until `answered` says the answer is
/// complete or `wait` has passed; `None` when stdin and stdout are not both a terminal of this
/// foreground job (a background job would be stopped for changing the terminal's modes), or the
/// modes can't be set. Everything read is returned, what the user typed meanwhile included: the
/// caller hands that on.
pub fn ask(
    query: &[u8],
    answered: &dyn Fn(&[u8]) -> bool,
    wait: std::time::Duration,
) -> Option<Vec<u8>> {
    let (input, output) = (libc::STDIN_FILENO, libc::STDOUT_FILENO);
    // SAFETY: isatty, tcgetpgrp and getpgrp only read the state of our own descriptors.
    let ours = unsafe {
        libc::isatty(input) == 1
            && libc::isatty(output) == 1
            && libc::tcgetpgrp(input) == libc::getpgrp()
    };
    if !ours {
        return None;
    }
    // Rust's stdout buffers: what it holds goes out before the question.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    ask_on(input, output, query, answered, wait)
}

/// What the user typed that sits unread in the terminal: keys typed while a turn ran, which the
/// terminal's line mode holds with Enter already turned into a line feed (ICRNL). The line editor
/// would read that line feed as Ctrl-J, a new line in the message, so the chat reads them first.
/// `None` when stdin is not this foreground job's terminal.
pub fn unread_input() -> Option<Vec<u8>> {
    // An empty question, answered by nothing: what comes back is what was typed. The short wait
    // only bounds the read; the keys are there already.
    ask(b"", &|_| false, std::time::Duration::from_millis(2))
}

/// [`ask`] on the terminal `input` and `output` are. For that moment the terminal neither echoes
/// (the answer would show) nor waits for Enter nor turns Ctrl-C into a signal (its default
/// action would end the chat with echo off); its modes are put back however this returns,
/// without dropping unread input.
fn ask_on(
    input: libc::c_int,
    output: libc::c_int,
    query: &[u8],
    answered: &dyn Fn(&[u8]) -> bool,
    wait: std::time::Duration,
) -> Option<Vec<u8>> {
    // SAFETY: `termios` is plain old data; tcgetattr fills it from `input`.
    let mut saved: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::tcgetattr(input, &mut saved) } != 0 {
        return None;
    }
    let mut raw = saved;
    raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ISIG | libc::IEXTEN);
    raw.c_cc[libc::VMIN] = 0;
    raw.c_cc[libc::VTIME] = 0;
    // SAFETY: sets the modes of `input` from a termios read from it.
    if unsafe { libc::tcsetattr(input, libc::TCSANOW, &raw) } != 0 {
        return None;
    }
    let _restore = Restore(input, saved);

    let mut written = 0;
    while written < query.len() {
        let rest = &query[written..];
        // SAFETY: writes at most rest.len() bytes from rest.
        let n = unsafe { libc::write(output, rest.as_ptr().cast(), rest.len()) };
        match usize::try_from(n) {
            Ok(n @ 1..) => written += n,
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return Some(Vec::new()),
        }
    }
    let deadline = std::time::Instant::now() + wait;
    let mut read = Vec::new();
    let mut buf = [0u8; 256];
    while !answered(&read) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        let mut poll = libc::pollfd {
            fd: input,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: one pollfd of ours, for at most `ms`.
        match unsafe { libc::poll(&mut poll, 1, ms) } {
            0 => break,
            n if n < 0 => {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                break;
            }
            _ => {}
        }
        // SAFETY: reads at most buf.len() bytes into buf.
        let n = unsafe { libc::read(input, buf.as_mut_ptr().cast(), buf.len()) };
        let Ok(n @ 1..) = usize::try_from(n) else {
            break;
        };
        read.extend_from_slice(&buf[..n]);
    }
    Some(read)
}

/// A terminal's modes as they were, put back when dropped (TCSANOW: unread input stays).
struct Restore(libc::c_int, libc::termios);

impl Drop for Restore {
    fn drop(&mut self) {
        // SAFETY: sets the modes of the descriptor they were read from.
        unsafe { libc::tcsetattr(self.0, libc::TCSANOW, &self.1) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::time::Duration;

    /// A pty: (the terminal's side, the program's side).
    fn pty() -> (std::fs::File, OwnedFd) {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two descriptors into the integers we pass; no other memory.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both were just opened and are owned here alone.
        unsafe {
            (
                std::fs::File::from(OwnedFd::from_raw_fd(master)),
                OwnedFd::from_raw_fd(slave),
            )
        }
    }

    fn modes(fd: &OwnedFd) -> (libc::tcflag_t, libc::tcflag_t) {
        // SAFETY: plain old data, filled by tcgetattr from our own pty.
        let mut t: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        assert_eq!(unsafe { libc::tcgetattr(fd.as_raw_fd(), &mut t) }, 0);
        (t.c_lflag, t.c_iflag)
    }

    #[test]
    fn the_answer_is_read_and_the_modes_are_put_back() {
        let (mut terminal, program) = pty();
        let before = modes(&program);
        assert_ne!(before.0 & libc::ICANON, 0);
        let fd = program.as_raw_fd();
        let answering = std::thread::spawn(move || {
            let mut asked = [0u8; 3];
            terminal.read_exact(&mut asked).unwrap();
            terminal.write_all(b"42!").unwrap();
            terminal
        });
        let read = ask_on(
            fd,
            fd,
            b"?? ",
            &|r| r.ends_with(b"!"),
            Duration::from_secs(30),
        );
        assert_eq!(read.as_deref(), Some(&b"42!"[..]));
        assert_eq!(modes(&program), before);
        drop(answering.join().unwrap());
    }

    #[test]
    fn with_no_answer_keys_typed_before_are_returned_and_the_modes_put_back() {
        let (mut terminal, program) = pty();
        let before = modes(&program);
        // Typed before the question, in the terminal's line mode: a line and half of the next.
        terminal.write_all(b"hi\nhal").unwrap();
        let fd = program.as_raw_fd();
        let read = ask_on(fd, fd, b"??", &|_| false, Duration::from_millis(50));
        assert_eq!(read.as_deref(), Some(&b"hi\nhal"[..]));
        assert_eq!(modes(&program), before);
    }
}
