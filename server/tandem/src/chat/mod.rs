//! `tandem chat`: the terminal face of the agent core.
//!
//! `you>` reads a prompt; the answer streams after `ai>`; tool calls show dimmed; edits and
//! commands are put to the user with the diff in color. Ctrl-C cancels a running turn (and quits
//! at the prompt). Slash commands (`/help` lists them) are handled here, never sent to the model.

mod background;
mod custom;
mod frontend;
mod input;
mod inspect;
mod json_log;
mod render;
mod rewind;
mod sessions;
mod slash;
mod status;
mod style;
mod turn_diff;
mod type_ahead;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use tandem_agent::events::{StopReason, TurnErrorKind};
use tandem_agent::{Agent, SessionId, TurnId};
use tandem_config::StartOptions;

use crate::display::inert;
use frontend::{ChatFrontend, Shown};
use input::Input;
use json_log::JsonLog;
use sessions::open_session;
pub(crate) use sessions::{Place, Started, start};
use sessions::{replay, resume, resumed_line, sessions_list};
use slash::Slash;
use status::Status;
use style::{Style, out};

pub struct ChatOptions {
    /// Reopen a saved session: its id, or empty for this workspace's latest.
    pub resume: Option<String>,
    pub start: StartOptions,
    pub root: Option<PathBuf>,
    /// The workspace's other folders (`--add-dir`), for every new session of this chat.
    pub add_dirs: Vec<PathBuf>,
    pub prompt: Option<String>,
    pub json_log: Option<PathBuf>,
}

