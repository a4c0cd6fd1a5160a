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
    Api, ApiKey, CompletionRequest, HttpModelClient, Limits, LocalOptions, ModelClient, ModelInfo,
    ProviderConfig, ProviderError, ProviderErrorKind, ServerKind, ToolMode, Window,
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
        }
    }
}

/// The local servers tried, in order, when nothing is configured.
pub const LOCAL_SERVERS: [(&str, &str); 2] = [
    ("LM Studio", "http://127.0.0.1:1234/v1"),
    ("Ollama", "http://127.0.0.1:11434/v1"),
];

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
}

impl LazyClient {
    pub fn new(options: ProviderOptions, limits: Limits) -> Self {
        Self {
            options,
            limits,
            endpoint: OnceCell::new(),
            chosen: Mutex::new(None),
            clients: Mutex::new(HashMap::new()),
        }
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
        let endpoint = self.endpoint.get_or_try_init(|| self.resolve()).await?;
        let model = lock(&self.chosen)
            .clone()
            .unwrap_or_else(|| endpoint.model.clone());
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
            None => (find_local_server().await?, None),
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

/// The first local server that answers.
async fn find_local_server() -> Result<String, ProviderError> {
    for (_, url) in LOCAL_SERVERS {
        if crate::probe(url, Duration::from_millis(1500)).await {
            return Ok(url.to_string());
        }
    }
    Err(ProviderError {
        kind: ProviderErrorKind::Connect,
        message: no_server_message(),
    })
}

pub fn no_server_message() -> String {
    let tried: Vec<String> = LOCAL_SERVERS
        .iter()
        .map(|(name, url)| format!("{url} ({name})"))
        .collect();
    format!(
        "no model server is configured, and none answered at {}. Start one of them, or \
         configure one: set TANDEM_BASE_URL and TANDEM_MODEL (and TANDEM_API_KEY for a hosted \
         service), pass --base-url and --model, or set initializationOptions.provider \
         {{\"baseUrl\", \"model\", \"apiKey\"}}",
        tried.join(" or ")
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

    fn text_tools(&self) -> bool {
        self.current().is_some_and(|c| c.text_tools())
    }

    fn switch_to_text_tools(&self) -> bool {
        self.current().is_some_and(|c| c.switch_to_text_tools())
    }

    fn is_local(&self) -> bool {
        self.current().is_some_and(|c| c.is_local())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_no_server_message_names_urls_and_settings() {
        let m = no_server_message();
        assert!(m.contains("http://127.0.0.1:1234/v1") && m.contains("http://127.0.0.1:11434/v1"));
        assert!(m.contains("TANDEM_BASE_URL"));
    }
}
