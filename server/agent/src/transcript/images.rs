//! The images of a session's user messages (format 5), each in a private file beside the
//! transcript, `<id>.images/<sha256>.<ext>`, not inline: a transcript is read whole to resume a
//! session and its head to list sessions, and one screenshot in base64 is megabytes on one line.
//! The file is named by its SHA-256, so the same image attached twice is stored once and a file
//! changed on disk is noticed on load.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use tandem_model::{Image, ImageType};

use super::record::StoredImage;

/// The folder of a transcript's images.
pub fn dir_of(transcript: &Path) -> PathBuf {
    transcript.with_extension("images")
}

/// The SHA-256 of the bytes, in lowercase hex.
pub fn digest(bytes: &[u8]) -> String {
    crate::trust::hex(&Sha256::digest(bytes))
}

fn file_of(dir: &Path, sha256: &str, kind: ImageType) -> PathBuf {
    dir.join(format!("{sha256}.{}", kind.extension()))
}

/// Writes the images not stored yet, each atomically (a temp file renamed), readable by the user
/// alone.
pub fn save(dir: &Path, images: &[Image]) -> std::io::Result<()> {
    if images.is_empty() {
        return Ok(());
    }
    tandem_stdx::private_dir(dir)?;
    for image in images {
        let path = file_of(dir, &digest(&image.data), image.kind);
        if path.is_file() {
            continue;
        }
        let temp = dir.join(format!(".{}.tmp", uuid::Uuid::new_v4().simple()));
        let written = (|| {
            let mut file = tandem_stdx::private_file()
                .write(true)
                .create_new(true)
                .open(&temp)?;
            file.write_all(&image.data)?;
            file.sync_all()?;
            std::fs::rename(&temp, &path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written?;
    }
    Ok(())
}

/// An image back from its file, checked again (its digest and its kind); why not otherwise.
pub fn load(dir: &Path, stored: &StoredImage) -> Result<Image, String> {
    let kind = ImageType::from_mime(&stored.mime_type)
        .ok_or_else(|| format!("its type {:?} is not an image type", stored.mime_type))?;
    // The name comes from the transcript: only a digest may name a file.
    if stored.sha256.len() != 64 || !stored.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("its name {:?} is not a SHA-256", stored.sha256));
    }
    let path = file_of(dir, &stored.sha256, kind);
    let (bytes, _) = tandem_stdx::regular::read(&path, crate::images::MAX_IMAGE_BYTES as u64)
        .map_err(|e| format!("{} can't be read: {e}", path.display()))?;
    if digest(&bytes) != stored.sha256 {
        return Err(format!("{} changed since it was attached", path.display()));
    }
    crate::images::from_bytes(&path.display().to_string(), Some(kind.mime()), bytes)
        .map_err(|e| e.0)
}

/// Copies the files of `images` from one transcript's folder to another's (a fork's), each
/// linked where the file system allows, else copied. A file already there is kept; one missing
/// from `from` is skipped (its message loads without it there too, as it does here).
pub fn copy(from: &Path, to: &Path, images: &[StoredImage]) -> std::io::Result<()> {
    for stored in images {
        let Some(kind) = ImageType::from_mime(&stored.mime_type) else {
            continue;
        };
        // The name comes from the transcript: only a digest may name a file.
        if stored.sha256.len() != 64 || !stored.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let source = file_of(from, &stored.sha256, kind);
        let target = file_of(to, &stored.sha256, kind);
        if !source.is_file() || target.exists() {
            continue;
        }
        tandem_stdx::private_dir(to)?;
        if std::fs::hard_link(&source, &target).is_err() {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::StoredMessage;
    use tandem_model::Message;

    const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x01D\x00;";

    fn message() -> Message {
        let image = crate::images::from_bytes("i", None, GIF.to_vec()).unwrap();
        Message::User {
            content: "look".into(),
            images: vec![image.clone(), image],
        }
    }

    #[test]
    fn images_are_stored_once_beside_the_transcript_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let images = dir_of(&dir.path().join("s.jsonl"));
        let message = message();
        let Message::User {
            images: attached, ..
        } = &message
        else {
            unreachable!()
        };
        save(&images, attached).unwrap();
        let files: Vec<_> = std::fs::read_dir(&images).unwrap().flatten().collect();
        assert_eq!(files.len(), 1, "the same image twice is one file");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&images), 0o700);
            assert_eq!(mode(&files[0].path()), 0o600);
        }
        let stored = StoredMessage::from(&message);
        let line = serde_json::to_string(&stored).unwrap();
        assert!(line.contains(&digest(GIF)), "{line}");
        assert!(line.len() < 400, "no bytes inline: {line}");
        let back: StoredMessage = serde_json::from_str(&line).unwrap();
        assert_eq!(back.into_message(&images), message);
    }

    #[test]
    fn a_lost_or_changed_image_is_named_to_the_model() {
        let dir = tempfile::tempdir().unwrap();
        let images = dir_of(&dir.path().join("s.jsonl"));
        let message = message();
        let stored = StoredMessage::from(&message);
        // Never saved: missing.
        let Message::User {
            content,
            images: got,
        } = stored.clone().into_message(&images)
        else {
            unreachable!()
        };
        assert!(got.is_empty());
        assert!(
            content.contains("[an attached image (image/gif, 1x1) is no longer available"),
            "{content}"
        );
        // Changed after it was stored.
        std::fs::create_dir_all(&images).unwrap();
        std::fs::write(
            images.join(format!("{}.gif", digest(GIF))),
            b"GIF89a changed",
        )
        .unwrap();
        let Message::User {
            content,
            images: got,
        } = stored.into_message(&images)
        else {
            unreachable!()
        };
        assert!(got.is_empty());
        assert!(
            content.contains("changed since it was attached"),
            "{content}"
        );
        // A name that is not a digest never names a file.
        let forged = StoredImage {
            mime_type: "image/gif".into(),
            width: 1,
            height: 1,
            sha256: "../../secret".into(),
        };
        assert!(
            load(&images, &forged)
                .unwrap_err()
                .contains("is not a SHA-256")
        );
    }
}
