//! Keeping every request inside the model's context window.
//!
//! Before each request the turn asks [`fit`]: the request is counted ([`count`]: by the
//! server's tokenizer and chat template where it has them, calibrated by every answer's
//! `prompt_tokens`), and when it would not leave room for the answer the conversation is
//! compacted in memory (the transcript keeps everything): old tool outputs elided to stubs, then
//! the oldest turns or steps summarized by the model. A compaction goes well below the budget,
//! so the steps after it only append and the server's prompt cache of the prefix stays good.
//! When even the system prompt, the tools and the user's message cannot fit, the turn ends with
//! both numbers and the fix.

pub(crate) mod compact;
pub(crate) mod count;

use tandem_model::{Message, ToolDefinition};
use tandem_provider::tokens::{self, DEFAULT_CHARS_PER_TOKEN};
use tandem_provider::{AsideCache, CompletionRequest, ModelClient, Purpose, ServerKind, Window};
use tandem_tools::Cut;

/// Windows up to this size get the compact system prompt and tool definitions.
pub const SMALL_WINDOW: u64 = 16 * 1024;

/// The share of the window one tool output may take.
const TOOL_OUTPUT_SHARE: f64 = 0.25;

/// The share of the budget a compaction brings a request down to: far below it, so many steps
/// append to a prefix that stays byte-identical (and in the server's prompt cache) before the
/// next compaction, instead of each one compacting a little and changing the prefix again.
/// Everything after the first message a compaction rewrites is evaluated again, so one deep
/// compaction costs about what a shallow one does; measured with `cargo bench --bench local`
/// (0.6 before: a compaction every other step in a 4k window).
const COMPACT_TO: f64 = 0.4;

/// What the turn knows about the request's room.
#[derive(Clone, Debug)]
pub(crate) struct Sizing {
    pub window: Window,
    pub kind: ServerKind,
    /// The counts the server gave, and the ratio for the rest.
    pub counter: count::Counter,
    /// Whether tools go as text in the system prompt.
    pub text_tools: bool,
    /// The `max_tokens` the client sends, once known (see [`Sizing::reserve`]).
    pub answer_limit: Option<u64>,
}

impl Sizing {
    /// Tokens kept free for the answer: the `max_tokens` the requests carry (the answer can't
    /// be longer), at least 128 and at most half the window; where none is sent, a quarter of a
    /// small window, at most 8,192 (what local servers get as `max_tokens` by default).
    pub fn reserve(&self) -> u64 {
        match self.answer_limit {
            Some(n) => n.clamp(128, (self.window.tokens / 2).max(128)),
            None => tokens::answer_limit(self.window.tokens),
        }
    }

    /// The most a request may take.
    pub fn budget(&self) -> u64 {
        self.window.tokens.saturating_sub(self.reserve())
    }

    /// What a compaction aims for.
    pub fn compaction_target(&self) -> u64 {
        (self.budget() as f64 * COMPACT_TO) as u64
    }

    pub fn estimate(&self, messages: &[Message], tools: &[ToolDefinition]) -> u64 {
        self.counter.count(
            messages,
            count::Shape {
                tools,
                text_tools: self.text_tools,
            },
        )
    }

    /// Characters per token, calibrated.
    pub fn ratio(&self) -> f64 {
        self.counter.ratio
    }
}

/// The most characters one tool output may keep in a window of `window` tokens.
pub(crate) fn tool_output_chars(window: u64, ratio: f64) -> usize {
    (window as f64 * TOOL_OUTPUT_SHARE * ratio) as usize
}

/// `output` cut to the share of the window one tool output may take, as its tool says (`cut`):
/// by characters at the ratio, then, where the server has a tokenizer, by its count (dense code runs far fewer
/// characters a token than prose, so the ratio alone may let an output take half the window).
pub(crate) async fn cap_tool_output(
    client: &dyn ModelClient,
    output: &str,
    window: u64,
    ratio: f64,
    cut: Cut,
) -> String {
    let most = (window as f64 * TOOL_OUTPUT_SHARE) as u64;
    let mut chars = tool_output_chars(window, ratio);
    let mut capped = cut_text(output, chars, cut);
    // A tokenizer makes at most a token of each byte: a short output needs no count.
    for _ in 0..3 {
        if capped.len() as u64 <= most {
            break;
        }
        let Some(counted) = client.count_tokens(&capped).await else {
            break;
        };
        if counted <= most {
            break;
        }
        let kept = chars.min(capped.chars().count()) as f64;
        chars = (kept * most as f64 / counted as f64 * 0.95) as usize;
        capped = cut_text(output, chars, cut);
    }
    capped
}

