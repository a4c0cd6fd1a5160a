//! Finding the tool calls in an answer's text.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::repair::repair_json;
use tandem_model::{ToolCall, ToolDefinition};

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern")
}

static TOOL_CALL_BLOCK: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)<tool_call>\s*(.*?)\s*(?:</tool_call>|\z)"));
static FUNCTION_BLOCK: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)<function=([^>\s]+)>(.*?)(?:</function>|\z)"));
static PARAMETER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)<parameter=([^>\s]+)>\n?(.*?)\n?(?:</parameter>|\z)"));
static HARMONY_CALL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?s)to=functions\.([A-Za-z0-9_\-]+)[^<]*(?:<\|constrain\|>[^<]*)?<\|message\|>(.*?)(?:<\|call\|>|<\|end\|>|<\|return\|>|\z)",
    )
});
static HARMONY_FINAL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)<\|channel\|>final<\|message\|>(.*?)(?:<\|end\|>|<\|return\|>|\z)"));
/// llama-cpp-python's `chatml-function-calling` (and functionary): `functions.NAME:` on a line of
/// its own, the JSON arguments after it.
static FUNCTIONS_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^[ \t]*functions\.([A-Za-z0-9_\-]+):[ \t]*"));
static MISTRAL_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?s)^\s*([A-Za-z0-9_\-]+)\s*(?:\[ARGS\]|\[CALL_ID\][^\[{]*\[ARGS\])?\s*(\{.*)$")
});

/// Every tool call written in `text`, and the text left for the user without the markup. With
/// no call found the text comes back as it was. A bare JSON object counts only when it names
/// one of `tools`; the tagged formats are taken at their word (an unknown name gets the tools'
/// own "unknown tool" answer).
pub fn extract(text: &str, tools: &[ToolDefinition]) -> (String, Vec<ToolCall>) {
    let mut calls = Vec::new();
    let visible;
    if let Some(at) = text.find("<|channel|>").or_else(|| text.find("<|start|>"))
        && HARMONY_CALL.is_match(text)
    {
        for caps in HARMONY_CALL.captures_iter(text) {
            calls.push(call(&caps[1], arguments_text(&caps[2])));
        }
        let fin = HARMONY_FINAL
            .captures(text)
            .map(|c| c[1].to_string())
            .unwrap_or_default();
        visible = format!("{}{}", &text[..at], fin);
    } else if let Some(at) = text.find("<tool_call>") {
        for caps in TOOL_CALL_BLOCK.captures_iter(&text[at..]) {
            let inner = caps[1].trim();
            if inner.starts_with("<function=") {
                calls.extend(function_blocks(inner, tools));
            } else if let Some(found) = json_calls(inner, tools, false) {
                calls.extend(found);
            }
        }
        visible = text[..at].to_string();
    } else if let Some(at) = text.find("<function=") {
        calls.extend(function_blocks(&text[at..], tools));
        visible = text[..at].to_string();
    } else if let Some(at) = text.find("[TOOL_CALLS]") {
        for piece in text[at..].split("[TOOL_CALLS]").skip(1) {
            calls.extend(mistral(piece, tools));
        }
        visible = text[..at].to_string();
    } else if let Some(at) = text.find("<|python_tag|>") {
        let rest = text[at + "<|python_tag|>".len()..]
            .replace("<|eom_id|>", "")
            .replace("<|eot_id|>", "");
        for piece in rest.split(';') {
            if let Some(found) = json_calls(piece, tools, false) {
                calls.extend(found);
            }
        }
        visible = text[..at].to_string();
    } else if let Some((at, found)) = functions_lines(text, tools) {
        calls.extend(found);
        visible = text[..at].to_string();
    } else if let Some(found) = json_calls(unfenced(text), tools, true) {
        calls.extend(found);
        visible = String::new();
    } else {
        return (text.to_string(), Vec::new());
    }
    if calls.is_empty() {
        return (text.to_string(), Vec::new());
    }
    (visible.trim_end().to_string(), calls)
}

fn call(name: &str, arguments: String) -> ToolCall {
    ToolCall {
        id: tandem_model::ToolCallId::generate(),
        name: name.trim().to_string(),
        arguments,
    }
}

/// Arguments as the tools get them: JSON text, repaired when it was near-JSON, else as written
/// (the tools then tell the model what was wrong).
fn arguments_text(raw: &str) -> String {
    let raw = raw.trim();
    if raw.is_empty() {
        return "{}".into();
    }
    match repair_json(raw) {
        Some(Value::String(inner)) => arguments_text(&inner),
        Some(value) => value.to_string(),
        None => raw.to_string(),
    }
}

/// `{"name", "arguments"|"parameters"}` objects (or a list of them), also OpenAI's own
/// `{"type":"function","function":{...}}` shape.
fn json_calls(text: &str, tools: &[ToolDefinition], known_only: bool) -> Option<Vec<ToolCall>> {
    let text = text.trim();
    if !(text.starts_with('{') || text.starts_with('[')) {
        return None;
    }
    let value = repair_json(text)?;
    let items = match value {
        Value::Array(items) => items,
        object @ Value::Object(_) => vec![object],
        _ => return None,
    };
    let mut calls = Vec::new();
    for item in items {
        let item = item
            .get("function")
            .filter(|f| f.is_object())
            .unwrap_or(&item);
        let name = item.get("name").and_then(Value::as_str)?;
        if known_only && !tools.iter().any(|t| t.name == name) {
            return None;
        }
        let arguments = ["arguments", "parameters", "args", "input"]
            .iter()
            .find_map(|key| item.get(key));
        let arguments = match arguments {
            None | Some(Value::Null) => "{}".to_string(),
            Some(Value::String(s)) => arguments_text(s),
            Some(other) => other.to_string(),
        };
        calls.push(call(name, arguments));
    }
    (!calls.is_empty()).then_some(calls)
}

/// Qwen3 Coder: `<function=NAME><parameter=P>VALUE</parameter>…</function>`. A value is a
/// string unless the tool's schema says otherwise.
fn function_blocks(text: &str, tools: &[ToolDefinition]) -> Vec<ToolCall> {
    FUNCTION_BLOCK
        .captures_iter(text)
        .map(|caps| {
            let name = caps[1].trim();
            let schema = tools.iter().find(|t| t.name == name).map(|t| &t.parameters);
            let mut arguments = Map::new();
            for p in PARAMETER.captures_iter(&caps[2]) {
                let key = p[1].trim().to_string();
                let raw = p[2].to_string();
                let declared = schema
                    .and_then(|s| s.pointer(&format!("/properties/{key}/type")))
                    .and_then(Value::as_str);
                let value = match declared {
                    Some("string") | None => Value::String(raw),
                    Some(_) => serde_json::from_str(raw.trim()).unwrap_or(Value::String(raw)),
                };
                arguments.insert(key, value);
            }
            call(name, Value::Object(arguments).to_string())
        })
        .collect()
}

/// `functions.NAME:` lines, each followed by its arguments, and where the first begins. Only
/// known tools count: a line like that in prose about code is text.
fn functions_lines(text: &str, tools: &[ToolDefinition]) -> Option<(usize, Vec<ToolCall>)> {
    let found: Vec<_> = FUNCTIONS_LINE.captures_iter(text).collect();
    let first = found.first()?.get(0)?.start();
    let mut calls = Vec::new();
    for (i, caps) in found.iter().enumerate() {
        let name = &caps[1];
        if !tools.iter().any(|t| t.name == name) {
            return None;
        }
        let from = caps.get(0)?.end();
        let to = found
            .get(i + 1)
            .and_then(|next| next.get(0))
            .map_or(text.len(), |m| m.start());
        calls.push(call(name, arguments_text(&text[from..to])));
    }
    Some((first, calls))
}

/// Mistral: `[TOOL_CALLS][{"name", "arguments"}]`, or the newer `[TOOL_CALLS]NAME[ARGS]{json}`.
fn mistral(piece: &str, tools: &[ToolDefinition]) -> Vec<ToolCall> {
    if let Some(found) = json_calls(piece, tools, false) {
        return found;
    }
    match MISTRAL_NAMED.captures(piece) {
        Some(caps) => vec![call(&caps[1], arguments_text(&caps[2]))],
        None => Vec::new(),
    }
}

/// The text inside one Markdown code fence that is the whole answer, else the text.
fn unfenced(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    rest.strip_suffix("```").unwrap_or(rest).trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolDefinition> {
        vec![
            ToolDefinition {
                name: "read_file".into(),
                description: String::new(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}}}),
                example: None,
            },
            ToolDefinition {
                name: "list_files".into(),
                description: String::new(),
                parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
                example: None,
            },
        ]
    }

    #[test]
    fn functions_lines_of_chatml_function_calling() {
        // As SmolLM2 wrote it through llama-cpp-python, the quotes HTML-escaped by its template.
        let (visible, calls) = parsed("functions.read_file:\n{&#34;path&#34;:&#34;n.txt&#34;}");
        assert_eq!(visible, "");
        assert_eq!(calls, vec![("read_file".into(), json!({"path": "n.txt"}))]);
        let (visible, calls) = parsed(
            "Looking.\nfunctions.list_files:\n{\"path\": \"src\"}\nfunctions.read_file:\n{\"path\": \"a\"}",
        );
        assert_eq!(visible, "Looking.");
        assert_eq!(calls.len(), 2);
        // An unknown name, or the words mid-line, are prose.
        assert!(parsed("functions.helper: does X").1.is_empty());
        assert!(parsed("see functions.read_file: it reads").1.is_empty());
    }

    fn parsed(text: &str) -> (String, Vec<(String, Value)>) {
        let (visible, calls) = extract(text, &tools());
        let calls = calls
            .into_iter()
            .map(|c| {
                (
                    c.name,
                    serde_json::from_str(&c.arguments).unwrap_or(Value::Null),
                )
            })
            .collect();
        (visible, calls)
    }

    fn read(path: &str) -> Vec<(String, Value)> {
        vec![("read_file".into(), json!({"path": path}))]
    }

    #[test]
    fn hermes_and_qwen() {
        let (visible, calls) = parsed(
            "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>",
        );
        assert_eq!((visible.as_str(), calls), ("Let me look.", read("a.txt")));
        // Two calls, the second left open at the end of the answer, with a trailing comma.
        let (_, calls) = parsed(
            "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\n<tool_call>{\"name\": \"list_files\", \"arguments\": {\"path\": \".\",}}",
        );
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1], ("list_files".into(), json!({"path": "."})));
    }

    #[test]
    fn qwen3_coder_xml() {
        let (visible, calls) = parsed(
            "I'll read it.\n<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/main.rs\n</parameter>\n<parameter=offset>\n10\n</parameter>\n</function>\n</tool_call>",
        );
        assert_eq!(visible, "I'll read it.");
        assert_eq!(
            calls,
            vec![(
                "read_file".into(),
                json!({"path": "src/main.rs", "offset": 10})
            )]
        );
    }

    #[test]
    fn mistral_both_shapes() {
        let (_, calls) =
            parsed("[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}]");
        assert_eq!(calls, read("a"));
        let (_, calls) = parsed("[TOOL_CALLS]read_file[ARGS]{\"path\": \"b\"}");
        assert_eq!(calls, read("b"));
    }

    #[test]
    fn llama_python_tag() {
        let (_, calls) = parsed(
            "<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"c\"}}<|eom_id|>",
        );
        assert_eq!(calls, read("c"));
    }

    #[test]
    fn gpt_oss_harmony_leftovers() {
        let (visible, calls) = parsed(
            "<|channel|>analysis<|message|>Need to read.<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"d\"}<|call|>",
        );
        assert_eq!((visible.as_str(), calls), ("", read("d")));
    }

    #[test]
    fn bare_json_only_for_known_tools() {
        let (visible, calls) = parsed("{'name': 'read_file', 'arguments': {'path': 'e'},}");
        assert_eq!(
            (visible.as_str(), calls),
            ("", vec![("read_file".into(), json!({"path": "e"}))])
        );
        let (_, calls) =
            parsed("```json\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"f\"}}\n```");
        assert_eq!(calls, read("f"));
        let plain = "{\"name\": \"Ada\", \"age\": 36}";
        assert_eq!(parsed(plain), (plain.to_string(), vec![]));
        assert_eq!(parsed("Just text."), ("Just text.".to_string(), vec![]));
    }

    #[test]
    fn arguments_given_as_a_json_string() {
        let (_, calls) = parsed(
            "<tool_call>{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"g\\\"}\"}</tool_call>",
        );
        assert_eq!(calls, read("g"));
    }
}
