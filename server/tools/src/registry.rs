//! The tools as one registry: each tool is a type implementing [`ToolSpec`] (its name, schema,
//! full and compact descriptions, whether it changes the workspace, where it runs, how its result
//! is cut, how a call is shown), and every caller — the agent's dispatch, plan mode, the prompt
//! builder, the faces — asks a [`Registry`] instead of matching names. A tool's name is written
//! once, in its own definition.
//!
//! MCP tools are not here: their names are made at run time (`SERVER__TOOL`), and a name the
//! registry does not know is one of theirs or one the model made up.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Value, json};
use tandem_model::ToolDefinition;

use crate::tool::{CallInfo, ToolKind, ToolTarget, short};
use crate::{ErrorKind, Prepared, ToolContext, ToolError};

/// What a call may do to the workspace: plan mode offers the read-only tools alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Reads (the workspace, the web, the session's own state) and changes nothing.
    ReadOnly,
    /// Writes files or runs commands.
    ChangesWorkspace,
}

/// Where a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Runs {
    /// In the workspace, through [`ToolSpec::prepare`]: read-only tools at once, edits and
    /// commands as proposals the agent puts to the user.
    Workspace,
    /// On the network, by the agent's fetcher (`fetch_url`: its own approval and allow-list).
    Network,
    /// In the session's own state (the plan), by the agent.
    Session,
}

/// How a result longer than its share of the model's window is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cut {
    /// The beginning is kept (a file, a listing, a page: what comes first matters most).
    Head,
    /// The beginning and the end are kept (a command's output: the errors and the summary come
    /// last).
    HeadAndTail,
}

/// A call's future, borrowing the context it runs in.
pub type PrepareFuture<'a> = Pin<Box<dyn Future<Output = Result<Prepared, ToolError>> + Send + 'a>>;

/// One tool: everything the agent, plan mode, the prompt and the faces know of it.
pub trait ToolSpec: Send + Sync {
    /// The name the model calls it by: unique in a registry.
    fn name(&self) -> &'static str;
    /// What the model is told in a large window.
    fn description(&self) -> String;
    /// What the model is told in a small window (16k tokens or less): one or two sentences that
    /// keep the tool's meaning; its parameters then go without descriptions.
    fn compact_description(&self) -> String;
    /// The JSON Schema of the arguments, with a description of each parameter.
    fn parameters(&self) -> Value;
    fn effect(&self) -> Effect;
    fn runs(&self) -> Runs;
    fn cut(&self) -> Cut {
        Cut::Head
    }
    /// What a call does, for the faces' icons and grouping.
    fn kind(&self) -> ToolKind;
    /// A short human title of a call, e.g. `Read src/main.rs`; the name when `None`.
    fn title(&self, _args: &Value) -> Option<String> {
        None
    }
    /// The file or folder a call works on.
    fn target(&self, _args: &Value) -> Option<ToolTarget> {
        None
    }
    /// Whether a call reads or edits exactly the one file its `target` names: the file whose
    /// editor text the agent fetches first.
    fn works_on_one_file(&self) -> bool {
        false
    }
    /// Whether an edit that went stale while the user decided may be made again against the
    /// file as it is now (the call's own text still finds its place).
    fn rematches_when_stale(&self) -> bool {
        false
    }
    /// Arguments of one complete call, where its shape is worth a model's seeing (a format
    /// inside a string); the text tool mode writes it out as a `<tool_call>` block.
    fn example(&self) -> Option<Value> {
        None
    }
    /// The definition sent in a large window.
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name().to_string(),
            description: self.description(),
            parameters: self.parameters(),
            example: self.example(),
        }
    }

    /// The definition sent in a small window: the compact description, and the schema without
    /// what only helps a large model: the parameters' descriptions, their bounds, the ban on
    /// other fields (the arguments are checked as strictly either way).
    fn compact_definition(&self) -> ToolDefinition {
        let mut parameters = self.parameters();
        strip_descriptions(&mut parameters);
        if let Value::Object(schema) = &mut parameters {
            schema.remove("additionalProperties");
            if schema
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                schema.remove("required");
            }
        }
        ToolDefinition {
            name: self.name().to_string(),
            description: self.compact_description(),
            parameters,
            example: self.example(),
        }
    }

    /// Validates a call of a [`Runs::Workspace`] tool and runs it (read-only) or turns it into a
    /// proposal. Tools that run elsewhere are called by the agent and never get here.
    fn prepare<'a>(&'a self, _ctx: &'a ToolContext<'a>, _arguments: &'a str) -> PrepareFuture<'a> {
        let name = self.name();
        Box::pin(async move {
            Err(ToolError::new(
                ErrorKind::UnknownTool,
                format!("`{name}` is run by the agent in a turn, not on its own"),
            ))
        })
    }
}

fn strip_descriptions(schema: &mut Value) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for p in properties.values_mut() {
            if let Value::Object(p) = p {
                p.remove("description");
                p.remove("minimum");
                if let Some(items) = p.get_mut("items") {
                    strip_descriptions(items);
                }
            }
        }
    }
}

