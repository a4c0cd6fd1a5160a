//! Tool names the model sees: `SERVER__TOOL`, in the alphabet every provider accepts
//! (`^[a-zA-Z0-9_-]{1,64}$`), unique across all servers, and the same from run to run.
//!
//! Names come from the servers and are untrusted: anything outside the alphabet becomes `_`.
//! A name that is too long, or that collides with another after sanitising, is cut and given a
//! suffix hashed from the server's position and both original names, so the result does not
//! depend on the order the servers answered in, and two distinct tools never share a name.

/// The longest name providers accept.
pub const MAX_NAME_LEN: usize = 64;

const SEPARATOR: &str = "__";
/// `_` and eight hex digits.
const SUFFIX_LEN: usize = 9;

/// Keeps `[a-zA-Z0-9_-]`, turns everything else into `_`; never empty.
pub fn sanitize(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "_".into()
    } else {
        cleaned
    }
}

/// One tool to name: which server (its index in the hub, and its configured name) and the name
/// the server gave it.
pub struct ToolRef<'a> {
    pub server_index: usize,
    pub server: &'a str,
    pub tool: &'a str,
}

/// The qualified name of each tool, in the same order.
pub fn qualify(tools: &[ToolRef<'_>]) -> Vec<String> {
    let plain: Vec<String> = tools
        .iter()
        .map(|t| format!("{}{SEPARATOR}{}", sanitize(t.server), sanitize(t.tool)))
        .collect();
    let mut count = std::collections::HashMap::<&str, usize>::new();
    for name in &plain {
        *count.entry(name.as_str()).or_default() += 1;
    }
    let mut names: Vec<String> = tools
        .iter()
        .zip(&plain)
        .map(|(t, name)| {
            if name.len() <= MAX_NAME_LEN && count[name.as_str()] == 1 {
                name.clone()
            } else {
                with_suffix(name, t, 0)
            }
        })
        .collect();
    // A cut name may still meet another name (a plain one, or a cut one whose hashes agree, one
    // chance in four billion); re-salt the later ones until every name is unique.
    let mut seen = std::collections::HashSet::new();
    for (i, t) in tools.iter().enumerate() {
        let mut salt = 1;
        while !seen.insert(names[i].clone()) {
            names[i] = with_suffix(&plain[i], t, salt);
            salt += 1;
        }
    }
    names
}

fn with_suffix(name: &str, t: &ToolRef<'_>, salt: u32) -> String {
    let mut key = Vec::new();
    key.extend_from_slice(&t.server_index.to_le_bytes());
    key.extend_from_slice(t.server.as_bytes());
    key.push(0);
    key.extend_from_slice(t.tool.as_bytes());
    key.extend_from_slice(&salt.to_le_bytes());
    let hash = fnv1a(&key);
    // `name` is ASCII after sanitising, so any byte index is a char boundary.
    let keep = name.len().min(MAX_NAME_LEN - SUFFIX_LEN);
    format!("{}_{:08x}", &name[..keep], (hash ^ (hash >> 32)) as u32)
}

/// FNV-1a: tiny, and stable across Rust versions and runs (std's hasher promises neither).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        (1..=MAX_NAME_LEN).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    fn refs<'a>(list: &'a [(usize, &'a str, &'a str)]) -> Vec<ToolRef<'a>> {
        list.iter()
            .map(|&(server_index, server, tool)| ToolRef {
                server_index,
                server,
                tool,
            })
            .collect()
    }

    #[test]
    fn plain_names_are_server_and_tool() {
        let names = qualify(&refs(&[
            (0, "everything", "get-sum"),
            (1, "fs", "read_file"),
        ]));
        assert_eq!(names, ["everything__get-sum", "fs__read_file"]);
    }

    #[test]
    fn foreign_characters_become_underscores() {
        let names = qualify(&refs(&[(0, "my server", "tool.v2/ü"), (0, "", "")]));
        assert_eq!(names[0], "my_server__tool_v2__");
        assert_eq!(names[1], "____");
        assert!(names.iter().all(|n| valid(n)));
    }

    #[test]
    fn long_names_are_cut_with_a_stable_suffix() {
        let long_tool = "t".repeat(100);
        let list = [(0, "server", long_tool.as_str()), (0, "server", "short")];
        let a = qualify(&refs(&list));
        let b = qualify(&refs(&list));
        assert_eq!(a, b, "deterministic");
        assert_eq!(a[0].len(), MAX_NAME_LEN);
        assert!(a[0].starts_with("server__ttt"));
        assert!(valid(&a[0]));
        assert_eq!(a[1], "server__short");
        // Known value: a change of hash would rename tools in saved sessions.
        assert_eq!(&a[0][MAX_NAME_LEN - SUFFIX_LEN..], "_bc44314f");
    }

    #[test]
    fn collisions_get_distinct_names_whatever_the_order() {
        let list = [(0, "s", "a.b"), (0, "s", "a_b"), (1, "s", "a_b")];
        let names = qualify(&refs(&list));
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), 3, "{names:?}");
        assert!(names.iter().all(|n| valid(n) && n.starts_with("s__a_b_")));
        let reversed: Vec<_> = list.iter().rev().copied().collect();
        let mut again = qualify(&refs(&reversed));
        again.reverse();
        assert_eq!(
            names, again,
            "a tool's name does not depend on its neighbours' order"
        );
    }

    #[test]
    fn a_plain_name_that_looks_like_a_cut_one_does_not_clash() {
        let long = "x".repeat(80);
        let first = qualify(&refs(&[(0, "s", long.as_str())]))[0].clone();
        let tool = first.trim_start_matches("s__").to_owned();
        let names = qualify(&refs(&[(0, "s", long.as_str()), (0, "s", tool.as_str())]));
        assert_ne!(names[0], names[1]);
        assert!(names.iter().all(|n| valid(n)));
    }
}
