use windows_sys::Win32::System::Console::{
    FlushConsoleInputBuffer, GetStdHandle, STD_INPUT_HANDLE,
};

/// Discards the console's unread input records, a half-typed line included.
pub fn discard_unread_input() {
    // SAFETY: our own console input handle; the call only discards unread input.
    unsafe {
        FlushConsoleInputBuffer(GetStdHandle(STD_INPUT_HANDLE));
    }
}

/// The console's width in columns: not asked yet; `COLUMNS` or 80 stand in.
pub fn columns() -> Option<usize> {
    None
}

/// Asks the console a question by escape sequence: not on Windows, whose console answers only
/// with VT input turned on, which the line editor owns. `None`: not asked.
pub fn ask(
    _query: &[u8],
    _answered: &dyn Fn(&[u8]) -> bool,
    _wait: std::time::Duration,
) -> Option<Vec<u8>> {
    None
}

/// Keys typed ahead reach the line editor as key events, Enter included: nothing to read first.
pub fn unread_input() -> Option<Vec<u8>> {
    None
}
