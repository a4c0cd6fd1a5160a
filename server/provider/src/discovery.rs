//! Finding the model: the endpoint and model the settings name, or the first local server that
//! answers, resolved on first use so start-up never waits for the network.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::Deserialize;
use tandem_model::{Completion, Delta};
use tandem_stdx::lock;
use tokio::sync::OnceCell;

use crate::{
    Api, ApiKey, AsideCache, CompletionRequest, HttpModelClient, Limits, LocalOptions, ModelClient,
    ModelInfo, ProviderConfig, ProviderError, ProviderErrorKind, ServerKind, ToolMode,
    ToolModeMemory, Window,
};

/// Provider settings as the editor (`initializationOptions.provider`) or the CLI gives them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderOptions {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<ApiKey>,
    pub api: Option<Api>,
    /// The context window in tokens, overriding what the server says.
    pub context_window: Option<u64>,
    /// How tools reach the model (default: auto).
    pub tool_mode: Option<ToolMode>,
    /// The most tokens one answer may take (`max_tokens`); 0 sends none. Default: a quarter
    /// of the window, for local servers.
    pub max_output_tokens: Option<u64>,
}

impl ProviderOptions {
    /// Fills each unset field from `other`.
    ///
    /// The base URL and the key go together: a key is only ever sent to the URL of the source
    /// that gave it, so a source that names a URL brings its own key or none, and a key from a
    /// source that names no URL is dropped (it was given for some other server).
    pub fn or(self, other: ProviderOptions) -> ProviderOptions {
        let (base_url, api_key) = match (self.base_url, other.base_url) {
            (Some(url), _) => (Some(url), self.api_key),
            (None, Some(url)) => (Some(url), other.api_key),
            (None, None) => (None, None),
        };
        ProviderOptions {
            base_url,
            model: self.model.or(other.model),
            api_key,
            api: self.api.or(other.api),
            context_window: self.context_window.or(other.context_window),
            tool_mode: self.tool_mode.or(other.tool_mode),
            max_output_tokens: self.max_output_tokens.or(other.max_output_tokens),
        }
    }
}

/// A kind of local server that discovery looks for: where it listens by default, how it is
/// told from another server on that port, and how a user starts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalServer {
    pub name: &'static str,
    pub url: &'static str,
    /// A GET under the server's root that only this kind answers as expected.
    check: &'static str,
    pub start: &'static str,
}

/// The local servers tried, in order, when nothing is configured.
pub const LOCAL_SERVERS: [LocalServer; 4] = [
    LocalServer {
        name: "llama.cpp",
        url: "http://127.0.0.1:8080/v1",
        check: "/props",
        start: "llama-server -m MODEL.gguf --jinja",
    },
    LocalServer {
        name: "LM Studio",
        url: "http://127.0.0.1:1234/v1",
        check: "/api/v0/models",
        start: "lms server start (or the Developer tab's Start Server)",
    },
    LocalServer {
        name: "Ollama",
        url: "http://127.0.0.1:11434/v1",
        check: "/api/version",
        start: "ollama serve",
    },
    LocalServer {
        name: "vLLM",
        url: "http://127.0.0.1:8000/v1",
        check: "/v1/models",
        start: "vllm serve MODEL",
    },
];

impl LocalServer {
    /// Whether what answered on this port is this kind of server, by its own endpoint.
    fn is_this(&self, answer: &serde_json::Value) -> bool {
        match self.name {
            "llama.cpp" => crate::llamacpp::window_of_props(answer).is_some(),
            "LM Studio" => answer.get("data").is_some_and(serde_json::Value::is_array),
            "Ollama" => answer.get("version").is_some(),
            "vLLM" => answer.pointer("/data/0/owned_by").and_then(|o| o.as_str()) == Some("vllm"),
            _ => false,
        }
    }
}

/// A model client that finds its endpoint and model on first use, so start-up never waits for
/// the network; the model can be switched later ([`LazyClient::set_model`]).
pub struct LazyClient {
    options: ProviderOptions,
    limits: Limits,
    /// The endpoint found, with its default model.
    endpoint: OnceCell<ProviderConfig>,
    /// The model the user picked, if any.
    chosen: Mutex<Option<String>>,
    /// One HTTP client per model used (they share nothing but the endpoint).
    clients: Mutex<HashMap<String, Arc<HttpModelClient>>>,
    /// Where switches to text tools are remembered.
    memory: Option<ToolModeMemory>,
    /// What discovery found answering, when it was not configured.
    found: Mutex<Option<String>>,
}

