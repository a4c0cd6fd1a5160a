//! Images the user attaches to a prompt: each checked before it joins the conversation (its
//! kind by its magic bytes, whatever type was declared; its size and dimensions against caps),
//! from base64 (the editor's protocols) or from a file in the workspace (`@path` in the
//! terminal). Only the user attaches images: no tool returns one, so the model cannot make
//! Tandem send a file's bytes anywhere.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use tandem_model::{Image, ImageType};
use tandem_tools::Workspace;

/// The most bytes of one image: Anthropic's per-image limit, the smallest of the APIs'.
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// The most images in one prompt.
pub const MAX_IMAGES: usize = 10;

/// The most bytes of a prompt's images together.
pub const MAX_TOTAL_BYTES: usize = 20 * 1024 * 1024;

/// The longest side of an image, in pixels: Anthropic refuses more than 8,000.
pub const MAX_SIDE: u32 = 8000;

/// Why an attached image was refused; the message names the image and gives the numbers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ImageError(pub String);

/// An image as a protocol carries it: a declared media type and base64 (a `data:` URL is taken
/// too). `label` names it in errors (`image 2`).
pub fn from_base64(label: &str, mime_type: &str, data: &str) -> Result<Image, ImageError> {
    let data = data
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(";base64,").map(|(_, d)| d))
        .unwrap_or(data);
    // Refused before decoding: the decoded size is known from the length.
    let decoded_len = data.len() / 4 * 3;
    if decoded_len > MAX_IMAGE_BYTES + 3 {
        return Err(too_large(label, decoded_len as u64));
    }
    let bytes = STANDARD
        .decode(data.trim())
        .map_err(|e| ImageError(format!("{label} is not valid base64 ({e})")))?;
    from_bytes(label, Some(mime_type), bytes)
}

/// Checks bytes: one of the four kinds by their magic bytes (and the kind declared, if any),
/// within the size cap, with a header that gives sane dimensions.
pub fn from_bytes(
    label: &str,
    declared: Option<&str>,
    bytes: Vec<u8>,
) -> Result<Image, ImageError> {
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(too_large(label, bytes.len() as u64));
    }
    let kind = sniff(&bytes).ok_or_else(|| {
        ImageError(format!(
            "{label} is not a PNG, JPEG, WebP or GIF image (its first bytes are {}); those are \
             the kinds models take",
            first_bytes(&bytes)
        ))
    })?;
    if let Some(declared) = declared {
        match ImageType::from_mime(declared) {
            None => {
                return Err(ImageError(format!(
                    "{label} is declared as {declared:?}, which models don't take: send \
                     image/png, image/jpeg, image/webp or image/gif"
                )));
            }
            Some(said) if said != kind => {
                return Err(ImageError(format!(
                    "{label} is declared as {} but its bytes are {}: send it with its real type",
                    said.mime(),
                    kind.mime()
                )));
            }
            Some(_) => {}
        }
    }
    let size = imagesize::blob_size(&bytes).map_err(|e| {
        ImageError(format!(
            "{label} looks like {} but its header can't be read ({e}): the file is damaged or \
             cut short",
            kind.mime()
        ))
    })?;
    let (width, height) = (size.width, size.height);
    if width == 0 || height == 0 || width > MAX_SIDE as usize || height > MAX_SIDE as usize {
        return Err(ImageError(format!(
            "{label} is {width}x{height} pixels; models take images from 1 to {MAX_SIDE} pixels \
             a side: scale it down"
        )));
    }
    Ok(Image {
        kind,
        data: Arc::from(bytes),
        width: width as u32,
        height: height as u32,
    })
}

/// Reads an image file the user named, with the checks every workspace read gets: inside the
/// root after following links, not in `.git`, a regular file, within the cap before a byte is
/// read.
pub fn read_file(ws: &Workspace, path: &str) -> Result<Image, ImageError> {
    let abs = ws
        .resolve_for_read(path)
        .map_err(|e| ImageError(format!("{path} can't be attached: {}", e.message)))?;
    let (bytes, _) = tandem_stdx::regular::read(&abs, MAX_IMAGE_BYTES as u64).map_err(|e| {
        use tandem_stdx::regular::NotRegular;
        match e {
            NotRegular::TooLarge { len, .. } => too_large(path, len),
            other => ImageError(format!("{path} can't be attached: {other}")),
        }
    })?;
    let declared = ImageType::ALL.into_iter().find(|t| has_extension(path, *t));
    from_bytes(path, declared.map(ImageType::mime), bytes)
}

/// Whether a path names an image by its extension (`.png`, `.jpg`, `.jpeg`, `.webp`, `.gif`).
pub fn is_image_path(path: &str) -> bool {
    ImageType::ALL.into_iter().any(|t| has_extension(path, t))
}

