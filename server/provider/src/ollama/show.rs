//! What Ollama says of a model: `POST /api/show` (its context length, its capabilities) and
//! `GET /api/ps` (the context it is loaded with), which discovery reads.

use serde_json::Value;

/// Ollama `POST /api/show`: `model_info["<arch>.context_length"]`, and whether the model takes
/// tools (`capabilities`; `None` when the server does not say).
pub(crate) fn window_and_tools(body: &Value) -> (Option<u64>, Option<bool>) {
    let info = body.get("model_info");
    let arch = info
        .and_then(|i| i.get("general.architecture"))
        .and_then(Value::as_str);
    let window = match (info, arch) {
        (Some(info), Some(arch)) => info
            .get(format!("{arch}.context_length"))
            .and_then(Value::as_u64),
        (Some(Value::Object(map)), None) => map
            .iter()
            .find(|(k, _)| k.ends_with(".context_length"))
            .and_then(|(_, v)| v.as_u64()),
        _ => None,
    };
    let tools = body
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|caps| caps.iter().any(|c| c.as_str() == Some("tools")));
    (window.filter(|&n| n > 0), tools)
}

/// Ollama `POST /api/show`: whether `capabilities` lists `vision` (`None`: no capabilities).
pub(crate) fn vision(show: &Value) -> Option<bool> {
    let caps = show.get("capabilities")?.as_array()?;
    Some(caps.iter().any(|c| c.as_str() == Some("vision")))
}

/// Ollama `GET /api/ps`: the `context_length` the model is loaded with, when it is loaded.
/// Names may come with or without the `:latest` tag.
pub(crate) fn loaded_context(body: &Value, model: &str) -> Option<u64> {
    let bare = |name: &str| name.strip_suffix(":latest").unwrap_or(name).to_owned();
    let wanted = bare(model);
    body.get("models")?
        .as_array()?
        .iter()
        .filter(|m| {
            ["name", "model"]
                .iter()
                .filter_map(|k| m.get(*k).and_then(Value::as_str))
                .any(|n| bare(n) == wanted)
        })
        .find_map(|m| m.get("context_length").and_then(Value::as_u64))
        .filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_models_window_and_the_loaded_one() {
        let show = json!({"model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}, "capabilities": ["completion"]});
        assert_eq!(window_and_tools(&show), (Some(32768), Some(false)));
        // Ollama 0.9's /api/ps: the running model, under its tagged name.
        let ps = json!({"models": [
            {"name": "other:7b", "model": "other:7b", "context_length": 2048},
            {"name": "qwen3:latest", "model": "qwen3:latest", "size": 1, "context_length": 4096}
        ]});
        assert_eq!(loaded_context(&ps, "qwen3"), Some(4096));
        assert_eq!(loaded_context(&ps, "qwen3:latest"), Some(4096));
        assert_eq!(loaded_context(&ps, "gemma"), None);
        assert_eq!(loaded_context(&json!({"models": []}), "qwen3"), None);
    }
}
