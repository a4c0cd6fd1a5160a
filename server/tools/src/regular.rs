//! Opening a file only if it is a regular file, without ever blocking: a FIFO, a socket or a
//! device the model planted (or named) would otherwise hang a read forever.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Why a path can't be read as a file.
#[derive(Debug)]
pub(crate) enum NotRegular {
    Missing,
    Directory,
    /// A FIFO, socket or device: named by what it is.
    Special(&'static str),
    Io(io::Error),
}

/// Opens `path` for reading if it is a regular file. The open itself can't block (`O_NONBLOCK`:
/// opening a FIFO with no writer returns at once), and what was opened is checked, not what the
/// path named a moment earlier, so a swap between a check and the open changes nothing.
pub(crate) fn open(path: &Path) -> Result<(File, std::fs::Metadata), NotRegular> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    super::files::open_without_blocking(&mut options);
    let file = options.open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => NotRegular::Missing,
        // Windows refuses to open a directory as a file: say what it is.
        _ if path.is_dir() => NotRegular::Directory,
        _ => NotRegular::Io(e),
    })?;
    let meta = file.metadata().map_err(NotRegular::Io)?;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(NotRegular::Directory);
    }
    if !kind.is_file() {
        return Err(NotRegular::Special(super::files::special_kind(kind)));
    }
    Ok((file, meta))
}

/// Reads a regular file whole, at most `max` bytes (more is an `InvalidData` error naming the size).
pub(crate) fn read(path: &Path, max: u64) -> Result<(Vec<u8>, std::fs::Metadata), NotRegular> {
    let (file, meta) = open(path)?;
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(NotRegular::Io)?;
    if bytes.len() as u64 > max {
        return Err(NotRegular::Io(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {max} bytes"),
        )));
    }
    Ok((bytes, meta))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string and a mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let start = Instant::now();
        assert!(matches!(open(&fifo), Err(NotRegular::Special(what)) if what.contains("FIFO")));
        assert!(start.elapsed() < Duration::from_secs(1));
        assert!(matches!(open(dir.path()), Err(NotRegular::Directory)));
        assert!(matches!(
            open(&dir.path().join("none")),
            Err(NotRegular::Missing)
        ));
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert_eq!(read(&dir.path().join("f"), 10).unwrap().0, b"x");
        assert!(read(&dir.path().join("f"), 0).is_err());
    }
}