/// The tools a session offers, in the order the model is told of them.
#[derive(Clone)]
pub struct Registry {
    tools: Vec<Arc<dyn ToolSpec>>,
}

impl Registry {
    pub fn empty() -> Self {
        Self { tools: Vec::new() }
    }

    /// `self` with `tool` added at the end; a tool of the same name is replaced, so a name stays
    /// unique.
    pub fn with(mut self, tool: impl ToolSpec + 'static) -> Self {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(Arc::new(tool));
        self
    }

    pub fn get(&self, name: &str) -> Option<&dyn ToolSpec> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
    }

    pub fn iter(&self) -> impl Iterator<Item = &dyn ToolSpec> {
        self.tools.iter().map(|t| t.as_ref())
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.iter().map(|t| t.name()).collect()
    }

    /// The names of the tools that change nothing: what plan mode offers.
    pub fn read_only_names(&self) -> Vec<&'static str> {
        self.iter()
            .filter(|t| t.effect() == Effect::ReadOnly)
            .map(|t| t.name())
            .collect()
    }

    /// The definitions for a large window.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.iter().map(|t| t.definition()).collect()
    }

    /// The definitions for a small window.
    pub fn compact_definitions(&self) -> Vec<ToolDefinition> {
        self.iter().map(|t| t.compact_definition()).collect()
    }

    /// A call as the user sees it before it runs: its kind, title and target, from the raw
    /// arguments (a tool the registry does not know, or arguments that don't parse, still get a
    /// title: the name).
    pub fn describe(&self, name: &str, arguments: &str) -> CallInfo {
        let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
        match self.get(name) {
            Some(tool) => CallInfo {
                kind: tool.kind(),
                title: tool.title(&args).unwrap_or_else(|| name.to_string()),
                target: tool.target(&args),
            },
            None => CallInfo {
                kind: ToolKind::Other,
                title: short(name, 60),
                target: None,
            },
        }
    }

    /// Validates a call and runs it if it is read-only, or turns it into a proposal.
    /// `arguments` is the model's raw JSON text: malformed input is an `invalid_arguments` error
    /// that says what was wrong; a name this registry does not run in the workspace is
    /// `unknown_tool`.
    pub async fn prepare(
        &self,
        ctx: &ToolContext<'_>,
        name: &str,
        arguments: &str,
    ) -> Result<Prepared, ToolError> {
        match self.get(name) {
            // A tool that runs elsewhere says so through its default `prepare`.
            Some(tool) => tool.prepare(ctx, arguments).await,
            None => Err(self.unknown(name)),
        }
    }

    /// What the model is told when it calls a tool there is not: the name it used (cut) and the
    /// tools there are.
    pub fn unknown(&self, name: &str) -> ToolError {
        ToolError::new(
            ErrorKind::UnknownTool,
            format!(
                "there is no tool named `{}`; the tools are: {}",
                short(name, 60),
                self.names().join(", ")
            ),
        )
    }
}

/// A JSON Schema object of `properties`, `required` named, nothing else allowed.
pub fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// A string parameter.
pub fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// A positive integer parameter.
pub fn integer(description: &str) -> Value {
    json!({"type": "integer", "minimum": 1, "description": description})
}

/// A boolean parameter.
pub fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_schema_names_its_required_fields() {
        let registry = Registry::workspace();
        let names = registry.names();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for tool in registry.iter() {
            let d = tool.definition();
            let props = d.parameters["properties"].as_object().unwrap();
            for r in d.parameters["required"].as_array().unwrap() {
                assert!(props.contains_key(r.as_str().unwrap()), "{}", d.name);
            }
            let compact = tool.compact_definition();
            assert!(!compact.description.is_empty(), "{}", d.name);
            assert!(
                compact.description.len() <= d.description.len(),
                "{}: the compact description is longer",
                d.name
            );
            assert!(!compact.parameters.to_string().contains("description"));
        }
    }

    #[test]
    fn a_tool_added_is_found_and_replaces_one_of_its_name() {
        struct Probe(Effect);
        impl ToolSpec for Probe {
            fn name(&self) -> &'static str {
                "probe"
            }
            fn description(&self) -> String {
                "Probe things. Long version.".into()
            }
            fn compact_description(&self) -> String {
                "Probe things.".into()
            }
            fn parameters(&self) -> Value {
                object_schema(json!({}), &[])
            }
            fn effect(&self) -> Effect {
                self.0
            }
            fn runs(&self) -> Runs {
                Runs::Session
            }
            fn kind(&self) -> ToolKind {
                ToolKind::Other
            }
        }
        let r = Registry::workspace().clone().with(Probe(Effect::ReadOnly));
        assert!(r.read_only_names().contains(&"probe"));
        let r = r.with(Probe(Effect::ChangesWorkspace));
        assert_eq!(r.names().iter().filter(|n| **n == "probe").count(), 1);
        assert!(!r.read_only_names().contains(&"probe"));
        assert_eq!(r.describe("probe", "{}").title, "probe");
    }
}
