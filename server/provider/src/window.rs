//! The context window: what the server has loaded, per kind of server, and what an overflow
//! error says it is.
//!
//! Each local server tells its loaded window somewhere else: llama.cpp `GET /props`
//! (`default_generation_settings.n_ctx`), LM Studio `GET /api/v0/models`
//! (`loaded_context_length`), Ollama `POST /api/show` (`<arch>.context_length`), vLLM and
//! OpenRouter in `/v1/models` (`max_model_len`, `context_length`). llama-cpp-python says nothing;
//! its window is learned from its first overflow error (the crate's `overflow` module reads those).

use serde_json::Value;

pub use crate::overflow::{Overflow, overflow_in};
pub use crate::refusal::says_no_tools;

/// A context window, in tokens, and where the number came from (shown to the user).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub tokens: u64,
    /// E.g. `llama.cpp n_ctx`, `your setting`, `the server's error`.
    pub source: String,
}

impl Window {
    pub fn new(tokens: u64, source: impl Into<String>) -> Self {
        Self {
            tokens,
            source: source.into(),
        }
    }
}

/// Which kind of server answers, as far as windows and fixes go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ServerKind {
    LlamaCpp,
    LlamaCppPython,
    LmStudio,
    Ollama,
    Vllm,
    OpenRouter,
    #[default]
    Other,
}

impl ServerKind {
    /// What the user changes to get a larger window, in the words each server's docs use.
    pub fn window_fix(self) -> &'static str {
        match self {
            ServerKind::LlamaCpp => "start the server with a larger --ctx-size (-c)",
            ServerKind::LlamaCppPython => "start llama-cpp-python with a larger --n_ctx",
            ServerKind::LmStudio => {
                "load the model in LM Studio with a larger context length (Context Length in the \
                 model's load settings)"
            }
            ServerKind::Ollama => {
                "use a model with a larger context_length, or set provider.contextWindow"
            }
            ServerKind::Vllm => "start vLLM with a larger --max-model-len",
            ServerKind::OpenRouter | ServerKind::Other => {
                "use a model with a larger context window (or start the server with a larger \
                 context size, e.g. llama.cpp --ctx-size, llama-cpp-python --n_ctx)"
            }
        }
    }

    /// What the user changes so the server lets one answer run longer, when Tandem sent no
    /// limit of its own, in the words each server's docs use.
    pub fn output_limit_fix(self) -> &'static str {
        match self {
            ServerKind::LlamaCpp => {
                "start llama-server with a larger --n-predict (-n; -1 for none), or a larger \
                 --ctx-size if the window filled"
            }
            ServerKind::LlamaCppPython => {
                "start llama-cpp-python with a larger --n_ctx (it stops an answer where the \
                 window ends)"
            }
            ServerKind::LmStudio => {
                "raise or turn off Limit Response Length in the model's settings in LM Studio"
            }
            ServerKind::Ollama => {
                "raise the model's num_predict (PARAMETER num_predict in its Modelfile; -1 for \
                 none)"
            }
            ServerKind::Vllm => {
                "start vLLM with a larger --max-model-len (it stops an answer where the window \
                 ends)"
            }
            ServerKind::OpenRouter | ServerKind::Other => {
                "pick a model with a larger output limit, or raise the server's own (llama.cpp \
                 --n-predict, Ollama num_predict, LM Studio's Limit Response Length)"
            }
        }
    }
}

/// llama.cpp `GET /props`: the loaded `n_ctx`.
pub(crate) fn from_props(body: &Value) -> Option<u64> {
    ["/default_generation_settings/n_ctx", "/n_ctx"]
        .iter()
        .find_map(|p| body.pointer(p).and_then(Value::as_u64))
        .filter(|&n| n > 0)
}

/// LM Studio `GET /api/v0/models`: the loaded context of `model` (or of the first loaded model).
pub(crate) fn from_lm_studio(body: &Value, model: &str) -> Option<u64> {
    let entries = body.get("data")?.as_array()?;
    let loaded = |e: &&Value| e.get("loaded_context_length").and_then(Value::as_u64);
    entries
        .iter()
        .filter(|e| e.get("id").and_then(Value::as_str) == Some(model))
        .find_map(|e| loaded(&e))
        .or_else(|| entries.iter().find_map(|e| loaded(&e)))
        .filter(|&n| n > 0)
}

