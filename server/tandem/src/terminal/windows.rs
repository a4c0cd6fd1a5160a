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
