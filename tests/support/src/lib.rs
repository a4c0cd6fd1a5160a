//! What Tandem's test binaries share, so a fix to a wait or a process check is made once.
//!
//! - [`wait`]: polling with a safety net, a guard against calls that would block forever, a
//!   runtime for a synchronous test.
//! - [`process`] (Linux): processes as `/proc` shows them: alive or a zombie, a group's members,
//!   the ports one listens on.
//!
//! Every wait here is for a condition with a generous timeout only as a safety net: a test never
//! passes or fails by timing.

pub mod wait;

#[cfg(target_os = "linux")]
pub mod process;
