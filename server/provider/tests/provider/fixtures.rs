//! Every recorded provider response in `tests/fixtures/providers` goes through the real SSE
//! decoder and accumulator (or the whole-body parser), and reassembles into exactly what
//! `SOURCES.md` says it holds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tandem_model::{Completion, Delta, FinishReason, Usage};
use tandem_provider::anthropic::{self, AnthropicStream};
use tandem_provider::openai::{self, OpenAiStream};
use tandem_provider::sse::SseDecoder;
use tandem_provider::stream::StreamAccumulator;
use tandem_provider::{ProviderError, ProviderErrorKind};

// ---------------------------------------------------------------------------------------------
// Harness

fn fixtures_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/providers");
    assert!(
        dir.join("SOURCES.md").is_file(),
        "the provider fixtures are missing: expected them in {}",
        dir.display()
    );
    dir
}

fn read(file: &str) -> Vec<u8> {
    let path = fixtures_dir().join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The HTTP body a fixture stands for: `.sse` as is; `.chunks.txt` replayed as `data:` events
/// (Anthropic ones with their `event:` line), the way the recorder's own tests replay them.
fn body_of(file: &str) -> Vec<u8> {
    let raw = read(file);
    if !file.ends_with(".chunks.txt") {
        return raw;
    }
    let text = String::from_utf8(raw).expect("chunks files are UTF-8");
    let mut body = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if is_anthropic(file) {
            let payload: Value = serde_json::from_str(line).expect("each chunk line is JSON");
            body.push_str(&format!("event: {}\n", payload["type"].as_str().unwrap()));
        }
        body.push_str(&format!("data: {line}\n\n"));
    }
    body.into_bytes()
}

fn is_anthropic(file: &str) -> bool {
    file.starts_with("anthropic-")
}

/// Everything one pass over a stream produced.
#[derive(Debug, PartialEq)]
struct Run {
    completion: Completion,
    /// Every choice (OpenAI); empty for Anthropic.
    choices: Vec<Completion>,
    /// Thinking-block signatures (Anthropic); empty for OpenAI.
    signatures: Vec<String>,
    relayed: Vec<Delta>,
    error: Option<ProviderError>,
    finished: bool,
}

/// Decodes `body` fed in chunks of `size` bytes, stopping at the first error like the client.
fn decode<A: StreamAccumulator>(
    body: &[u8],
    size: usize,
    extras: impl Fn(&A) -> (Vec<Completion>, Vec<String>),
) -> Run {
    let mut accumulator = A::default();
    let mut decoder = SseDecoder::new();
    let mut relayed = Vec::new();
    let mut on_delta = |delta: Delta| relayed.push(delta);
    let mut error = None;
    for chunk in body.chunks(size) {
        if let Err(e) = decoder.feed(chunk, |event| accumulator.push(event, &mut on_delta)) {
            error = Some(e);
            break;
        }
    }
    if error.is_none() {
        error = decoder
            .finish(|event| accumulator.push(event, &mut on_delta))
            .err();
    }
    let (choices, signatures) = extras(&accumulator);
    let finished = accumulator.is_finished();
    Run {
        completion: accumulator.into_completion(),
        choices,
        signatures,
        relayed,
        error,
        finished,
    }
}

