//! Atomic file replacement: a temp file in the same directory, fsync, rename. A reader sees the
//! old bytes or the new ones, never a mix, and a crash leaves no half-written file.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path`, creating missing parent directories. `mode` gives the permission
/// bits; `None` keeps those of the file being replaced, or the usual `0o666` less the umask for a
/// new file.
pub(crate) fn write(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let parent = path
        .parent()
        .ok_or_else(|| std::io::Error::other("a file path needs a parent directory"))?;
    std::fs::create_dir_all(parent)?;
    let mode = match mode {
        Some(mode) => Some(mode),
        None => std::fs::metadata(path)
            .ok()
            .map(|m| super::text::permission_bits(&m)),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tandem-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Created with the final mode (less the umask), so a new file gets the usual mode rather
        // than the temp file's private 0o600.
        builder.permissions(std::fs::Permissions::from_mode(mode.unwrap_or(0o666)));
    }
    let mut temp = builder.tempfile_in(parent)?;
    temp.write_all(bytes)?;
    #[cfg(unix)]
    if let Some(mode) = mode {
        // The umask may have narrowed the mode at creation: set the exact bits.
        use std::os::unix::fs::PermissionsExt;
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    sync_dir(parent);
    Ok(())
}

/// Makes a rename or unlink in `dir` durable. Best effort: not every platform or file system can.
pub(crate) fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn keeps_mode_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
        write(&path, b"new", None).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o751);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn creates_parents_with_an_ordinary_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c.txt");
        write(&path, b"x", None).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        // The same mode an ordinary new file gets under this umask, not the temp file's 0o600.
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, b"x").unwrap();
        assert_eq!(mode(&path), mode(&plain));
    }
}
