//! End-to-end tests: the real `tandem lsp` binary, driven over stdio like an editor drives it,
//! against a scripted OpenAI-compatible model ([`mock_model`]). Each test asserts what a user
//! or editor would see: the updates, the approval questions, the files on disk, and what the
//! model was sent next.

mod support;

mod acp;
mod acp_framing;
// Its folders are roots' (with a link made the Unix way).
#[cfg(target_os = "linux")]
mod add_dir;
mod approvals;
mod cancel;
#[cfg(target_os = "linux")]
mod capture;
mod chat_cli;
#[cfg(unix)]
mod chat_editing;
#[cfg(unix)]
pub mod chat_pty;
#[cfg(unix)]
mod chat_slash;
#[cfg(unix)]
mod chat_terminal;
mod commands;
mod custom_commands;
mod discovery;
mod editor;
mod exec;
mod extend;
mod failures;
mod fetch;
mod fetch_faces;
mod file_events;
mod fork;
mod framing;
mod hardening;
// The hooks run `sh` scripts.
#[cfg(unix)]
mod hooks;
mod images;
mod inline_edit;
mod lifecycle;
mod local;
mod local_faults;
mod logging;
mod plan;
mod plan_faces;
mod policy;
mod protocol;
#[cfg(target_os = "linux")]
mod roots;
mod sessions;
mod subagents;
mod tools_cli;
#[cfg(unix)]
mod trust;
mod turns;
#[cfg(target_os = "linux")]
mod walls;
#[cfg(windows)]
mod windows;
