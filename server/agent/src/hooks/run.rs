//! Running the hooks an event picks: all at once (as Claude Code does), each in the commands'
//! walls unless its config says `sandbox = false`, each bounded by its timeout; their replies
//! merged, and what the sandboxed ones wrote to the workspace handed back held (as a command's
//! writes are) for the turn to apply and record.

use std::path::Path;

use futures_util::future::join_all;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::reply::{self, Reply};
use super::{HookEvent, HookSpec, matcher};
use tandem_tools::capture::Captured;
use tandem_tools::{HookCommand, Walls};

/// The hooks of `event` that pick a tool known by `tool_names` (every one of the event when it
/// is not a tool's).
pub fn picked<'a>(
    hooks: &'a [HookSpec],
    event: HookEvent,
    tool_names: &'a [&'a str],
) -> impl Iterator<Item = &'a HookSpec> + 'a {
    hooks.iter().filter(move |h| {
        h.event == event && (!event.matches_tools() || matcher::matches(&h.matcher, tool_names))
    })
}

/// Runs the picked hooks with `input` on their stdin, in `root`, and merges what they said;
/// with it, each one's writes as the walls caught them (none when `walls.capture` is unset: they
/// went straight to the workspace).
pub async fn run(
    hooks: &[&HookSpec],
    input: &Value,
    root: &Path,
    walls: &Walls,
    cancel: &CancellationToken,
) -> (Reply, Vec<Captured>) {
    if hooks.is_empty() {
        return (Reply::default(), Vec::new());
    }
    let bytes = serde_json::to_vec(input).unwrap_or_default();
    let root_text = root.to_string_lossy().into_owned();
    let runs = hooks.iter().map(|spec| {
        let command = HookCommand {
            line: spec.command.clone(),
            input: bytes.clone(),
            cwd: root.to_path_buf(),
            timeout: spec.timeout,
            sandboxed: spec.sandbox,
            // Claude Code's scripts find the project through this.
            env: vec![
                ("CLAUDE_PROJECT_DIR".into(), root_text.clone()),
                ("TANDEM_PROJECT_DIR".into(), root_text.clone()),
            ],
        };
        let cancel = cancel.clone();
        async move {
            let mut ran = tandem_tools::run_hook(&command, walls, cancel)
                .await
                .map_err(|e| e.message);
            let captured = ran.as_mut().ok().and_then(|exit| exit.captured.take());
            tracing::info!(
                event = spec.event.name(),
                exit_code = ran.as_ref().ok().and_then(|e| e.exit_code),
                timed_out = ran.as_ref().is_ok_and(|e| e.timed_out),
                "hook ran"
            );
            (reply::read(spec, ran), captured)
        }
    });
    let mut merged = Reply::default();
    let mut writes = Vec::new();
    for (reply, captured) in join_all(runs).await {
        merged.merge(reply);
        writes.extend(captured);
    }
    (merged, writes)
}
