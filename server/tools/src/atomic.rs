//! Atomic file replacement: a temp file in the same directory, fsync, rename. A reader sees the
//! old bytes or the new ones, never a mix, and a crash leaves no half-written file.
//!
//! In the workspace ([`write_in`], [`remove_in`]) every step goes through a directory handle
//! opened from the root without following links out of it (`cap-std`): a directory swapped for a
//! link to elsewhere after the path was checked makes the write fail, never land outside.

use std::io::Write;
use std::path::{Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use super::files;

/// The directory holding `path`, opened through `root`, and the file's name in it.
fn parent_in(root: &Path, path: &Path, create: bool) -> std::io::Result<(Dir, PathBuf)> {
    let rel = path.strip_prefix(root).map_err(|_| {
        std::io::Error::other(format!(
            "{} is not inside {}",
            path.display(),
            root.display()
        ))
    })?;
    let name = rel
        .file_name()
        .ok_or_else(|| std::io::Error::other("a file path needs a file name"))?;
    let root = Dir::open_ambient_dir(root, ambient_authority())?;
    let parent = rel.parent().unwrap_or(Path::new(""));
    let dir = if parent.as_os_str().is_empty() {
        root
    } else {
        if create {
            root.create_dir_all(parent)?;
        }
        root.open_dir(parent)?
    };
    Ok((dir, PathBuf::from(name)))
}

/// The size of the runs of zeros left as holes by [`write_sparse`].
const HOLE: usize = 64 * 1024;

/// Writes `bytes`, leaving each aligned run of [`HOLE`] zero bytes a hole: a sparse file a
/// command made stays as small on disk as it was in its capture, whatever its length says.
fn write_sparse(file: &mut (impl Write + std::io::Seek), bytes: &[u8]) -> std::io::Result<()> {
    if bytes.len() < 2 * HOLE {
        return file.write_all(bytes);
    }
    let mut skipped = false;
    for chunk in bytes.chunks(HOLE) {
        if chunk.len() == HOLE && chunk.iter().all(|b| *b == 0) {
            file.seek(std::io::SeekFrom::Current(HOLE as i64))?;
            skipped = true;
        } else {
            file.write_all(chunk)?;
            skipped = false;
        }
    }
    if skipped {
        // A trailing hole: the length comes from writing its last byte.
        file.seek(std::io::SeekFrom::Current(-1))?;
        file.write_all(&[0])?;
    }
    Ok(())
}

/// [`write`] for a file inside the workspace `root`, race-free: see the module's documentation.
pub(crate) fn write_in(
    root: &Path,
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> std::io::Result<()> {
    let (dir, name) = parent_in(root, path, true)?;
    let mode = match mode {
        Some(mode) => Some(mode),
        None => dir
            .symlink_metadata(&name)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| files::cap_mode_of(&m.permissions())),
    };
    let temp = PathBuf::from(format!(
        ".tandem-{}-{:016x}.tmp",
        std::process::id(),
        fastrand::u64(..)
    ));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    files::create_with_mode(&mut options, mode.unwrap_or(0o666));
    let mut file = dir.open_with(&temp, &options)?;
    let written = (|| {
        write_sparse(&mut file, bytes)?;
        if let Some(mode) = mode {
            // The umask may have narrowed the mode at creation: set the exact bits.
            files::set_mode(&file, mode)?;
        }
        file.sync_all()?;
        dir.rename(&temp, &dir, &name)
    })();
    if written.is_err() {
        let _ = dir.remove_file(&temp);
        return written;
    }
    let _ = dir.open(".").and_then(|d| d.sync_all());
    Ok(())
}

/// Removes the temp files a write left behind when its process was killed mid-write
/// (`.tandem-PID-N.tmp` whose process is gone), anywhere in the workspace the walk reaches; how
/// many were removed. Those of live processes are writes in progress and stay.
pub(crate) fn remove_stale_temp_files(root: &Path) -> usize {
    let mut removed = 0;
    let walk = super::walk::builder(root).hidden(false).build();
    for entry in walk.flatten() {
        let Some(name) = entry.file_name().to_str() else {
            continue;
        };
        let Some(pid) = stale_temp_pid(name) else {
            continue;
        };
        if super::process::process_alive(pid) || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if let Some(parent) = entry.path().parent()
            && remove_in(root, entry.path()).is_ok()
            && parent.starts_with(root)
        {
            removed += 1;
        }
    }
    removed
}

/// The process id in a temp file's name `.tandem-PID-HEX16.tmp`.
fn stale_temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(".tandem-")?.strip_suffix(".tmp")?;
    let (pid, hex) = rest.split_once('-')?;
    (hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then_some(())?;
    pid.parse().ok()
}

/// Deletes a file inside the workspace `root`, race-free as [`write_in`]. A missing file is fine.
pub(crate) fn remove_in(root: &Path, path: &Path) -> std::io::Result<()> {
    let (dir, name) = match parent_in(root, path, false) {
        Ok(found) => found,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    match dir.remove_file(&name) {
        Ok(()) => {
            let _ = dir.open(".").and_then(|d| d.sync_all());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

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
            .map(|m| files::mode_of(&m.permissions())),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tandem-").suffix(".tmp");
    // Created with the final mode (less the umask), so a new file gets the usual mode rather
    // than the temp file's private 0o600.
    files::temp_with_mode(&mut builder, mode.unwrap_or(0o666));
    let mut temp = builder.tempfile_in(parent)?;
    temp.write_all(bytes)?;
    if let Some(mode) = mode {
        // The umask may have narrowed the mode at creation: set the exact bits.
        files::std_set_mode(temp.as_file(), mode)?;
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

    #[test]
    fn temp_files_of_dead_processes_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        // A pid that can't be running: above the kernel's maximum.
        let dead = root.join("src/.tandem-99999999-00000000deadbeef.tmp");
        let live = root.join(format!(
            ".tandem-{}-0123456789abcdef.tmp",
            std::process::id()
        ));
        let other = root.join(".tandem-notes.tmp");
        for f in [&dead, &live, &other] {
            std::fs::write(f, "x").unwrap();
        }
        assert_eq!(remove_stale_temp_files(&root), 1);
        assert!(!dead.exists() && live.exists() && other.exists());
    }
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

    /// A sparse file (a command's `truncate -s`, a disk image) is written with its holes: on
    /// disk it takes what its data takes, not its length.
    #[test]
    fn long_runs_of_zeros_stay_holes() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let path = root.join("disk.img");
        let mut bytes = vec![0u8; 64 * 1024 * 1024];
        bytes[10] = 1;
        bytes[40 * 1024 * 1024] = 2;
        write_in(&root, &path, &bytes, Some(0o644)).unwrap();
        assert!(std::fs::read(&path).unwrap() == bytes, "the same bytes");
        let on_disk = std::fs::metadata(&path).unwrap().blocks() * 512;
        assert!(on_disk < 1024 * 1024, "{on_disk} bytes on disk");
        // Ending in a hole keeps the length.
        let tail = vec![0u8; 3 * HOLE];
        write_in(&root, &path, &tail, None).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), tail.len() as u64);
        assert!(std::fs::read(&path).unwrap() == tail);
    }
}
