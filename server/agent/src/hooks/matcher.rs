//! Which tools a hook is for, as Claude Code reads its `matcher`: empty or `*` is every tool; a
//! plain name or names joined by `|` (`Edit|Write`) match exactly; anything else is a regular
//! expression searched in the name (`mcp__github__.*`, `Notebook.*`). A tool is matched by its
//! Claude name and by Tandem's own (`Bash` and `execute_command` alike).

use regex::Regex;

/// Whether the matcher picks every tool.
pub fn matches_all(matcher: &str) -> bool {
    let m = matcher.trim();
    m.is_empty() || m == "*"
}

fn plain(matcher: &str) -> bool {
    matcher
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
}

/// The matcher checked (a bad regular expression is the config's error, with why).
pub fn check(matcher: &str) -> Result<(), String> {
    if matches_all(matcher) || plain(matcher.trim()) {
        return Ok(());
    }
    Regex::new(matcher.trim())
        .map(drop)
        .map_err(|e| format!("the matcher `{matcher}` is not a valid regular expression: {e}"))
}

/// Whether the matcher picks a tool known by these names.
pub fn matches(matcher: &str, names: &[&str]) -> bool {
    let m = matcher.trim();
    if matches_all(m) {
        return true;
    }
    if plain(m) {
        return m.split('|').any(|alt| names.contains(&alt));
    }
    // Checked when the config was read; one that fails here matches nothing.
    match Regex::new(m) {
        Ok(re) => names.iter().any(|n| re.is_match(n)),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_read_as_claude_code_reads_them() {
        assert!(matches("", &["Bash"]));
        assert!(matches("*", &["Read"]));
        assert!(matches("Edit|Write", &["Write", "write_to_file"]));
        assert!(!matches("Edit|Write", &["WriteNotebook"]));
        assert!(!matches("Bash", &["BashOutput"]));
        assert!(matches("execute_command", &["Bash", "execute_command"]));
        assert!(matches("mcp__github__.*", &["mcp__github__create_issue"]));
        assert!(!matches("mcp__github__.*", &["mcp__gitlab__create_issue"]));
        assert!(check("mcp__(").is_err());
        assert!(check("Edit|Write").is_ok());
    }
}
