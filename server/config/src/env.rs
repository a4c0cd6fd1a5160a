//! Settings from the environment: `TANDEM_*`, then `OPENAI_*`.

use tandem_provider::{ApiKey, ProviderOptions, ToolMode};

/// What the environment says of the provider, and the variable the key came from (kept out of
/// commands' environment).
#[derive(Debug, Default)]
pub struct EnvProvider {
    pub options: ProviderOptions,
    pub key_var: Option<&'static str>,
    /// Variables set to something that can't be used, said and ignored.
    pub problems: Vec<String>,
}

/// `TANDEM_BASE_URL` with `TANDEM_API_KEY`, else `OPENAI_BASE_URL` with `OPENAI_API_KEY` (an
/// OpenAI key alone means OpenAI's own endpoint); `TANDEM_MODEL`. Each key goes only with the URL
/// of its own family: `TANDEM_API_KEY` is never sent to `OPENAI_BASE_URL`, nor to a server
/// found by discovery.
pub fn provider_from_env() -> EnvProvider {
    let env = from_lookup(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()));
    // Not fatal (the rest of the settings work), but never silent: the sidecar's log (the
    // editor's output panel, or the terminal) says it.
    for problem in &env.problems {
        tracing::warn!("{problem}");
    }
    env
}

fn from_lookup(get: impl Fn(&str) -> Option<String>) -> EnvProvider {
    let model = get("TANDEM_MODEL");
    let (base_url, key, key_var) = if let Some(url) = get("TANDEM_BASE_URL") {
        (Some(url), get("TANDEM_API_KEY"), "TANDEM_API_KEY")
    } else {
        let key = get("OPENAI_API_KEY");
        let url = get("OPENAI_BASE_URL").or_else(|| key.as_ref().map(|_| OPENAI_URL.to_string()));
        (url, key, "OPENAI_API_KEY")
    };
    let key_var = key.as_ref().map(|_| key_var);
    let mut problems = Vec::new();
    let context_window = get("TANDEM_CONTEXT_WINDOW").and_then(|v| match v.trim().parse::<u64>() {
        Ok(n) if n > 0 => Some(n),
        _ => {
            problems.push(format!(
                "TANDEM_CONTEXT_WINDOW={v:?} is not a number of tokens, so it is ignored: set it \
                 to the window your server loaded (e.g. 8192), or unset it to use what the server says"
            ));
            None
        }
    });
    let tool_mode = get("TANDEM_TOOL_MODE").and_then(|v| match parse_tool_mode(&v) {
        Ok(mode) => Some(mode),
        Err(e) => {
            problems.push(format!("TANDEM_TOOL_MODE: {e}; it is ignored (auto)"));
            None
        }
    });
    let max_output_tokens =
        get("TANDEM_MAX_OUTPUT_TOKENS").and_then(|v| match v.trim().parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => {
                problems.push(format!(
                    "TANDEM_MAX_OUTPUT_TOKENS={v:?} is not a number of tokens, so it is ignored: \
                     set it to the most tokens one answer may take (0 sends no limit)"
                ));
                None
            }
        });
    EnvProvider {
        options: ProviderOptions {
            base_url,
            model,
            api_key: key.map(ApiKey::new),
            api: None,
            context_window,
            tool_mode,
            max_output_tokens,
        },
        key_var,
        problems,
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
        from_lookup(|k| map.get(k).cloned()).options
    }

    #[test]
    fn unusable_values_are_said_and_ignored() {
        let map: HashMap<String, String> =
            [("TANDEM_CONTEXT_WINDOW", "8k"), ("TANDEM_TOOL_MODE", "xml")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let read = from_lookup(|k| map.get(k).cloned());
        assert_eq!(read.options.context_window, None);
        assert_eq!(read.options.tool_mode, None);
        assert!(
            read.problems[0].contains("TANDEM_CONTEXT_WINDOW=\"8k\""),
            "{:?}",
            read.problems
        );
        assert!(
            read.problems[1].contains("unknown tool mode \"xml\""),
            "{:?}",
            read.problems
        );
        assert_eq!(
            env(&[("TANDEM_CONTEXT_WINDOW", " 4096 ")]).context_window,
            Some(4096)
        );
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

    #[test]
    fn a_key_goes_only_with_the_url_of_its_source() {
        // The editor names a server and no key: the environment's OpenAI key stays home.
        let editor = ProviderOptions {
            base_url: Some("http://editor/v1".into()),
            ..Default::default()
        };
        let merged = editor.or(env(&[("OPENAI_API_KEY", "sk-secret")]));
        assert_eq!(merged.base_url.as_deref(), Some("http://editor/v1"));
        assert!(merged.api_key.is_none());
        // A TANDEM key is not sent to an OPENAI base URL, nor left for discovery.
        let o = env(&[("TANDEM_API_KEY", "k1"), ("OPENAI_BASE_URL", "http://b/v1")]);
        assert_eq!(o.base_url.as_deref(), Some("http://b/v1"));
        assert!(o.api_key.is_none());
        let alone = ProviderOptions {
            api_key: Some(ApiKey::new("k")),
            ..Default::default()
        }
        .or(env(&[]));
        assert!(alone.api_key.is_none() && alone.base_url.is_none());
        // The variable it came from is known, to keep it out of commands.
        let map: HashMap<String, String> =
            [("OPENAI_API_KEY".to_string(), "k2".to_string())].into();
        assert_eq!(
            from_lookup(|k| map.get(k).cloned()).key_var,
            Some("OPENAI_API_KEY")
        );
    }
}
