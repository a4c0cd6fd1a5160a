//! An agent in this process against a real model server, with the tool calls of each step
//! scripted into the real model's answers (a 135M model does not call tools reliably; the server
//! still reads every prompt, so its counts and cache numbers are real), and each request's
//! numbers recorded. Used by the llama-server tests and `cargo bench --bench local`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use tandem_agent::Frontend;
use tandem_agent::approval::{ApprovalReply, ApprovalRequest, Decision};
use tandem_agent::events::Event;
use tandem_model::{Completion, Delta, FinishReason, ToolCall};
use tandem_provider::{
    AsideCache, CompletionRequest, LazyClient, ModelClient, ModelInfo, ProviderError, Purpose,
    ServerKind, Window,
};
use tandem_stdx::lock;

/// Every event of every turn; approvals accepted.
pub struct Collect(Mutex<Vec<Event>>);

impl Frontend for Collect {
    fn update(
        &self,
        _session: &tandem_agent::SessionId,
        _turn: &tandem_agent::TurnId,
        event: Event,
    ) {
        lock(&self.0).push(event);
    }
    fn request_approval(&self, _request: ApprovalRequest) -> BoxFuture<'static, ApprovalReply> {
        Box::pin(async {
            ApprovalReply {
                decision: Decision::Accept,
                content: None,
                feedback: None,
                rejected_hunks: Default::default(),
            }
        })
    }
}

impl Collect {
    pub fn new() -> Arc<Self> {
        Arc::new(Collect(Mutex::new(Vec::new())))
    }

    pub fn events(&self) -> Vec<Event> {
        lock(&self.0).clone()
    }

    /// Waits for the `n`th `TurnEnded` (polled, bounded).
    pub async fn turn_ended(&self, n: usize, limit: Duration) -> String {
        let started = Instant::now();
        loop {
            let ended: Vec<String> = lock(&self.0)
                .iter()
                .filter_map(|e| match e {
                    Event::TurnEnded {
                        stop_reason, error, ..
                    } => Some(format!("{stop_reason:?} {error:?}")),
                    _ => None,
                })
                .collect();
            if let Some(done) = ended.get(n - 1) {
                return done.clone();
            }
            assert!(started.elapsed() < limit, "turn {n} did not end");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// One request as the server answered it.
pub struct Request {
    pub turn: usize,
    pub aside: bool,
    pub prompt: u64,
    /// The answer's tokens.
    pub completion: u64,
    pub cached: Option<u64>,
    pub seconds: f64,
    /// The server's error, when it answered with one.
    pub error: Option<String>,
}

/// The real client, recording each request's numbers and putting the scripted tool calls into
/// the model's answers.
pub struct Recorder {
    inner: Arc<LazyClient>,
    pub requests: Mutex<Vec<Request>>,
    /// The calls of the current turn's steps; `None`: the model's own answer ends the turn.
    script: Mutex<VecDeque<Option<ToolCall>>>,
    turn: Mutex<usize>,
}

impl Recorder {
    pub fn new(inner: LazyClient) -> Arc<Self> {
        // The process-wide TLS crypto provider, which `tandem`'s main installs at start-up.
        tandem_test_support::install_crypto_provider();
        Arc::new(Recorder {
            inner: Arc::new(inner),
            requests: Mutex::new(Vec::new()),
            script: Mutex::new(VecDeque::new()),
            turn: Mutex::new(0),
        })
    }

    /// Turn `turn` reads `paths`, one a step, then the model answers.
    pub fn script_reads(&self, turn: usize, paths: &[&str]) {
        let mut script: VecDeque<Option<ToolCall>> = paths
            .iter()
            .map(|path| {
                Some(ToolCall {
                    id: format!("call_{turn}_{path}").into(),
                    name: "read_file".into(),
                    arguments: serde_json::json!({ "path": path }).to_string(),
                })
            })
            .collect();
        script.push_back(None);
        *lock(&self.script) = script;
        *lock(&self.turn) = turn;
    }
}

impl ModelClient for Recorder {
    fn complete<'a>(
        &'a self,
        request: CompletionRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta) + Send),
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move {
            let started = Instant::now();
            let mut result = self.inner.complete(request, on_delta).await;
            let aside = request.purpose == Purpose::Aside;
            let mut record = Request {
                turn: *lock(&self.turn),
                aside,
                prompt: 0,
                completion: 0,
                cached: None,
                seconds: started.elapsed().as_secs_f64(),
                error: None,
            };
            match result.as_mut() {
                Ok(completion) => {
                    let usage = completion.usage.unwrap_or_default();
                    record.prompt = usage.prompt_tokens;
                    record.completion = usage.completion_tokens;
                    record.cached = usage.cached_tokens;
                    if !aside {
                        let call = lock(&self.script).pop_front().flatten();
                        completion.tool_calls = call.into_iter().collect();
                        completion.finish_reason = Some(if completion.tool_calls.is_empty() {
                            FinishReason::Stop
                        } else {
                            FinishReason::ToolCalls
                        });
                    }
                }
                Err(error) => record.error = Some(error.message.clone()),
            }
            lock(&self.requests).push(record);
            result
        })
    }
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        self.inner.list_models()
    }
    fn model(&self) -> String {
        self.inner.model()
    }
    fn window(&self) -> BoxFuture<'_, Option<Window>> {
        self.inner.window()
    }
    fn server_kind(&self) -> ServerKind {
        self.inner.server_kind()
    }
    fn count_tokens<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Option<u64>> {
        self.inner.count_tokens(text)
    }
    fn count_request<'a>(&'a self, request: CompletionRequest<'a>) -> BoxFuture<'a, Option<u64>> {
        self.inner.count_request(request)
    }
    fn aside_cache(&self) -> BoxFuture<'_, AsideCache> {
        self.inner.aside_cache()
    }
    fn text_tools(&self) -> bool {
        self.inner.text_tools()
    }
    fn switch_to_text_tools(&self) -> bool {
        self.inner.switch_to_text_tools()
    }
    fn is_local(&self) -> bool {
        self.inner.is_local()
    }
    fn output_limit(&self) -> Option<u64> {
        self.inner.output_limit()
    }
    fn take_notices(&self) -> Vec<String> {
        self.inner.take_notices()
    }
}
