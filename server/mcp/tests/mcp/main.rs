//! MCP clients against real MCP servers (from npm and the suite's own). One test binary for the
//! crate.

#[cfg(unix)]
mod support;

#[cfg(unix)]
mod servers;
#[cfg(unix)]
mod walls;
