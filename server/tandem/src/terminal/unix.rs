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
