//! The agent's [`Frontend`] for an ACP client: events become `session/update` notifications,
//! approvals `session/request_permission` requests, and file access goes through the client's
//! `fs/*` methods when it offers them.
//!
//! Everything the client must see in order goes through one queue and one forwarding task, which
//! also answers `session/prompt` when the turn ends and `session/load` after its replay, so a
//! response never overtakes the updates before it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use agent_client_protocol::v1::schema::{
    LoadSessionResponse, PromptResponse, ReadTextFileRequest, RequestPermissionRequest,
    SessionNotification, SessionUpdate, WriteTextFileRequest,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, ErrorCode, JsonRpcRequest};
use futures_util::future::BoxFuture;
use tokio::sync::oneshot;

use super::convert::{self, Translator};
use tandem_agent::approval::{ApprovalReply, ApprovalRequest, Decision, queued_reply};
use tandem_agent::changes::ChangedFile;
use tandem_agent::events::Event;
use tandem_agent::outbox::{self as agent_outbox, Deliver};
use tandem_agent::{Agent, Frontend, HistoryEntry, SessionId, ToolCallId, TurnId};

use tandem_stdx::lock;

/// A session as the face knows it. Two refs are the same stream when they name one session.
#[derive(Debug)]
pub struct SessionRef {
    pub id: SessionId,
    /// Tool paths are relative to it; ACP wants absolute ones.
    pub root: PathBuf,
}

/// What the client offered in `initialize`.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsCapabilities {
    pub read_text_file: bool,
    pub write_text_file: bool,
}

impl PartialEq for SessionRef {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

/// What the client must see in order besides events.
enum Outgoing {
    Approval(
        Arc<SessionRef>,
        ApprovalRequest,
        oneshot::Sender<ApprovalReply>,
    ),
    /// The user allowed a tool call: it is running now.
    Allowed(Arc<SessionRef>, ToolCallId),
    Replay(
        Arc<SessionRef>,
        Vec<HistoryEntry>,
        Responder<LoadSessionResponse>,
        LoadSessionResponse,
    ),
    /// A request to the client, or an answer to one of its requests: sent in turn, so the client
    /// has seen the tool call a request serves, and a response never overtakes its updates.
    InTurn(SendRequest),
    /// The texts of the files a call changed, read when it reported them: queued just before
    /// its `FilesChanged` event, which shows them.
    FilesRead(Arc<SessionRef>, ToolCallId, Vec<ChangedFile>),
    /// An update that is no event of a turn (the session's commands), by session id.
    Update(SessionId, SessionUpdate),
}

type Queue = agent_outbox::Outbox<Arc<SessionRef>, Outgoing>;

/// Sends one request on the connection (and hands its answer on), or answers one.
type SendRequest = Box<dyn FnOnce(&ConnectionTo<Client>) + Send>;

/// What the connection's handlers and the forwarding task share.
struct Shared {
    cx: ConnectionTo<Client>,
    /// The `session/prompt` waiting for its turn to end, by session.
    prompts: Mutex<HashMap<SessionId, Responder<PromptResponse>>>,
}

/// The connection's side of the queue: one per client, made at `initialize`. Clones share it.
#[derive(Clone)]
pub struct Outbox {
    shared: Arc<Shared>,
    fs: FsCapabilities,
    queue: Queue,
}

impl Outbox {
    /// Starts the forwarding task; it ends when the outbox and every session frontend are gone.
    pub fn start(cx: ConnectionTo<Client>, fs: FsCapabilities) -> Self {
        let shared = Arc::new(Shared {
            cx,
            prompts: Mutex::new(HashMap::new()),
        });
        // The forwarder queues "allowed" notes behind what came before them: it needs the queue,
        // which exists only once it is started.
        let weak = Arc::new(OnceLock::new());
        let queue = Queue::start(Forwarder {
            shared: shared.clone(),
            queue: weak.clone(),
            sessions: HashMap::new(),
        });
        let _ = weak.set(queue.downgrade());
        Self { shared, fs, queue }
    }

    /// The frontend a turn reports to, bound to its session (made for each prompt): ACP's file
    /// requests name the session, and [`Frontend::read_text`] does not.
    pub fn frontend(&self, session: SessionRef, agent: Agent) -> Arc<SessionFrontend> {
        Arc::new(SessionFrontend {
            session: Arc::new(session),
            agent,
            fs: self.fs,
            queue: self.queue.clone(),
        })
    }

    /// Keeps the `session/prompt` responder until the session's turn ends. Gives it back when
    /// the session already has one waiting (a turn is running).
    #[must_use]
    pub fn hold_prompt(
        &self,
        session_id: &SessionId,
        responder: Responder<PromptResponse>,
    ) -> Option<Responder<PromptResponse>> {
        let mut prompts = lock(&self.shared.prompts);
        if prompts.contains_key(session_id) {
            return Some(responder);
        }
        prompts.insert(session_id.clone(), responder);
        None
    }

