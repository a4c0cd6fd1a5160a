//! `tandem lsp`: the agent over JSON-RPC with LSP framing on stdio.
//!
//! Translates the `tandem/*` methods (see [`tandem_protocol`] and `docs/protocol.md`) to calls on
//! the agent core. No handler waits for a turn: a prompt starts one and returns its id.

mod convert;
mod custom_commands;
mod documents;
mod editor;
mod file_events;
mod frontend;
mod plain;
mod plain_commands;
mod plain_edit;
mod plain_location;
mod plain_mode;
mod plain_sessions;
mod transport;
mod wire;
mod workspace_edit;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::json;
use tower::ServiceBuilder;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Request, Response, Result};
use tower_lsp_server::lsp_types::{
    CodeActionParams, CodeActionProviderCapability, CodeActionResponse,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    ExecuteCommandOptions, ExecuteCommandParams, InitializeParams, InitializeResult,
    InitializedParams, LSPAny, NumberOrString, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, WorkDoneProgressCancelParams,
};
use tower_lsp_server::{Client, LanguageServer, LspService, UriExt};

use convert::{IntoCore, IntoWire};
use documents::Documents;
use frontend::{EditorAccess, LspFrontend};
use plain::{PlainCapabilities, PlainFrontend};
use tandem_agent::{Agent, AgentError, Frontend, SessionId, images};
use tandem_config::{LazyClient, StartOptions};
use tandem_protocol::{
    ClientCapabilities, Empty, ForkSessionParams, InitializationOptions, ListModelsResult,
    ListSessionsResult, LoadSessionResult, NewSessionParams, NewSessionResult, NoParams,
    PromptParams, PromptResult, SessionParams, SetModeParams, SetModelParams, TurnChangesParams,
    TurnChangesResult, UndoParams, UndoResult, error_code, methods,
};

use tandem_stdx::lock;

/// What the command line says; the editor's `initializationOptions` win field by field.
pub type Overrides = StartOptions;

/// Serves one client on stdin/stdout until it exits. `true` when the client asked for a
/// `shutdown` first: LSP wants exit code 0 then, and 1 for an `exit` (or a closed stream) without
/// one.
pub async fn serve(overrides: Overrides) -> bool {
    let shut_down = Arc::new(AtomicBool::new(false));
    let flag = shut_down.clone();
    let (service, socket) = LspService::build(|client| Backend::new(client, overrides, flag))
        .custom_method(methods::NEW_SESSION, Backend::new_session)
        .custom_method(methods::PROMPT, Backend::prompt)
        .custom_method(methods::CANCEL, Backend::cancel)
        .custom_method(methods::LIST_SESSIONS, Backend::list_sessions)
        .custom_method(methods::LOAD_SESSION, Backend::load_session)
        .custom_method(methods::FORK_SESSION, Backend::fork_session)
        .custom_method(methods::UNDO, Backend::undo)
        .custom_method(methods::TURN_CHANGES, Backend::turn_changes)
        .custom_method(methods::LIST_MODELS, Backend::list_models)
        .custom_method(methods::SET_MODEL, Backend::set_model)
        .custom_method(methods::SET_MODE, Backend::set_mode)
        .custom_method(methods::LIST_COMMANDS, Backend::list_commands)
        .custom_method(methods::RUN_COMMAND, Backend::run_custom_command)
        .custom_method(
            "window/workDoneProgress/cancel",
            Backend::work_done_progress_cancel,
        )
        .finish();
    let service = ServiceBuilder::new()
        .map_request(default_params)
        .service(DollarRequests(service));
    transport::serve(service, socket).await;
    shut_down.load(Ordering::SeqCst)
}

/// LSP: a `$/` request the server does not implement gets `MethodNotFound`; only `$/`
/// notifications may be dropped. The router drops both (it never answers an unknown `$/`
/// method), which leaves a client waiting forever: the requests are answered here. We serve no
/// `$/` request, so every one is unknown.
struct DollarRequests<S>(S);

