//! The context window: what the server has loaded, per kind of server, and what an overflow
//! error says it is.
//!
//! Each local server tells its loaded window somewhere else: llama.cpp `GET /props`
//! (`default_generation_settings.n_ctx`), LM Studio `GET /api/v0/models`
//! (`loaded_context_length`), Ollama `POST /api/show` (`<arch>.context_length`), vLLM and
//! OpenRouter in `/v1/models` (`max_model_len`, `context_length`). llama-cpp-python says nothing;
//! its window is learned from its first overflow error.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

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

/// An overflow error, with what it says of the window and of the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow {
    pub window: Option<u64>,
    pub requested: Option<u64>,
}

static PATTERNS: LazyLock<Vec<(Regex, usize, usize)>> = LazyLock::new(|| {
    // (pattern, group of the window, group of the request); 0 = not in this pattern.
    [
        // OpenAI, vLLM, llama-cpp-python's 400.
        (
            r"(?i)maximum context length is (\d+) tokens?.{0,40}?(?:requested|has|with) (\d+)",
            1,
            2,
        ),
        (r"(?i)maximum context length is (\d+) tokens?", 1, 0),
        // llama-cpp-python's log and LM Studio.
        (
            r"(?i)requested tokens \((\d+)\) exceed context window of (\d+)",
            2,
            1,
        ),
        (r"(?i)exceeds? (?:the )?context window of (\d+)", 1, 0),
        (r"(?i)context length of only (\d+) tokens?", 1, 0),
        // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum".
        (r"(?i)prompt is too long: (\d+) tokens? > (\d+)", 2, 1),
        // Mistral: "Prompt contains 40000 tokens, too large for model with 32768 maximum
        // context length".
        (
            r"(?i)contains (\d+) tokens?, too large for model with (\d+) maximum context length",
            2,
            1,
        ),
        // Gemini's OpenAI-compatible API.
        (
            r"(?i)input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)",
            2,
            1,
        ),
        // llama.cpp's message, when the numbers are not in fields.
        (r"(?i)exceeds the available context size", 0, 0),
        (r"(?i)context[_ ]length[_ ]exceeded", 0, 0),
        (
            r"(?i)(?:too many tokens|context window (?:is )?exceeded|exceeds? the context)",
            0,
            0,
        ),
        // Servers that say it in their own words, without numbers or a code: "... exceeds the
        // model's context length", "longer than the context window", "context length limit".
        (
            r"(?i)(?:exceed|too long|too large|longer than|more than).{0,40}context[ _](?:length|window|size)|context[ _](?:length|window|size) (?:limit|exceeded|overflow)",
            0,
            0,
        ),
    ]
    .into_iter()
    .map(|(p, w, r)| (Regex::new(p).expect("a valid pattern"), w, r))
    .collect()
});

/// Whether an error body (or message) says the request did not fit, and the numbers it gives:
/// llama.cpp's `exceed_context_size_error` (`n_ctx`, `n_prompt_tokens` fields), and the messages
/// of OpenAI, vLLM, LM Studio, llama-cpp-python and Anthropic.
pub fn overflow_in(body: Option<&Value>, message: &str) -> Option<Overflow> {
    let error = body.map(|b| b.get("error").unwrap_or(b));
    let field = |name: &str| error.and_then(|e| e.get(name)).and_then(Value::as_u64);
    let kind = error
        .and_then(|e| e.get("type").or_else(|| e.get("code")))
        .and_then(Value::as_str)
        .unwrap_or("");
    let by_fields = Overflow {
        window: field("n_ctx"),
        requested: field("n_prompt_tokens"),
    };
    if kind == "exceed_context_size_error" || by_fields.window.is_some() {
        return Some(by_fields);
    }
    let number = |caps: &regex::Captures<'_>, group: usize| {
        (group > 0)
            .then(|| caps.get(group))
            .flatten()
            .and_then(|m| m.as_str().parse::<u64>().ok())
    };
    for (pattern, window, requested) in PATTERNS.iter() {
        if let Some(caps) = pattern.captures(message) {
            return Some(Overflow {
                window: number(&caps, *window),
                requested: number(&caps, *requested),
            });
        }
    }
    (kind == "context_length_exceeded").then_some(Overflow {
        window: None,
        requested: None,
    })
}

