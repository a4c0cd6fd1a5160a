//! An in-process face for the turn loop: the agent built in this test process against the mock
//! model, every event and approval question passed to the test over channels (so a test waits
//! on what happened, never on the clock).

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use mock_model::{MockServer, RecordedRequest, Scenario};
use tandem_agent::approval::{ApprovalPolicy, ApprovalReply, ApprovalRequest, Decision};
use tandem_agent::events::{Event, StopReason, ToolStatus, TurnErrorKind};
use tandem_agent::{Agent, AgentSettings, Frontend, SessionId, TurnId};
use tandem_provider::{LazyClient, Limits, ProviderOptions};
use tandem_tools::ErrorKind;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// The longest a test waits for the next thing to happen: a safety net for a broken loop (a
/// hang fails the test, naming what it waited for), never a synchronisation.
const SAFETY_NET: Duration = Duration::from_secs(30);

/// How the agent under test is set up.
pub struct Setup {
    pub max_steps: u32,
    pub policy: ApprovalPolicy,
    /// The context window, overriding the mock's.
    pub window: Option<u64>,
    pub limits: Limits,
    /// The built-in tools the agent dispatches.
    pub tools: tandem_tools::Registry,
    /// The user's hooks.
    pub hooks: Vec<tandem_agent::hooks::HookSpec>,
    /// The most subagents running at once.
    pub concurrency: usize,
    /// The project's hooks (they wait for the user's trust).
    pub project_hooks: Option<Arc<dyn tandem_agent::hooks::ProjectHooks>>,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            max_steps: AgentSettings::DEFAULT_MAX_STEPS,
            policy: ApprovalPolicy::default(),
            window: None,
            // Retries as in production, without the wait.
            limits: Limits {
                initial_backoff: Duration::from_millis(1),
                max_backoff: Duration::from_millis(5),
                ..Limits::default()
            },
            tools: tandem_agent::builtin_tools(),
            hooks: Vec::new(),
            concurrency: 3,
            project_hooks: None,
        }
    }
}

/// What the face answers to an approval question.
pub enum Answer {
    Reply(ApprovalReply),
    /// Never answers (a cancel or the timeout settles it).
    Never,
    /// Answers what the test sends, when it sends it.
    Later(tokio::sync::oneshot::Receiver<ApprovalReply>),
}

impl Answer {
    pub fn accept() -> Self {
        Answer::Reply(ApprovalReply::accept())
    }

    pub fn reject(feedback: &str) -> Self {
        Answer::Reply(ApprovalReply {
            decision: Decision::Reject,
            content: None,
            feedback: Some(feedback.into()),
            rejected_hunks: Vec::new(),
        })
    }
}

struct Face {
    events: UnboundedSender<Event>,
    asked: UnboundedSender<ApprovalRequest>,
    answers: Mutex<VecDeque<Answer>>,
}

impl Frontend for Face {
    fn update(&self, _session: &SessionId, _turn: &TurnId, event: Event) {
        let _ = self.events.send(event);
    }

    fn request_approval(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        let _ = self.asked.send(request);
        let answer = tandem_stdx::lock(&self.answers).pop_front();
        match answer {
            Some(Answer::Reply(reply)) => Box::pin(async move { reply }),
            Some(Answer::Later(reply)) => Box::pin(async move {
                reply
                    .await
                    .unwrap_or_else(|_| ApprovalReply::reject("the test dropped it"))
            }),
            Some(Answer::Never) | None => Box::pin(std::future::pending()),
        }
    }
}

/// The agent, its mock model, a workspace and a session in it.
pub struct Harness {
    pub mock: MockServer,
    pub agent: Agent,
    pub session: SessionId,
    root: tempfile::TempDir,
    data: tempfile::TempDir,
}

/// The process-wide TLS crypto provider, which `tandem`'s main installs at start-up and the
/// libraries assume (once; later calls are no-ops).
pub fn install_crypto_provider() {
    tandem_test_support::install_crypto_provider();
}

impl Harness {
    pub fn new(scenario: Scenario) -> Self {
        Self::with(scenario, Setup::default())
    }

    pub fn with(scenario: Scenario, setup: Setup) -> Self {
        install_crypto_provider();
        let mock = MockServer::start(scenario);
        let root = tempfile::tempdir().expect("workspace");
        let data = tempfile::tempdir().expect("data dir");
        let client = LazyClient::new(
            ProviderOptions {
                base_url: Some(mock.base_url()),
                model: Some("mock-coder".into()),
                context_window: setup.window,
                ..ProviderOptions::default()
            },
            setup.limits,
        );
        let settings = AgentSettings {
            policy: setup.policy,
            max_steps: setup.max_steps,
            data_dir: data.path().to_path_buf(),
            key_var: None,
            mcp_servers: Vec::new(),
            user_rules: None,
            user_commands: Vec::new(),
            rule_store: None,
            hooks: setup.hooks,
            subagents: tandem_agent::subagent::SubagentSettings {
                concurrency: setup.concurrency,
                user_dirs: Vec::new(),
            },
            project_hooks: setup.project_hooks,
            protected: Vec::new(),
        };
        let agent = Agent::with_tools(settings, Arc::new(client), setup.tools);
        let session = agent.new_session(root.path()).expect("session").session_id;
        Self {
            mock,
            agent,
            session,
            root,
            data,
        }
    }

    /// Moves to a new session on the root with `additional` as its additional roots.
    pub fn new_session_in_roots(&mut self, additional: &[std::path::PathBuf]) {
        self.session = self
            .agent
            .new_session_in(self.root.path(), additional, Vec::new())
            .expect("session")
            .session_id;
    }