/// The key a session's requests carry, so a server keeps its prompt cached in one slot.
pub(crate) fn conversation_key(session_id: &tandem_model::SessionId) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    session_id.hash(&mut hasher);
    hasher.finish()
}

/// What a compaction did, for the user and the transcript.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Compaction {
    pub elided: u32,
    pub summarized: u32,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub summary: Option<String>,
}

pub(crate) enum Fit {
    Fits,
    Compacted(Compaction),
    /// The minimum does not fit: the message for the user.
    TooSmall(String),
}

/// Makes `conversation` fit `sizing`'s budget, compacting as needed. What a compaction rewrites
/// (stubs, summaries, cut outputs) is counted by the server's tokenizer, where it has one,
/// before it is weighed: the counts `sizing` learns here are for the caller to keep.
pub(crate) async fn fit(
    client: &dyn ModelClient,
    conversation: &mut Vec<Message>,
    tools: &[ToolDefinition],
    sizing: &mut Sizing,
) -> Fit {
    let budget = sizing.budget();
    let before = sizing.estimate(conversation, tools);
    if before <= budget {
        return Fit::Fits;
    }
    if let Some(message) = minimum_does_not_fit(conversation, tools, sizing) {
        return Fit::TooSmall(message);
    }
    let mut report = Compaction {
        tokens_before: before,
        ..Compaction::default()
    };
    let target = sizing.compaction_target();
    for index in compact::elidable(conversation) {
        compact::elide(conversation, index);
        report.elided += 1;
        sizing.counter.recount(client, conversation).await;
        if sizing.estimate(conversation, tools) <= target {
            report.tokens_after = sizing.estimate(conversation, tools);
            return Fit::Compacted(report);
        }
    }
    // Eliding reached the budget but not the target. Reaching the target keeps the next
    // compaction far off, so the prefix the server cached stays put. Where the server says what
    // a summary request does, that is free of the conversation's cache: made without the model
    // where the request would evict it, by the model on a slot of its own (stopping at the
    // budget there made a small compaction nearly every step: 11 in 37 requests with 4 slots,
    // `cargo bench --bench local`). Where it does not say (hosted APIs, Ollama, LM Studio: a
    // request with another prompt may evict, or is billed), the model is asked only to fit.
    let aside = client.aside_cache().await;
    let asides_evict = aside == AsideCache::Evicts;
    let aim = if sizing.estimate(conversation, tools) <= budget && aside == AsideCache::Unknown {
        budget
    } else {
        target
    };
    while sizing.estimate(conversation, tools) > aim {
        let Some(range) = compact::summarizable(conversation) else {
            break;
        };
        let span = conversation[range.clone()].to_vec();
        let summary = if asides_evict {
            // A summary request would push the conversation out of the server's prompt cache.
            compact::mechanical_summary(&span)
        } else {
            summarize(client, &span, sizing).await
        };
        report.summarized += span.len() as u32;
        compact::replace_with_summary(conversation, range, &summary);
        sizing.counter.recount(client, conversation).await;
        report.summary = Some(match report.summary.take() {
            Some(earlier) => format!("{earlier}\n{summary}"),
            None => summary,
        });
    }
    // What is left is the minimum and the latest results: cut those results to what fits, the
    // cut counted again (a few rounds: characters per token vary within a text).
    for _ in 0..4 {
        let over = sizing.estimate(conversation, tools).saturating_sub(budget);
        if over == 0 {
            break;
        }
        cut_latest_results(conversation, (over as f64 * sizing.ratio()) as usize + 64);
        sizing.counter.recount(client, conversation).await;
    }
    report.tokens_after = sizing.estimate(conversation, tools);
    if report.tokens_after > budget {
        return Fit::TooSmall(too_small_message(
            report.tokens_after,
            tools,
            conversation,
            sizing,
        ));
    }
    Fit::Compacted(report)
}

