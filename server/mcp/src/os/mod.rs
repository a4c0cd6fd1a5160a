//! How a stdio server is tied to us, per OS: see [`crate::spawn`].

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::{contain, die_with_us, kill_group};
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::{contain, die_with_us, kill_group};