    /// Moves to a new session in the same workspace (the same agent and data dir): what a new
    /// editor window or `tandem exec` run gets.
    // Used by the project hooks' tests, which run on Unix.
    #[cfg_attr(not(unix), allow(dead_code))]
    pub fn new_session(&mut self) {
        self.session = self
            .agent
            .new_session(self.root.path())
            .expect("session")
            .session_id;
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// Every transcript in the data dir, concatenated.
    pub fn transcripts(&self) -> String {
        let dir = self.data.path().join("sessions");
        let mut all = String::new();
        for entry in std::fs::read_dir(dir).expect("the sessions dir").flatten() {
            all.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
        all
    }

    pub fn write(&self, path: &str, text: &str) {
        let path = self.root().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root().join(path)).unwrap()
    }

    /// Starts a turn whose approval questions get `answers`, in order (then none).
    pub fn start(&self, prompt: &str, answers: Vec<Answer>) -> Running {
        let (events, events_rx) = unbounded_channel();
        let (asked, asked_rx) = unbounded_channel();
        let face = Arc::new(Face {
            events,
            asked,
            answers: Mutex::new(answers.into()),
        });
        self.agent
            .prompt(&self.session, prompt.into(), Vec::new(), face)
            .expect("prompt");
        Running {
            events: events_rx,
            asked: asked_rx,
            seen: Vec::new(),
        }
    }

    /// Runs a turn to its end.
    pub async fn turn(&self, prompt: &str, answers: Vec<Answer>) -> Turn {
        self.start(prompt, answers).end().await
    }

    /// The session as a new agent on the same data dir loads it from its transcript.
    pub fn reloaded(&self) -> tandem_agent::LoadedSession {
        self.fresh_agent()
            .load_session(&self.session)
            .expect("the session loads")
    }

    /// A new agent on the same data dir and mock: what a restarted sidecar is, loading the
    /// session from its transcript when asked for it.
    pub fn fresh_agent(&self) -> Agent {
        let client = LazyClient::new(
            ProviderOptions {
                base_url: Some(self.mock.base_url()),
                model: Some("mock-coder".into()),
                ..ProviderOptions::default()
            },
            Limits::default(),
        );
        Agent::new(self.agent.settings().clone(), Arc::new(client))
    }

    /// The chat requests the model got, and a check that it found nothing amiss with them.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        assert_eq!(self.mock.failures(), Vec::<String>::new());
        self.mock.chat_requests()
    }
}

/// A turn under way.
pub struct Running {
    events: UnboundedReceiver<Event>,
    asked: UnboundedReceiver<ApprovalRequest>,
    seen: Vec<Event>,
}

impl Running {
    /// Waits for the first event (from now) that `wanted` picks.
    pub async fn until(&mut self, what: &str, wanted: impl Fn(&Event) -> bool) -> Event {
        loop {
            let event = tokio::time::timeout(SAFETY_NET, self.events.recv())
                .await
                .unwrap_or_else(|_| panic!("no {what} within {SAFETY_NET:?}: {:#?}", self.seen))
                .unwrap_or_else(|| panic!("the turn's events ended before {what}"));
            self.seen.push(event.clone());
            if wanted(&event) {
                return event;
            }
        }
    }

    /// Whether an event `wanted` picks has come by now (without waiting; the turn's task runs
    /// first, so what it can do at this moment is done).
    pub async fn seen_now(&mut self, wanted: impl Fn(&Event) -> bool) -> bool {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        while let Ok(event) = self.events.try_recv() {
            self.seen.push(event);
        }
        self.seen.iter().any(wanted)
    }

    /// Waits for the next approval question.
    pub async fn asked(&mut self) -> ApprovalRequest {
        tokio::time::timeout(SAFETY_NET, self.asked.recv())
            .await
            .expect("no approval question")
            .expect("the face is gone")
    }

    /// Waits for the turn to end.
    pub async fn end(mut self) -> Turn {
        self.until("TurnEnded", |e| matches!(e, Event::TurnEnded { .. }))
            .await;
        Turn { events: self.seen }
    }
}

/// A finished turn's events, in order.
pub struct Turn {
    pub events: Vec<Event>,
}

impl Turn {
    pub fn ended(&self) -> (StopReason, Option<String>, Option<TurnErrorKind>) {
        match self.events.last() {
            Some(Event::TurnEnded {
                stop_reason,
                error,
                error_kind,
            }) => (*stop_reason, error.clone(), *error_kind),
            other => panic!("the last event is not TurnEnded: {other:?}"),
        }
    }

    pub fn stop_reason(&self) -> StopReason {
        self.ended().0
    }

    /// The answer's text, its pieces joined.
    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::Text { delta } => Some(delta.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Each tool result: its status and output.
    pub fn results(&self) -> Vec<(ToolStatus, String)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ToolResult { status, output, .. } => Some((*status, output.clone())),
                _ => None,
            })
            .collect()
    }

    /// Each tool result's error kind.
    pub fn error_kinds(&self) -> Vec<Option<ErrorKind>> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Event::ToolResult { error_kind, .. } => Some(*error_kind),
                _ => None,
            })
            .collect()
    }

    pub fn count(&self, wanted: impl Fn(&Event) -> bool) -> usize {
        self.events.iter().filter(|e| wanted(e)).count()
    }
}

impl std::fmt::Display for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#?}", self.events)
    }
}

impl Harness {
    /// A face that drops everything (for a prompt that is meant to be refused).
    pub fn idle_face(&self) -> Arc<dyn Frontend> {
        let (events, _) = unbounded_channel();
        let (asked, _) = unbounded_channel();
        Arc::new(Face {
            events,
            asked,
            answers: Mutex::new(VecDeque::new()),
        })
    }
}
