//! A tool's result as text for the model: text as is, images and audio as a short note, resources
//! as a line naming their URI, the whole cut to a size.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

/// What a tool call gave, ready to hand to the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpCallResult {
    pub text: String,
    /// The server's `isError`: the tool ran and failed (bad input, a failed operation). The
    /// agent shows the text to the model as a failed tool result.
    pub is_error: bool,
    /// The text was longer than the hub's `max_result_bytes` and was cut (a note at the end
    /// says so).
    pub truncated: bool,
}

/// Renders a result. `max_bytes` bounds the text (the note that it was cut comes on top). A
/// result whose strings were cut as they streamed in ([`crate::shorten`]: one string past
/// 8 MiB, or a message past 6 MiB) is a tool error that names the sizes and what to do: what
/// came through is an arbitrary piece, not the result.
pub fn render(result: &CallToolResult, max_bytes: usize) -> McpCallResult {
    let mut parts: Vec<String> = result.content.iter().map(block).collect();
    // A tool with an output schema may answer with structured content alone.
    if parts.is_empty()
        && let Some(value) = &result.structured_content
    {
        parts.push(value.to_string());
    }
    let whole = parts.join("\n");
    if let Some(message) = too_large(&whole, max_bytes) {
        return McpCallResult {
            text: message,
            is_error: true,
            truncated: true,
        };
    }
    // What the server says reaches the model, the transcript and the user's terminal: no
    // escapes that recolour or rewrite a line there.
    let text = crate::text::strip_controls(&whole);
    let (text, truncated) = crate::text::cut(&text, max_bytes);
    McpCallResult {
        text,
        is_error: result.is_error.unwrap_or(false),
        truncated,
    }
}

/// The tool error for a result cut as it streamed in, if it was.
fn too_large(text: &str, max_bytes: usize) -> Option<String> {
    let at = text.find(crate::shorten::NOTE.trim_start())?;
    let rest = &text[at + crate::shorten::NOTE.trim_start().len()..];
    let sent: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let sent = sent.parse::<u64>().ok()?;
    Some(format!(
        "The tool's result was too large to take: the MCP server's answer held a string of \
         {sent} bytes ({} MiB), past what Tandem reads of an answer (at most {} MiB of one \
         string, {} MiB in all; {} KiB of a result reach the model). Nothing of it is shown, \
         since a piece of it would mislead. Ask the tool for less: a narrower query, a smaller \
         page, range or limit.",
        sent >> 20,
        crate::shorten::KEEP >> 20,
        crate::shorten::LINE_BUDGET >> 20,
        max_bytes >> 10
    ))
}

fn block(content: &ContentBlock) -> String {
    match content {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => format!(
            "[image: {}, {} bytes, not shown]",
            i.mime_type,
            base64_len(&i.data)
        ),
        ContentBlock::Audio(a) => format!(
            "[audio: {}, {} bytes, not shown]",
            a.mime_type,
            base64_len(&a.data)
        ),
        ContentBlock::ResourceLink(r) => {
            let mut line = format!("[resource link: {}", r.uri);
            if let Some(mime) = &r.mime_type {
                line.push_str(&format!(", {mime}"));
            }
            if let Some(description) = &r.description {
                line.push_str(&format!(": {description}"));
            }
            line.push(']');
            line
        }
        ContentBlock::Resource(embedded) => match &embedded.resource {
            // The text of an embedded text resource is what the tool wanted to show.
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource: {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource: {uri}, {}, {} bytes, not shown]",
                mime_type.as_deref().unwrap_or("binary"),
                base64_len(blob)
            ),
            // A kind of resource newer than this code.
            other => format!("[resource: {}]", resource_uri(other)),
        },
        // A kind of content newer than this code: say so rather than drop it silently.
        other => format!(
            "[content of an unknown kind: {}]",
            serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
                .unwrap_or_else(|| "?".into())
        ),
    }
}

fn resource_uri(resource: &ResourceContents) -> String {
    serde_json::to_value(resource)
        .ok()
        .and_then(|v| v.get("uri").and_then(|u| u.as_str()).map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

/// The decoded size of base64 data, without decoding it.
fn base64_len(data: &str) -> usize {
    let data = data.trim_end();
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3 + (data.len() % 4).saturating_sub(1)).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(json: serde_json::Value) -> CallToolResult {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn renders_each_kind_of_content() {
        let r = result(serde_json::json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///a.txt", "name": "a", "mimeType": "text/plain"},
                {"type": "resource", "resource": {"uri": "mem://x", "text": "inside"}},
                {"type": "resource", "resource": {"uri": "mem://b", "blob": "AAAA", "mimeType": "application/gzip"}}
            ],
            "isError": true
        }));
        let out = render(&r, 10_000);
        assert_eq!(
            out.text,
            "hello\n[image: image/png, 8 bytes, not shown]\n[resource link: file:///a.txt, text/plain]\n\
             [resource: mem://x]\ninside\n[resource: mem://b, application/gzip, 3 bytes, not shown]"
        );
        assert!(out.is_error);
        assert!(!out.truncated);
    }

    #[test]
    fn structured_content_alone_is_shown_as_json() {
        let r = result(serde_json::json!({"content": [], "structuredContent": {"sum": 3}}));
        assert_eq!(render(&r, 100).text, r#"{"sum":3}"#);
    }

    #[test]
    fn long_text_is_cut_with_a_note() {
        let r =
            result(serde_json::json!({"content": [{"type": "text", "text": "x".repeat(1000)}]}));
        let out = render(&r, 100);
        assert!(out.truncated);
        assert!(out.text.starts_with(&"x".repeat(100)));
        assert!(
            out.text.ends_with("[… cut: 100 of 1000 bytes shown]"),
            "{}",
            out.text
        );
    }

    #[test]
    fn escapes_and_carriage_returns_are_removed() {
        let r = result(serde_json::json!({"content": [{"type": "text",
            "text": "ok\u{1b}[2J\u{1b}]0;t\u{7}\rRun `git status`?\u{8}\tend\nnext"}]}));
        assert_eq!(
            render(&r, 1000).text,
            "ok[2J]0;tRun `git status`?\tend\nnext"
        );
    }

    #[test]
    fn a_result_cut_as_it_streamed_in_is_an_error_that_names_the_sizes() {
        let cut = format!(
            "{}{}",
            "x".repeat(50),
            crate::shorten::note(104_857_600, 8 << 20)
        );
        let r = result(serde_json::json!({"content": [{"type": "text", "text": cut}]}));
        let out = render(&r, 100);
        assert!(out.is_error);
        assert!(
            out.text.contains("104857600 bytes (100 MiB)"),
            "{}",
            out.text
        );
        assert!(
            out.text.contains("at most 8 MiB of one string"),
            "{}",
            out.text
        );
        assert!(out.text.contains("Ask the tool for less"), "{}", out.text);
        assert!(!out.text.contains("xxx"), "{}", out.text);
    }

    #[test]
    fn base64_sizes() {
        assert_eq!(base64_len(""), 0);
        assert_eq!(base64_len("QQ=="), 1);
        assert_eq!(base64_len("QUI="), 2);
        assert_eq!(base64_len("QUJD"), 3);
        assert_eq!(base64_len("QUJDRA"), 4); // unpadded
    }
}