/// Ollama `POST /api/show`: `model_info["<arch>.context_length"]`, and whether the model takes
/// tools (`capabilities`; `None` when the server does not say).
pub(crate) fn from_ollama_show(body: &Value) -> (Option<u64>, Option<bool>) {
    let info = body.get("model_info");
    let arch = info
        .and_then(|i| i.get("general.architecture"))
        .and_then(Value::as_str);
    let window = match (info, arch) {
        (Some(info), Some(arch)) => info
            .get(format!("{arch}.context_length"))
            .and_then(Value::as_u64),
        (Some(Value::Object(map)), None) => map
            .iter()
            .find(|(k, _)| k.ends_with(".context_length"))
            .and_then(|(_, v)| v.as_u64()),
        _ => None,
    };
    let tools = body
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|caps| caps.iter().any(|c| c.as_str() == Some("tools")));
    (window.filter(|&n| n > 0), tools)
}

/// Ollama `POST /api/show`: whether `capabilities` lists `vision` (`None`: no capabilities).
pub(crate) fn vision_of_ollama(show: &Value) -> Option<bool> {
    let caps = show.get("capabilities")?.as_array()?;
    Some(caps.iter().any(|c| c.as_str() == Some("vision")))
}

/// llama.cpp `GET /props`: `modalities.vision` (servers since mid-2025 say; older ones don't).
pub(crate) fn vision_of_props(props: &Value) -> Option<bool> {
    props.pointer("/modalities/vision")?.as_bool()
}

/// LM Studio `GET /api/v0/models`: the model's `type`, `vlm` (takes images) or `llm` (text).
pub(crate) fn vision_of_lm_studio(body: &Value, model: &str) -> Option<bool> {
    let entry = body
        .get("data")?
        .as_array()?
        .iter()
        .find(|e| e.get("id").and_then(Value::as_str) == Some(model))?;
    match entry.get("type")?.as_str()? {
        "vlm" => Some(true),
        "llm" => Some(false),
        _ => None,
    }
}

/// Ollama `GET /api/ps`: the `context_length` the model is loaded with, when it is loaded.
/// Names may come with or without the `:latest` tag.
pub(crate) fn from_ollama_ps(body: &Value, model: &str) -> Option<u64> {
    let bare = |name: &str| name.strip_suffix(":latest").unwrap_or(name).to_owned();
    let wanted = bare(model);
    body.get("models")?
        .as_array()?
        .iter()
        .filter(|m| {
            ["name", "model"]
                .iter()
                .filter_map(|k| m.get(*k).and_then(Value::as_str))
                .any(|n| bare(n) == wanted)
        })
        .find_map(|m| m.get("context_length").and_then(Value::as_u64))
        .filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn server_windows() {
        assert_eq!(
            from_props(&json!({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1})),
            Some(4096)
        );
        let lm = json!({"data": [{"id": "a", "max_context_length": 32768}, {"id": "qwen", "loaded_context_length": 8192}]});
        assert_eq!(from_lm_studio(&lm, "qwen"), Some(8192));
        let show = json!({"model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}, "capabilities": ["completion"]});
        assert_eq!(from_ollama_show(&show), (Some(32768), Some(false)));
        // Ollama 0.9's /api/ps: the running model, under its tagged name.
        let ps = json!({"models": [
            {"name": "other:7b", "model": "other:7b", "context_length": 2048},
            {"name": "qwen3:latest", "model": "qwen3:latest", "size": 1, "context_length": 4096}
        ]});
        assert_eq!(from_ollama_ps(&ps, "qwen3"), Some(4096));
        assert_eq!(from_ollama_ps(&ps, "qwen3:latest"), Some(4096));
        assert_eq!(from_ollama_ps(&ps, "gemma"), None);
        assert_eq!(from_ollama_ps(&json!({"models": []}), "qwen3"), None);
    }
}
