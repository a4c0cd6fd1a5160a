//! The terminal chat's OS-specific bit: dropping what the user typed ahead.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::discard_unread_input;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::discard_unread_input;