impl LazyClient {
    pub fn new(options: ProviderOptions, limits: Limits) -> Self {
        Self {
            options,
            limits,
            endpoint: OnceCell::new(),
            chosen: Mutex::new(None),
            clients: Mutex::new(HashMap::new()),
            memory: None,
            found: Mutex::new(None),
        }
    }

    /// What kind of server discovery found (`llama.cpp`, `LM Studio`, ...), when the endpoint
    /// was found rather than configured; known after [`LazyClient::endpoint`].
    pub fn found(&self) -> Option<String> {
        lock(&self.found).clone()
    }

    /// Remembers, in `memory`, which endpoints and models take tools only as text.
    pub fn remembering(mut self, memory: ToolModeMemory) -> Self {
        self.memory = Some(memory);
        self
    }

    /// The endpoint and the model requests go to, found now if they were not yet (so a face can
    /// say which it uses before the first turn).
    pub async fn endpoint(&self) -> Result<(String, String), ProviderError> {
        let client = self.client().await?;
        let endpoint = self.endpoint.get().map(|e| e.base_url.clone());
        Ok((endpoint.unwrap_or_default(), client.model()))
    }

    /// The model later requests go to.
    pub fn set_model(&self, model: String) {
        *lock(&self.chosen) = Some(model);
    }

    async fn client(&self) -> Result<Arc<HttpModelClient>, ProviderError> {
        let chosen = lock(&self.chosen).clone();
        self.client_for(chosen).await
    }

    /// The client of `model` (the endpoint's default when `None`), made on first use.
    async fn client_for(
        &self,
        model: Option<String>,
    ) -> Result<Arc<HttpModelClient>, ProviderError> {
        let endpoint = self.endpoint.get_or_try_init(|| self.resolve()).await?;
        let model = model.unwrap_or_else(|| endpoint.model.clone());
        let mut clients = lock(&self.clients);
        let client = clients.entry(model.clone()).or_insert_with(|| {
            Arc::new(HttpModelClient::with_local(
                ProviderConfig {
                    model,
                    ..endpoint.clone()
                },
                LocalOptions {
                    context_window: self.options.context_window,
                    tool_mode: self.options.tool_mode.unwrap_or_default(),
                    detect: true,
                    max_output_tokens: self.options.max_output_tokens,
                    memory: self.memory.clone(),
                },
            ))
        });
        Ok(client.clone())
    }

    /// The client of the current model, if one was made already.
    fn current(&self) -> Option<Arc<HttpModelClient>> {
        let model = self.model();
        lock(&self.clients).get(&model).cloned()
    }

    async fn resolve(&self) -> Result<ProviderConfig, ProviderError> {
        let (base_url, api_key) = match &self.options.base_url {
            Some(url) => (url.clone(), self.options.api_key.clone()),
            None => {
                let (url, name) = find_local_server().await?;
                *lock(&self.found) = Some(name);
                (url, None)
            }
        };
        let mut config = ProviderConfig {
            base_url,
            model: self.options.model.clone().unwrap_or_default(),
            api_key,
            api: self.options.api.unwrap_or_default(),
            limits: self.limits.clone(),
        };
        if config.model.is_empty() && lock(&self.chosen).is_none() {
            let lister = HttpModelClient::new(config.clone());
            let models = lister.list_models().await?;
            config.model = models
                .first()
                .map(|m| m.id.clone())
                .ok_or_else(|| ProviderError {
                    kind: ProviderErrorKind::BadResponse,
                    message: format!(
                        "{} offers no models: load one, or set TANDEM_MODEL",
                        config.base_url
                    ),
                })?;
        }
        Ok(config)
    }
}

/// The first local server that answers `GET /v1/models`, and what it is: the kind its port
/// belongs to when that kind's own endpoint answers as it would, else an unknown server.
async fn find_local_server() -> Result<(String, String), ProviderError> {
    let timeout = Duration::from_millis(1500);
    for server in LOCAL_SERVERS {
        if !crate::probe(server.url, timeout).await {
            continue;
        }
        let root = server.url.trim_end_matches("/v1");
        let name = match what_answers(root, timeout, server).await {
            Some(kind) if kind == server => kind.name.to_string(),
            Some(kind) => format!("{} on {}'s port", kind.name, server.name),
            None => format!(
                "an OpenAI-compatible server on {}'s port, not {} by its {}",
                server.name, server.name, server.check
            ),
        };
        return Ok((server.url.to_string(), name));
    }
    Err(ProviderError {
        kind: ProviderErrorKind::NoServer,
        message: no_server_message(),
    })
}

