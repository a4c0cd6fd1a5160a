/// Discards what sits unread in the terminal's input, a half-typed line included.
pub fn discard_unread_input() {
    // SAFETY: tcflush on our own stdin; it only discards bytes not yet read.
    unsafe { libc::tcflush(libc::STDIN_FILENO, libc::TCIFLUSH) };
}
