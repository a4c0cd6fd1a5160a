//! A command's whole output, kept on disk when it is more than a face is streamed (a face gets
//! the first MiB as it comes, the model the head and the tail): the note at the cap names the
//! file, so the user can open all of it in an editor. Only the last few are kept, and each is
//! bounded.

use std::io::Write;
use std::path::{Path, PathBuf};

use tandem_model::{SessionId, ToolCallId, TurnId};

/// Output files kept in the data dir (older ones are removed when a new one starts).
const KEEP: usize = 20;
/// The most of one command's output kept; past it the file ends with a note.
const MAX_BYTES: usize = 64 * 1024 * 1024;

pub(crate) struct OutputFile {
    path: PathBuf,
    file: Option<std::fs::File>,
    written: usize,
    broken: bool,
}

impl OutputFile {
    /// The file for one tool call (created at the first write). The call id is the model's:
    /// only its safe characters make it into the name.
    pub(crate) fn new(
        data_dir: &Path,
        session_id: &SessionId,
        turn_id: &TurnId,
        call_id: &ToolCallId,
    ) -> Self {
        let safe = |s: &str| -> String {
            s.chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .take(64)
                .collect()
        };
        let name = format!(
            "{}-{}-{}.log",
            safe(session_id.as_str()),
            safe(turn_id.as_str()),
            safe(call_id.as_str())
        );
        Self {
            path: data_dir.join("outputs").join(name),
            file: None,
            written: 0,
            broken: false,
        }
    }

    /// Appends a piece of the output; a failure to write only means there is no file to open.
    pub(crate) fn write(&mut self, chunk: &str) {
        if self.broken || self.written >= MAX_BYTES {
            return;
        }
        if self.file.is_none() {
            match self.create() {
                Ok(file) => self.file = Some(file),
                Err(e) => {
                    tracing::debug!(
                        "keeping the command's output in {}: {e}",
                        self.path.display()
                    );
                    self.broken = true;
                    return;
                }
            }
        }
        let room = MAX_BYTES - self.written;
        let mut piece = chunk.to_string();
        let full = piece.len() > room;
        tandem_stdx::truncate_in_place(&mut piece, room);
        if full {
            piece.push_str(&format!(
                "\n[Tandem kept the first {} MiB of this output]\n",
                MAX_BYTES / (1024 * 1024)
            ));
        }
        self.written += piece.len();
        if let Some(file) = &mut self.file
            && file.write_all(piece.as_bytes()).is_err()
        {
            self.broken = true;
        }
        if full {
            self.written = MAX_BYTES;
        }
    }

    /// Where the output is, once something was written to it.
    pub(crate) fn path(&self) -> Option<&Path> {
        (self.file.is_some() && !self.broken).then_some(self.path.as_path())
    }

    /// All of it was shown: no file is needed.
    pub(crate) fn discard(self) {
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    fn create(&self) -> std::io::Result<std::fs::File> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        prune(dir, KEEP - 1);
        std::fs::File::create(&self.path)
    }
}

/// Leaves the `keep` newest `.log` files of `dir`.
fn prune(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut logs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if logs.len() <= keep {
        return;
    }
    logs.sort();
    for (_, path) in &logs[..logs.len() - keep] {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_whole_output_under_a_safe_name_and_only_the_newest_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = OutputFile::new(
            dir.path(),
            &"s1".into(),
            &TurnId::numbered(2),
            &"../../etc/passwd".into(),
        );
        assert!(out.path().is_none(), "nothing written, no file");
        out.write("line 1\n");
        out.write("line 2\n");
        let path = out.path().unwrap().to_path_buf();
        assert_eq!(path, dir.path().join("outputs").join("s1-t2-etcpasswd.log"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "line 1\nline 2\n");
        for i in 0..(KEEP + 5) {
            let mut other = OutputFile::new(
                dir.path(),
                &"s1".into(),
                &TurnId::numbered(3),
                &format!("c{i}").into(),
            );
            other.write("x");
        }
        let left = std::fs::read_dir(dir.path().join("outputs"))
            .unwrap()
            .count();
        assert_eq!(left, KEEP);
        let mut shown =
            OutputFile::new(dir.path(), &"s1".into(), &TurnId::numbered(4), &"c".into());
        shown.write("small");
        let small = shown.path().unwrap().to_path_buf();
        shown.discard();
        assert!(!small.exists());
    }
}
