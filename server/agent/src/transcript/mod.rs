//! Sessions on disk: one append-only JSONL file each.
//!
//! Every line is a whole record written with one `write` call, so a crash loses at most the line
//! being written. A line that can't be read on load (torn by a crash, or written by a newer
//! Tandem) is skipped, and counted and logged: never silently.

pub mod images;
mod record;

pub use record::{FORMAT_VERSION, Record, StoredEvent, StoredImage, StoredMessage};

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use time::OffsetDateTime;

/// An open transcript, appended to as the session goes.
#[derive(Debug)]
pub struct Transcript {
    path: PathBuf,
    file: Mutex<File>,
}

impl Transcript {
    /// Creates a new transcript; fails if one exists at `path`.
    pub fn create(path: &Path, first: &Record) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            tandem_stdx::private_dir(dir)?;
        }
        let file = tandem_stdx::private_file()
            .create_new(true)
            .append(true)
            .open(path)?;
        let transcript = Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        };
        transcript.append(first)?;
        Ok(transcript)
    }

    /// Opens an existing transcript for appending. A torn last line (a crash mid-write) is
    /// ended first, so the next record starts on a line of its own.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let mut file = OpenOptions::new().read(true).append(true).open(path)?;
        if ends_torn(&mut file)? {
            file.write_all(b"\n")?;
        }
        Ok(Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as one line, in one write.
    pub fn append(&self, record: &Record) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut file = tandem_stdx::lock(&self.file);
        file.write_all(&line)
    }
}

/// Whether the file's last byte is not a newline.
fn ends_torn(file: &mut File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    if file.metadata()?.len() == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// A transcript larger than this is refused, not read (a session this long could not be resumed
/// into any model's window anyway).
const MAX_TRANSCRIPT_BYTES: u64 = 512 * 1024 * 1024;
/// How much of a transcript's head `read_summary` reads.
const MAX_SUMMARY_BYTES: u64 = 1024 * 1024;

/// A transcript as read: the records that could be read, and how many lines could not.
#[derive(Debug, Default)]
pub struct Loaded {
    pub records: Vec<Record>,
    /// Lines skipped: torn by a crash, or not understood. Each is logged.
    pub unreadable: usize,
}

/// Reads every readable record of a transcript. Each line it can't read is logged with its
/// number and counted; a transcript written by a newer Tandem is an error.
pub fn read_records(path: &Path) -> std::io::Result<Loaded> {
    let (file, meta) = tandem_stdx::regular::open(path)?;
    if meta.len() > MAX_TRANSCRIPT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "{} is {} bytes, over the cap of {MAX_TRANSCRIPT_BYTES} bytes for a transcript: \
                 start a new session",
                path.display(),
                meta.len()
            ),
        ));
    }
    let reader = BufReader::new(file.take(MAX_TRANSCRIPT_BYTES));
    let mut loaded = Loaded::default();
    for (n, line) in reader.split(b'\n').enumerate() {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record>(&line) {
            Ok(Record::Session { format_version, .. }) if format_version > FORMAT_VERSION => {
                return Err(std::io::Error::other(format!(
                    "{} was written by a newer Tandem (transcript format {format_version}; this \
                     one reads up to {FORMAT_VERSION}): update Tandem to open it",
                    path.display()
                )));
            }
            Ok(record) => loaded.records.push(record),
            Err(e) => {
                loaded.unreadable += 1;
                tracing::warn!(
                    "{} line {}: skipped, it can't be read ({e})",
                    path.display(),
                    n + 1
                );
            }
        }
    }
    Ok(loaded)
}

/// What `listSessions` needs, read from the head of a transcript without loading all of it.
pub struct Summary {
    pub session_id: tandem_model::SessionId,
    pub root: PathBuf,
    pub additional_roots: Vec<PathBuf>,
    pub created_at: OffsetDateTime,
    pub title: String,
}

/// Reads the session line and the title, which come first in a transcript.
pub fn read_summary(path: &Path) -> Option<Summary> {
    let (file, _) = tandem_stdx::regular::open(path).ok()?;
    // The head only: a first line of gigabytes is no transcript of ours.
    let reader = BufReader::new(file.take(MAX_SUMMARY_BYTES));
    let mut summary: Option<Summary> = None;
    for line in reader.split(b'\n').take(64) {
        let line = line.ok()?;
        match serde_json::from_slice::<Record>(&line) {
            Ok(Record::Session {
                session_id,
                root,
                additional_roots,
                created_at,
                ..
            }) => {
                summary = Some(Summary {
                    session_id,
                    root,
                    additional_roots,
                    created_at,
                    title: String::new(),
                })
            }
            Ok(Record::Title { title }) => {
                if let Some(s) = summary.as_mut() {
                    s.title = title;
                }
                break;
            }
            _ => {}
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_last_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let t = Transcript::create(
            &path,
            &Record::Session {
                session_id: "s".into(),
                root: "/tmp".into(),
                additional_roots: Vec::new(),
                created_at: OffsetDateTime::UNIX_EPOCH,
                format_version: FORMAT_VERSION,
            },
        )
        .unwrap();
        t.append(&Record::Title {
            title: "hello".into(),
        })
        .unwrap();
        drop(t);
        // A crash mid-write leaves half a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"type":"message","turnId":"t1","at":"#)
            .unwrap();
        let loaded = read_records(&path).unwrap();
        assert_eq!((loaded.records.len(), loaded.unreadable), (2, 1));
        // Appending after the crash starts a fresh line: the new record is not lost.
        let t = Transcript::open(&path).unwrap();
        t.append(&Record::Title {
            title: "again".into(),
        })
        .unwrap();
        let loaded = read_records(&path).unwrap();
        assert_eq!((loaded.records.len(), loaded.unreadable), (3, 1));
        let summary = read_summary(&path).unwrap();
        assert_eq!(summary.title, "hello");
        assert_eq!(summary.session_id, "s");
    }
}
