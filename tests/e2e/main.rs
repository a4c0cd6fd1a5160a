//! End-to-end tests: the real `tandem lsp` binary, driven over stdio like an editor drives it,
//! against a scripted OpenAI-compatible model ([`mock_model`]). Each test asserts what a user
//! or editor would see: the updates, the approval questions, the files on disk, and what the
//! model was sent next.

mod support;

mod approvals;
mod cancel;
mod chat_cli;
#[cfg(unix)]
mod chat_pty;
mod commands;
mod discovery;
mod editor;
mod extend;
mod failures;
mod framing;
mod hardening;
mod lifecycle;
mod local;
mod policy;
mod protocol;
mod sessions;
mod turns;
#[cfg(windows)]
mod windows;