/// Compacts `conversation` as far as it goes, now (the user asked: `/compact`), whatever room
/// is left: every earlier tool output elided, the turns before the latest summarized by the
/// model (its steps, when there is one turn). The system prompt and the latest exchange stay.
pub(crate) async fn compact_now(
    client: &dyn ModelClient,
    conversation: &mut Vec<Message>,
    tools: &[ToolDefinition],
    sizing: &mut Sizing,
) -> Compaction {
    let mut report = Compaction {
        tokens_before: sizing.estimate(conversation, tools),
        ..Compaction::default()
    };
    for index in compact::elidable(conversation) {
        compact::elide(conversation, index);
        report.elided += 1;
    }
    if let Some(range) = compact::summarizable(conversation) {
        let span = conversation[range.clone()].to_vec();
        let summary = summarize(client, &span, sizing).await;
        report.summarized = span.len() as u32;
        compact::replace_with_summary(conversation, range, &summary);
        report.summary = Some(summary);
    }
    sizing.counter.recount(client, conversation).await;
    report.tokens_after = sizing.estimate(conversation, tools);
    report
}

/// The system prompt, the tools and the current user message: what every request needs.
fn minimum_does_not_fit(
    conversation: &[Message],
    tools: &[ToolDefinition],
    sizing: &Sizing,
) -> Option<String> {
    let current = compact::layout(conversation).current;
    let mut minimum: Vec<Message> = conversation.first().cloned().into_iter().collect();
    if let Some(user) = conversation.get(current).filter(|_| current > 0) {
        minimum.push(user.clone());
    }
    let needed = sizing.estimate(&minimum, tools);
    (needed > sizing.budget()).then(|| too_small_message(needed, tools, &minimum, sizing))
}

fn too_small_message(
    needed: u64,
    tools: &[ToolDefinition],
    conversation: &[Message],
    sizing: &Sizing,
) -> String {
    let current = compact::layout(conversation).current;
    let user = conversation
        .get(current)
        .filter(|_| current > 0)
        .map_or(0, |m| sizing.estimate(std::slice::from_ref(m), &[]));
    let fixed = needed.saturating_sub(user);
    let _ = tools;
    format!(
        "the request cannot fit the model's context window: your message is about {} tokens and \
         the system prompt and tool definitions about {} more, with {} kept for the answer; the \
         model's window is {} tokens ({}). To go on, {} or shorten the message (attach less \
         context or fewer images)",
        group(user),
        group(fixed),
        group(sizing.reserve()),
        group(sizing.window.tokens),
        sizing.window.source,
        sizing.kind.window_fix(),
    )
}

/// `11000` as `11,000`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Cuts the latest tool results, longest first, by `chars` characters in all.
fn cut_latest_results(conversation: &mut [Message], mut chars: usize) {
    let latest = compact::layout(conversation).latest;
    let mut order: Vec<usize> = (latest..conversation.len())
        .filter(|&i| matches!(conversation[i], Message::Tool { .. }))
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(tokens::message_chars(&conversation[i])));
    for i in order {
        if chars == 0 {
            break;
        }
        if let Message::Tool { content, .. } = &mut conversation[i] {
            let len = content.chars().count();
            let keep = len.saturating_sub(chars).max(len.min(200));
            if keep < len {
                chars = chars.saturating_sub(len - keep);
                *content = cap_text(content, keep);
            }
        }
    }
}

/// `text` cut to `max` characters as `cut` says: its head, or its head and its tail.
fn cut_text(text: &str, max: usize, cut: Cut) -> String {
    match cut {
        Cut::Head => cap_text(text, max),
        Cut::HeadAndTail => cap_head_and_tail(text, max),
    }
}

/// `text` cut to `max` characters, its beginning and end kept and the middle said cut.
fn cap_head_and_tail(text: &str, max: usize) -> String {
    let len = text.chars().count();
    if len <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(160);
    let head: String = text.chars().take(keep / 2).collect();
    let tail: String = text.chars().skip(len - (keep - keep / 2)).collect();
    format!(
        "{head}\n[... cut: {} of {len} characters left out here, more than fits the model's \
         context window ...]\n{tail}",
        len - keep
    )
}

/// `text` cut to `max` characters, saying so.
pub(crate) fn cap_text(text: &str, max: usize) -> String {
    let len = text.chars().count();
    if len <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max.saturating_sub(120)).collect();
    format!(
        "{head}\n[... cut: the output was {len} characters, more than fits the model's context \
         window; ask for a smaller part (an offset and limit, a narrower search)]"
    )
}

const SUMMARIZER: &str = "You compress a coding assistant's conversation so it can go on in a \
     small context window. Write a short summary (at most 200 words) of: the task, what was \
     decided and done, files read or changed (with paths), and open questions. Plain text only.";