impl<S> tower::Service<Request> for DollarRequests<S>
where
    S: tower::Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
{
    type Response = Option<Response>;
    type Error = S::Error;
    type Future =
        futures_util::future::BoxFuture<'static, std::result::Result<Self::Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::result::Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if request.method().starts_with("$/")
            && let Some(id) = request.id().cloned()
        {
            let error = Error {
                code: ErrorCode::MethodNotFound,
                message: format!("no method {}", request.method()).into(),
                data: None,
            };
            return Box::pin(async move { Ok(Some(Response::from_error(id, error))) });
        }
        Box::pin(self.0.call(request))
    }
}

/// Methods that take no params accept them absent as well as `{}`: clients differ, and the
/// router takes one or the other. An absent `params` becomes `{}` here.
fn default_params(request: Request) -> Request {
    let takes_none = matches!(
        request.method(),
        methods::LIST_SESSIONS | methods::LIST_MODELS
    );
    if !takes_none || request.params().is_some() {
        return request;
    }
    let (method, id, _) = request.into_parts();
    let builder = Request::build(method).params(json!({}));
    match id {
        Some(id) => builder.id(id).finish(),
        None => builder.finish(),
    }
}

struct Backend {
    client: Client,
    overrides: Overrides,
    ready: OnceLock<Ready>,
    /// A plain client's session: made on first use, replaced by `tandem.newSession`.
    current: Mutex<Option<SessionId>>,
    /// A plain client's open documents (full text sync): the agent reads their unsaved text.
    documents: Documents,
    /// The client sent `shutdown`.
    shut_down: Arc<AtomicBool>,
    /// A plain client's approval questions waiting for `tandem.answer`.
    questions: plain::Questions,
}

/// Set up by `initialize`.
struct Ready {
    agent: Agent,
    client: Arc<LazyClient>,
    frontend: Arc<dyn Frontend>,
    /// The client speaks only plain LSP (it did not declare `experimental.tandem`).
    plain: bool,
    /// The client's workspace folders: the default session root is the first.
    folders: Vec<PathBuf>,
}

fn agent_error(e: AgentError) -> Error {
    let code = match e {
        AgentError::UnknownSession(_) => error_code::UNKNOWN_SESSION,
        AgentError::TurnRunning(_) => error_code::TURN_RUNNING,
        AgentError::InvalidRoot(_) | AgentError::WorkspaceGone(_) => error_code::INVALID_ROOT,
        AgentError::Io(_) => error_code::IO_ERROR,
        AgentError::Model(..) => error_code::MODEL_ERROR,
        AgentError::InvalidImage(message) | AgentError::UnknownTurn(message) => {
            return invalid_params(message);
        }
    };
    // A model failure says which kind in `data.errorKind`, as a failed turn does.
    let data = match &e {
        AgentError::Model(_, kind) => Some(json!({
            "errorKind": kind.into_wire()
        })),
        _ => None,
    };
    Error {
        code: ErrorCode::ServerError(code),
        message: e.to_string().into(),
        data,
    }
}

fn invalid_params(message: String) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into(),
        data: None,
    }
}

/// A path, or a `file://` URI, as a path.
fn to_path(root: &str) -> Result<PathBuf> {
    if root.starts_with("file:") {
        let uri: tower_lsp_server::lsp_types::Uri = root
            .parse()
            .map_err(|_| invalid_params(format!("not a valid URI: {root}")))?;
        return uri
            .to_file_path()
            .map(|p| p.into_owned())
            .ok_or_else(|| invalid_params(format!("not a file URI: {root}")));
    }
    Ok(PathBuf::from(root))
}

impl Backend {
    fn new(client: Client, overrides: Overrides, shut_down: Arc<AtomicBool>) -> Self {
        Self {
            client,
            overrides,
            ready: OnceLock::new(),
            current: Mutex::new(None),
            documents: Documents::default(),
            shut_down,
            questions: plain::Questions::default(),
        }
    }

    fn ready(&self) -> Result<&Ready> {
        self.ready
            .get()
            .ok_or_else(|| Error::new(ErrorCode::ServerError(-32002)))
    }