/// Which kind of local server answers at `root`, by each kind's own endpoint, the kind whose
/// port it is (`expected`) asked first.
async fn what_answers(root: &str, timeout: Duration, expected: LocalServer) -> Option<LocalServer> {
    let others = LOCAL_SERVERS.into_iter().filter(|s| *s != expected);
    for kind in std::iter::once(expected).chain(others) {
        let answer = crate::transport::probe_json(&format!("{root}{}", kind.check), timeout).await;
        if answer.is_some_and(|a| kind.is_this(&a)) {
            return Some(kind);
        }
    }
    None
}

pub fn no_server_message() -> String {
    let tried: Vec<String> = LOCAL_SERVERS
        .iter()
        .map(|s| format!("{} at {} (start it with `{}`)", s.name, s.url, s.start))
        .collect();
    format!(
        "no model server is configured, and none answered on this machine. Tried: {}. Start one \
         of them, or configure one: set TANDEM_BASE_URL and TANDEM_MODEL (and TANDEM_API_KEY for \
         a hosted service), pass --base-url and --model, or set \
         initializationOptions.provider {{\"baseUrl\", \"model\", \"apiKey\"}}",
        tried.join("; ")
    )
}

impl ModelClient for LazyClient {
    fn complete<'a>(
        &'a self,
        request: CompletionRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta) + Send),
    ) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move {
            let client = self.client().await?;
            client.complete(request, on_delta).await
        })
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async move {
            let client = self.client().await?;
            client.list_models().await
        })
    }

    fn model(&self) -> String {
        lock(&self.chosen)
            .clone()
            .or_else(|| self.endpoint.get().map(|e| e.model.clone()))
            .or_else(|| self.options.model.clone())
            .unwrap_or_default()
    }

    fn for_model<'a>(&'a self, model: &'a str) -> BoxFuture<'a, Option<Arc<dyn ModelClient>>> {
        Box::pin(async move {
            let client = self.client_for(Some(model.to_string())).await.ok()?;
            Some(client as Arc<dyn ModelClient>)
        })
    }

    fn window(&self) -> BoxFuture<'_, Option<Window>> {
        Box::pin(async move {
            match self.client().await {
                Ok(client) => client.window().await,
                Err(_) => self
                    .options
                    .context_window
                    .map(|n| Window::new(n, "your setting")),
            }
        })
    }

    fn server_kind(&self) -> ServerKind {
        self.current()
            .map_or(ServerKind::Other, |c| c.server_kind())
    }

    fn count_tokens<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async move { self.client().await.ok()?.count_tokens(text).await })
    }

    fn count_request<'a>(&'a self, request: CompletionRequest<'a>) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async move { self.client().await.ok()?.count_request(request).await })
    }

    fn aside_cache(&self) -> BoxFuture<'_, AsideCache> {
        Box::pin(async move {
            match self.client().await {
                Ok(client) => client.aside_cache().await,
                Err(_) => AsideCache::Unknown,
            }
        })
    }

    fn text_tools(&self) -> bool {
        self.current().is_some_and(|c| c.text_tools())
    }

    fn switch_to_text_tools(&self) -> bool {
        self.current().is_some_and(|c| c.switch_to_text_tools())
    }

    fn is_local(&self) -> bool {
        self.current().is_some_and(|c| c.is_local())
    }

    fn output_limit(&self) -> Option<u64> {
        self.current().and_then(|c| c.output_limit())
    }

    fn take_notices(&self) -> Vec<String> {
        self.current().map(|c| c.take_notices()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_is_told_by_its_own_endpoint() {
        use serde_json::json;
        let [llama, lm_studio, ollama, vllm] = LOCAL_SERVERS;
        assert!(llama.is_this(&json!({"default_generation_settings": {"n_ctx": 2048}})));
        assert!(lm_studio.is_this(&json!({"data": [{"id": "qwen", "state": "loaded"}]})));
        assert!(ollama.is_this(&json!({"version": "0.9.0"})));
        assert!(vllm.is_this(&json!({"data": [{"id": "m", "owned_by": "vllm"}]})));
        // Another server on the port is not taken for the one it belongs to.
        assert!(!llama.is_this(&json!({"error": "not found"})));
        assert!(!ollama.is_this(&json!({"data": []})));
        assert!(!vllm.is_this(&json!({"data": [{"id": "m", "owned_by": "organization_owner"}]})));
    }

    #[test]
    fn the_no_server_message_names_urls_and_settings() {
        let m = no_server_message();
        for url in ["8080", "1234", "11434", "8000"] {
            assert!(m.contains(&format!("http://127.0.0.1:{url}/v1")), "{m}");
        }
        assert!(
            m.contains("llama-server -m") && m.contains("ollama serve"),
            "{m}"
        );
        assert!(m.contains("TANDEM_BASE_URL"));
    }
}
