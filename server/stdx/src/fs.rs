use std::path::Path;

/// Creates `dir` (and its missing parents) readable by the user alone (0700), and narrows it
/// to 0700 if it exists: it will hold transcripts and copies of files, which may be secret.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)
}

/// Options to create (or append to) a file readable by the user alone (0600).
pub fn private_file() -> std::fs::OpenOptions {
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn private_dirs_and_files_are_the_users_alone() {
        let base = tempfile_dir();
        let dir = base.join("a/b");
        private_dir(&dir).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let file = dir.join("f");
        private_file()
            .create(true)
            .append(true)
            .open(&file)
            .unwrap();
        assert_eq!(mode(&file), 0o600);
        std::fs::remove_dir_all(&base).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("stdx-{}-{}", std::process::id(), line!()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }
}