    async fn new_session(&self, params: NewSessionParams) -> Result<NewSessionResult> {
        let ready = self.ready()?;
        let root = match params.root.as_deref() {
            Some(root) => to_path(root)?,
            None => ready.folders.first().cloned().ok_or_else(|| {
                invalid_params(
                    "no root given and the client has no workspace folder; pass \"root\"".into(),
                )
            })?,
        };
        // Every folder of the client's workspace is in it, unless the client says otherwise.
        let additional = match (&params.additional_roots, &params.root) {
            (Some(given), _) => given
                .iter()
                .map(|r| to_path(r))
                .collect::<Result<Vec<_>>>()?,
            (None, None) => ready.folders.iter().skip(1).cloned().collect(),
            (None, Some(_)) => Vec::new(),
        };
        // A project's MCP servers wait for the user's trust (asked at the first turn); the
        // primary root is the project.
        let servers = tandem_config::project_mcp_servers(&root)
            .map_err(|e| invalid_params(format!("bad project config file: {e}")))?;
        let info = ready
            .agent
            .new_session_in(&root, &additional, servers)
            .map_err(agent_error)?;
        Ok(NewSessionResult {
            session_id: info.session_id.into_wire(),
        })
    }

    async fn prompt(&self, params: PromptParams) -> Result<PromptResult> {
        let session_id = params.session_id.into_core();
        let ready = self.ready()?;
        let attached = params.images.unwrap_or_default();
        if params.text.trim().is_empty() && attached.is_empty() {
            return Err(invalid_params("the prompt is empty".into()));
        }
        // `/name args` of a custom command: its text is the prompt.
        let text = ready
            .agent
            .expand_command(&session_id, params.text)
            .map_err(agent_error)?;
        let images = attached
            .iter()
            .enumerate()
            .map(|(i, image)| {
                images::from_base64(&format!("image {}", i + 1), &image.mime_type, &image.data)
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| invalid_params(e.0))?;
        let turn_id = ready
            .agent
            .prompt_with_images(
                &session_id,
                text,
                params
                    .context
                    .into_iter()
                    .map(IntoCore::into_core)
                    .collect(),
                images,
                ready.frontend.clone(),
            )
            .map_err(agent_error)?;
        Ok(PromptResult {
            turn_id: turn_id.into_wire(),
        })
    }

    async fn cancel(&self, params: SessionParams) -> Result<Empty> {
        let session_id = params.session_id.into_core();
        self.ready()?
            .agent
            .cancel(&session_id)
            .map_err(agent_error)?;
        Ok(Empty {})
    }

    async fn list_sessions(&self, _: NoParams) -> Result<ListSessionsResult> {
        let agent = self.ready()?.agent.clone();
        let sessions = tokio::task::spawn_blocking(move || agent.list_sessions())
            .await
            .map_err(|e| Error {
                code: ErrorCode::InternalError,
                message: e.to_string().into(),
                data: None,
            })?;
        Ok(ListSessionsResult {
            sessions: sessions.into_iter().map(IntoWire::into_wire).collect(),
        })
    }

    async fn load_session(&self, params: SessionParams) -> Result<LoadSessionResult> {
        let session_id = params.session_id.into_core();
        let ready = self.ready()?;
        let loaded = ready.agent.load_session(&session_id).map_err(agent_error)?;
        Self::loaded(ready, session_id, loaded).await
    }

    /// `tandem/forkSession`: a new session with the conversation up to just before a turn,
    /// answered as `loadSession` answers for it.
    async fn fork_session(&self, params: ForkSessionParams) -> Result<LoadSessionResult> {
        let original = params.session_id.into_core();
        let ready = self.ready()?;
        let fork = ready
            .agent
            .fork_session(&original, &params.before_turn.into_core())
            .map_err(agent_error)?;
        let loaded = ready
            .agent
            .load_session(&fork.session_id)
            .map_err(agent_error)?;
        Self::loaded(ready, fork.session_id, loaded).await
    }

    /// A loaded session's answer, with its project's MCP servers given to it again (a session
    /// reopened after a restart has them too).
    async fn loaded(
        ready: &Ready,
        session_id: SessionId,
        loaded: tandem_agent::LoadedSession,
    ) -> Result<LoadSessionResult> {
        let root = ready.agent.session_root(&session_id).map_err(agent_error)?;
        let servers = tandem_config::project_mcp_servers(&root).map_err(|e| {
            Error::invalid_params(format!("{e}; fix the file, then open the session again"))
        })?;
        ready
            .agent
            .set_session_servers(&session_id, servers)
            .await
            .map_err(agent_error)?;
        let entries = loaded
            .history
            .into_iter()
            .map(|entry| convert::update_params(&session_id, &entry.turn_id, entry.event))
            .collect();
        let mode = ready
            .agent
            .session_mode(&session_id)
            .map_err(agent_error)?
            .into_wire();
        Ok(LoadSessionResult {
            session_id: session_id.into_wire(),
            entries,
            unreadable_lines: u32::try_from(loaded.unreadable_lines).unwrap_or(u32::MAX),
            mode,
        })
    }

    async fn undo(&self, params: UndoParams) -> Result<UndoResult> {
        let session_id = params.session_id.into_core();
        let ready = self.ready()?;
        let outcome = ready
            .agent
            .undo(
                &session_id,
                params.turn_id.map(IntoCore::into_core),
                params.confirm.unwrap_or(false),
                ready.frontend.as_ref(),
            )
            .await
            .map_err(agent_error)?;
        Ok(outcome.into_wire())
    }

    /// `tandem/turnChanges`: every file a turn changed, before it and now (an open file as the
    /// editor holds it).
    async fn turn_changes(&self, params: TurnChangesParams) -> Result<TurnChangesResult> {
        let session_id = params.session_id.into_core();
        let ready = self.ready()?;
        let root = ready.agent.session_root(&session_id).map_err(agent_error)?;
        let changes = ready
            .agent
            .turn_changes(
                &session_id,
                params.turn_id.map(IntoCore::into_core),
                ready.frontend.as_ref(),
            )
            .await
            .map_err(agent_error)?;
        Ok(match changes {
            Some(changes) => TurnChangesResult {
                turn_id: Some(changes.turn_id.into_wire()),
                root,
                files: changes.files.into_iter().map(IntoWire::into_wire).collect(),
            },
            None => TurnChangesResult {
                turn_id: None,
                root,
                files: Vec::new(),
            },
        })
    }

    /// `window/workDoneProgress/cancel`: the user cancelled a turn from the editor's progress UI.
    async fn work_done_progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        // Our tokens are `tandem/<session>/<turn>`.
        if let NumberOrString::String(token) = params.token
            && let Some(session) = token
                .strip_prefix("tandem/")
                .and_then(|t| t.split('/').next())
            && let Ok(ready) = self.ready()
        {
            let _ = ready.agent.cancel(&SessionId::from(session));
        }
    }

