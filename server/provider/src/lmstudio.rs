//! What LM Studio differs in from other OpenAI-compatible servers: it says what it has loaded
//! (`GET /api/v0/models`: each model's loaded context and whether it takes images), which
//! discovery reads. Its chat API is OpenAI's ([`crate::openai`]).

use serde_json::Value;

/// LM Studio `GET /api/v0/models`: the loaded context of `model` (or of the first loaded model).
pub(crate) fn loaded_window(body: &Value, model: &str) -> Option<u64> {
    let entries = body.get("data")?.as_array()?;
    let loaded = |e: &&Value| e.get("loaded_context_length").and_then(Value::as_u64);
    entries
        .iter()
        .filter(|e| e.get("id").and_then(Value::as_str) == Some(model))
        .find_map(|e| loaded(&e))
        .or_else(|| entries.iter().find_map(|e| loaded(&e)))
        .filter(|&n| n > 0)
}

/// LM Studio `GET /api/v0/models`: the model's `type`, `vlm` (takes images) or `llm` (text).
pub(crate) fn vision(body: &Value, model: &str) -> Option<bool> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_loaded_context_of_the_model() {
        let lm = json!({"data": [{"id": "a", "max_context_length": 32768}, {"id": "qwen", "loaded_context_length": 8192}]});
        assert_eq!(loaded_window(&lm, "qwen"), Some(8192));
    }
}
