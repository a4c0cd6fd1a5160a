//! `tandem exec`: one task run to its end with nobody at a terminal, for scripts and CI.
//!
//! The answer goes to stdout, progress to stderr; `--json` puts one event per line on stdout
//! instead (docs/exec.md). Approvals never wait: the flags decide ([`rules`]). The exit code
//! says how it ended ([`exit_code`]).

mod events;
mod frontend;
mod rules;

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use tandem_agent::approval::SandboxMode;
use tandem_agent::events::{StopReason, TurnErrorKind};
use tandem_config::StartOptions;

use crate::display::inert;
use frontend::{Ended, ExecFrontend, emit};
pub use rules::Rules;

/// The exit codes (docs/exec.md).
pub mod code {
    /// The turn finished and nothing the model asked for was refused.
    pub const FINISHED: u8 = 0;
    /// The turn failed: the model server (unreachable, refused the key, an error, an answer cut
    /// at its output token limit), or Tandem.
    pub const ERROR: u8 = 1;
    /// Nothing ran: bad options, an unreadable prompt or config, an unknown session.
    pub const USAGE: u8 = 2;
    /// The turn hit the step cap (`--max-steps`) before the model finished.
    pub const MAX_STEPS: u8 = 3;
    /// The model finished, but an edit or command it asked for was refused: by the flags, or by
    /// plan mode.
    pub const REJECTED: u8 = 4;
    /// Interrupted (Ctrl-C, SIGINT).
    pub const INTERRUPTED: u8 = 130;
}

pub struct ExecOptions {
    pub start: StartOptions,
    pub root: Option<PathBuf>,
    /// The workspace's other folders (`--add-dir`).
    pub add_dirs: Vec<PathBuf>,
    /// The prompt, or `-` for stdin.
    pub prompt: String,
    pub json: bool,
    pub rules: Rules,
    /// A saved session to continue: its id, or empty for this workspace's latest.
    pub resume: Option<String>,
    pub output_last_message: Option<PathBuf>,
    /// Run in plan mode (read-only).
    pub plan: bool,
}

/// The exit code for how the turn ended: an error first, then the step cap, then refusals.
pub fn exit_code(ended: &Ended) -> u8 {
    match ended.stop_reason {
        StopReason::Error => code::ERROR,
        StopReason::Cancelled => code::INTERRUPTED,
        StopReason::MaxSteps => code::MAX_STEPS,
        StopReason::EndTurn if ended.rejected > 0 => code::REJECTED,
        StopReason::EndTurn => code::FINISHED,
    }
}

/// The prompt: the argument, or all of stdin for `-`.
fn read_prompt(prompt: String) -> Result<String, String> {
    let prompt = if prompt == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read the prompt from stdin: {e}"))?;
        text
    } else {
        prompt
    };
    if prompt.trim().is_empty() {
        return Err("the prompt is empty: give it as an argument, or `-` to read stdin".into());
    }
    Ok(prompt)
}

/// Runs the task; returns the exit code. An `Err` is a usage error (nothing ran).
pub async fn run(options: ExecOptions) -> Result<u8, String> {
    let prompt = read_prompt(options.prompt)?;
    let crate::chat::Started {
        agent,
        session,
        root,
        config_file,
        ..
    } = crate::chat::start(
        options.start,
        crate::chat::Place {
            root: options.root,
            add_dirs: options.add_dirs,
        },
        options.resume.as_deref(),
    )
    .await?;
    // An image the prompt names that can't be attached is a usage error: nothing runs.
    let additional = agent
        .session_additional_roots(&session)
        .map_err(|e| e.to_string())?;
    let folders = crate::attach::Folders {
        root: &root,
        additional: &additional,
    };
    let images = crate::attach::images_in(&folders, &prompt)?;
    let context = crate::attach::context_in(&folders, &prompt)?;
    if options.json {
        emit(&events::session_started(
            &session,
            &root,
            &agent.model(),
            options.resume.is_some(),
        ));
    }

    if options.plan {
        agent
            .set_mode(&session, tandem_agent::mode::Mode::Plan)
            .map_err(|e| e.to_string())?;
    }
    // `/name args` of a custom command: its text is the task.
    let prompt = agent
        .expand_command(&session, prompt)
        .map_err(|e| e.to_string())?;
    let (ended_tx, mut ended_rx) = mpsc::unbounded_channel();
    let frontend = Arc::new(ExecFrontend {
        json: options.json,
        rules: options.rules,
        stderr_tty: std::io::stderr().is_terminal(),
        root: root.clone(),
        state: Mutex::new(Default::default()),
        ended: ended_tx,
        out: Box::new(emit),
    });
    agent
        .prompt_with_images(&session, prompt, context, images, frontend)
        .map_err(|e| e.to_string())?;
    let mut interrupted = false;
    let ended = loop {
        tokio::select! {
            ended = ended_rx.recv() => break ended,
            _ = tokio::signal::ctrl_c(), if !interrupted => {
                interrupted = true;
                eprintln!("tandem: interrupted, stopping the turn");
                let _ = agent.cancel(&session);
            }
        }
    };
    // Commands still running, MCP servers: stopped before we go.
    agent.shutdown().await;
    let Some(ended) = ended else {
        eprintln!("tandem: error: the turn ended without saying how");
        return Ok(code::ERROR);
    };

    let code = exit_code(&ended);
    if ended.error_kind == Some(TurnErrorKind::NoServer) {
        eprint!(
            "tandem: {}",
            crate::first_run::no_server_guide(config_file.as_deref())
        );
    }
    if let Some(path) = &options.output_last_message
        && let Err(e) = write_atomically(path, &ended.answer)
    {
        eprintln!("tandem: cannot write {}: {e}", path.display());
    }
    if !options.json {
        let answer = ended.answer.trim_end();
        if !answer.is_empty() {
            let mut stdout = std::io::stdout().lock();
            // On a terminal the model's text cannot drive it; to a pipe it goes as written.
            let shown = if stdout.is_terminal() {
                inert(answer, false)
            } else {
                answer.into()
            };
            let _ = writeln!(stdout, "{shown}");
            let _ = stdout.flush();
        }
        if let Some(error) = &ended.error
            && ended.error_kind != Some(TurnErrorKind::NoServer)
        {
            eprintln!("tandem: error: {error}");
        }
        match code {
            code::MAX_STEPS => eprintln!(
                "tandem: stopped at the step cap before the model finished (raise it with \
                 --max-steps)"
            ),
            code::REJECTED => eprintln!(
                "tandem: {} action{} the model asked for {} refused ({})",
                ended.rejected,
                if ended.rejected == 1 { "" } else { "s" },
                if ended.rejected == 1 { "was" } else { "were" },
                if options.plan {
                    "--plan is read-only: run without it to let the model edit or run commands"
                } else {
                    "allow with --yes or --allow PREFIX"
                }
            ),
            _ => {}
        }
        eprintln!("session: {session} (continue with `tandem exec --resume {session} ...`)");
    }
    Ok(code)
}

/// The whole file or nothing: a reader never sees half an answer.
fn write_atomically(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => std::path::Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(text.as_bytes())?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

impl Rules {
    pub fn from_flags(yes: bool, sandbox: Option<SandboxMode>) -> Self {
        Rules {
            yes,
            sandbox_off: sandbox == Some(SandboxMode::Off),
        }
    }
}
