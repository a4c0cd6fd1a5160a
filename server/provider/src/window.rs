//! The context window: what the server has loaded, per kind of server, and what an overflow
//! error says it is.
//!
//! Each local server tells its loaded window somewhere else, which its backend module reads:
//! llama.cpp `GET /props` (`default_generation_settings.n_ctx`, `llamacpp`), LM Studio
//! `GET /api/v0/models` (`loaded_context_length`, `lmstudio`), Ollama `POST /api/show`
//! (`<arch>.context_length`, `ollama::show`), vLLM and OpenRouter in `/v1/models`
//! (`max_model_len`, `context_length`). llama-cpp-python says nothing;
//! its window is learned from its first overflow error (the crate's `overflow` module reads those).

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
