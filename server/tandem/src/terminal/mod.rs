//! The terminal chat's OS-specific bits: dropping what the user typed ahead, the width, asking
//! the terminal a question (its background colour).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{ask, columns, discard_unread_input, unread_input};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{ask, columns, discard_unread_input, unread_input};