    /// The held responder back, when the turn could not start.
    pub fn release_prompt(&self, session_id: &SessionId) -> Option<Responder<PromptResponse>> {
        lock(&self.shared.prompts).remove(session_id)
    }

    /// Sends `update` after everything queued before it.
    pub fn notify(&self, session_id: &SessionId, update: SessionUpdate) {
        let _ = self
            .queue
            .send(Outgoing::Update(session_id.clone(), update));
    }

    /// Sends `request` to the client after everything queued before it; the answer, or why
    /// there is none.
    pub fn ask<R, T>(
        &self,
        request: R,
        answer: impl FnOnce(R::Response) -> T + Send + 'static,
    ) -> BoxFuture<'static, Result<T, String>>
    where
        R: JsonRpcRequest + Send + 'static,
        T: Send + 'static,
    {
        ask_in_turn(&self.queue, request, answer)
    }

    /// Answers the `session/prompt` held for `session_id` ([`Self::hold_prompt`]) after
    /// everything queued before it: for a prompt that ran no turn (`/undo`).
    pub fn finish_prompt(&self, session_id: &SessionId, answer: Result<PromptResponse, Error>) {
        let shared = self.shared.clone();
        let id = session_id.clone();
        let _ = self.queue.send(Outgoing::InTurn(Box::new(move |_| {
            if let Some(responder) = lock(&shared.prompts).remove(&id) {
                let _ = match answer {
                    Ok(response) => responder.respond(response),
                    Err(error) => responder.respond_with_error(error),
                };
            }
        })));
    }

    /// Sends the history as updates, then answers `session/load`.
    pub fn replay(
        &self,
        session: SessionRef,
        history: Vec<HistoryEntry>,
        responder: Responder<LoadSessionResponse>,
        response: LoadSessionResponse,
    ) {
        let _ = self.queue.send(Outgoing::Replay(
            Arc::new(session),
            history,
            responder,
            response,
        ));
    }
}

pub struct SessionFrontend {
    session: Arc<SessionRef>,
    /// For the texts of the files a command changed (the undo log's before, the disk's now).
    agent: Agent,
    fs: FsCapabilities,
    queue: Queue,
}

impl Frontend for SessionFrontend {
    fn update(&self, session_id: &SessionId, turn_id: &TurnId, event: Event) {
        if let Event::FilesChanged {
            tool_call_id,
            changes,
        } = &event
        {
            // Read now, while the files are as the call left them.
            let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
            match self.agent.turn_changes_on_disk(session_id, turn_id, &paths) {
                Ok(files) => {
                    let _ = self.queue.send(Outgoing::FilesRead(
                        self.session.clone(),
                        tool_call_id.clone(),
                        files,
                    ));
                }
                // The files are still listed, without their texts.
                Err(e) => tracing::warn!("the changed files' texts: {e}"),
            }
        }
        self.queue.event(self.session.clone(), event);
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        let (tx, rx) = oneshot::channel();
        let sent = self
            .queue
            .send(Outgoing::Approval(self.session.clone(), request, tx));
        queued_reply(sent.map_err(drop), rx)
    }

    /// Reads through the client: its buffer, unsaved changes included.
    fn read_text(&self, path: &Path) -> Option<BoxFuture<'static, Result<String, String>>> {
        // A file that isn't on disk has no buffer to read either (clients answer with an error):
        // let the core report it as missing.
        if !self.fs.read_text_file || !path.is_file() {
            return None;
        }
        let request = ReadTextFileRequest::new(self.session.id.to_string(), path);
        Some(self.ask_client(request, |r| r.content))
    }

    /// The core has just read the buffer through [`Self::read_text`] and checked it still holds
    /// what the edit was proposed against, so the write itself needs no precondition.
    fn write_text(
        &self,
        path: &Path,
        _original: Option<&str>,
        content: &str,
    ) -> Option<BoxFuture<'static, Result<(), String>>> {
        if !self.fs.write_text_file {
            return None;
        }
        let request = WriteTextFileRequest::new(self.session.id.to_string(), path, content);
        Some(self.ask_client(request, |_| ()))
    }
}

impl SessionFrontend {
    /// Sends `request` through the queue and waits for the client's answer.
    fn ask_client<R, T>(
        &self,
        request: R,
        answer: impl FnOnce(R::Response) -> T + Send + 'static,
    ) -> BoxFuture<'static, Result<T, String>>
    where
        R: JsonRpcRequest + Send + 'static,
        T: Send + 'static,
    {
        ask_in_turn(&self.queue, request, answer)
    }
}

