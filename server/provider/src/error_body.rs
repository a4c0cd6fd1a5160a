//! The provider's own words from an error body, whatever shape the server uses.

use serde_json::Value;

use super::{ProviderError, ProviderErrorKind};

/// The most of a body quoted in a message when it says nothing we can parse.
const QUOTE_BYTES: usize = 500;

/// What a server said went wrong.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ProviderSaid {
    pub message: String,
    /// The machine-readable code (`error.code`, else `error.type`), when there is one.
    pub code: Option<String>,
}

/// Reads the shapes servers use: `{"error":{"message","code"|"type"}}` (OpenAI, Anthropic, Groq,
/// OpenRouter, vLLM), `{"error":"..."}` (Ollama, llama.cpp), `{"message":...}`, and FastAPI's
/// `{"detail":...}`.
pub(crate) fn from_value(value: &Value) -> Option<ProviderSaid> {
    let error = value.get("error").filter(|e| !e.is_null());
    if let Some(Value::String(message)) = error {
        return Some(ProviderSaid {
            message: message.clone(),
            code: None,
        });
    }
    let described = error.unwrap_or(value);
    let mut message = ["message", "detail"]
        .iter()
        .find_map(|key| described.get(key).filter(|v| !v.is_null()).map(text_of))?;
    // OpenRouter wraps the upstream provider's error: "Provider returned error" + metadata.raw.
    if let Some(raw) = described.pointer("/metadata/raw").and_then(Value::as_str) {
        message = format!("{message}: {}", truncate(raw.trim(), QUOTE_BYTES));
    }
    let code = ["code", "type"]
        .iter()
        .find_map(|key| described.get(key).filter(|v| !v.is_null()).map(text_of));
    Some(ProviderSaid { message, code })
}

/// The message in an error body: parsed as above when it is JSON, else its first 500 bytes.
pub(crate) fn message_from_body(body: &[u8]) -> Option<String> {
    if let Ok(value) = serde_json::from_slice::<Value>(body)
        && let Some(said) = from_value(&value)
    {
        return Some(said.message);
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    (!text.is_empty()).then(|| truncate(text, QUOTE_BYTES))
}

/// A 2xx body that is not what was expected, quoted briefly after `what`.
pub(crate) fn unexpected_body(what: &str, body: &[u8]) -> ProviderError {
    ProviderError::new(
        ProviderErrorKind::BadResponse,
        format!(
            "{what}: {}",
            truncate(String::from_utf8_lossy(body).trim(), 200)
        ),
    )
}

/// `text` cut to at most `max` bytes at a character boundary, marked with `…` when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    tandem_stdx::truncated(text, max, "…")
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn said(value: Value) -> Option<(String, Option<String>)> {
        from_value(&value).map(|s| (s.message, s.code))
    }

    #[test]
    fn reads_the_common_shapes() {
        let openai = json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}});
        assert_eq!(
            said(openai),
            Some((
                "Incorrect API key provided".into(),
                Some("invalid_api_key".into())
            ))
        );
        let anthropic = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        assert_eq!(
            said(anthropic),
            Some(("Overloaded".into(), Some("overloaded_error".into())))
        );
        assert_eq!(
            said(json!({"error": {"code": 400, "message": "Token limit reached"}})),
            Some(("Token limit reached".into(), Some("400".into())))
        );
        assert_eq!(
            said(json!({"error": "model 'x' not found"})),
            Some(("model 'x' not found".into(), None))
        );
        assert_eq!(
            said(json!({"detail": "Not Found"})),
            Some(("Not Found".into(), None))
        );
        assert_eq!(
            said(json!({"message": "busy"})),
            Some(("busy".into(), None))
        );
        assert_eq!(said(json!({"choices": []})), None);
    }

    #[test]
    fn openrouter_upstream_errors_keep_the_upstream_words() {
        let body = json!({"error": {"message": "Provider returned error", "code": 429, "metadata": {"raw": "qwen is rate-limited upstream"}}});
        assert_eq!(
            said(body).unwrap().0,
            "Provider returned error: qwen is rate-limited upstream"
        );
    }

    #[test]
    fn bodies_that_are_not_json_are_quoted_briefly() {
        assert_eq!(
            message_from_body(b"  upstream connect error  "),
            Some("upstream connect error".into())
        );
        assert_eq!(message_from_body(b""), None);
        let long = "é".repeat(400);
        let quoted = message_from_body(long.as_bytes()).unwrap();
        assert!(quoted.ends_with('…') && quoted.len() <= QUOTE_BYTES + '…'.len_utf8());
    }
}