/// Runs the chat; returns the exit code (for `--prompt`: 0 when the turn ended normally).
pub async fn run(options: ChatOptions) -> Result<u8, String> {
    let style = Style {
        on: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    // The terminal is asked its background while the sidecar starts: the wait is hidden.
    let ask = style.on && style::capable_terminal();
    let (typed, started) = tokio::join!(
        tokio::task::spawn_blocking(move || background::detect(ask)),
        sessions::start(
            options.start,
            Place {
                root: options.root,
                add_dirs: options.add_dirs,
            },
            options.resume.as_deref(),
        ),
    );
    let typed = type_ahead::TypeAhead::from_keys(&typed.unwrap_or_default());
    let sessions::Started {
        agent,
        client,
        mut session,
        root,
        mut additional,
        config_file,
    } = started?;

    let history = input::history_file(&agent.settings().data_dir, &root);
    let input = Arc::new(Input::start(root.clone(), Some(history), typed));
    let (ended_tx, mut ended) = mpsc::unbounded_channel();
    let frontend = Arc::new(ChatFrontend {
        style,
        input: input.clone(),
        ended: ended_tx,
        view: Mutex::new(Default::default()),
        state: Mutex::new(Shown::Nothing),
        status: Status::new(style::capable_terminal()),
        agent: agent.clone(),
        root: root.clone(),
        config_file: config_file.clone(),
        markdown: style::capable_terminal().then(|| Mutex::new(render::Lines::default())),
    });
    let log = JsonLog {
        path: options.json_log,
    };

    if let Some(prompt) = options.prompt {
        let prompt = agent
            .expand_command(&session, prompt)
            .map_err(|e| e.to_string())?;
        let (reason, error) =
            run_turn(&agent, &session, prompt, frontend, &mut ended, &log).await?;
        if let Some(error) = error {
            eprintln!("{}", style.paint("31", &format!("error: {error}")));
        }
        return Ok(if reason == StopReason::EndTurn { 0 } else { 1 });
    }

    // Which model answers, and where: a wrong endpoint shows now, not after the first prompt.
    let mut guide = None;
    let model = match client.endpoint().await {
        Ok((url, model)) => match client.found() {
            Some(name) => format!("{model} at {url} ({name}, found on this machine)"),
            None => format!("{model} at {url}"),
        },
        Err(e) if TurnErrorKind::of(&e) == TurnErrorKind::NoServer => {
            guide = Some(crate::first_run::no_server_guide(config_file.as_deref()));
            "no model server yet".to_string()
        }
        Err(e) => format!("no model ({})", e.message),
    };
    let banner = format!(
        "Tandem {} in {}, {}. /help lists the commands; Ctrl-C stops a turn, /exit quits.",
        env!("CARGO_PKG_VERSION"),
        inert(&sessions::folders(&root, &additional), true),
        inert(&model, true),
    );
    out(&style.dim(&format!("{}\n", crate::display::wrap_for_stdout(&banner))));
    if let Some(guide) = guide {
        out(&guide);
    }
    if options.resume.is_some() {
        out(&style.dim(&replay(&agent, &session)));
        out(&style.dim(&resumed_line(&agent, &session)));
    }
    loop {
        let line = tokio::select! {
            line = input.read("you> ", true) => line,
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some(line) = line else {
            out("\n");
            return Ok(0);
        };
        if line.trim().is_empty() {
            continue;
        }
        // A custom command: its text is the prompt.
        let custom = match slash::parse(&line) {
            Some(Slash::Unknown(_)) => custom::prompt(&agent, &session, &line),
            _ => None,
        };
        let prompt = match slash::parse(&line).filter(|_| custom.is_none()) {
            None => custom.unwrap_or_else(|| slash::prompt_text(&line).to_string()),
            Some(Slash::Rewind(wanted)) => {
                match rewind::edit_and_fork(&agent, &input, style, &session, wanted.as_deref())
                    .await
                {
                    Some((forked, text)) => {
                        session = forked;
                        text
                    }
                    None => continue,
                }
            }
            Some(command) => {
                let chat = Chat {
                    agent: &agent,
                    client: &client,
                    style,
                    root: &root,
                    input: &input,
                    frontend: &frontend,
                };
                match command {
                    Slash::Exit => return Ok(0),
                    Slash::New => {
                        session = open_session(&agent, None, &root, &additional).await?.0;
                        out(&style.dim("New session.\n"));
                    }
                    Slash::Resume(wanted) => match resume(&agent, &wanted, &root).await {
                        Ok((id, _)) => {
                            session = id;
                            // A later `/new` opens the folders of the session resumed.
                            additional =
                                agent.session_additional_roots(&session).unwrap_or_default();
                            out(&style.dim(&replay(&agent, &session)));
                            out(&style.dim(&resumed_line(&agent, &session)));
                        }
                        Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
                    },
                    other => chat.command(other, &session).await,
                }
                continue;
            }
        };
        let (_, error) =
            run_turn(&agent, &session, prompt, frontend.clone(), &mut ended, &log).await?;
        if let Some(error) = error {
            // A server's or a hook's words may be in it.
            let error = inert(&error, false);
            out(&style.paint("31", &format!("error: {error}\n")));
        }
    }
}

/// What the slash commands that keep the session work with.
struct Chat<'a> {
    agent: &'a Agent,
    client: &'a tandem_provider::LazyClient,
    style: Style,
    root: &'a std::path::Path,
    input: &'a Input,
    frontend: &'a Arc<ChatFrontend>,
}

impl Chat<'_> {
    async fn command(&self, command: Slash, session: &SessionId) {
        let style = self.style;
        match command {
            Slash::Help => out(&style.dim(&format!(
                "{}{}",
                slash::help(),
                custom::help(self.agent, session, self.root)
            ))),
            Slash::Model(None) => {
                out(&style.dim(&format!("Model: {}\n", inert(&self.agent.model(), true))))
            }
            Slash::Model(Some(name)) => {
                self.client.set_model(name.clone());
                out(&style.dim(&format!("Model: {} from now on.\n", inert(&name, true))));
            }
            Slash::Models => match self.agent.list_models().await {
                Ok(models) if models.is_empty() => out(&style.dim("The server lists no models.\n")),
                Ok(models) => {
                    let current = self.agent.model();
                    let list: String = models
                        .iter()
                        .map(|m| {
                            let mark = if m.id == current { "*" } else { " " };
                            let window = m
                                .context_window
                                .map(|w| format!("  ({w} tokens)"))
                                .unwrap_or_default();
                            format!("{mark} {}{window}\n", inert(&m.id, true))
                        })
                        .collect();
                    out(&style.dim(&format!("{list}/model NAME switches.\n")));
                }
                Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
            },
            Slash::Sessions => out(&style.dim(&sessions_list(self.agent, self.root, session))),
            Slash::Undo(turn) => self.undo(session, turn.map(TurnId::from)).await,
            Slash::Diff(turn) => {
                let turn = turn.as_deref().map(turn_diff::turn_arg);
                let frontend = self.frontend.as_ref();
                match self
                    .agent
                    .turn_changes(session, turn.clone(), frontend)
                    .await
                {
                    Ok(Some(changes)) => out(&turn_diff::render(&changes, style)),
                    Ok(None) => out(&style.dim(&match turn {
                        Some(t) => format!(
                            "Turn {} changed no file that is not undone.\n",
                            inert(t.as_str(), true)
                        ),
                        None => "No changes in this session.\n".to_string(),
                    })),
                    Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
                }
            }
            Slash::Rules => out(&style.dim(&sessions::rules(self.agent, session, self.root))),
            Slash::Compact => {
                out(&style.dim("Compacting the conversation…\n"));
                match self.agent.compact(session).await {
                    Ok(outcome) => out(&style.dim(&inspect::compacted(&outcome))),
                    Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
                }
            }
            Slash::Hooks => {
                // Hashing what the project's hooks name reads files: off the async threads.
                let (settings, root) = (self.agent.settings().clone(), self.root.to_path_buf());
                let listed = tokio::task::spawn_blocking(move || {
                    tandem_agent::hook_listing::listing_in(&settings, &root)
                })
                .await;
                match listed {
                    Ok((hooks, unreadable)) => {
                        if let Some(e) = unreadable {
                            out(&style.paint("31", &format!("project hooks unreadable: {e}\n")));
                        }
                        out(&style.dim(&inspect::hooks_list(
                            &hooks,
                            self.frontend.config_file.as_deref(),
                        )))
                    }
                    Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
                }
            }
            Slash::Mcp => match self.agent.mcp_servers(session).await {
                Ok(servers) => out(&style.dim(&inspect::mcp_list(
                    &servers,
                    self.frontend.config_file.as_deref(),
                ))),
                Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
            },
            Slash::Mode(mode) => match self.agent.set_mode(session, mode) {
                Ok(()) => out(&style.dim(&format!(
                    "{}: {}\n",
                    mode.name(),
                    self.agent.mode_description(mode)
                ))),
                Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
            },
            Slash::Unknown(word) => out(&style.paint(
                "31",
                &format!(
                    "Unknown command /{}: /help lists them (// sends a line starting with / to \
                     the model).\n",
                    inert(&word, true)
                ),
            )),
            Slash::Exit | Slash::New | Slash::Resume(_) | Slash::Rewind(_) => {}
        }
    }

    /// `/undo` reverts the last turn that changed files; `/undo t3` everything since t3.
    async fn undo(&self, session: &SessionId, turn: Option<TurnId>) {
        let (agent, style) = (self.agent, self.style);
        let frontend = self.frontend.as_ref();
        let mut outcome = agent.undo(session, turn.clone(), false, frontend).await;
        if let Ok(o) = &outcome
            && o.needs_confirmation
        {
            for c in &o.conflicts {
                out(&format!(
                    "{} changed since the agent wrote it; restoring loses:\n{}\n",
                    inert(&c.path, true),
                    style.diff(&inert(&c.lost, false))
                ));
            }
            let answer = self
                .input
                .read("Restore anyway and lose those changes? [y/N] ", false)
                .await
                .unwrap_or_default();
            if matches!(answer.trim(), "y" | "yes") {
                outcome = agent.undo(session, turn, true, frontend).await;
            }
        }
        match outcome {
            Ok(o) if o.needs_confirmation => {
                out(&style.dim("Nothing restored; your changes are kept.\n"))
            }
            Ok(o) if o.restored.is_empty() => out(&style.dim("Nothing to undo.\n")),
            Ok(o) => out(&style.dim(&format!("Restored: {}\n", o.restored.join(", ")))),
            Err(e) => out(&style.paint("31", &format!("error: {e}\n"))),
        }
    }
}