/// The span summarized by the model itself, within the budget; the mechanical summary when the
/// model can't (an error, an empty answer).
async fn summarize(client: &dyn ModelClient, span: &[Message], sizing: &Sizing) -> String {
    let room = (sizing.budget() as f64 * 0.7 * sizing.ratio()) as usize;
    let per_message = (room / span.len().max(1)).clamp(80, 4000);
    let request = vec![
        Message::System {
            content: SUMMARIZER.into(),
        },
        Message::user(compact::render_for_summary(span, per_message)),
    ];
    let mut ignore = |_| {};
    let answer = client
        .complete(
            CompletionRequest {
                messages: &request,
                tools: &[],
                purpose: Purpose::Aside,
            },
            &mut ignore,
        )
        .await;
    match answer {
        Ok(c) if !c.text.trim().is_empty() => {
            let text = c.text.trim();
            cap_text(
                text,
                (sizing.budget() as f64 * 0.2 * sizing.ratio()) as usize,
            )
        }
        _ => compact::mechanical_summary(span),
    }
}

/// Calibrates characters per token with what the server reported for a request of `chars`
/// characters over `messages` messages; `None` when the report is not believable (fewer tokens
/// than any tokenizer makes of that text: the server cut the prompt or dropped part of it).
pub(crate) fn calibrated(chars: u64, messages: usize, prompt_tokens: u64) -> Option<f64> {
    let overhead = messages as u64 * tokens::PER_MESSAGE;
    let content_tokens = prompt_tokens.checked_sub(overhead).filter(|&t| t > 0)?;
    let ratio = chars as f64 / content_tokens as f64;
    (ratio <= 8.0).then_some(ratio.clamp(1.5, 6.0))
}

/// Characters per token of tool definitions at their most compact (JSON schema runs nearer 3):
/// a count below `tools_chars / this` cannot hold the definitions.
const TOOLS_CHARS_PER_TOKEN_MAX: f64 = 5.0;

/// Whether the server read fewer prompt tokens than the tool definitions alone take: its chat
/// template dropped them, and the model never learnt it has tools. The definitions' least
/// token count when so.
pub(crate) fn tools_dropped(prompt_tokens: u64, tools_chars: u64) -> Option<u64> {
    let least = (tools_chars as f64 / TOOLS_CHARS_PER_TOKEN_MAX) as u64;
    (tools_chars > 0 && prompt_tokens < least).then_some(least)
}

/// Whether the server's `prompt_tokens` is the whole prompt, cached or not (llama.cpp, its
/// Python binding, LM Studio, vLLM): only then does a small count prove the tools were dropped.
/// Ollama counts only what it evaluated, hosted APIs may leave cached tokens out, and an unknown
/// server may say anything.
pub(crate) fn counts_whole_prompt(kind: ServerKind) -> bool {
    matches!(
        kind,
        ServerKind::LlamaCpp | ServerKind::LlamaCppPython | ServerKind::LmStudio | ServerKind::Vllm
    )
}

pub(crate) fn tools_dropped_message(prompt_tokens: u64, tools: u64) -> String {
    format!(
        "the model server reports reading {} tokens of the request, fewer than the tool \
         definitions alone take (at least {}): its chat template drops them, so the model never \
         saw its tools; tools are described in the prompt from now on, for this server and model \
         in later sessions too; for native tool calls use a chat template that takes tools \
         (llama.cpp: --jinja, --chat-template-file), or set the tool mode to text \
         (--tool-mode text, provider.toolMode) to skip the native attempt",
        group(prompt_tokens),
        group(tools)
    )
}

/// What the user hears when the answer stopped on its token limit: the answer is kept, and the
/// limit, when Tandem set it, is named with how to raise it; else the server's own, with the fix
/// for the kind of server in use.
pub(crate) fn cut_answer_message(limit: Option<u64>, kind: ServerKind) -> String {
    match limit {
        Some(n) => format!(
            "the answer was cut at {} tokens, the most one answer may take (a quarter of the \
             context window unless set); what came is kept. To allow longer answers set \
             max_output_tokens under [provider] in config.toml (an editor's maxOutputTokens, \
             --max-output-tokens, TANDEM_MAX_OUTPUT_TOKENS; 0 sends no limit), or ask for a \
             shorter answer",
            group(n)
        ),
        None => format!(
            "the answer was cut at the server's own output token limit; what came is kept. Ask \
             for a shorter answer, or {}",
            kind.output_limit_fix()
        ),
    }
}

