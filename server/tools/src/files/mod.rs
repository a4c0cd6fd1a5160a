//! What file access needs per OS: permission modes (Unix modes; on Windows only the read-only
//! bit exists, and new files take their directory's ACL). Opening without blocking is
//! `tandem_stdx::regular`'s.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::*;