/// Streams a fixture whole, byte by byte, and in 7- and 256-byte chunks (so boundaries fall
/// inside UTF-8 sequences and between `\r`/`\n`): every chunking must give the same result, and
/// what was relayed must add up to the answer.
fn stream(file: &str) -> Run {
    let body = body_of(file);
    let runs = [usize::MAX, 1, 7, 256].map(|size| {
        if is_anthropic(file) {
            decode::<AnthropicStream>(&body, size, |a| {
                let signatures = a.thinking_signatures().into_iter().map(str::to_owned);
                (Vec::new(), signatures.collect())
            })
        } else {
            decode::<OpenAiStream>(&body, size, |a| (a.choices(), Vec::new()))
        }
    });
    for (run, size) in runs[1..].iter().zip([1, 7, 256]) {
        assert_eq!(
            run, &runs[0],
            "{file}: {size}-byte chunks change the result"
        );
    }
    let [run, ..] = runs;
    let mut text = String::new();
    let mut reasoning = String::new();
    for delta in &run.relayed {
        match delta {
            Delta::Text(t) => text.push_str(t),
            Delta::Reasoning(r) => reasoning.push_str(r),
            Delta::Retrying(r) => panic!("{file}: a recorded answer is never retried: {r:?}"),
        }
        assert!(!matches!(delta, Delta::Text(t) | Delta::Reasoning(t) if t.is_empty()));
    }
    assert_eq!(text, run.completion.text, "{file}: relayed text");
    assert_eq!(
        reasoning, run.completion.reasoning,
        "{file}: relayed reasoning"
    );
    run
}

/// A stream that must end cleanly.
fn stream_ok(file: &str) -> Completion {
    let run = stream(file);
    assert_eq!(run.error, None, "{file}");
    assert!(run.finished, "{file}: the stream should count as finished");
    run.completion
}

fn usage(prompt_tokens: u64, completion_tokens: u64) -> Option<(u64, u64)> {
    Some((prompt_tokens, completion_tokens))
}

/// The prompt and completion counts (the cached part is checked where a fixture has one).
fn counts(usage: Option<Usage>) -> Option<(u64, u64)> {
    usage.map(|u| (u.prompt_tokens, u.completion_tokens))
}

/// Each tool call as (id, name, arguments).
fn calls(completion: &Completion) -> Vec<(&str, &str, &str)> {
    completion
        .tool_calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
        .collect()
}

fn assert_len_and_prefix(what: &str, text: &str, len: usize, prefix: &str) {
    assert_eq!(text.len(), len, "{what} length: {text:?}");
    assert!(
        text.starts_with(prefix),
        "{what} should start {prefix:?}: {text:?}"
    );
}

/// The `n`th interaction's response body of a VCR cassette, as JSON bytes.
fn cassette_response(file: &str, n: usize) -> Vec<u8> {
    let yaml = String::from_utf8(read(file)).unwrap();
    let cassette: Value = serde_norway::from_str(&yaml).expect("the cassette is YAML");
    let body = &cassette["interactions"][n]["response"]["parsed_body"];
    assert!(body.is_object(), "{file}: no response #{n}");
    serde_json::to_vec(body).unwrap()
}

// ---------------------------------------------------------------------------------------------
// One test per fixture. The macro also lists the files, so the coverage test can tell whether a
// file in the folder has none.

macro_rules! fixtures {
    ($($file:literal => fn $test:ident($name:ident) $body:block)*) => {
        const COVERED: &[&str] = &[$($file),*];
        $(
            #[test]
            fn $test() {
                let $name: &str = $file;
                $body
            }
        )*
    };
}

