//! Near-JSON a small model writes, repaired where the fix is unambiguous.

use serde_json::Value;

/// Parses `text` as JSON, else after removing trailing commas, else (when the text has no double
/// quote at all) after turning single quotes into double ones. `None` when none of these parse.
pub fn repair_json(text: &str) -> Option<Value> {
    let text = text.trim();
    if let Ok(value) = serde_json::from_str(text) {
        return Some(value);
    }
    let no_trailing = strip_trailing_commas(text);
    if let Ok(value) = serde_json::from_str(&no_trailing) {
        return Some(value);
    }
    // A chat template's HTML escaping (llama-cpp-python's Jinja): quotes as entities, and no
    // real quote anywhere, so the reading is unambiguous.
    if !text.contains('"') && (text.contains("&#34;") || text.contains("&quot;")) {
        let unescaped = text
            .replace("&#34;", "\"")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        if let Some(value) = repair_json(&unescaped) {
            return Some(value);
        }
    }
    if !text.contains('"') {
        let quoted = strip_trailing_commas(&text.replace('\'', "\""));
        if let Ok(value) = serde_json::from_str(&quoted) {
            return Some(value);
        }
    }
    None
}

/// Drops a comma that only whitespace separates from a closing `}` or `]`, outside strings.
fn strip_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, &c) in chars.iter().enumerate() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        if c == ',' {
            let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repairs_only_what_is_unambiguous() {
        assert_eq!(repair_json(r#"{"a": 1,}"#), Some(json!({"a": 1})));
        assert_eq!(
            repair_json(r#"{"a": [1, 2, ], }"#),
            Some(json!({"a": [1, 2]}))
        );
        assert_eq!(
            repair_json("{'path': 'a.txt'}"),
            Some(json!({"path": "a.txt"}))
        );
        assert_eq!(repair_json(r#"{"s": "x,}"}"#), Some(json!({"s": "x,}"})));
        // Mixed quotes: which quote ends the string is a guess; not repaired.
        assert_eq!(repair_json(r#"{'a': "it's"}"#), None);
        assert_eq!(repair_json("{nope"), None);
    }
}
