//! Opening a file only if it is a regular file, without ever blocking: a FIFO, a socket or a
//! device the model planted (or named), or a repository committed, would otherwise hang a read
//! forever or fill memory. Every file Tandem reads (the tools' files, config files, rules files,
//! transcripts, undo copies, the MCP trust store) goes through here.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Why a path can't be read as a file.
#[derive(Debug)]
pub enum NotRegular {
    Missing,
    Directory,
    /// A FIFO, socket or device: named by what it is.
    Special(&'static str),
    /// Longer than the cap the caller set: refused before a byte is read.
    TooLarge {
        len: u64,
        max: u64,
    },
    Io(io::Error),
}

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing => write!(f, "it does not exist"),
            Self::Directory => write!(f, "it is a directory, not a file"),
            Self::Special(what) => write!(f, "it is {what}, not a regular file"),
            Self::TooLarge { len, max } => {
                write!(f, "it is {len} bytes, over the cap of {max} bytes")
            }
            Self::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<NotRegular> for io::Error {
    /// Keeps `NotFound` for a missing file; the rest become errors that say what the path is.
    fn from(e: NotRegular) -> Self {
        match e {
            NotRegular::Io(e) => e,
            NotRegular::Missing => io::Error::new(io::ErrorKind::NotFound, e.to_string()),
            NotRegular::TooLarge { .. } => {
                io::Error::new(io::ErrorKind::FileTooLarge, e.to_string())
            }
            _ => io::Error::new(io::ErrorKind::InvalidInput, e.to_string()),
        }
    }
}

/// Opens `path` for reading if it is a regular file. The open itself can't block (`O_NONBLOCK`:
/// opening a FIFO with no writer returns at once), and what was opened is checked, not what the
/// path named a moment earlier, so a swap between a check and the open changes nothing.
pub fn open(path: &Path) -> Result<(File, std::fs::Metadata), NotRegular> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
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
        return Err(NotRegular::Special(special_kind(&kind)));
    }
    Ok((file, meta))
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_kind: &std::fs::FileType) -> &'static str {
    "a special file"
}

/// Reads a regular file whole, at most `max` bytes: a longer file is refused from its size before
/// any read, and one that grows while read (or whose size the kernel does not know, as in
/// `/proc`) is cut off one byte past the cap and refused too.
pub fn read(path: &Path, max: u64) -> Result<(Vec<u8>, std::fs::Metadata), NotRegular> {
    let (file, meta) = open(path)?;
    if meta.len() > max {
        return Err(NotRegular::TooLarge {
            len: meta.len(),
            max,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(NotRegular::Io)?;
    if bytes.len() as u64 > max {
        return Err(NotRegular::TooLarge {
            len: bytes.len() as u64,
            max,
        });
    }
    Ok((bytes, meta))
}

/// [`read`] as UTF-8 text.
pub fn read_string(path: &Path, max: u64) -> Result<String, NotRegular> {
    let (bytes, _) = read(path, max)?;
    String::from_utf8(bytes).map_err(|_| {
        NotRegular::Io(io::Error::new(
            io::ErrorKind::InvalidData,
            "it is not UTF-8 text",
        ))
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string and a mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // On a thread, waited for with a bound: an open that blocks fails instead of hanging.
        let (sent, opened) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = sent.send(open(&fifo));
        });
        let opened = opened
            .recv_timeout(Duration::from_secs(60))
            .expect("opening a FIFO with no writer blocked");
        assert!(matches!(opened, Err(NotRegular::Special(what)) if what.contains("FIFO")));
        assert!(matches!(open(dir.path()), Err(NotRegular::Directory)));
        assert!(matches!(
            open(&dir.path().join("none")),
            Err(NotRegular::Missing)
        ));
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert_eq!(read(&dir.path().join("f"), 10).unwrap().0, b"x");
        assert!(matches!(
            read(&dir.path().join("f"), 0),
            Err(NotRegular::TooLarge { len: 1, max: 0 })
        ));
    }

    #[test]
    fn devices_and_huge_sparse_files_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let zero = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(
            read(&zero, 1024),
            Err(NotRegular::Special("a device"))
        ));
        let sparse = dir.path().join("sparse");
        let file = std::fs::File::create(&sparse).unwrap();
        file.set_len(2 << 30).unwrap();
        let e = read(&sparse, 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is 2147483648 bytes, over the cap of 1048576 bytes"
        );
    }
}