/// Runs one turn to its end; Ctrl-C cancels it.
async fn run_turn(
    agent: &Agent,
    session: &SessionId,
    prompt: String,
    frontend: Arc<ChatFrontend>,
    ended: &mut mpsc::UnboundedReceiver<(StopReason, Option<String>)>,
    log: &JsonLog,
) -> Result<(StopReason, Option<String>), String> {
    let root = agent.session_root(session).map_err(|e| e.to_string())?;
    let additional = agent
        .session_additional_roots(session)
        .map_err(|e| e.to_string())?;
    let folders = crate::attach::Folders {
        root: &root,
        additional: &additional,
    };
    let images = match crate::attach::images_in(&folders, &prompt) {
        Ok(images) => images,
        // Nothing was sent: the user fixes the mention and asks again.
        Err(why) => return Ok((StopReason::Error, Some(why))),
    };
    let context = match crate::attach::context_in(&folders, &prompt) {
        Ok(context) => context,
        Err(why) => return Ok((StopReason::Error, Some(why))),
    };
    let turn = agent
        .prompt_with_images(session, prompt, context, images, frontend)
        .map_err(|e| e.to_string())?;
    let result = loop {
        tokio::select! {
            r = ended.recv() => break r.unwrap_or((StopReason::Error, Some("the turn vanished".into()))),
            _ = tokio::signal::ctrl_c() => {
                // The terminal echoed `^C` itself.
                out("\ncancelling…\n");
                let _ = agent.cancel(session);
            }
        }
    };
    log.write(agent, session, &turn);
    Ok(result)
}