    async fn set_model(&self, params: SetModelParams) -> Result<Empty> {
        if params.model.trim().is_empty() {
            return Err(invalid_params("the model name is empty".into()));
        }
        self.ready()?.client.set_model(params.model);
        Ok(Empty {})
    }

    /// `tandem/setMode`: the session's mode from its next request on.
    async fn set_mode(&self, params: SetModeParams) -> Result<Empty> {
        let session_id = params.session_id.into_core();
        self.ready()?
            .agent
            .set_mode(&session_id, params.mode.into_core())
            .map_err(agent_error)?;
        Ok(Empty {})
    }

    async fn list_models(&self, _: NoParams) -> Result<ListModelsResult> {
        let agent = &self.ready()?.agent;
        let models = agent.list_models().await.map_err(agent_error)?;
        Ok(ListModelsResult {
            models: models.into_iter().map(IntoWire::into_wire).collect(),
            current: agent.model(),
        })
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let options: InitializationOptions = match params.initialization_options {
            None | Some(serde_json::Value::Null) => InitializationOptions::default(),
            // The path names the field, e.g. `maxSteps: invalid type: string "many", expected u32`.
            Some(value) => serde_path_to_error::deserialize(value).map_err(|e| {
                invalid_params(format!(
                    "bad initializationOptions.{}: {}",
                    e.path(),
                    e.inner()
                ))
            })?,
        };
        // A malformed capability is the client's bug: say so now, rather than reject every edit
        // later with no word why.
        let declared_caps = params
            .capabilities
            .experimental
            .as_ref()
            .and_then(|e| e.get("tandem"));
        let capabilities: ClientCapabilities = match declared_caps {
            None | Some(serde_json::Value::Null) => ClientCapabilities::default(),
            Some(value) => serde_path_to_error::deserialize(value.clone()).map_err(|e| {
                invalid_params(format!(
                    "bad capabilities.experimental.tandem.{}: {} (expected {{\"approvals\": \
                     bool, \"diagnostics\": bool}})",
                    e.path(),
                    e.inner()
                ))
            })?,
        };
        let mut folders: Vec<PathBuf> = params
            .workspace_folders
            .unwrap_or_default()
            .iter()
            .filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned()))
            .collect();
        #[allow(deprecated)]
        if folders.is_empty()
            && let Some(root) = params.root_uri.as_ref().and_then(|u| u.to_file_path())
        {
            folders.push(root.into_owned());
        }
        let overrides = self.overrides.clone();
        let mut mcp_servers = overrides.mcp_servers;
        for (i, server) in options
            .mcp_servers
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            let value = serde_json::to_value(server).map_err(|e| invalid_params(e.to_string()))?;
            mcp_servers.push(serde_json::from_value(value).map_err(|e| {
                invalid_params(format!("bad initializationOptions.mcpServers[{i}]: {e}"))
            })?);
        }
        let (agent, client) = StartOptions {
            provider: options
                .provider
                .map(IntoCore::into_core)
                .unwrap_or_default()
                .or(overrides.provider),
            policy: options
                .approval
                .map(policy_options)
                .unwrap_or_default()
                .or(overrides.policy),
            data_dir: options.data_dir.or(overrides.data_dir),
            max_steps: options.max_steps.or(overrides.max_steps),
            limits: match options.limits {
                Some(limits) => Some(
                    convert::apply_limits(limits, overrides.limits.unwrap_or_default())
                        .map_err(invalid_params)?,
                ),
                None => overrides.limits,
            },
            config_file: overrides.config_file,
            workspace: folders.first().cloned().or(overrides.workspace),
            mcp_servers,
            user_rules: overrides.user_rules,
        }
        .start()
        .map_err(|e| invalid_params(format!("bad config file: {e}")))?;
        // A client that declared the tandem capability gets the tandem/* protocol; any other
        // gets the agent through plain LSP requests.
        let declared = params
            .capabilities
            .experimental
            .as_ref()
            .is_some_and(|e| e.get("tandem").is_some());
        let frontend: Arc<dyn Frontend> = if declared {
            LspFrontend::start(
                self.client.clone(),
                capabilities,
                EditorAccess::of(
                    &params.capabilities,
                    self.documents.clone(),
                    folders.clone(),
                ),
            )
        } else {
            let plain_caps = PlainCapabilities::of(&params.capabilities);
            PlainFrontend::start(
                self.client.clone(),
                plain_caps,
                folders.clone(),
                self.documents.clone(),
                agent.settings().data_dir.join("proposals"),
                options
                    .defer_questions
                    .unwrap_or(false)
                    .then(|| self.questions.clone()),
            )
        };
        let ready = Ready {
            agent,
            client,
            frontend,
            plain: !declared,
            folders,
        };
        if self.ready.set(ready).is_err() {
            return Err(Error::invalid_request());
        }
        let plain = !declared;
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                execute_command_provider: plain.then(|| ExecuteCommandOptions {
                    commands: plain::COMMANDS
                        .iter()
                        .chain(&custom_commands::PLAIN_COMMANDS)
                        .chain(&[plain_mode::SET_MODE, plain_edit::EDIT_SELECTION])
                        .map(|c| c.to_string())
                        .collect(),
                    work_done_progress_options: Default::default(),
                }),
                code_action_provider: plain.then_some(CodeActionProviderCapability::Simple(true)),
                // Every client: the agent reads open documents as the editor holds them.
                text_document_sync: Some(TextDocumentSyncCapability::Kind(
                    TextDocumentSyncKind::FULL,
                )),
                experimental: Some(json!({
                    "tandem": {"version": env!("CARGO_PKG_VERSION")}
                })),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "tandem".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {}

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.documents.set(&doc.uri, doc.text, doc.version);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Full sync: the last change holds the whole text.
        if let Some(change) = params.content_changes.into_iter().last() {
            let doc = &params.text_document;
            self.documents.set(&doc.uri, change.text, doc.version);
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.documents.remove(&params.text_document.uri);
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        self.run_command(&params.command, params.arguments).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let ready = self.ready()?;
        if !ready.plain || params.range.start == params.range.end {
            return Ok(None);
        }
        Ok(Some(plain_commands::code_actions(&params)))
    }

    async fn shutdown(&self) -> Result<()> {
        self.shut_down.store(true, Ordering::SeqCst);
        if let Some(ready) = self.ready.get() {
            ready.agent.shutdown().await;
            // The cancelled turns' ends go out before the answer, which the editor may follow
            // with `exit` at once.
            ready.frontend.flushed().await;
        }
        Ok(())
    }
}

