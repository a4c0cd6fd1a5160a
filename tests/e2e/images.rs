//! Images in prompts (`tandem/prompt`'s `images`): checked by their bytes and caps, sent in each
//! provider's shape (OpenAI `image_url` data URLs, Anthropic `image` blocks, Ollama `images`),
//! kept across a resume, refused before the request when the server says the model takes none,
//! and counted in the window.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::support::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/fixtures/images/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn image(mime: &str, name: &str) -> Value {
    json!({"mimeType": mime, "data": STANDARD.encode(fixture(name))})
}

fn with_routes(mut scenario: Scenario, routes: Value) -> Scenario {
    for (k, v) in routes.as_object().unwrap() {
        scenario.routes.insert(k.clone(), v.clone());
    }
    scenario
}

/// Prompts with images and runs the turn to its end.
async fn run_with_images(tandem: &Sidecar, session: &str, text: &str, images: Value) -> Turn {
    let turn = tandem
        .try_prompt_with(json!({"sessionId": session, "text": text, "images": images}))
        .await
        .unwrap_or_else(|e| panic!("prompt failed: {e:?}"));
    tandem.wait_for_turn_end(&turn).await
}

/// The last user message of a request.
fn last_user(request: &RecordedRequest) -> Value {
    request
        .messages_with_role("user")
        .last()
        .map(|m| (*m).clone())
        .expect("a user message")
}

