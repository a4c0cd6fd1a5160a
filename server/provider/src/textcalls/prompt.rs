//! The text tool mode: tools described in the system prompt, calls written as `<tool_call>`
//! blocks (the Hermes format, which most open models were trained on and [`super::extract`]
//! reads), results sent back as user messages.

use serde_json::{Value, json};

use tandem_model::{Message, ToolDefinition};

/// The tools and how to call them, appended to the system prompt: each tool's signature and
/// first sentence, and one complete call where the tool gives an example (the first shows the
/// shape of every call; others show a format inside a string, as SEARCH/REPLACE blocks), so a
/// small model sees exactly what to write while every token is paid for once. Deterministic, so
/// the prompt prefix stays the same from request to request.
pub fn tools_prompt(tools: &[ToolDefinition]) -> String {
    let mut out = String::from(
        "\n\n# Tools\n\nTo use a tool, end your answer with one <tool_call> block as below and \
         stop; its result comes next. Write calls only to run them.\n",
    );
    let mut shown = false;
    for tool in tools {
        let summary = summary(&tool.description);
        out.push_str(&format!(
            "\n{}({}): {summary}",
            tool.name,
            parameters(&tool.parameters)
        ));
        // Without any example among the tools, the first gets one built from its schema.
        let example = tool.example.clone().or_else(|| {
            (!shown && !tools.iter().any(|t| t.example.is_some())).then(|| placeholder(tool))
        });
        if let Some(arguments) = example {
            shown = true;
            let call = format!(
                "{{\"name\": {}, \"arguments\": {}}}",
                Value::String(tool.name.clone()),
                arguments
            );
            out.push_str(&format!("\n<tool_call>\n{call}\n</tool_call>\n"));
        }
    }
    out.push('\n');
    out
}

/// A description's first sentence, and the list it ends with, if any (a line ending in `:` and
/// its `- ` items): the list names choices a call needs, as the `task` tool's agents.
fn summary(description: &str) -> String {
    let first = description.split_inclusive(". ").next().unwrap_or("");
    let first = first.lines().next().unwrap_or("").trim();
    let lines: Vec<&str> = description.lines().collect();
    let items = lines
        .iter()
        .rev()
        .take_while(|l| l.starts_with("- "))
        .count();
    let head = lines.len().checked_sub(items + 1);
    match head.map(|h| lines[h]) {
        Some(heading) if items > 0 && heading.trim_end().ends_with(':') && head != Some(0) => {
            format!("{first}\n{}", lines[lines.len() - items - 1..].join("\n"))
        }
        _ => first.to_string(),
    }
}

/// Arguments for a tool that gives no example: its required parameters, each a placeholder of
/// its type.
fn placeholder(tool: &ToolDefinition) -> Value {
    let schema = &tool.parameters;
    let mut arguments = serde_json::Map::new();
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let kind = schema
            .pointer(&format!("/properties/{name}/type"))
            .and_then(Value::as_str);
        let value = match kind {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("..."),
        };
        arguments.insert(name.to_string(), value);
    }
    Value::Object(arguments)
}