fixtures! {
    "openai-text-usage.sse" => fn openai_text_usage(file) {
        let c = stream_ok(file);
        assert_len_and_prefix("content", &c.text, 159, "I'm unable to provide real-time weather");
        assert_eq!(c.finish_reason, Some(FinishReason::Stop));
        assert_eq!(counts(c.usage), usage(14, 30));
        assert_eq!((c.reasoning.as_str(), &c.refusal, c.tool_calls.len()), ("", &None, 0));
    }

    "openai-tool-call-single.sse" => fn openai_tool_call_single(file) {
        let c = stream_ok(file);
        assert_eq!(
            calls(&c),
            [(
                "call_c91SqDXlYFuETYv8mUHzz6pp",
                "GetWeatherArgs",
                r#"{"city":"Edinburgh","country":"UK","units":"c"}"#
            )]
        );
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!((c.text.as_str(), &c.refusal), ("", &None));
        assert!(c.usage.is_some());
    }

    "openai-tool-calls-parallel.sse" => fn openai_tool_calls_parallel(file) {
        let c = stream_ok(file);
        assert_eq!(
            calls(&c),
            [
                (
                    "call_JMW1whyEaYG438VE1OIflxA2",
                    "GetWeatherArgs",
                    r#"{"city": "Edinburgh", "country": "GB", "units": "c"}"#
                ),
                (
                    "call_DNYTawLBoN8fj3KN6qU9N1Ou",
                    "get_stock_price",
                    r#"{"ticker": "AAPL", "exchange": "NASDAQ"}"#
                ),
            ]
        );
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
    }

    "openai-finish-length.sse" => fn openai_finish_length(file) {
        let c = stream_ok(file);
        assert_eq!(c.text, r#"{""#);
        assert_eq!(c.finish_reason, Some(FinishReason::Length));
        assert_eq!(counts(c.usage), usage(79, 1));
    }

    "openai-refusal.sse" => fn openai_refusal(file) {
        let c = stream_ok(file);
        assert_eq!(c.refusal.as_deref(), Some("I'm sorry, I can't assist with that request."));
        assert_eq!(c.text, "");
        assert_eq!(c.finish_reason, Some(FinishReason::Stop));
    }

    "openai-multiple-choices-n3.sse" => fn openai_multiple_choices_n3(file) {
        let run = stream(file);
        assert_eq!(run.error, None);
        let texts: Vec<&str> = run.choices.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [65, 61, 59].map(|t| format!(r#"{{"city":"San Francisco","temperature":{t},"units":"f"}}"#))
        );
        assert!(run.choices.iter().all(|c| c.finish_reason == Some(FinishReason::Stop)));
        // Choice 0 is the answer, and only its text was relayed.
        assert_eq!(run.completion, run.choices[0]);
    }

    "azure-openai-text-content-filter.chunks.txt" => fn azure_openai_text_content_filter(file) {
        let c = stream_ok(file);
        assert_eq!(c.text, "Capital of Denmark.");
        assert_eq!(c.finish_reason, Some(FinishReason::Stop));
        assert_eq!(counts(c.usage), usage(15, 78));
        assert_eq!(c.usage.unwrap().cached_tokens, Some(0));
    }

    "deepseek-reasoner-tool-call.chunks.txt" => fn deepseek_reasoner_tool_call_chunks(file) {
        let c = stream_ok(file);
        assert_eq!(c.reasoning.len(), 191);
        assert_eq!(
            calls(&c),
            [("call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", "weather", r#"{"location": "San Francisco"}"#)]
        );
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(counts(c.usage), usage(339, 83));
    }

    "deepseek-reasoner-text.sse" => fn deepseek_reasoner_text(file) {
        let c = stream_ok(file);
        assert_eq!(c.text, "Hello there! 😊 How can I help you today?");
        assert_eq!(c.text.len(), 43);
        assert_eq!(c.reasoning.len(), 882);
        assert_eq!(counts(c.usage), usage(6, 212));
    }

    "deepseek-reasoner-tool-call.json" => fn deepseek_reasoner_tool_call_json(file) {
        let c = openai::parse_completion(&read(file)).unwrap();
        assert_eq!(
            calls(&c),
            [("call_00_9V0vrf86Pc9aelHCJMZqnJBo", "weather", r#"{"location": "San Francisco"}"#)]
        );
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert!(c.reasoning.starts_with("The user is asking for the weather in San Francisco."));
        assert_eq!(c.text, "");
    }

    "groq-tool-call.chunks.txt" => fn groq_tool_call_chunks(file) {
        let c = stream_ok(file);
        assert_eq!(calls(&c), [("tk85n1k4m", "weather", "{}")]);
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert!(c.usage.is_some());
    }

    "groq-gptoss-reasoning-tool-call.sse" => fn groq_gptoss_reasoning_tool_call(file) {
        let c = stream_ok(file);
        assert_eq!(c.reasoning.len(), 92);
        assert_eq!(c.tool_calls.len(), 1);
        assert_eq!(
            (c.tool_calls[0].name.as_str(), c.tool_calls[0].arguments.as_str()),
            ("get_something_by_name", r#"{"name":"example"}"#)
        );
        assert!(c.tool_calls[0].id.as_str().starts_with("fc_"));
        assert_eq!(counts(c.usage), usage(304, 49));
    }

    "groq-error-mid-stream.sse" => fn groq_error_mid_stream(file) {
        let run = stream(file);
        assert_eq!(run.completion.reasoning.len(), 412);
        let error = run.error.expect("the error event must fail the answer");
        assert_eq!(error.kind, ProviderErrorKind::Stream);
        assert!(error.message.contains("(code tool_use_failed)"), "{}", error.message);
        assert!(
            error.message.contains("Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema"),
            "{}",
            error.message
        );
        assert!(!run.finished);
        assert_eq!((run.completion.finish_reason, run.completion.usage), (None, None));
    }

    "groq-tool-call.json" => fn groq_tool_call_json(file) {
        let c = openai::parse_completion(&read(file)).unwrap();
        assert_eq!(calls(&c), [("ax9fskhev", "weather", "{}")]);
        assert_eq!(counts(c.usage), usage(218, 15));
    }

    "mistral-tool-call.chunks.txt" => fn mistral_tool_call_chunks(file) {
        let c = stream_ok(file);
        assert_eq!(calls(&c), [("gSIMJiOkT", "weather", r#"{"location": "San Francisco"}"#)]);
        assert_eq!(counts(c.usage), usage(124, 22));
    }

    "mistral-incremental-tool-call.chunks.txt" => fn mistral_incremental_tool_call(file) {
        let c = stream_ok(file);
        assert_eq!(
            calls(&c),
            [(
                "chatcmpl-tool-9f149c74c42f265b",
                "webSearchTool",
                r#"{"query": "current Berlin weather"}"#
            )]
        );
        assert_eq!(counts(c.usage), usage(171, 14));
    }

    "mistral-magistral-thinking.sse" => fn mistral_magistral_thinking(file) {
        let c = stream_ok(file);
        assert_eq!(c.reasoning.len(), 421);
        assert_len_and_prefix("content", &c.text, 607, "To cross the street safely");
        assert_eq!(counts(c.usage), usage(10, 232));
    }

    "mistral-tool-call.json" => fn mistral_tool_call_json(file) {
        let c = openai::parse_completion(&read(file)).unwrap();
        assert_eq!(calls(&c), [("gSIMJiOkT", "weather", r#"{"location": "San Francisco"}"#)]);
    }

    "xai-grok-reasoning-tool-call.chunks.txt" => fn xai_grok_reasoning_tool_call(file) {
        let c = stream_ok(file);
        assert_eq!(c.reasoning.len(), 1069);
        assert_eq!(calls(&c), [("call_79382389", "weather", r#"{"location":"San Francisco"}"#)]);
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(counts(c.usage), usage(307, 26));
    }

    "alibaba-qwen-tool-call.chunks.txt" => fn alibaba_qwen_tool_call(file) {
        let c = stream_ok(file);
        assert_eq!(
            calls(&c),
            [("call_eee11723464a4b9eb8cee71d", "weather", r#"{"location": "San Francisco"}"#)]
        );
        assert_eq!(counts(c.usage), usage(295, 22));
    }

    "openrouter-reasoning-claude.sse" => fn openrouter_reasoning_claude(file) {
        let c = stream_ok(file);
        assert_eq!(c.reasoning.len(), 51, "{:?}", c.reasoning);
        assert_eq!(c.text, "2 + 2 = 4");
        assert_eq!(counts(c.usage), usage(43, 36));
        // The usage chunk's `finish_reason: null` must not erase the earlier "stop".
        assert_eq!(c.finish_reason, Some(FinishReason::Stop));
    }

    "openrouter-reasoning-encrypted-o3.sse" => fn openrouter_reasoning_encrypted_o3(file) {
        let c = stream_ok(file);
        assert_len_and_prefix("content", &c.text, 454, "I’m ChatGPT");
        assert_eq!(c.reasoning, "");
        assert_eq!(counts(c.usage), usage(9, 104));
    }

    "openrouter-error-mid-stream.sse" => fn openrouter_error_mid_stream(file) {
        let run = stream(file);
        assert_eq!(run.completion.reasoning.len(), 42);
        let error = run.error.expect("the in-chunk error must fail the answer");
        assert_eq!(error.kind, ProviderErrorKind::Stream);
        assert!(error.message.contains("Token limit reached (code 400)"), "{}", error.message);
        assert_eq!(counts(run.completion.usage), usage(43, 10));
    }

    "openai-compat-text-then-tool-call-index1.sse" => fn openai_compat_tool_call_index1(file) {
        let c = stream_ok(file);
        assert_eq!(c.text, "Reading it.");
        assert_eq!(calls(&c), [("toolu_sanitized", "read_file", r#"{"path": "a.txt"}"#)]);
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(c.usage, None);
    }

    "vllm-crusoe-text.sse" => fn vllm_crusoe_text(file) {
        let c = stream_ok(file);
        assert_eq!(c.text, "1, 2, 3, 4, 5");
        assert_eq!(counts(c.usage), usage(46, 14));
    }

    "ollama-cloud-v1-tool-call.cassette.yaml" => fn ollama_cloud_cassette(file) {
        let first = openai::parse_completion(&cassette_response(file, 0)).unwrap();
        assert_eq!(first.text, "Paris.");
        assert!(first.reasoning.starts_with("We need to answer question"));
        assert_eq!(first.finish_reason, Some(FinishReason::Stop));
        assert_eq!(counts(first.usage), usage(134, 122));
        let second = openai::parse_completion(&cassette_response(file, 1)).unwrap();
        assert_eq!(
            calls(&second),
            [("call_o2vnpxrw", "final_result", r#"{"city":"Paris","country":"France"}"#)]
        );
        assert_eq!(second.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(second.text, "");
    }

    "anthropic-text.sse" => fn anthropic_text(file) {
        let c = stream_ok(file);
        assert_eq!(c.text, "2");
        assert_eq!(c.finish_reason, Some(FinishReason::Stop));
        assert_eq!(counts(c.usage), usage(20, 5));
    }

    "anthropic-text-then-tool-use.sse" => fn anthropic_text_then_tool_use(file) {
        let c = stream_ok(file);
        assert_eq!(c.text, "I'll check the current weather in Paris for you.");
        assert_eq!(
            calls(&c),
            [("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", r#"{"location": "Paris"}"#)]
        );
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
    }

    "anthropic-tool-use-max-tokens-incomplete.sse" => fn anthropic_tool_use_max_tokens(file) {
        let c = stream_ok(file);
        assert_eq!(c.text.len(), 135);
        assert_eq!(c.finish_reason, Some(FinishReason::Length));
        let [call] = c.tool_calls.as_slice() else { panic!("{:?}", c.tool_calls) };
        assert_eq!((call.id.as_str(), call.name.as_str()), ("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file"));
        // The cut-off input stays exactly as the model wrote it, invalid JSON and all.
        let expected = concat!(
            r#"{"filename": "taxes.txt", "lines_of_text": ["#, "\n",
            r##""# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s","##, "\n",
            r#""","#, "\n",
            r###""## INTRODUCTION","###, "\n",
            r#""","#, "\n",
            r#""Filing taxes"#,
        );
        assert_eq!(call.arguments, expected);
        assert!(serde_json::from_str::<Value>(&call.arguments).is_err());
    }

    "anthropic-thinking-then-text.sse" => fn anthropic_thinking_then_text(file) {
        let run = stream(file);
        assert_eq!(run.error, None);
        let c = &run.completion;
        assert_eq!(c.reasoning.len(), 202);
        assert_eq!(run.signatures.iter().map(String::len).collect::<Vec<_>>(), [504]);
        assert!(run.signatures[0].starts_with("EvMCCkYICxgCKkCHP2cSuEdcJK"));
        assert_eq!(c.text.len(), 1021);
        assert_eq!(c.usage.map(|u| u.completion_tokens), Some(282));
        assert_eq!(c.finish_reason, Some(FinishReason::Stop));
    }

    "anthropic-tool-use-no-args.chunks.txt" => fn anthropic_tool_use_no_args(file) {
        let c = stream_ok(file);
        assert_eq!(c.text, "I'll update the issue list for you.");
        assert_eq!(calls(&c), [("toolu_01QE1WLsSVp5hy5Q3GmGTmjP", "updateIssueList", "{}")]);
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
    }
}

/// A fixture added to the folder without a test here fails this test.
#[test]
fn every_fixture_file_has_a_test() {
    let mut on_disk = BTreeSet::new();
    for entry in std::fs::read_dir(fixtures_dir()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if entry.file_type().unwrap().is_file() && name != "SOURCES.md" {
            on_disk.insert(name);
        }
    }
    let covered: BTreeSet<String> = COVERED.iter().map(|s| s.to_string()).collect();
    let untested: Vec<_> = on_disk.difference(&covered).collect();
    let missing: Vec<_> = covered.difference(&on_disk).collect();
    assert!(untested.is_empty(), "fixtures without a test: {untested:?}");
    assert!(
        missing.is_empty(),
        "tests whose fixture is gone: {missing:?}"
    );
    assert!(on_disk.len() >= 31, "only {} fixtures found", on_disk.len());
}

/// `.chunks.txt` files never hold `[DONE]`, and Groq's error stream has none either: the
/// accumulator must not need it. The `.sse` files that do send it must be seen to.
#[test]
fn done_is_optional_for_the_accumulator() {
    let mut accumulator = OpenAiStream::new();
    let body = body_of("openai-finish-length.sse");
    let mut decoder = SseDecoder::new();
    decoder
        .feed(&body, |event| accumulator.push(event, &mut |_| {}))
        .unwrap();
    assert!(accumulator.saw_done());
    let mut accumulator = OpenAiStream::new();
    let body = body_of("mistral-tool-call.chunks.txt");
    decoder
        .feed(&body, |event| accumulator.push(event, &mut |_| {}))
        .unwrap();
    assert!(!accumulator.saw_done() && accumulator.is_finished());
}

/// The whole-message parser for Anthropic (a proxy that ignores `stream: true`).
#[test]
fn anthropic_whole_message() {
    let body = serde_json::json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
        "content": [
            {"type": "thinking", "thinking": "Let me look.", "signature": "sig"},
            {"type": "text", "text": "Reading it."},
            {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}},
            {"type": "tool_use", "id": "toolu_2", "name": "list", "input": {}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 7}
    });
    let c = anthropic::parse_message(body.to_string().as_bytes()).unwrap();
    assert_eq!(
        (c.reasoning.as_str(), c.text.as_str()),
        ("Let me look.", "Reading it.")
    );
    assert_eq!(
        calls(&c),
        [
            ("toolu_1", "read_file", r#"{"path":"a.txt"}"#),
            ("toolu_2", "list", "{}")
        ]
    );
    assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(counts(c.usage), usage(15, 7));
    assert_eq!(c.usage.unwrap().cached_tokens, Some(5));
    let error = serde_json::json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let error = anthropic::parse_message(error.to_string().as_bytes()).unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Stream);
    assert!(error.message.contains("Overloaded (code overloaded_error)"));
}

/// Bodies that are not completions are refused with a readable reason.
#[test]
fn whole_body_parsers_refuse_what_is_not_a_completion() {
    for body in [
        &b"<!DOCTYPE html><html>"[..],
        b"{\"object\":\"list\",\"data\":[]}",
        b"",
    ] {
        let error = openai::parse_completion(body).unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::BadResponse, "{error}");
        let error = anthropic::parse_message(body).unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::BadResponse, "{error}");
    }
    let error = openai::parse_completion(br#"{"error":{"message":"model overloaded","code":503}}"#)
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Stream);
    assert!(error.message.contains("model overloaded (code 503)"));
}
