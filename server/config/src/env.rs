//! Settings from the environment: `TANDEM_*`, then `OPENAI_*`.

use tandem_provider::{ApiKey, ProviderOptions, ToolMode};

/// `TANDEM_BASE_URL`, `TANDEM_MODEL`, `TANDEM_API_KEY`, then `OPENAI_BASE_URL`,
/// `OPENAI_API_KEY` (with only an OpenAI key set, OpenAI's own endpoint).
pub fn provider_from_env() -> ProviderOptions {
    from_lookup(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
}

fn from_lookup(get: impl Fn(&str) -> Option<String>) -> ProviderOptions {
    let tandem_key = get("TANDEM_API_KEY");
    let openai_key = get("OPENAI_API_KEY");
    let base_url = get("TANDEM_BASE_URL")
        .or_else(|| get("OPENAI_BASE_URL"))
        .or_else(|| openai_key.as_ref().map(|_| OPENAI_URL.to_string()));
    ProviderOptions {
        base_url,
        model: get("TANDEM_MODEL"),
        api_key: tandem_key.or(openai_key).map(ApiKey::new),
        api: None,
        context_window: get("TANDEM_CONTEXT_WINDOW").and_then(|v| v.trim().parse().ok()),
        tool_mode: get("TANDEM_TOOL_MODE").and_then(|v| parse_tool_mode(&v).ok()),
    }
}

/// `native`, `text` or `auto`.
pub fn parse_tool_mode(s: &str) -> Result<ToolMode, String> {
    match s.trim() {
        "native" => Ok(ToolMode::Native),
        "text" => Ok(ToolMode::Text),
        "auto" => Ok(ToolMode::Auto),
        other => Err(format!(
            "unknown tool mode {other:?}: use native, text or auto"
        )),
    }
}

const OPENAI_URL: &str = "https://api.openai.com/v1";

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> ProviderOptions {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn tandem_variables_win_over_openai_ones() {
        let o = env(&[
            ("TANDEM_BASE_URL", "http://a/v1"),
            ("OPENAI_BASE_URL", "http://b/v1"),
            ("TANDEM_API_KEY", "k1"),
            ("OPENAI_API_KEY", "k2"),
        ]);
        assert_eq!(o.base_url.as_deref(), Some("http://a/v1"));
        assert_eq!(o.api_key.unwrap().expose(), "k1");
    }

    #[test]
    fn window_and_tool_mode() {
        let o = env(&[
            ("TANDEM_CONTEXT_WINDOW", "4096"),
            ("TANDEM_TOOL_MODE", "text"),
        ]);
        assert_eq!(o.context_window, Some(4096));
        assert_eq!(o.tool_mode, Some(ToolMode::Text));
    }

    #[test]
    fn an_openai_key_alone_means_openai() {
        let o = env(&[("OPENAI_API_KEY", "k2")]);
        assert_eq!(o.base_url.as_deref(), Some(OPENAI_URL));
    }

    #[test]
    fn nothing_set_leaves_the_endpoint_to_discovery() {
        let o = env(&[]);
        assert!(o.base_url.is_none() && o.model.is_none() && o.api_key.is_none());
    }

    #[test]
    fn editor_options_win_field_by_field() {
        let editor = ProviderOptions {
            model: Some("m".into()),
            ..Default::default()
        };
        let merged = editor.or(env(&[
            ("TANDEM_BASE_URL", "http://a/v1"),
            ("TANDEM_MODEL", "x"),
        ]));
        assert_eq!(merged.model.as_deref(), Some("m"));
        assert_eq!(merged.base_url.as_deref(), Some("http://a/v1"));
    }
}
