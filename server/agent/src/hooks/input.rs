//! The JSON a hook reads on stdin: Claude Code's common fields (`session_id`, `transcript_path`,
//! `cwd`, `permission_mode`, `hook_event_name`) and the event's own.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::HookEvent;

/// What every event's input says of the session.
#[derive(Clone, Debug)]
pub struct Common<'a> {
    pub session_id: &'a str,
    pub transcript_path: &'a Path,
    pub cwd: &'a Path,
    /// `default`, or `plan` in plan mode.
    pub permission_mode: &'a str,
}

/// The input of `event`: the common fields, then `fields`.
pub fn input(common: &Common<'_>, event: HookEvent, fields: Value) -> Value {
    let mut all = Map::new();
    all.insert("session_id".into(), json!(common.session_id));
    all.insert(
        "transcript_path".into(),
        json!(common.transcript_path.to_string_lossy()),
    );
    all.insert("cwd".into(), json!(common.cwd.to_string_lossy()));
    all.insert("permission_mode".into(), json!(common.permission_mode));
    all.insert("hook_event_name".into(), json!(event.name()));
    if let Value::Object(fields) = fields {
        all.extend(fields);
    }
    Value::Object(all)
}
