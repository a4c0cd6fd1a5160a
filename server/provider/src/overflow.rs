//! One recognition of a context overflow: whatever the server's words or fields, a request that
//! did not fit the window becomes [`ProviderErrorKind::ContextOverflow`] here and nowhere else,
//! with the numbers the server gave. The agent's refit and its `contextOverflow` label both key
//! on that kind, never on an error's text.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::ProviderErrorKind;

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
/// ([`crate::refusal::classify_status`]), an error inside a 200 stream
/// ([`crate::stream::stream_error`]) and Ollama's error line alike. The agent keys both its refit and the turn's `contextOverflow` label on
/// this kind, never on the words.
pub(crate) fn overflow_kind(body: Option<&Value>, message: &str) -> Option<ProviderErrorKind> {
    overflow_in(body, message).map(|o| ProviderErrorKind::ContextOverflow {
        window: o.window,
        requested: o.requested,
    })
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
    fn words_about_the_context_that_are_no_overflow() {
        for said in [
            "invalid context: the context parameter must be an object",
            "context_window must be set",
            "the model server lost its context (restart it)",
        ] {
            assert_eq!(overflow_kind(None, said), None, "{said}");
        }
    }
}
