//! What a command wrote to the workspace, as the kernel recorded it: with namespaces the launcher
//! mounts the workspace as an overlay (the real workspace below, an upper dir in Tandem's data
//! dir above; see [`crate::launch::CaptureMount`]), so every write lands in the upper dir and the
//! real workspace is untouched until the caller applies the changes; each additional root of the
//! workspace gets an overlay of its own, its dirs inside the command's ([`ROOTS`]). This module
//! owns that dir
//! and reads it back as a list of [`UpperEntry`]: files written (new or changed, with their
//! mode), paths deleted (overlayfs's whiteouts), directories made opaque (deleted and made
//! again), and whatever else appeared there (links, FIFOs, devices), which the caller reports
//! rather than applies.

use std::path::{Path, PathBuf};

/// The overlay's upper dir, inside a [`CaptureDir`].
pub const UPPER: &str = "upper";
/// The overlay's work dir (its scratch space; empty once the overlay is gone).
pub const WORK: &str = "work";

/// The folder of a capture dir holding one capture dir per additional root (`roots/0`, ...).
pub const ROOTS: &str = "roots";

/// Left in the capture dir by a launcher that could not mount the overlay (its reason inside):
/// the command wrote to the workspace itself.
pub const NOT_CAPTURED: &str = "not-captured";

/// The directory of one command's overlay: `upper` and `work`, on the same filesystem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureDir {
    path: PathBuf,
}

impl CaptureDir {
    /// A new, private directory for one command in `parent` (made if missing).
    pub fn create_in(parent: &Path) -> std::io::Result<CaptureDir> {
        create_private_dir_all(parent)?;
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        loop {
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = parent.join(format!("{}-{n}", std::process::id()));
            match create_private_dir(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
                Ok(()) => {
                    create_private_dir(&path.join(UPPER))?;
                    create_private_dir(&path.join(WORK))?;
                    return Ok(CaptureDir { path });
                }
            }
        }
    }

    /// The capture dir of the `n`th additional root, made inside this one (`roots/<n>`, with
    /// its own `upper` and `work`: an overlay needs its work dir on its upper dir's filesystem,
    /// and this keeps one command's writes in one place).
    pub fn create_root(&self, n: usize) -> std::io::Result<CaptureDir> {
        let roots = self.path.join(ROOTS);
        if !roots.is_dir() {
            create_private_dir(&roots)?;
        }
        let path = roots.join(n.to_string());
        create_private_dir(&path)?;
        create_private_dir(&path.join(UPPER))?;
        create_private_dir(&path.join(WORK))?;
        Ok(CaptureDir { path })
    }

    /// An existing capture dir (one kept after a failed apply).
    pub fn at(path: PathBuf) -> CaptureDir {
        CaptureDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn upper(&self) -> PathBuf {
        self.path.join(UPPER)
    }

    /// Why the launcher could not mount the overlay, if it could not.
    pub fn not_captured(&self) -> Option<String> {
        std::fs::read_to_string(self.path.join(NOT_CAPTURED)).ok()
    }

    /// Removes the directory and all in it. The overlay leaves its `work/work` with no
    /// permissions at all, so they are given back first.
    pub fn remove(&self) -> std::io::Result<()> {
        allow_removal(&self.path);
        match std::fs::remove_dir_all(&self.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
}

/// Gives the owner rights on every directory under `dir` (not following links), so that
/// `remove_dir_all` can empty them.
fn allow_removal(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let Ok(meta) = std::fs::symlink_metadata(dir) else {
            return;
        };
        if !meta.is_dir() {
            return;
        }
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            allow_removal(&entry.path());
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

fn create_private_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    // Made here, never found: an existing one is an error.
    builder.recursive(false);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)
}

fn create_private_dir_all(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)
}

/// One thing the upper dir holds, by its path relative to the workspace root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UpperEntry {
    /// A regular file the command created or changed (or only touched: compare with the real
    /// one). `mode`: its permission bits.
    File { path: PathBuf, mode: u32, size: u64 },
    /// A directory that exists in the upper dir (new, or copied up to hold a change).
    Dir { path: PathBuf },
    /// The command deleted whatever was at `path` (a whiteout).
    Deleted { path: PathBuf },
    /// The command deleted the directory at `path` and made it again: nothing of the real one
    /// below it survives except what the upper dir holds.
    Opaque { path: PathBuf },
    /// Something that is not a regular file or directory (`what`: a symbolic link, a FIFO, a
    /// socket, a device): never applied, reported.
    Special { path: PathBuf, what: &'static str },
}

impl UpperEntry {
    /// Its path relative to the root.
    pub fn path(&self) -> &Path {
        match self {
            UpperEntry::File { path, .. }
            | UpperEntry::Dir { path }
            | UpperEntry::Deleted { path }
            | UpperEntry::Opaque { path }
            | UpperEntry::Special { path, .. } => path,
        }
    }
}

/// Reads the upper dir of a finished command (every process of it gone), parents before
/// children; at most `max_entries` entries, else an error saying how many there were at least.
#[cfg(target_os = "linux")]
pub fn read_upper(upper: &Path, max_entries: usize) -> std::io::Result<Vec<UpperEntry>> {
    let mut out = Vec::new();
    walk(upper, Path::new(""), max_entries, &mut out)?;
    Ok(out)
}

#[cfg(target_os = "linux")]
fn walk(upper: &Path, rel: &Path, max: usize, out: &mut Vec<UpperEntry>) -> std::io::Result<()> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let mut entries: Vec<_> = std::fs::read_dir(upper.join(rel))?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if out.len() >= max {
            return Err(std::io::Error::other(format!(
                "the command changed more than {max} paths"
            )));
        }
        let path = rel.join(entry.file_name());
        let full = upper.join(&path);
        let meta = std::fs::symlink_metadata(&full)?;
        let kind = meta.file_type();
        if kind.is_char_device() && meta.rdev() == 0 {
            out.push(UpperEntry::Deleted { path });
        } else if kind.is_dir() {
            if xattr_is(&full, c"user.overlay.opaque", b"y") {
                out.push(UpperEntry::Opaque { path: path.clone() });
            } else {
                out.push(UpperEntry::Dir { path: path.clone() });
            }
            walk(upper, &path, max, out)?;
        } else if kind.is_file() {
            out.push(UpperEntry::File {
                path,
                mode: meta.mode() & 0o7777,
                size: meta.len(),
            });
        } else {
            let what = if kind.is_symlink() {
                "a symbolic link"
            } else if kind.is_fifo() {
                "a FIFO"
            } else if kind.is_socket() {
                "a socket"
            } else {
                "a device"
            };
            out.push(UpperEntry::Special { path, what });
        }
    }
    Ok(())
}

/// Whether `path` (not followed) has the extended attribute `name` with exactly `value`.
#[cfg(target_os = "linux")]
fn xattr_is(path: &Path, name: &std::ffi::CStr, value: &[u8]) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    let mut buf = [0u8; 8];
    // SAFETY: NUL-terminated strings and a buffer of the length passed.
    let n = unsafe {
        libc::lgetxattr(
            c_path.as_ptr(),
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    n >= 0 && &buf[..n as usize] == value
}
