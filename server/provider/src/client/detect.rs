//! Discovery of what answers at the endpoint (a layer around the backends): asked once, on first
//! use, of a server on the user's own machine or network only; a hosted API gets its own API's
//! requests and nothing else.

use serde_json::{Value, json};
use tandem_stdx::lock;

use super::HttpModelClient;
use crate::models::parse_model_list;
use crate::transport::Transport;
use crate::window::Window;
use crate::{Api, ServerKind, llamacpp, lmstudio, ollama};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Tokenizer {
    #[default]
    None,
    /// llama.cpp `POST /tokenize {"content"}`.
    LlamaCpp,
    /// llama-cpp-python `POST /extras/tokenize/count {"input"}`.
    LlamaCppPython,
}

/// What the server said about itself, asked once.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServerInfo {
    pub kind: ServerKind,
    pub window: Option<Window>,
    pub tokenizer: Tokenizer,
    /// Ollama: the model's `context_length`, the bound for `num_ctx`.
    pub ollama_context: Option<u64>,
    /// Ollama: whether the model's capabilities include tools.
    pub ollama_tools: Option<bool>,
    /// llama.cpp: its slots (`/props` `total_slots`), each with a prompt cache of its own.
    pub slots: Option<u64>,
    /// llama.cpp: whether `/apply-template` answers, so a whole request can be counted.
    pub apply_template: bool,
    /// Whether the model takes images, and who said (`None`: the server does not say).
    pub vision: Option<(bool, &'static str)>,
}

impl HttpModelClient {
    /// What the server said of itself: asked on first use (when detection is on), then kept.
    pub(super) async fn server_info(&self) -> &ServerInfo {
        self.local
            .server
            .get_or_init(|| async {
                let info = if self.local.options.detect {
                    discover(&self.transport, self.config.api, &self.config.model).await
                } else {
                    ServerInfo::default()
                };
                *lock(&self.local.kind) = info.kind;
                tracing::debug!(kind = ?info.kind, window = ?info.window.as_ref().map(|w| w.tokens), "model server detected");
                if info.ollama_tools == Some(false) {
                    self.local.switch_to_text_tools(
                        "Ollama lists no tools among the model's capabilities",
                    );
                }
                info
            })
            .await
    }
}

/// Asks, in order: Ollama (`/api/version`, then `/api/show`), llama.cpp (`/props`), LM Studio
/// (`/api/v0/models`), the model list (vLLM `max_model_len`, OpenRouter `context_length`),
/// and llama-cpp-python's tokenizer.
async fn discover(transport: &Transport, api: Api, model: &str) -> ServerInfo {
    let root = transport.root();
    let mut info = ServerInfo::default();
    if api == Api::OpenAi
        && let Some(version) = transport.get_json(&format!("{root}/api/version")).await
        && version.get("version").is_some()
    {
        info.kind = ServerKind::Ollama;
        if let Some(show) = transport
            .post_json(&format!("{root}/api/show"), &json!({"model": model}))
            .await
        {
            let (context, tools) = ollama::show::window_and_tools(&show);
            info.vision = ollama::show::vision(&show).map(|v| (v, "Ollama's capabilities"));
            info.ollama_context = context;
            info.ollama_tools = tools;
            info.window =
                context.map(|n| Window::new(n, format!("Ollama context_length of {model}")));
        }
        // A model whose /api/show names no context_length: the context it is loaded with
        // (`/api/ps`) is the most the server is known to take.
        if info.window.is_none()
            && let Some(ps) = transport.get_json(&format!("{root}/api/ps")).await
            && let Some(n) = ollama::show::loaded_context(&ps, model)
        {
            info.ollama_context = Some(n);
            info.window = Some(Window::new(
                n,
                format!("Ollama's loaded context of {model}"),
            ));
        }
        return info;
    }
    if let Some(props) = transport.get_json(&format!("{root}/props")).await
        && let Some(n) = llamacpp::window_of_props(&props)
    {
        info.kind = ServerKind::LlamaCpp;
        info.vision = llamacpp::vision_of_props(&props).map(|v| (v, "llama.cpp's modalities"));
        info.window = Some(Window::new(n, "llama.cpp n_ctx"));
        info.tokenizer = Tokenizer::LlamaCpp;
        info.slots = llamacpp::slots_of(&props);
        info.apply_template = llamacpp::has_apply_template(transport).await;
        return info;
    }
    if let Some(models) = transport.get_json(&format!("{root}/api/v0/models")).await
        && let Some(n) = lmstudio::loaded_window(&models, model)
    {
        info.kind = ServerKind::LmStudio;
        info.vision = lmstudio::vision(&models, model).map(|v| (v, "LM Studio's model type"));
        info.window = Some(Window::new(n, "LM Studio loaded_context_length"));
        return info;
    }
    if let Some(list) = transport.get_json(&transport.url("models")).await {
        let owned_by_vllm = list
            .pointer("/data/0/owned_by")
            .and_then(Value::as_str)
            .is_some_and(|o| o == "vllm");
        if owned_by_vllm {
            info.kind = ServerKind::Vllm;
        } else if transport.base_url().contains("openrouter.ai") {
            info.kind = ServerKind::OpenRouter;
        }
        let listed = parse_model_list(&list).unwrap_or_default();
        let entry = listed.iter().find(|m| m.id == model).or(listed.first());
        if let Some(n) = entry.and_then(|m| m.context_window) {
            info.window = Some(Window::new(n, "the server's model list"));
        }
    }
    if info.kind == ServerKind::Other
        && llamacpp::python_count_tokens(transport, "hi")
            .await
            .is_some()
    {
        info.kind = ServerKind::LlamaCppPython;
        info.tokenizer = Tokenizer::LlamaCppPython;
    }
    info
}
