//! What a terminal user reads when no model server is set and none was found: what was tried,
//! the three ways to fix it with the exact lines, and where to look further.

use std::path::Path;

/// The guide, for `tandem chat` and `tandem exec`. `config` is the user's config file.
pub fn no_server_guide(config: Option<&Path>) -> String {
    let tried: Vec<String> = tandem_provider::LOCAL_SERVERS
        .iter()
        .map(|s| {
            format!(
                "  {} ({}): no answer; start it with `{}`",
                s.url, s.name, s.start
            )
        })
        .collect();
    let config = config
        .map(|p| p.display().to_string())
        .or_else(|| {
            tandem_config::file::user_config_path(None).map(|(p, _)| p.display().to_string())
        })
        .unwrap_or_else(|| "the file `--config FILE` names".into());
    format!(
        "No model server is set, and none answered on this machine. Tried:\n{tried}\n\n\
         Fix it one of three ways:\n\
         1. Start one of the local servers above and load a model.\n\
         2. Point Tandem at a server for this shell:\n     \
         export TANDEM_BASE_URL=http://127.0.0.1:8080/v1\n     \
         export TANDEM_MODEL=your-model\n\
         3. Or for good, in {config}:\n     \
         [provider]\n     \
         base_url = \"http://127.0.0.1:8080/v1\"\n     \
         model = \"your-model\"\n\n\
         `tandem doctor` checks the setup and says what is wrong.\n",
        tried = tried.join("\n"),
    )
}

/// The user's config file, where the guide says to write.
pub fn user_config_file(explicit: Option<&Path>) -> Option<std::path::PathBuf> {
    tandem_config::file::user_config_path(explicit).map(|(path, _)| path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_names_what_was_tried_and_the_exact_lines() {
        let guide = no_server_guide(Some(Path::new("/home/me/.config/tandem/config.toml")));
        for needle in [
            "http://127.0.0.1:1234/v1 (LM Studio)",
            "http://127.0.0.1:11434/v1 (Ollama)",
            "http://127.0.0.1:8080/v1 (llama.cpp)",
            "llama-server -m MODEL.gguf --jinja",
            "export TANDEM_BASE_URL=",
            "in /home/me/.config/tandem/config.toml:",
            "[provider]",
            "base_url = \"",
            "tandem doctor",
        ] {
            assert!(guide.contains(needle), "{needle:?} missing:\n{guide}");
        }
        assert!(!guide.contains("initializationOptions"), "{guide}");
    }
}
