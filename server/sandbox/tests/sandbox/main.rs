//! The sandbox with real processes and the real kernel: the allow-list, the walls, the launcher
//! and the environment. One test binary for the crate.

mod support;

mod allow_list;
mod allow_props;
#[cfg(target_os = "linux")]
mod confine;
mod corpus;
#[cfg(target_os = "linux")]
mod differential;
mod env;
mod judge;
mod launch;
