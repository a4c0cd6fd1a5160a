//! The `GET {base_url}/models` answer, as each kind of server shapes it.

use serde_json::Value;

use super::ModelInfo;

/// Reads `{data:[{id, ...}]}` (OpenAI and everything compatible; Anthropic too) in the server's
/// order, falling back to Ollama-style `{models:[{name|model}]}`. `None` when neither is there.
pub(crate) fn parse_model_list(body: &Value) -> Option<Vec<ModelInfo>> {
    let entries = body
        .get("data")
        .and_then(Value::as_array)
        .or_else(|| body.get("models").and_then(Value::as_array))?;
    Some(
        entries
            .iter()
            .filter_map(|entry| {
                let id = ["id", "name", "model"]
                    .iter()
                    .find_map(|key| entry.get(key).and_then(Value::as_str))?;
                Some(ModelInfo {
                    id: id.to_owned(),
                    context_window: context_window(entry),
                })
            })
            .collect(),
    )
}

/// The context window where the server says: what is loaded now before what the model could
/// take (LM Studio `loaded_context_length`, llama.cpp `n_ctx` vs `n_ctx_train`).
fn context_window(entry: &Value) -> Option<u64> {
    [
        "/loaded_context_length",
        "/context_length",
        "/max_context_length",
        "/n_ctx",
        "/max_model_len",
        "/meta/n_ctx",
        "/meta/n_ctx_train",
        "/top_provider/context_length",
    ]
    .iter()
    .find_map(|pointer| entry.pointer(pointer).and_then(Value::as_u64))
    .filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(body: Value) -> Vec<(String, Option<u64>)> {
        parse_model_list(&body)
            .unwrap()
            .into_iter()
            .map(|m| (m.id, m.context_window))
            .collect()
    }

    #[test]
    fn each_server_kind() {
        let openrouter = json!({"data": [{"id": "b/model", "context_length": 200000, "top_provider": {"context_length": 100000}}, {"id": "a/model"}]});
        assert_eq!(
            parsed(openrouter),
            vec![("b/model".into(), Some(200000)), ("a/model".into(), None)]
        );
        let lm_studio = json!({"object": "list", "data": [{"id": "qwen", "max_context_length": 32768, "loaded_context_length": 8192}, {"id": "gemma", "max_context_length": 131072}]});
        assert_eq!(
            parsed(lm_studio),
            vec![("qwen".into(), Some(8192)), ("gemma".into(), Some(131072))]
        );
        let llama_cpp = json!({"object": "list", "data": [{"id": "model.gguf", "meta": {"n_ctx_train": 131072, "n_vocab": 1}}]});
        assert_eq!(parsed(llama_cpp), vec![("model.gguf".into(), Some(131072))]);
        let ollama = json!({"models": [{"name": "llama3:8b", "model": "llama3:8b"}]});
        assert_eq!(parsed(ollama), vec![("llama3:8b".into(), None)]);
        assert!(parse_model_list(&json!({"error": "nope"})).is_none());
    }
}