#[tokio::test]
async fn images_reach_an_openai_server_as_data_urls_and_survive_a_resume() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("A gradient."),
        Reply::text("Still a gradient."),
        Reply::text("Yes."),
    ]));
    let mut tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let images = json!([
        image("image/png", "shot.png"),
        image("image/webp", "diagram.webp")
    ]);
    let turn = run_with_images(&tandem, &session, "What is this?", images).await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");

    let png_url = format!(
        "data:image/png;base64,{}",
        STANDARD.encode(fixture("shot.png"))
    );
    let webp_url = format!(
        "data:image/webp;base64,{}",
        STANDARD.encode(fixture("diagram.webp"))
    );
    let expected = json!([
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": png_url}},
        {"type": "image_url", "image_url": {"url": webp_url}},
    ]);
    let requests = model_requests(&mock);
    assert_eq!(last_user(&requests[0])["content"], expected);

    // The next turn sends the conversation again, the images with it.
    let turn = tandem.run_turn(&session, "And now?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let requests = model_requests(&mock);
    assert_eq!(
        requests[1].messages_with_role("user")[0]["content"],
        expected
    );

    // Stored beside the transcript (not in it), readable by the user alone, and read back by
    // another sidecar that resumes the session.
    let files = env.data_files();
    let stored: Vec<_> = files
        .iter()
        .filter(|(p, _)| {
            p.parent()
                .is_some_and(|d| d.extension().is_some_and(|e| e == "images"))
        })
        .collect();
    assert_eq!(
        stored.len(),
        2,
        "{:?}",
        files.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let (transcript, text) = files
        .iter()
        .find(|(p, _)| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a transcript");
    assert!(
        !text.contains(&STANDARD.encode(fixture("shot.png"))),
        "inline bytes in {transcript:?}"
    );
    assert!(text.contains("\"sha256\""), "{text}");
    assert!(text.contains("\"formatVersion\":6"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&stored[0].0)
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
    tandem.shutdown().await;

    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    tandem
        .request("tandem/loadSession", json!({"sessionId": session}))
        .await
        .expect("loadSession");
    let turn = tandem.run_turn(&session, "Sure?").await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let requests = model_requests(&mock);
    assert_eq!(
        requests[2].messages_with_role("user")[0]["content"],
        expected
    );
}

#[tokio::test]
async fn images_reach_anthropic_as_image_blocks() {
    let env = Env::new();
    let answer = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "mock-coder",
        "content": [{"type": "text", "text": "A photo."}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 900, "output_tokens": 3}
    });
    let mock = MockServer::start(with_routes(
        Scenario::new([]),
        json!({"POST /v1/messages": answer}),
    ));
    let options = Options {
        provider: json!({"api": "anthropic"}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let images = json!([
        image("image/jpeg", "photo.jpg"),
        image("image/gif", "icon.gif")
    ]);
    let turn = run_with_images(&tandem, &session, "Describe", images).await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    assert_eq!(turn.text(), "A photo.");
    let request = mock
        .requests()
        .into_iter()
        .find(|r| r.path == "/v1/messages")
        .expect("a Messages request");
    let image_block = |mime: &str, name: &str| json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": STANDARD.encode(fixture(name))}});
    assert_eq!(
        last_user(&request)["content"],
        json!([
            image_block("image/jpeg", "photo.jpg"),
            image_block("image/gif", "icon.gif"),
            {"type": "text", "text": "Describe"},
        ])
    );
}

#[tokio::test]
async fn images_reach_ollama_natively_as_base64() {
    let env = Env::new();
    let mock = MockServer::start(as_ollama(
        Scenario::new([Reply::text("A square.")]),
        json!(["completion", "tools", "vision"]),
    ));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = run_with_images(
        &tandem,
        &session,
        "What colour?",
        json!([image("image/gif", "icon.gif")]),
    )
    .await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
    let chat = mock
        .requests()
        .into_iter()
        .find(|r| r.path == "/api/chat")
        .expect("a native chat request");
    let user = last_user(&chat);
    assert_eq!(user["content"], "What colour?");
    assert_eq!(
        user["images"],
        json!([STANDARD.encode(fixture("icon.gif"))])
    );
}

/// A prompt with a screenshot, in a new sidecar and session: the turn must fail; its error.
async fn error_for_a_screenshot(mock: &MockServer) -> String {
    let env = Env::new();
    let tandem = Sidecar::start(&env, mock, Options::default()).await;
    let session = tandem.new_session().await;
    let turn = run_with_images(
        &tandem,
        &session,
        "What is this?",
        json!([image("image/png", "shot.png")]),
    )
    .await;
    assert_eq!(turn.stop_reason(), "error", "{turn}");
    turn.ended()["error"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The server says the model takes no images: the turn ends with an error that says so and
/// what to do, and nothing is sent to the model.
async fn refused_before_the_request(scenario: Scenario, who: &str) {
    let mock = MockServer::start(scenario);
    let error = error_for_a_screenshot(&mock).await;
    assert!(error.contains("mock-coder"), "{error}");
    assert!(error.contains("takes no images"), "{error}");
    assert!(error.contains(who), "{error}");
    assert!(error.contains("choose a vision model"), "{error}");
    let sent: Vec<_> = mock
        .requests()
        .into_iter()
        .filter(|r| r.path == "/api/chat" || r.path.ends_with("/chat/completions"))
        .collect();
    assert!(sent.is_empty(), "the prompt was sent: {sent:?}");
}

#[tokio::test]
async fn an_ollama_model_without_vision_is_refused_before_the_request() {
    refused_before_the_request(
        as_ollama(Scenario::new([]), json!(["completion", "tools"])),
        "Ollama's capabilities",
    )
    .await;
}

#[tokio::test]
async fn an_lm_studio_text_model_is_refused_before_the_request() {
    let models =
        json!({"data": [{"id": "mock-coder", "type": "llm", "loaded_context_length": 8192}]});
    refused_before_the_request(
        with_routes(Scenario::new([]), json!({"GET /api/v0/models": models})),
        "LM Studio's model type",
    )
    .await;
}

#[tokio::test]
async fn a_server_that_refuses_images_is_made_clear() {
    let said = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj";
    let mock = MockServer::start(Scenario::new([Reply::status(500).with_body(
        json!({"error": {"code": 500, "message": said, "type": "server_error"}}),
    )]));
    let error = error_for_a_screenshot(&mock).await;
    assert!(error.contains(said), "{error}");
    assert!(
        error.contains("the model refused the attached images"),
        "{error}"
    );
    assert!(error.contains("--mmproj"), "{error}");
    // A refusal is not retried.
    assert_eq!(model_requests(&mock).len(), 1);
}

#[tokio::test]
async fn bad_images_are_refused_with_the_numbers_and_start_no_turn() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([]));
    let tandem = Sidecar::start(&env, &mock, Options::default()).await;
    let session = tandem.new_session().await;
    let refused = |images: Value| {
        let tandem = &tandem;
        let session = session.clone();
        async move {
            tandem
                .try_prompt_with(json!({"sessionId": session, "text": "Look", "images": images}))
                .await
                .expect_err("refused")
        }
    };
    // A script declared as a PNG.
    let e = refused(
        json!([{"mimeType": "image/png", "data": STANDARD.encode("#!/bin/sh\nrm -rf ~\n")}]),
    )
    .await;
    assert_eq!(e.code, -32602, "{e:?}");
    assert!(
        e.message
            .contains("image 1 is not a PNG, JPEG, WebP or GIF"),
        "{e:?}"
    );
    // A JPEG declared as a PNG.
    let e = refused(json!([image("image/png", "photo.jpg")])).await;
    assert!(
        e.message
            .contains("declared as image/png but its bytes are image/jpeg"),
        "{e:?}"
    );
    // An SVG: not a kind models take.
    let e =
        refused(json!([{"mimeType": "image/svg+xml", "data": STANDARD.encode("<svg/>")}])).await;
    assert!(e.message.contains("not a PNG"), "{e:?}");
    // Over the size cap: refused with both numbers.
    let mut big = fixture("shot.png");
    big.resize(6 * 1024 * 1024, 0);
    let e = refused(json!([{"mimeType": "image/png", "data": STANDARD.encode(&big)}])).await;
    assert!(e.message.contains("image 1 is 6.0 MiB"), "{e:?}");
    assert!(
        e.message.contains("at most 5.0 MiB (5242880 bytes)"),
        "{e:?}"
    );
    // Too many.
    let many: Vec<Value> = (0..11).map(|_| image("image/gif", "icon.gif")).collect();
    let e = refused(json!(many)).await;
    assert!(e.message.contains("11 images; at most 10"), "{e:?}");
    // Not base64.
    let e = refused(json!([{"mimeType": "image/png", "data": "%%%"}])).await;
    assert!(e.message.contains("not valid base64"), "{e:?}");

    // Nothing reached the model, no turn started, and the session still takes a prompt.
    assert!(model_requests(&mock).is_empty());
    assert!(tandem.inbox(|i| i.updates.is_empty()));
}

#[tokio::test]
async fn images_count_in_the_window() {
    // A 2000x2000 image is about 3,300 tokens (scaled to 1568x1568, one token per 750 pixels):
    // the words alone fit a 4,096-token window, with the image they cannot, and the request is
    // never sent.
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text("Fine.")]));
    let options = Options {
        provider: json!({"contextWindow": 4096}),
        ..Options::default()
    };
    let tandem = Sidecar::start(&env, &mock, options).await;
    let session = tandem.new_session().await;
    let large = json!([image("image/png", "large.png")]);
    let turn = run_with_images(&tandem, &session, "Look", large).await;
    assert_eq!(turn.stop_reason(), "error", "{turn}");
    let error = turn.ended()["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(error.contains("your message is about 3,"), "{error}");
    assert!(error.contains("4,096"), "{error}");
    assert!(
        model_requests(&mock).is_empty(),
        "an oversized request was sent"
    );
    // The same words with a small image fit.
    let session = tandem.new_session().await;
    let small = json!([image("image/png", "shot.png")]);
    let turn = run_with_images(&tandem, &session, "Look", small).await;
    assert_eq!(turn.stop_reason(), "endTurn", "{turn}");
}
