//! Images in requests: their encodings on the wire, their share of the token budget, and what a
//! server that takes none says.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use tandem_model::{Image, Message};

/// The image's bytes in standard base64 (Anthropic's `source.data`, Ollama's `images`).
pub fn base64(image: &Image) -> String {
    STANDARD.encode(&image.data)
}

/// A `data:` URL (OpenAI-compatible `image_url`).
pub fn data_url(image: &Image) -> String {
    format!("data:{};base64,{}", image.kind.mime(), base64(image))
}

/// Whether any message carries an image.
pub fn any(messages: &[Message]) -> bool {
    messages
        .iter()
        .any(|m| matches!(m, Message::User { images, .. } if !images.is_empty()))
}

/// The tokens an image is estimated to take, from its dimensions: the larger of two published
/// rules, so the estimate errs on the large side as the text estimate does.
///
/// - OpenAI (high detail): scaled to fit 2048×2048, then its short side to 768; 170 tokens per
///   512-pixel tile, plus 85.
/// - Anthropic: width × height / 750, after scaling the long side down to 1568.
///
/// Local vision models (llama.cpp, Ollama) take from a fixed 256 or 576 tokens (Gemma 3, LLaVA)
/// to about this much for models that tile by pixels (Qwen2.5-VL), so the same rule stands for
/// them.
pub fn image_tokens(width: u32, height: u32) -> u64 {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    // OpenAI's tiles.
    let fit = (2048.0 / w.max(h)).min(1.0);
    let (w1, h1) = (w * fit, h * fit);
    let short = (768.0 / w1.min(h1)).min(1.0);
    let (w2, h2) = (w1 * short, h1 * short);
    let tiles = (w2 / 512.0).ceil() * (h2 / 512.0).ceil();
    let openai = 85.0 + 170.0 * tiles;
    // Anthropic's pixels.
    let long = (1568.0 / w.max(h)).min(1.0);
    let anthropic = (w * long) * (h * long) / 750.0;
    openai.max(anthropic).ceil() as u64
}

/// The estimated tokens of every image of the messages. They stay out of the characters the
/// calibration compares with the server's count: a local model that takes an image as 256 tokens
/// where this says 1,400 must not read as a server that cut the prompt. A server's count that
/// includes images only lowers the calibrated ratio, so the estimate errs large.
pub fn messages_tokens(messages: &[Message]) -> u64 {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::User { images, .. } => Some(images),
            _ => None,
        })
        .flatten()
        .map(|i| image_tokens(i.width, i.height))
        .sum()
}

/// Whether an error message says the model or server takes no images: llama.cpp without a
/// projector ("image input is not supported"), LM Studio and vLLM with a text model, Ollama
/// ("does not support images"), OpenAI ("does not support image"), servers that know no
/// `image_url` part.
pub fn says_no_images(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "image input is not supported",
        "does not support image",
        "not support images",
        "images are not supported",
        "image inputs are not supported",
        "model is not multimodal",
        "not a multimodal model",
        "does not support vision",
        "vision is not supported",
        "multimodal is not supported",
        "mmproj",
        "unknown variant `image_url`",
        "invalid content type: image_url",
        "image_url is only supported",
    ]
    .iter()
    .any(|p| m.contains(p))
}

/// What the user is told when the server refused the images: what it said, and what to do.
pub fn refused(said: &str) -> String {
    format!(
        "{said} (the model refused the attached images: use a model that takes images (a \
         vision model; for llama.cpp, start llama-server with its --mmproj projector), or \
         send the prompt without them)"
    )
}

