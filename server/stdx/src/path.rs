use std::path::Path;

/// `path` relative to `root` with `/` separators, `.` for the root itself, and `path` as it is
/// when it is not under `root`: how the user and the model are shown a workspace path.
pub fn display_relative(path: &Path, root: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => slash_path(rel),
        Err(_) => path.display().to_string(),
    }
}

/// A relative path with `/` between its components, on every platform.
pub fn slash_path(rel: &Path) -> String {
    if cfg!(unix) {
        return rel.to_string_lossy().into_owned();
    }
    let parts: Vec<_> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_to_the_root() {
        let root = Path::new("/w");
        assert_eq!(display_relative(Path::new("/w/src/a.rs"), root), "src/a.rs");
        assert_eq!(display_relative(Path::new("/w"), root), ".");
        assert_eq!(display_relative(Path::new("/x/a"), root), "/x/a");
    }
}
