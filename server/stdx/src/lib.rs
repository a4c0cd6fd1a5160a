//! Small helpers every Tandem crate shares, each written once: a lock that survives a panicked
//! holder, cutting text at a character boundary, showing a path relative to a root, and reading
//! a file only when it is a regular one of bounded size.
//!
//! **Invariant:** depends on nothing but `libc` (and `windows-sys` on Windows), knows nothing of
//! Tandem's types.

mod fs;
mod path;
pub mod regular;
mod sync;
mod text;

pub use fs::{private_dir, private_file, write_private};
pub use path::{display_relative, slash_path};
pub use sync::lock;
pub use text::{ceil_char_boundary, floor_char_boundary, truncate_in_place, truncated};
