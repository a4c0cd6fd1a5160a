//! The tools through their real API: real files, real processes, a real HTTP server for fetch.
//! One test binary for the crate (one link, one run); each module is one tool or one concern.

mod support;

#[cfg(target_os = "linux")]
mod capture;
#[cfg(unix)]
mod command;
#[cfg(windows)]
mod command_windows;
mod edit_cases;
mod fetch;
mod paths;
#[cfg(unix)]
mod props;
mod read;
#[cfg(windows)]
mod reparse_windows;
mod roots;
mod write;
