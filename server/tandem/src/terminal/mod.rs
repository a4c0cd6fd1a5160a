//! The terminal chat's OS-specific bits: dropping what the user typed ahead, the width.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{columns, discard_unread_input};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{columns, discard_unread_input};