/// Sends `request` through `queue` and waits for the client's answer.
fn ask_in_turn<R, T>(
    queue: &Queue,
    request: R,
    answer: impl FnOnce(R::Response) -> T + Send + 'static,
) -> BoxFuture<'static, Result<T, String>>
where
    R: JsonRpcRequest + Send + 'static,
    T: Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    let send = move |cx: &ConnectionTo<Client>| {
        let sent = cx.send_request(request);
        tokio::spawn(async move {
            let _ = tx.send(sent.block_task().await.map(answer).map_err(|e| e.message));
        });
    };
    let queued = queue.send(Outgoing::InTurn(Box::new(send))).map_err(drop);
    Box::pin(async move {
        if queued.is_err() {
            return Err("the editor connection is closed".to_string());
        }
        rx.await
            .unwrap_or_else(|_| Err("the editor connection is closed".to_string()))
    })
}

/// Delivers what the queue holds, in order. It never waits for the client: requests are awaited
/// by tasks of their own.
struct Forwarder {
    shared: Arc<Shared>,
    /// For answers to approvals, which must queue behind what came before them. Weak, so the
    /// task ends when the connection's senders are gone.
    queue: Arc<OnceLock<agent_outbox::WeakOutbox<Arc<SessionRef>, Outgoing>>>,
    sessions: HashMap<SessionId, Translator>,
}

impl Deliver for Forwarder {
    type Tag = Arc<SessionRef>;
    type Other = Outgoing;

    async fn event(&mut self, session: Arc<SessionRef>, event: Event) {
        self.send_event(&session, event);
    }

    async fn other(&mut self, item: Outgoing) {
        match item {
            Outgoing::Approval(session, request, reply) => self.ask(session, request, reply),
            Outgoing::Allowed(session, tool_call_id) => {
                if let Some(update) = self.translator(&session).allowed(&tool_call_id) {
                    self.notify(&session.id, update);
                }
            }
            Outgoing::InTurn(send) => send(&self.shared.cx),
            Outgoing::FilesRead(session, tool_call_id, files) => {
                self.translator(&session).files_read(tool_call_id, files);
            }
            Outgoing::Update(session_id, update) => self.notify(&session_id, update),
            Outgoing::Replay(session, history, responder, response) => {
                let mut replay = Translator::new(session.root.clone(), true);
                for entry in history {
                    for update in replay.event(entry.event) {
                        self.notify(&session.id, update);
                    }
                }
                for update in replay.close_open() {
                    self.notify(&session.id, update);
                }
                let _ = responder.respond(response);
            }
        }
    }
}

impl Forwarder {
    fn translator(&mut self, session: &SessionRef) -> &mut Translator {
        self.sessions
            .entry(session.id.clone())
            .or_insert_with(|| Translator::new(session.root.clone(), false))
    }

    fn notify(&self, session_id: &SessionId, update: SessionUpdate) {
        // Fails only when the connection is gone; the turn then ends on its own.
        let _ = self
            .shared
            .cx
            .send_notification(SessionNotification::new(session_id.to_string(), update));
    }

    fn send_event(&mut self, session: &SessionRef, event: Event) {
        let ended = match &event {
            Event::TurnEnded {
                stop_reason,
                error,
                error_kind,
            } => Some((*stop_reason, error.clone(), *error_kind)),
            _ => None,
        };
        for update in self.translator(session).event(event) {
            self.notify(&session.id, update);
        }
        if let Some((stop_reason, error, error_kind)) = ended {
            self.sessions.remove(&session.id);
            let responder = lock(&self.shared.prompts).remove(&session.id);
            if let Some(responder) = responder {
                let _ = match convert::stop_reason(stop_reason, error, error_kind) {
                    Ok(reason) => responder.respond(PromptResponse::new(reason)),
                    Err(message) => {
                        responder.respond_with_error(Error::new(ErrorCode::INTERNAL_ERROR, message))
                    }
                };
            }
        }
    }

    /// Sends `session/request_permission` now (after every update before it), and waits for the
    /// answer in a task of its own so updates keep flowing while the user decides.
    fn ask(
        &mut self,
        session: Arc<SessionRef>,
        request: ApprovalRequest,
        reply: oneshot::Sender<ApprovalReply>,
    ) {
        let tool_call = self.translator(&session).approval(&request);
        let options = convert::permission_options(&request);
        let asked = self.shared.cx.send_request(RequestPermissionRequest::new(
            session.id.to_string(),
            tool_call,
            options,
        ));
        let queue = self.queue.get().cloned();
        tokio::spawn(async move {
            let answer = match asked.block_task().await {
                Ok(response) => convert::decision(&response.outcome),
                Err(e) => ApprovalReply::reject(format!(
                    "The editor could not ask the user ({}); nothing was done.",
                    e.message
                )),
            };
            // Queued before the core hears the answer, so "running" precedes what the call does.
            if answer.decision != Decision::Reject
                && let Some(queue) = queue.and_then(|q| q.upgrade())
            {
                let _ = queue.send(Outgoing::Allowed(session, request.tool_call_id));
            }
            let _ = reply.send(answer);
        });
    }
}