/// The editor's approval settings, each field left unset where it says nothing (the flags and
/// the config file fill those).
fn policy_options(p: tandem_protocol::ApprovalPolicy) -> tandem_config::PolicyOptions {
    let auto = p.auto_approve.unwrap_or_default();
    tandem_config::PolicyOptions {
        auto_approve_edit: auto.edit,
        auto_approve_command: auto.command,
        allow_commands: p.allow_commands,
        // The rules come from the user's config file (`approval.rules`).
        ask_commands: None,
        deny_commands: None,
        sandbox: p.sandbox.map(|s| match s {
            tandem_protocol::Sandbox::WorkspaceWrite => {
                tandem_agent::approval::SandboxMode::WorkspaceWrite
            }
            tandem_protocol::Sandbox::Off => tandem_agent::approval::SandboxMode::Off,
        }),
        network: p.network,
        allow_mcp_tools: p.allow_mcp_tools,
        allow_fetch: p.allow_fetch,
        timeout: p
            .timeout_seconds
            .map(|s| std::time::Duration::from_secs(u64::from(s.max(1)))),
        command_writes: p.command_writes.map(|w| match w {
            tandem_protocol::CommandWrites::Apply => tandem_agent::approval::CommandWrites::Apply,
            tandem_protocol::CommandWrites::Review => tandem_agent::approval::CommandWrites::Review,
        }),
        // The capture's settings come from the user's config file (`[capture]`).
        capture: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `initializationOptions.approval` as `initialize` reads it (the same parse, then the same
    /// conversion), so these tests break when the real path does.
    fn policy(approval: serde_json::Value) -> tandem_config::PolicyOptions {
        let options: InitializationOptions =
            serde_json::from_value(json!({ "approval": approval })).unwrap();
        policy_options(options.approval.unwrap())
    }

    #[test]
    fn the_editors_approval_settings_become_the_policy() {
        let p = policy(json!({
            "autoApprove": {"edit": false, "command": true},
            "allowCommands": ["ls"],
            "sandbox": "off",
            "network": true,
            "allowMcpTools": ["fs__read_file"],
            "timeoutSeconds": 30,
        }));
        assert_eq!(p.auto_approve_edit, Some(false));
        assert_eq!(p.auto_approve_command, Some(true));
        assert_eq!(p.allow_commands, Some(vec!["ls".to_string()]));
        assert_eq!(p.sandbox, Some(tandem_agent::approval::SandboxMode::Off));
        assert_eq!(p.network, Some(true));
        assert_eq!(p.allow_mcp_tools, Some(vec!["fs__read_file".to_string()]));
        assert_eq!(p.timeout, Some(std::time::Duration::from_secs(30)));
    }

    #[test]
    fn what_the_editor_leaves_out_stays_unset_so_the_config_file_decides() {
        let p = policy(json!({"autoApprove": {"command": true}}));
        assert_eq!(p.auto_approve_command, Some(true));
        assert_eq!(p.auto_approve_edit, None);
        assert_eq!(p.allow_commands, None);
        assert_eq!(p.sandbox, None);
        assert_eq!(p.network, None);
        assert_eq!(p.allow_mcp_tools, None);
        assert_eq!(p.timeout, None);
    }

    #[test]
    fn a_zero_timeout_is_a_second_so_no_question_is_rejected_unseen() {
        let p = policy(json!({"timeoutSeconds": 0}));
        assert_eq!(p.timeout, Some(std::time::Duration::from_secs(1)));
        let p = policy(json!({"sandbox": "workspace-write"}));
        assert_eq!(
            p.sandbox,
            Some(tandem_agent::approval::SandboxMode::WorkspaceWrite)
        );
    }
}
