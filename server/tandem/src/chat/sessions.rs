//! Sessions from the chat: a new one, one reopened, the list of this workspace's.

use std::path::{Path, PathBuf};

use tandem_agent::events::Event;
use tandem_agent::view::{Change, TurnView};
use tandem_agent::{Agent, SessionId};

use crate::display::inert;

/// What both terminal faces (`tandem chat`, `tandem exec`) start from.
pub(crate) struct Started {
    pub agent: Agent,
    pub client: std::sync::Arc<tandem_provider::LazyClient>,
    pub session: SessionId,
    /// The session's root, canonical: paths in approvals are made relative to it.
    pub root: PathBuf,
    /// The session's other folders, canonical; a new session of the chat (`/new`) has them too.
    pub additional: Vec<PathBuf>,
    /// The user's config file, for the first-run guide.
    pub config_file: Option<PathBuf>,
}

/// Where the terminal faces work: `--root` (default: the current directory) and `--add-dir`.
pub(crate) struct Place {
    pub root: Option<PathBuf>,
    pub add_dirs: Vec<PathBuf>,
}

/// Starts the agent in the place's root and opens the session: a new one (with the place's
/// other folders), or the one `resume` names (with its own).
pub(crate) async fn start(
    mut start: tandem_config::StartOptions,
    place: Place,
    resume: Option<&str>,
) -> Result<Started, String> {
    if resume.is_some() && !place.add_dirs.is_empty() {
        return Err(
            "--add-dir can't be used with --resume: a saved session keeps the folders it was \
             started with (`/sessions` lists them); leave out --add-dir, or start a new session"
                .to_string(),
        );
    }
    let root = match place.root {
        Some(root) => root,
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    start.workspace.get_or_insert_with(|| root.clone());
    let config_file = crate::first_run::user_config_file(start.config_file.as_deref());
    let (agent, client) = start.start().map_err(|e| e.to_string())?;
    let (session, root) = open_session(&agent, resume, &root, &place.add_dirs).await?;
    let additional = agent
        .session_additional_roots(&session)
        .map_err(|e| e.to_string())?;
    Ok(Started {
        agent,
        client,
        session,
        root,
        additional,
        config_file,
    })
}

/// A new session in `root` and `additional` (with the root's project MCP servers), or the one
/// `resume` names.
pub(crate) async fn open_session(
    agent: &Agent,
    resume_id: Option<&str>,
    root: &Path,
    additional: &[PathBuf],
) -> Result<(SessionId, PathBuf), String> {
    match resume_id {
        None => {
            let servers = tandem_config::project_mcp_servers(root).map_err(|e| e.to_string())?;
            let info = agent
                .new_session_in(root, additional, servers)
                .map_err(|e| e.to_string())?;
            Ok((info.session_id, info.root))
        }
        Some(wanted) => resume(agent, wanted, root).await,
    }
}

/// The session's folders for a line of text: the root, then ` + ` and the others.
pub(crate) fn folders(root: &Path, additional: &[PathBuf]) -> String {
    let mut out = root.display().to_string();
    for (i, dir) in additional.iter().enumerate() {
        out.push_str(if i == 0 { " + " } else { ", " });
        out.push_str(&dir.display().to_string());
    }
    out
}

/// The session to reopen: `wanted` by id, or (empty) the latest one of this workspace.
pub(crate) async fn resume(
    agent: &Agent,
    wanted: &str,
    root: &Path,
) -> Result<(SessionId, PathBuf), String> {
    let id = if wanted.is_empty() {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        agent
            .list_sessions()
            .into_iter()
            .find(|s| s.root == root)
            .map(|s| s.session_id)
            .ok_or_else(|| format!("no saved session in {}", root.display()))?
    } else {
        SessionId::from(wanted)
    };
    agent.load_session(&id).map_err(|e| e.to_string())?;
    let root = agent.session_root(&id).map_err(|e| e.to_string())?;
    // Its project's MCP servers, again (asked about at its next turn unless trusted).
    let servers = tandem_config::project_mcp_servers(&root).map_err(|e| e.to_string())?;
    agent
        .set_session_servers(&id, servers)
        .await
        .map_err(|e| e.to_string())?;
    Ok((id, root))
}

/// "Resumed …": the session, and its last prompt to remind the user where it was.
pub fn resumed_line(agent: &Agent, session: &SessionId) -> String {
    let history = agent
        .load_session(session)
        .map(|l| l.history)
        .unwrap_or_default();
    let prompts: Vec<&str> = history
        .iter()
        .filter_map(|e| match &e.event {
            Event::TurnStarted { prompt, .. } => Some(prompt.as_str()),
            _ => None,
        })
        .collect();
    let last = prompts
        .last()
        .map(|p| {
            format!(
                "; last asked: {}",
                inert(p.lines().next().unwrap_or(""), true)
            )
        })
        .unwrap_or_default();
    format!(
        "Resumed session {session} ({} turn{}{last}).\n",
        prompts.len(),
        if prompts.len() == 1 { "" } else { "s" }
    )
}

/// `/sessions`: this workspace's saved sessions, newest first, the current one marked.
pub fn sessions_list(agent: &Agent, root: &Path, current: &SessionId) -> String {
    let list: Vec<String> = agent
        .list_sessions()
        .into_iter()
        .filter(|s| s.root == root)
        .take(20)
        .map(|s| {
            let mark = if s.session_id == *current { "*" } else { " " };
            let when = s
                .updated_at
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default();
            let more = match s.additional_roots.len() {
                0 => String::new(),
                1 => "  (+1 folder)".to_string(),
                n => format!("  (+{n} folders)"),
            };
            format!(
                "{mark} {}  {when}  {}{more}\n",
                s.session_id,
                inert(&s.title, true)
            )
        })
        .collect();
    if list.is_empty() {
        return "No saved sessions here.\n".into();
    }
    format!("{}/resume ID reopens one.\n", list.concat())
}

/// The earlier conversation, condensed for `--resume`: one line per prompt, answer and tool call.
pub fn replay(agent: &Agent, session: &SessionId) -> String {
    let history = agent
        .load_session(session)
        .map(|l| l.history)
        .unwrap_or_default();
    let mut lines = Vec::new();
    let first_line = |text: &str| {
        let line = text.trim().lines().next().unwrap_or("").to_string();
        let more = text.trim().lines().count() > 1;
        let line = tandem_stdx::truncated(&line, 100, "…");
        if more && !line.ends_with('…') {
            format!("{line} …")
        } else {
            line
        }
    };
    let said = |lines: &mut Vec<String>, text: &str| {
        if !text.trim().is_empty() {
            lines.push(format!("ai> {}", inert(&first_line(text), true)));
        }
    };
    let mut view = TurnView::new();
    for entry in history {
        if matches!(entry.event, Event::TurnStarted { .. }) && view.end().is_none() {
            // The turn before never ended (a crash): what it said so far.
            said(&mut lines, view.final_text());
        }
        for change in view.event(entry.event) {
            match change {
                Change::Started => {
                    lines.push(format!("you> {}", inert(&first_line(view.prompt()), true)))
                }
                Change::Called { id, preamble } => {
                    said(&mut lines, &preamble);
                    let title = view.tool(&id).map_or("", |t| &t.title);
                    lines.push(format!("  • {}", inert(title, true)));
                }
                Change::Ended => {
                    said(&mut lines, view.final_text());
                    if let Some(error) = view.end().and_then(|e| e.error.as_deref()) {
                        lines.push(format!("  error: {}", inert(&first_line(error), true)));
                    }
                }
                _ => {}
            }
        }
    }
    // A turn the history stops in the middle of.
    if view.end().is_none() {
        said(&mut lines, view.final_text());
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// `/rules`: the rules files the model was given in this session.
pub fn rules(agent: &Agent, session: &SessionId, root: &Path) -> String {
    let history = agent
        .load_session(session)
        .map(|l| l.history)
        .unwrap_or_default();
    let mut shown = Vec::new();
    for entry in history {
        if let Event::Rules { files } = entry.event {
            for f in files {
                let name = tandem_stdx::display_relative(&f.path, root);
                let line = format!(
                    "  {} ({} bytes{})\n",
                    inert(&name, true),
                    f.bytes,
                    if f.truncated { ", cut" } else { "" }
                );
                if !shown.contains(&line) {
                    shown.push(line);
                }
            }
        }
    }
    if shown.is_empty() {
        return "No rules files so far (AGENTS.md and the like are read at the first turn).\n"
            .into();
    }
    format!("Rules given to the model:\n{}", shown.concat())
}