/// `path, offset?`
fn parameters(schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return String::new();
    };
    properties
        .keys()
        .map(|name| {
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{name}{optional}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The conversation as a model without native tools can take it: the tools in the system
/// prompt, earlier calls written back as `<tool_call>` blocks, results as user messages.
pub fn render_history(messages: &[Message], tools: &[ToolDefinition]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    // The tools are described once, after the first system message (Tandem's own prompt); the
    // later ones (rules files, summaries) must not each pay for the list again.
    let mut described = false;
    for message in messages {
        let rendered = match message {
            Message::System { content } if !described => {
                described = true;
                Message::System {
                    content: format!("{content}{}", tools_prompt(tools)),
                }
            }
            Message::Assistant {
                content,
                reasoning,
                tool_calls,
            } if !tool_calls.is_empty() => {
                let mut text = content.clone();
                for call in tool_calls {
                    let arguments: Value = serde_json::from_str(&call.arguments)
                        .unwrap_or_else(|_| Value::Object(Default::default()));
                    let block = serde_json::json!({"name": call.name, "arguments": arguments});
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&format!("<tool_call>\n{block}\n</tool_call>"));
                }
                Message::Assistant {
                    content: text,
                    reasoning: reasoning.clone(),
                    tool_calls: Vec::new(),
                }
            }
            Message::Tool { content, .. } => {
                let block = format!("<tool_response>\n{content}\n</tool_response>");
                // Consecutive results go into one user message: templates want turns to alternate.
                if let Some(Message::User {
                    content: previous, ..
                }) = out.last_mut()
                    && previous.ends_with("</tool_response>")
                {
                    previous.push('\n');
                    previous.push_str(&block);
                    continue;
                }
                Message::user(block)
            }
            other => other.clone(),
        };
        out.push(rendered);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tandem_model::ToolCall;

    #[test]
    fn the_tools_are_described_once_whatever_the_system_messages() {
        let tools = vec![ToolDefinition {
            name: "read_file".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {}}),
            example: None,
        }];
        let history = vec![
            Message::System {
                content: "Tandem".into(),
            },
            Message::System {
                content: "Rules from AGENTS.md".into(),
            },
            Message::user("U"),
        ];
        let rendered = render_history(&history, &tools);
        let text = format!("{rendered:?}");
        assert_eq!(text.matches("# Tools").count(), 1, "{text}");
        let Message::System { content } = &rendered[1] else {
            panic!("{rendered:?}")
        };
        assert_eq!(content, "Rules from AGENTS.md");
    }

    #[test]
    fn a_call_is_shown_for_tools_with_an_example_else_for_the_first_from_its_schema() {
        let tool = |name: &str, example: Option<Value>| ToolDefinition {
            name: name.into(),
            description: "Do it.".into(),
            parameters: json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
            example,
        };
        let shown = tools_prompt(&[
            tool("a", None),
            tool("b", Some(json!({"n": 7}))),
            tool("c", None),
        ]);
        assert_eq!(shown.matches("</tool_call>").count(), 1, "{shown}");
        assert!(
            shown.contains("{\"name\": \"b\", \"arguments\": {\"n\":7}}"),
            "{shown}"
        );
        let none = tools_prompt(&[tool("a", None), tool("c", None)]);
        assert_eq!(none.matches("</tool_call>").count(), 1, "{none}");
        assert!(
            none.contains("{\"name\": \"a\", \"arguments\": {\"n\":1}}"),
            "{none}"
        );
    }

    #[test]
    fn a_tool_is_summed_up_by_its_first_sentence_and_the_list_it_ends_with() {
        assert_eq!(summary("Read a file. More words."), "Read a file.");
        assert_eq!(summary("One line\nand more lines"), "One line");
        // The `task` tool's agents: without them a text-mode model can't name one.
        assert_eq!(
            summary(
                "Run a subagent. It sees nothing else.\nAgents:\n- explore: reads\n- docs: writes"
            ),
            "Run a subagent.\nAgents:\n- explore: reads\n- docs: writes"
        );
        // A list without its heading is prose, not choices.
        assert_eq!(summary("Do it.\nThen this.\n- a\n- b"), "Do it.");
    }

    #[test]
    fn history_round_trips_through_the_parser() {
        let tools = vec![ToolDefinition {
            name: "read_file".into(),
            description: "Read a file. More words.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            example: Some(json!({"path": "src/main.rs"})),
        }];
        let history = vec![
            Message::System {
                content: "S".into(),
            },
            Message::user("U"),
            Message::Assistant {
                content: String::new(),
                reasoning: String::new(),
                tool_calls: vec![ToolCall {
                    id: "1".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\":\"a\"}".into(),
                }],
            },
            Message::Tool {
                tool_call_id: "1".into(),
                content: "alpha".into(),
            },
        ];
        let out = render_history(&history, &tools);
        let Message::System { content } = &out[0] else {
            panic!()
        };
        assert!(
            content.contains("read_file(path): Read a file.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\":\"src/main.rs\"}}\n</tool_call>"),
            "{content}"
        );
        let Message::Assistant {
            content,
            tool_calls,
            ..
        } = &out[2]
        else {
            panic!()
        };
        assert!(tool_calls.is_empty());
        let (_, calls) = super::super::extract(content, &tools);
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(
            out[3],
            Message::user("<tool_response>\nalpha\n</tool_response>")
        );
    }
}
