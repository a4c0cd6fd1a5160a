//! What a failed status says beyond its number, whichever server sent it: the request does not
//! fit the window ([`crate::overflow`]), the model takes no tools, or no images. Such a refusal is
//! not worth retrying as it was; the client acts on its kind (learns the window, switches to text
//! tools, tells the user the model reads no images).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::ProviderErrorKind;

/// A failed status that is not worth retrying because of what it says: the request does not fit
/// the window, or the model takes no tools or no images.
pub(crate) fn classify_status(
    status: u16,
    body: &[u8],
    message: &str,
) -> Option<ProviderErrorKind> {
    if matches!(status, 401 | 403 | 404 | 429) {
        return None;
    }
    let value: Option<Value> = serde_json::from_slice(body).ok();
    if let Some(overflow) = crate::overflow::overflow_kind(value.as_ref(), message) {
        return Some(overflow);
    }
    // llama.cpp without a projector answers 500 "image input is not supported", and without
    // --jinja 500 "tools param requires --jinja flag": refusals, not faults worth retrying.
    if matches!(status, 400 | 422 | 500) && crate::images::says_no_images(message) {
        return Some(ProviderErrorKind::ImagesUnsupported);
    }
    (matches!(status, 400 | 422 | 500) && says_no_tools(message))
        .then_some(ProviderErrorKind::ToolsUnsupported)
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
    fn statuses_that_say_what_they_are() {
        let overflow = br#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, you requested 3039 tokens (3031 in the messages, 8 in the completion).","code":"context_length_exceeded"}}"#;
        let message = crate::error_body::message_from_body(overflow).unwrap();
        assert_eq!(
            classify_status(400, overflow, &message),
            Some(ProviderErrorKind::ContextOverflow {
                window: Some(2048),
                requested: Some(3039)
            })
        );
        assert_eq!(
            classify_status(
                400,
                br#"{"error":"llama2 does not support tools"}"#,
                "llama2 does not support tools"
            ),
            Some(ProviderErrorKind::ToolsUnsupported)
        );
        assert_eq!(classify_status(401, b"{}", "bad key"), None);
        // A 500 whose words name the context but say no overflow is retried as a 500.
        assert_eq!(
            classify_status(500, b"{}", "model server returned 500: lost the context"),
            None
        );
    }
}
