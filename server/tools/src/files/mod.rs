//! What file access needs per OS: opening without blocking, naming what is not a regular file,
//! and permission modes (Unix modes; on Windows only the read-only bit exists, and new files
//! take their directory's ACL).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(crate) use unix::*;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(crate) use windows::*;