/// What the user is told when the server says, before any request, that the model takes no
/// images.
pub fn unsupported(model: &str, server: &str, why: &str) -> String {
    format!(
        "{model} on {server} takes no images ({why}), so the prompt was not sent: choose a \
         vision model (one whose capabilities include vision) or send the prompt without the \
         images"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tandem_model::{ImageType, Message};

    #[test]
    fn estimates_follow_the_published_rules() {
        // 512x512: one tile (255) against 349 by pixels.
        assert_eq!(image_tokens(512, 512), 350);
        // 1024x1024: four tiles (765) against 1398 by pixels.
        assert_eq!(image_tokens(1024, 1024), 1399);
        // A 4K screenshot: scaled to 1568x882 by Anthropic's rule (about 1844).
        assert_eq!(image_tokens(3840, 2160), 1844);
        // A tiny image costs at least OpenAI's base.
        assert_eq!(image_tokens(1, 1), 255);
    }

    #[test]
    fn encodings() {
        let image = Image {
            kind: ImageType::Png,
            data: Arc::from(&b"\x89PNG"[..]),
            width: 1,
            height: 1,
        };
        assert_eq!(base64(&image), "iVBORw==");
        assert_eq!(data_url(&image), "data:image/png;base64,iVBORw==");
    }

    fn gif() -> Image {
        Image {
            kind: ImageType::Gif,
            data: Arc::from(&b"GIF89a"[..]),
            width: 1024,
            height: 1024,
        }
    }

    fn asking() -> Vec<Message> {
        vec![
            Message::System {
                content: "S".into(),
            },
            Message::User {
                content: "What is this?".into(),
                images: vec![gif()],
            },
        ]
    }

    #[test]
    fn each_provider_gets_its_own_shape() {
        let messages = asking();
        let request = crate::CompletionRequest::conversation(&messages, &[], 0);
        let openai: serde_json::Value =
            serde_json::from_slice(&crate::openai::request_body("m", request)).unwrap();
        assert_eq!(
            openai["messages"][1]["content"],
            serde_json::json!([
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lGODlh"}},
            ])
        );
        let anthropic: serde_json::Value =
            serde_json::from_slice(&crate::anthropic::request_body("m", request)).unwrap();
        assert_eq!(
            anthropic["messages"][0]["content"],
            serde_json::json!([
                {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lGODlh"}},
                {"type": "text", "text": "What is this?"},
            ])
        );
        let ollama: serde_json::Value = serde_json::from_slice(&crate::ollama::request_body(
            "m",
            request.messages,
            &[],
            8192,
            None,
        ))
        .unwrap();
        assert_eq!(
            ollama["messages"][1],
            serde_json::json!({"role": "user", "content": "What is this?", "images": ["R0lGODlh"]})
        );
        // Text alone stays a plain string for every server.
        let plain = [Message::user("hi")];
        let openai: serde_json::Value = serde_json::from_slice(&crate::openai::request_body(
            "m",
            crate::CompletionRequest::conversation(&plain, &[], 0),
        ))
        .unwrap();
        assert_eq!(openai["messages"][0]["content"], "hi");
    }

    #[test]
    fn images_count_in_the_estimate() {
        let with = crate::tokens::estimate(&asking(), &[], 3.0);
        let mut without = asking();
        if let Message::User { images, .. } = &mut without[1] {
            images.clear();
        }
        let without = crate::tokens::estimate(&without, &[], 3.0);
        assert_eq!(with - without, image_tokens(1024, 1024));
    }

    #[test]
    fn servers_say_whether_the_model_sees() {
        use crate::llamacpp::vision_of_props;
        use crate::lmstudio::vision as vision_of_lm_studio;
        use crate::ollama::show::vision as vision_of_ollama;
        use serde_json::json;
        assert_eq!(
            vision_of_ollama(&json!({"capabilities": ["completion", "vision"]})),
            Some(true)
        );
        assert_eq!(
            vision_of_ollama(&json!({"capabilities": ["completion"]})),
            Some(false)
        );
        assert_eq!(vision_of_ollama(&json!({"model_info": {}})), None);
        assert_eq!(
            vision_of_props(&json!({"modalities": {"vision": false}})),
            Some(false)
        );
        assert_eq!(vision_of_props(&json!({"n_ctx": 4096})), None);
        let models = json!({"data": [{"id": "a", "type": "vlm"}, {"id": "b", "type": "llm"}, {"id": "c", "type": "embeddings"}]});
        assert_eq!(vision_of_lm_studio(&models, "a"), Some(true));
        assert_eq!(vision_of_lm_studio(&models, "b"), Some(false));
        assert_eq!(vision_of_lm_studio(&models, "c"), None);
        assert_eq!(vision_of_lm_studio(&models, "zz"), None);
    }

    #[test]
    fn refusals_are_recognised() {
        assert!(says_no_images(
            "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
        ));
        assert!(says_no_images("llama3.2 does not support images"));
        assert!(!says_no_images("the request is too large"));
    }
}
