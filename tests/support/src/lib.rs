//! What Tandem's test binaries share, so a fix to a wait or a process check is made once.
//!
//! - [`wait`]: polling with a safety net, a guard against calls that would block forever, a
//!   runtime for a synchronous test.
//! - [`install_crypto_provider`]: what `tandem`'s main does before any HTTP client is built.
//! - [`process`] (Unix; what it reads, /proc, is Linux's): processes as `/proc` shows them: alive or a zombie, a group's members,
//!   the ports one listens on.
//!
//! Every wait here is for a condition with a generous timeout only as a safety net: a test never
//! passes or fails by timing.

pub mod wait;

/// Installs the process-wide TLS crypto provider, as `tandem`'s main does at start-up: the
/// libraries assume it, so a test that builds an HTTP client in-process calls this first (once
/// is enough; later calls are no-ops).
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

// Reads /proc: Linux's. It compiles on every Unix so the Unix-only tests that use it build
// there too (the type-checks for macOS); elsewhere it sees no process.
#[cfg(unix)]
pub mod process;