fn has_extension(path: &str, kind: ImageType) -> bool {
    let lower = path.to_ascii_lowercase();
    let Some((_, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    ext == kind.extension() || (kind == ImageType::Jpeg && ext == "jpeg")
}

/// Checks a prompt's images together: how many, how many bytes.
pub fn check_prompt(images: &[Image]) -> Result<(), ImageError> {
    if images.len() > MAX_IMAGES {
        return Err(ImageError(format!(
            "the prompt has {} images; at most {MAX_IMAGES} go with one prompt",
            images.len()
        )));
    }
    let total: usize = images.iter().map(|i| i.data.len()).sum();
    if total > MAX_TOTAL_BYTES {
        return Err(ImageError(format!(
            "the prompt's images are {} together; at most {} go with one prompt: send fewer or \
             smaller ones",
            mib(total as u64),
            mib(MAX_TOTAL_BYTES as u64)
        )));
    }
    Ok(())
}

/// The kind the bytes are, by their signature.
pub fn sniff(bytes: &[u8]) -> Option<ImageType> {
    match imagesize::image_type(bytes).ok()? {
        imagesize::ImageType::Png => Some(ImageType::Png),
        imagesize::ImageType::Jpeg => Some(ImageType::Jpeg),
        imagesize::ImageType::Webp => Some(ImageType::Webp),
        imagesize::ImageType::Gif => Some(ImageType::Gif),
        _ => None,
    }
}

fn too_large(label: &str, len: u64) -> ImageError {
    ImageError(format!(
        "{label} is {} ({len} bytes); one image may be at most {} ({MAX_IMAGE_BYTES} bytes): \
         scale it down or crop it",
        mib(len),
        mib(MAX_IMAGE_BYTES as u64)
    ))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn first_bytes(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "none: it is empty".into();
    }
    bytes
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2x3 PNG (one IDAT), made by hand.
    pub(crate) fn png_2x3() -> Vec<u8> {
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend_from_slice(&[0, 0, 0, 13]);
        png.extend_from_slice(b"IHDR");
        png.extend_from_slice(&2u32.to_be_bytes());
        png.extend_from_slice(&3u32.to_be_bytes());
        png.extend_from_slice(&[8, 2, 0, 0, 0, 0, 0, 0, 0]);
        png
    }

    #[test]
    fn a_png_is_checked_and_measured() {
        let image = from_bytes("image 1", Some("image/png"), png_2x3()).unwrap();
        assert_eq!(
            (image.kind, image.width, image.height),
            (ImageType::Png, 2, 3)
        );
    }

    #[test]
    fn the_bytes_decide_not_the_declared_type() {
        let e = from_bytes("image 1", Some("image/jpeg"), png_2x3()).unwrap_err();
        assert!(
            e.0.contains("declared as image/jpeg but its bytes are image/png"),
            "{e}"
        );
        let e = from_bytes(
            "image 1",
            Some("image/png"),
            b"#!/bin/sh\necho hi\n".to_vec(),
        )
        .unwrap_err();
        assert!(e.0.contains("not a PNG, JPEG, WebP or GIF"), "{e}");
        assert!(e.0.contains("23 21 2f 62"), "{e}");
        let e = from_bytes("image 1", Some("image/svg+xml"), png_2x3()).unwrap_err();
        assert!(e.0.contains("image/svg+xml"), "{e}");
    }

    #[test]
    fn oversized_images_are_refused_with_the_numbers() {
        let mut big = png_2x3();
        big.resize(MAX_IMAGE_BYTES + 1, 0);
        let e = from_bytes("image 1", None, big).unwrap_err();
        assert!(e.0.contains("5242881 bytes"), "{e}");
        assert!(e.0.contains("at most 5.0 MiB"), "{e}");
        // Base64 past the cap is refused before it is decoded.
        let e = from_base64("image 2", "image/png", &"A".repeat(8 * 1024 * 1024)).unwrap_err();
        assert!(e.0.starts_with("image 2 is 6.0 MiB"), "{e}");
    }

    #[test]
    fn huge_dimensions_are_refused() {
        let mut png = png_2x3();
        png[16..20].copy_from_slice(&9000u32.to_be_bytes());
        let e = from_bytes("image 1", None, png).unwrap_err();
        assert!(e.0.contains("9000x3 pixels"), "{e}");
    }

    #[test]
    fn base64_and_data_urls() {
        let encoded = STANDARD.encode(png_2x3());
        assert!(from_base64("image 1", "image/png", &encoded).is_ok());
        let url = format!("data:image/png;base64,{encoded}");
        assert!(from_base64("image 1", "image/png", &url).is_ok());
        let e = from_base64("image 1", "image/png", "not base64!").unwrap_err();
        assert!(e.0.contains("not valid base64"), "{e}");
    }

    #[test]
    fn files_stay_in_the_workspace() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(outer.path().join("secret.png"), png_2x3()).unwrap();
        std::fs::write(root.join("shot.png"), png_2x3()).unwrap();
        std::fs::write(root.join("fake.png"), b"hello").unwrap();
        let ws = Workspace::new(&root).unwrap();
        assert_eq!(read_file(&ws, "shot.png").unwrap().width, 2);
        let e = read_file(&ws, "../secret.png").unwrap_err();
        assert!(e.0.contains("outside the workspace"), "{e}");
        let e = read_file(&ws, "fake.png").unwrap_err();
        assert!(e.0.contains("not a PNG"), "{e}");
        let e = read_file(&ws, "missing.png").unwrap_err();
        assert!(e.0.contains("missing.png can't be attached"), "{e}");
    }

    #[test]
    fn a_prompt_has_caps_together() {
        let one = from_bytes("i", None, png_2x3()).unwrap();
        assert!(check_prompt(&vec![one.clone(); MAX_IMAGES]).is_ok());
        let e = check_prompt(&vec![one; MAX_IMAGES + 1]).unwrap_err();
        assert!(e.0.contains("11 images"), "{e}");
    }

    #[test]
    fn image_paths_by_extension() {
        assert!(is_image_path("a/b.PNG"));
        assert!(is_image_path("x.jpeg"));
        assert!(!is_image_path("x.svg"));
        assert!(!is_image_path("png"));
    }
}