/// The kind of a failure whose body or message says the request did not fit the window, with
/// the numbers it gives: the one place an overflow is recognised, for an error status's body
/// ([`crate::http`]), an error inside a 200 stream ([`crate::stream::stream_error`]) and Ollama's
/// error line alike. The agent keys both its refit and the turn's `contextOverflow` label on
/// this kind, never on the words.
pub(crate) fn overflow_kind(
    body: Option<&Value>,
    message: &str,
) -> Option<crate::ProviderErrorKind> {
    overflow_in(body, message).map(|o| crate::ProviderErrorKind::ContextOverflow {
        window: o.window,
        requested: o.requested,
    })
}

/// Whether an error says the model takes no tools (Ollama: "... does not support tools";
/// llama.cpp without Jinja: "tools param requires --jinja flag"; others word it as "tools are
/// not supported", "does not support function calling").
pub fn says_no_tools(message: &str) -> bool {
    static NO_TOOLS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)(does not support (?:tools|tool use|tool calling|function calling|functions)|(?:tools?|tool use|function calling|tool_choice) (?:is|are) not supported|not support(?:ed)? (?:for )?tool|tools param requires)",
        )
        .expect("a valid pattern")
    });
    NO_TOOLS.is_match(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(body: Value) -> Option<Overflow> {
        let message = crate::error_body::from_value(&body)
            .map(|s| s.message)
            .unwrap_or_default();
        overflow_in(Some(&body), &message)
    }

    #[test]
    fn every_overflow_shape_gives_its_numbers() {
        let llama_cpp = json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}});
        assert_eq!(
            of(llama_cpp),
            Some(Overflow {
                window: Some(4096),
                requested: Some(5000)
            })
        );
        let openai = json!({"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 3039 tokens (3031 in the messages, 8 in the completion). Please reduce the length of the messages or completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}});
        assert_eq!(
            of(openai),
            Some(Overflow {
                window: Some(2048),
                requested: Some(3039)
            })
        );
        let vllm = json!({"object": "error", "message": "This model's maximum context length is 8192 tokens. However, your request has 9000 input tokens. Please reduce the length of the input messages.", "type": "BadRequestError", "code": 400});
        assert_eq!(
            of(vllm),
            Some(Overflow {
                window: Some(8192),
                requested: Some(9000)
            })
        );
        let lm_studio = json!({"error": "Trying to keep the first 5012 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input"});
        assert_eq!(of(lm_studio).unwrap().window, Some(4096));
        let python =
            json!({"error": {"message": "Requested tokens (3031) exceed context window of 2048"}});
        assert_eq!(
            of(python),
            Some(Overflow {
                window: Some(2048),
                requested: Some(3031)
            })
        );
        let anthropic = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}});
        assert_eq!(
            of(anthropic),
            Some(Overflow {
                window: Some(200000),
                requested: Some(210000)
            })
        );
        let mistral = json!({"object": "error", "message": "Prompt contains 40000 tokens, too large for model with 32768 maximum context length", "type": "invalid_request_error", "code": "3051"});
        assert_eq!(
            of(mistral),
            Some(Overflow {
                window: Some(32768),
                requested: Some(40000)
            })
        );
        let gemini = json!([{"error": {"code": 400, "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "status": "INVALID_ARGUMENT"}}]);
        assert_eq!(
            overflow_in(None, gemini[0]["error"]["message"].as_str().unwrap()),
            Some(Overflow {
                window: Some(1048576),
                requested: Some(1200000)
            })
        );
        // Ollama's words, and others' without numbers.
        for said in [
            "the input length exceeds the context length",
            "prompt is longer than the model's context window",
            "context length limit reached",
        ] {
            assert!(overflow_in(None, said).is_some(), "{said}");
        }
        assert_eq!(of(json!({"error": {"message": "Invalid API key"}})), None);
        // Naming the window is not saying the request overflowed it.
        assert_eq!(
            overflow_in(
                None,
                "invalid n_ctx: the context length must be a multiple of 256"
            ),
            None
        );
    }

    #[test]
    fn tools_refused() {
        assert!(says_no_tools(
            "registry.ollama.ai/library/gemma:2b does not support tools"
        ));
        assert!(says_no_tools("tools are not supported for this model"));
        assert!(!says_no_tools("Invalid tool arguments"));
        // llama-server without --jinja, as its 500 says it.
        assert!(says_no_tools("tools param requires --jinja flag"));
    }

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