/// The starting ratio.
pub(crate) const START_RATIO: f64 = DEFAULT_CHARS_PER_TOKEN;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compact_prompt_with_every_tool_stays_under_a_thousand_tokens() {
        let root = std::path::Path::new("/home/someone/projects/a-fairly-long-project-name");
        let tools = crate::builtin_tools().compact_definitions();
        assert!(
            tools
                .iter()
                .any(|t| t.name == crate::plan::UpdatePlan::NAME)
        );
        assert!(tools.iter().any(|t| t.name == tandem_tools::FetchUrl::NAME));
        let messages = [tandem_model::Message::System {
            content: crate::prompt::compact_system_prompt(root),
        }];
        // At 3 characters a token: the cautious start, before any calibration.
        let tokens = tokens::estimate(&messages, &tools, 3.0);
        assert!(tokens < 1_000, "{tokens} tokens");
    }

    #[test]
    fn a_command_keeps_the_end_of_its_output() {
        let output: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let head = cut_text(&output, 1000, Cut::Head);
        assert!(head.starts_with("line 0\n") && !head.contains("line 1999"));
        let both = cut_text(&output, 1000, Cut::HeadAndTail);
        assert!(
            both.starts_with("line 0\n") && both.ends_with("line 1999\n"),
            "{both}"
        );
        assert!(
            both.contains("left out") && both.chars().count() <= 1000,
            "{both}"
        );
        assert_eq!(cut_text("short", 1000, Cut::HeadAndTail), "short");
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(group(11000), "11,000");
        assert_eq!(group(2048), "2,048");
        assert_eq!(group(999), "999");
        assert_eq!(group(1234567), "1,234,567");
    }

    #[test]
    fn the_text_tool_prompt_shows_every_tool_and_the_calls_worth_showing() {
        // Every built-in, update_plan, task and fetch_url included.
        let tools = crate::builtin_tools().compact_definitions();
        assert_eq!(
            tools.len(),
            tandem_tools::Registry::workspace().names().len() + 2
        );
        let prompt = tandem_provider::textcalls::tools_prompt(&tools);
        // At 3 characters a token, the low end for English and JSON: an upper bound.
        let tokens = tokens::tokens_for(prompt.chars().count() as u64, 0, 3.0);
        assert!(tokens < 1000, "{tokens} tokens:\n{prompt}");
        // Every tool's signature; a whole call for those with an example (the first shows the
        // shape of every call, replace_in_file its blocks), none for the others.
        for tool in &tools {
            assert!(
                prompt.contains(&format!("\n{}(", tool.name)),
                "no {}",
                tool.name
            );
            let call = format!(
                "<tool_call>\n{{\"name\": \"{}\", \"arguments\": {{",
                tool.name
            );
            assert_eq!(
                prompt.contains(&call),
                tool.example.is_some(),
                "{}",
                tool.name
            );
        }
        assert!(
            prompt.find("<tool_call>").unwrap()
                < prompt.find(&format!("\n{}(", tools[1].name)).unwrap(),
            "the first tool's call comes first: {prompt}"
        );
        assert!(prompt.contains(r#""diff":"------- SEARCH\n"#), "{prompt}");
        assert!(prompt.contains(r#"\n=======\n"#) && prompt.contains(r#"\n+++++++ REPLACE""#));
        // Each example is a call the parser reads back.
        let first = prompt.find("<tool_call>\n{").unwrap();
        let end = first + prompt[first..].find("</tool_call>").unwrap() + "</tool_call>".len();
        let (_, calls) = tandem_provider::textcalls::extract(&prompt[first..end], &tools);
        assert_eq!(calls.len(), 1);
    }

    #[test]
    fn tools_that_did_not_reach_the_model() {
        // SmolLM2's template through llama-server: 110 tokens read of a request whose tools
        // alone are about 2,700 characters.
        assert_eq!(tools_dropped(110, 2700), Some(540));
        assert_eq!(tools_dropped(900, 2700), None);
        assert_eq!(tools_dropped(10, 0), None);
        assert!(cut_answer_message(Some(512), ServerKind::Other).contains("512 tokens"));
    }

    #[test]
    fn calibration_refuses_a_cut_prompt() {
        assert_eq!(calibrated(4000, 2, 1012), Some(4000.0 / 1000.0));
        assert_eq!(calibrated(40000, 2, 1012), None);
    }
}
