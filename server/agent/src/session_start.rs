//! `SessionStart` when a session opens, as Claude Code runs it: when it is created (`startup`)
//! and when it is resumed from its transcript (`resume`: loaded to be shown or prompted, not
//! merely looked at for its changes), not at its first prompt. The user's own
//! hooks start at once, in the background (opening a session waits for no script); no face is
//! listening yet, so what they say (their context for the model, their notices) is taken up by
//! the session's first turn. A project's hooks wait for the user's trust, asked at that turn,
//! and run there.

use tokio_util::sync::CancellationToken;

pub(crate) use crate::hooks::started::{Source, Started};
use crate::hooks::{HookEvent, input, run};
use crate::mode::Mode;
use crate::session::Session;
use crate::{Agent, walls};

/// Starts the user's `SessionStart` hooks for `session`, which opens (created, or resumed from
/// its transcript): once per session in this process, the later calls do nothing.
pub(crate) fn begin(agent: &Agent, session: &Session, source: Source) {
    if !session.claim_start() {
        return;
    }
    let settings = &agent.inner.settings;
    let hooks: Vec<_> = run::picked(&settings.hooks, HookEvent::SessionStart, &[])
        .cloned()
        .collect();
    let runtime = tokio::runtime::Handle::try_current().ok();
    let Some(runtime) = runtime.filter(|_| !hooks.is_empty()) else {
        session.set_started(Started { source, run: None });
        return;
    };
    let root = session.workspace.root().to_path_buf();
    let session_id = session.id.to_string();
    let common = input::Common {
        session_id: &session_id,
        transcript_path: session.transcript.path(),
        cwd: &root,
        permission_mode: match session.mode() {
            Mode::Plan => "plan",
            Mode::Default => "default",
        },
    };
    let input = input::input(
        &common,
        HookEvent::SessionStart,
        serde_json::json!({"source": source.name()}),
    );
    // No turn yet to record what they write in: it goes straight to the workspace.
    let walls = tandem_tools::Walls {
        capture: None,
        ..walls(settings, &root).of_workspace(&session.workspace)
    };
    let run = runtime.spawn(async move {
        let picked: Vec<_> = hooks.iter().collect();
        // Each hook is bounded by its timeout; nothing cancels a session's opening.
        let cancel = CancellationToken::new();
        run::run(&picked, &input, &root, &walls, &cancel).await.0
    });
    session.set_started(Started {
        source,
        run: Some(run),
    });
}
