//! `tandem acp`: the agent over the Agent Client Protocol v1 (newline-delimited JSON-RPC on
//! stdio), for Zed and other ACP clients. See `docs/acp.md`.
//!
//! The handlers run in the connection's dispatch loop, so none waits on the client: a prompt
//! starts a turn and parks its responder, which the forwarding task ([`frontend`]) answers when
//! the turn ends.

mod commands;
mod convert;
mod frontend;
mod transport;
mod undo;

use std::sync::{Arc, OnceLock};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse,
    ListSessionsRequest, ListSessionsResponse, LoadSessionRequest, LoadSessionResponse,
    McpCapabilities, McpServer, NewSessionRequest, NewSessionResponse, PromptCapabilities,
    PromptRequest, PromptResponse, SessionAdditionalDirectoriesCapabilities, SessionCapabilities,
    SessionInfo, SessionListCapabilities, SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, ErrorCode};
use time::format_description::well_known::Rfc3339;

use frontend::{FsCapabilities, Outbox, SessionRef};
use tandem_agent::{Agent, AgentError, SessionId};

/// What the command line says.
pub type Options = tandem_config::StartOptions;

/// Serves one client on stdin/stdout until it closes stdin; then stops every running turn.
pub async fn serve(options: Options) -> Result<(), String> {
    let (agent, _) = options.start().map_err(|e| e.to_string())?;
    let server = Arc::new(Server {
        agent,
        outbox: OnceLock::new(),
        offered: commands::Offered::default(),
    });
    // Each handler holds its own reference to the server.
    let s = || server.clone();
    // The SDK is given only messages the relay parsed; bad lines are answered by the relay.
    let (transport, relay) = transport::connect();
    let served = agent_client_protocol::Agent
        .v1()
        .name("tandem")
        .on_receive_request(
            {
                let s = s();
                async move |request: InitializeRequest, responder, cx| {
                    s.initialize(request, responder, cx)
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = s();
                async move |request: NewSessionRequest, responder, _cx| {
                    s.new_session(request, responder)
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = s();
                async move |request: LoadSessionRequest, responder, _cx| {
                    s.load_session(request, responder).await
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = s();
                async move |request: PromptRequest, responder, _cx| {
                    s.prompt(request, responder).await
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = s();
                async move |request: ListSessionsRequest, responder, _cx| {
                    s.list_sessions(request, responder)
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = s();
                async move |request: SetSessionModeRequest, responder, _cx| {
                    s.set_mode(request, responder)
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let s = s();
                async move |notification: CancelNotification, _cx| {
                    // An unknown session has nothing to cancel.
                    let _ = s
                        .agent
                        .cancel(&convert::session_id(&notification.session_id));
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(transport)
        .await;
    let read = relay.finish().await;
    server.agent.shutdown().await;
    served.map_err(|e| e.to_string())?;
    read.map_err(|e| format!("cannot read stdin: {e}"))
}

struct Server {
    agent: Agent,
    /// Set by `initialize`, which the SDK requires before anything else.
    outbox: OnceLock<Outbox>,
    /// The custom commands each session was last offered.
    offered: commands::Offered,
}

fn agent_error(e: AgentError) -> Error {
    let code = match e {
        AgentError::UnknownSession(_) => ErrorCode::RESOURCE_NOT_FOUND,
        AgentError::TurnRunning(_) => ErrorCode::INVALID_REQUEST,
        AgentError::InvalidRoot(_)
        | AgentError::WorkspaceGone(_)
        | AgentError::InvalidImage(_)
        | AgentError::UnknownTurn(_) => ErrorCode::INVALID_PARAMS,
        AgentError::Io(_) | AgentError::Model(..) => ErrorCode::INTERNAL_ERROR,
    };
    Error::new(code, e.to_string())
}

fn not_initialized() -> Error {
    Error::new(ErrorCode::INVALID_REQUEST, "initialize first")
}

impl Server {
    fn initialize(
        &self,
        request: InitializeRequest,
        responder: Responder<InitializeResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let fs = request.client_capabilities.fs;
        let fs = FsCapabilities {
            read_text_file: fs.read_text_file,
            write_text_file: fs.write_text_file,
        };
        // A repeated initialize keeps the first connection state.
        self.outbox.get_or_init(|| Outbox::start(cx, fs));
        let capabilities = AgentCapabilities::new()
            .load_session(true)
            .prompt_capabilities(PromptCapabilities::new().embedded_context(true).image(true))
            // `session_servers` reads stdio and Streamable HTTP servers; SSE is not implemented.
            .mcp_capabilities(McpCapabilities::new().http(true))
            .session_capabilities(
                SessionCapabilities::new()
                    .list(SessionListCapabilities::new())
                    .additional_directories(SessionAdditionalDirectoriesCapabilities::new()),
            );
        responder.respond(
            InitializeResponse::new(ProtocolVersion::V1)
                .agent_capabilities(capabilities)
                .agent_info(
                    Implementation::new("tandem", env!("CARGO_PKG_VERSION")).title("Tandem"),
                ),
        )
    }

    /// `mcpServers` run for this session beside the user's; a `.tandem/config.toml` in `cwd`
    /// adds the project's, which wait for the user's trust.
    fn new_session(
        &self,
        request: NewSessionRequest,
        responder: Responder<NewSessionResponse>,
    ) -> Result<(), Error> {
        if !request.cwd.is_absolute() {
            return responder.respond_with_error(Error::new(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "cwd must be an absolute path, not {}",
                    request.cwd.display()
                ),
            ));
        }
        let servers = match all_servers(&request.mcp_servers, &request.cwd) {
            Ok(servers) => servers,
            Err(message) => {
                return responder
                    .respond_with_error(Error::new(ErrorCode::INVALID_PARAMS, message));
            }
        };
        if let Some(relative) = request
            .additional_directories
            .iter()
            .find(|d| !d.is_absolute())
        {
            return responder.respond_with_error(Error::new(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "additionalDirectories must be absolute paths, not {}",
                    relative.display()
                ),
            ));
        }
        match self
            .agent
            .new_session_in(&request.cwd, &request.additional_directories, servers)
        {
            Ok(info) => {
                let id = info.session_id.clone();
                responder.respond(
                    NewSessionResponse::new(info.session_id.into_string()).modes(convert::modes(
                        &self.agent,
                        tandem_agent::mode::Mode::Default,
                    )),
                )?;
                self.offer_commands(&id);
                Ok(())
            }
            Err(e) => responder.respond_with_error(agent_error(e)),
        }
    }

    /// Sends the session's custom commands (`available_commands_update`) when they are not what
    /// the client was last sent: after `session/new` and `session/load`, and before each turn,
    /// so a command file added since shows without a restart.
    fn offer_commands(&self, session_id: &SessionId) {
        if let Some(outbox) = self.outbox.get()
            && let Some(update) = self.offered.update(&self.agent, session_id)
        {
            outbox.notify(session_id, update);
        }
    }

    /// The session keeps the roots it was created with; the request's `cwd` and
    /// `additionalDirectories` are not used. The
    /// request's `mcpServers` (and the project's) are the session's servers from now on.
    async fn load_session(
        &self,
        request: LoadSessionRequest,
        responder: Responder<LoadSessionResponse>,
    ) -> Result<(), Error> {
        let Some(outbox) = self.outbox.get() else {
            return responder.respond_with_error(not_initialized());
        };
        let id = convert::session_id(&request.session_id);
        let loaded = self
            .agent
            .load_session(&id)
            .and_then(|loaded| Ok((loaded.history, self.agent.session_root(&id)?)));
        let loaded = match loaded {
            Ok((history, root)) => match all_servers(&request.mcp_servers, &root) {
                Ok(servers) => self
                    .agent
                    .set_session_servers(&id, servers)
                    .await
                    .map(|()| (history, root)),
                Err(message) => {
                    return responder
                        .respond_with_error(Error::new(ErrorCode::INVALID_PARAMS, message));
                }
            },
            Err(e) => Err(e),
        };
        let mode = loaded
            .as_ref()
            .ok()
            .and_then(|_| self.agent.session_mode(&id).ok())
            .unwrap_or_default();
        match loaded {
            Ok((history, root)) => {
                let response = LoadSessionResponse::new().modes(convert::modes(&self.agent, mode));
                outbox.replay(
                    SessionRef {
                        id: id.clone(),
                        root,
                    },
                    history,
                    responder,
                    response,
                );
                self.offer_commands(&id);
                Ok(())
            }
            Err(e) => responder.respond_with_error(agent_error(e)),
        }
    }

    async fn prompt(
        &self,
        request: PromptRequest,
        responder: Responder<PromptResponse>,
    ) -> Result<(), Error> {
        let Some(outbox) = self.outbox.get() else {
            return responder.respond_with_error(not_initialized());
        };
        let id = convert::session_id(&request.session_id);
        let root = match self.agent.session_root(&id) {
            Ok(root) => root,
            Err(e) => return responder.respond_with_error(agent_error(e)),
        };
        let (text, context, images) = match convert::prompt_input(request.prompt, &root) {
            Ok(input) => input,
            Err(why) => {
                return responder.respond_with_error(Error::new(ErrorCode::INVALID_PARAMS, why));
            }
        };
        if text.trim().is_empty() && context.is_empty() && images.is_empty() {
            return responder
                .respond_with_error(Error::new(ErrorCode::INVALID_PARAMS, "the prompt is empty"));
        }
        // `/undo` runs no turn: the prompt is held while it asks and restores, then answered.
        if let Some(arguments) = undo::invoked(&text) {
            if let Some(responder) = outbox.hold_prompt(&id, responder) {
                return responder
                    .respond_with_error(agent_error(AgentError::TurnRunning(id.clone())));
            }
            let arguments = arguments.to_string();
            let session = SessionRef { id, root };
            tokio::spawn(undo::run(
                self.agent.clone(),
                outbox.clone(),
                session,
                arguments,
            ));
            return Ok(());
        }
        // `/name args` of a custom command: its text is the prompt.
        let text = match self.agent.expand_command(&id, text) {
            Ok(text) => text,
            Err(e) => return responder.respond_with_error(agent_error(e)),
        };
        // Parked before the turn starts: the forwarder answers it when the turn ends.
        if let Some(responder) = outbox.hold_prompt(&id, responder) {
            return responder.respond_with_error(agent_error(AgentError::TurnRunning(id.clone())));
        }
        self.offer_commands(&id);
        let frontend = outbox.frontend(
            SessionRef {
                id: id.clone(),
                root,
            },
            self.agent.clone(),
        );
        let started = self
            .agent
            .prompt_with_images(&id, text, context, images, frontend);
        if let Err(e) = started
            && let Some(responder) = outbox.release_prompt(&id)
        {
            return responder.respond_with_error(agent_error(e));
        }
        Ok(())
    }

    /// `session/set_mode`: `default` or `plan` (read-only), from the session's next request on.
    fn set_mode(
        &self,
        request: SetSessionModeRequest,
        responder: Responder<SetSessionModeResponse>,
    ) -> Result<(), Error> {
        let Some(mode) = tandem_agent::mode::Mode::from_id(&request.mode_id.0) else {
            let known: Vec<&str> = tandem_agent::mode::Mode::ALL
                .iter()
                .map(|m| m.id())
                .collect();
            return responder.respond_with_error(Error::new(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "no mode `{}`: the modes are {}",
                    request.mode_id.0,
                    known.join(", ")
                ),
            ));
        };
        match self
            .agent
            .set_mode(&convert::session_id(&request.session_id), mode)
        {
            Ok(()) => responder.respond(SetSessionModeResponse::new()),
            Err(e) => responder.respond_with_error(agent_error(e)),
        }
    }

    fn list_sessions(
        &self,
        request: ListSessionsRequest,
        responder: Responder<ListSessionsResponse>,
    ) -> Result<(), Error> {
        // Session roots are canonical; the client's cwd may not be.
        let cwd = request
            .cwd
            .map(|cwd| std::fs::canonicalize(&cwd).unwrap_or(cwd));
        let sessions = self
            .agent
            .list_sessions()
            .into_iter()
            .filter(|s| cwd.as_ref().is_none_or(|cwd| s.root == *cwd))
            .map(|s| {
                SessionInfo::new(s.session_id.into_string(), s.root)
                    .additional_directories(s.additional_roots)
                    .title((!s.title.is_empty()).then_some(s.title))
                    .updated_at(s.updated_at.format(&Rfc3339).ok())
            })
            .collect();
        responder.respond(ListSessionsResponse::new(sessions))
    }
}

/// A session's own servers: the client's `mcpServers`, then the project file's under `root`.
fn all_servers(
    client: &[McpServer],
    root: &std::path::Path,
) -> Result<Vec<tandem_agent::mcp::SessionServer>, String> {
    let mut servers = session_servers(client)?;
    servers.extend(tandem_config::project_mcp_servers(root).map_err(|e| e.to_string())?);
    Ok(servers)
}

/// The client's `mcpServers`, in the shape `tandem_mcp` reads (the same as ACP's).
fn session_servers(client: &[McpServer]) -> Result<Vec<tandem_agent::mcp::SessionServer>, String> {
    client
        .iter()
        .enumerate()
        .map(|(i, server)| {
            let value = serde_json::to_value(server).map_err(|e| e.to_string())?;
            let config: tandem_mcp::McpServerConfig =
                serde_json::from_value(value).map_err(|e| format!("mcpServers[{i}]: {e}"))?;
            Ok(tandem_agent::mcp::SessionServer {
                config,
                source: tandem_agent::mcp::ServerSource::Trusted,
            })
        })
        .collect()
}
