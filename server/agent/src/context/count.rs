//! Counting a request's tokens as the server will read them.
//!
//! Exactly where the server can: each message's text through its tokenizer (llama.cpp
//! `/tokenize`, llama-cpp-python's `/extras/tokenize/count`), once per message (a step counts
//! only what is new), and the whole request through its own chat template where it renders one
//! (llama.cpp `/apply-template`), which gives what the template adds around the messages.
//! Elsewhere characters over a ratio. Either way every answer's `prompt_tokens` and every
//! overflow's `n_prompt_tokens` correct the count of what was sent, so the next request is
//! counted as that number plus what is new.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

use tandem_model::{Message, ToolDefinition};
use tandem_provider::tokens::{self, PER_MESSAGE};
use tandem_provider::{CompletionRequest, ModelClient};
use tandem_stdx::lock;

/// Messages whose counts are kept; past this the cache starts over (a long session's early
/// messages are compacted away by then).
const MAX_COUNTED: usize = 4096;

/// What the turn knows about counting for one model.
#[derive(Clone, Debug)]
pub(crate) struct Counter {
    /// Whose numbers these are: another model starts over.
    model: String,
    /// Characters per token, for what no tokenizer counted.
    pub ratio: f64,
    /// Tokens of each message's text by the server's tokenizer, by the message's hash.
    counted: HashMap<u64, u64>,
    /// What the chat template adds to the messages' text (role markers, the tool definitions as
    /// it renders them, the text tool prompt), from the last exact count of a whole request.
    framing: Option<Framing>,
}

/// A request's tokens beyond its messages' text: `base + PER_MESSAGE` for each message, for one
/// set of tools sent one way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Framing {
    tools: u64,
    text_tools: bool,
    base: i64,
}

/// How a request's tools reach the model, which changes what the template adds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape<'a> {
    pub tools: &'a [ToolDefinition],
    pub text_tools: bool,
}

impl Counter {
    pub fn new(ratio: f64) -> Self {
        Self {
            model: String::new(),
            ratio,
            counted: HashMap::new(),
            framing: None,
        }
    }

    /// Starts over when the model changed.
    pub fn for_model(&mut self, model: &str) {
        if self.model != model {
            *self = Self::new(super::START_RATIO);
            self.model = model.to_string();
        }
    }

    /// The tokens of `messages` sent with `shape`.
    pub fn count(&self, messages: &[Message], shape: Shape<'_>) -> u64 {
        let content: u64 = messages.iter().map(|m| self.message_tokens(m)).sum();
        content + self.framing(messages.len(), shape)
    }

    /// A message's text (counted, or estimated at the ratio) and its images (by their size: no
    /// tokenizer endpoint counts them).
    fn message_tokens(&self, message: &Message) -> u64 {
        let text = match self.counted.get(&key(message)) {
            Some(&n) => n,
            None => (tokens::message_chars(message) as f64 / self.ratio.max(0.5)).ceil() as u64,
        };
        text + tandem_provider::images::messages_tokens(std::slice::from_ref(message))
    }

    fn framing(&self, messages: usize, shape: Shape<'_>) -> u64 {
        let per_messages = messages as i64 * PER_MESSAGE as i64;
        match self.framing {
            Some(f) if f.tools == tools_key(shape.tools) && f.text_tools == shape.text_tools => {
                (f.base + per_messages).max(0) as u64
            }
            _ => tokens::tokens_for(tokens::tools_chars(shape.tools), messages, self.ratio),
        }
    }

    /// Whether every message's text was counted by the server's tokenizer.
    fn all_counted(&self, messages: &[Message]) -> bool {
        messages.iter().all(|m| self.counted.contains_key(&key(m)))
    }

    /// The server read `total` tokens of `messages` sent with `shape`: the count of that request
    /// becomes `total`. The ratio follows: the tokenizer's where it counted every message, else
    /// calibrated by `total`. `false` when the number is not believable (fewer tokens than any tokenizer makes
    /// of the text: the server cut the prompt or dropped part of it), which is not learnt.
    pub fn learn(&mut self, messages: &[Message], shape: Shape<'_>, total: u64) -> bool {
        let chars = messages.iter().map(tokens::message_chars).sum::<u64>()
            + tokens::tools_chars(shape.tools);
        let Some(ratio) = super::calibrated(chars, messages.len(), total) else {
            return false;
        };
        if self.all_counted(messages) {
            // The tokenizer's own ratio, for what is cut or sized in characters.
            let counted: u64 = messages
                .iter()
                .map(|m| self.counted.get(&key(m)).copied().unwrap_or(0))
                .sum();
            let text: u64 = messages.iter().map(tokens::message_chars).sum();
            if counted > 0 {
                self.ratio = (text as f64 / counted as f64).clamp(1.5, 6.0);
            }
        } else {
            self.ratio = ratio;
        }
        let content: u64 = messages.iter().map(|m| self.message_tokens(m)).sum();
        self.framing = Some(Framing {
            tools: tools_key(shape.tools),
            text_tools: shape.text_tools,
            base: total as i64 - content as i64 - messages.len() as i64 * PER_MESSAGE as i64,
        });
        true
    }

    /// `total` is a lower bound of the request's tokens (an overflow's count, which may hold
    /// the answer's room; Ollama's count of what it evaluated): learnt only when it is more
    /// than the count.
    pub fn learn_at_least(&mut self, messages: &[Message], shape: Shape<'_>, total: u64) {
        if total > self.count(messages, shape) {
            self.learn(messages, shape, total);
        }
    }
}

impl Counter {
    /// Counts, through the server, the text of each message of `messages` not counted yet: a
    /// message a compaction rewrote (a stub, a summary, a cut output) is counted before it is
    /// weighed. Nothing happens where the server has no tokenizer.
    pub async fn recount(&mut self, client: &dyn ModelClient, messages: &[Message]) {
        for (k, text) in self.uncounted(messages) {
            match count_text(client, &text).await {
                Some(n) => self.counted.insert(k, n),
                None => return,
            };
        }
    }

    /// The messages of `messages` not counted yet, each once, by key.
    fn uncounted(&mut self, messages: &[Message]) -> Vec<(u64, String)> {
        if self.counted.len() > MAX_COUNTED {
            self.counted.clear();
        }
        let mut seen = std::collections::HashSet::new();
        messages
            .iter()
            .map(|m| (key(m), m))
            .filter(|(k, _)| !self.counted.contains_key(k) && seen.insert(*k))
            .map(|(k, m)| (k, text(m)))
            .collect()
    }

    /// Takes the counts `other` made (a compaction's, on a copy of this counter).
    pub fn absorb(&mut self, other: &Counter) {
        if other.model == self.model {
            self.counted
                .extend(other.counted.iter().map(|(&k, &n)| (k, n)));
        }
    }
}

/// The beginnings of the requests sent so far, each as a chain of its messages' hashes: how
/// many of a request's first messages a server's prompt cache may already hold. Ollama counts
/// only the tokens it evaluated, so only what follows them tells whether it cut the prompt.
#[derive(Debug, Default)]
pub(crate) struct SentPrefixes {
    seen: std::collections::HashSet<u64>,
}

impl SentPrefixes {
    /// How many of `messages`' first messages some earlier request began with; `messages` is
    /// remembered for the next ones.
    pub fn shared_then_record(&mut self, messages: &[Message]) -> usize {
        if self.seen.len() > MAX_COUNTED {
            self.seen.clear();
        }
        let mut chain = DefaultHasher::new();
        let mut shared = 0;
        let mut diverged = false;
        for (i, m) in messages.iter().enumerate() {
            key(m).hash(&mut chain);
            let link = chain.finish();
            if !diverged && self.seen.contains(&link) {
                shared = i + 1;
            } else {
                diverged = true;
                self.seen.insert(link);
            }
        }
        shared
    }
}

/// `text`'s tokens by the server's tokenizer; `None` where it has none (or it failed).
async fn count_text(client: &dyn ModelClient, text: &str) -> Option<u64> {
    if text.is_empty() {
        return Some(0);
    }
    client.count_tokens(text).await
}

/// Counts, through the server, the text of each message of `messages` that `counter` has not
/// counted yet (the mutex is not held while the server counts).
pub(crate) async fn count_messages(
    client: &dyn ModelClient,
    counter: &Mutex<Counter>,
    messages: &[Message],
) -> bool {
    let new = {
        let mut counter = lock(counter);
        counter.for_model(&client.model());
        counter.uncounted(messages)
    };
    for (k, text) in new {
        match count_text(client, &text).await {
            Some(n) => lock(counter).counted.insert(k, n),
            // No tokenizer: the ratio and the answers' counts do the work.
            None => return false,
        };
    }
    true
}

/// Counts, through the server, what `counter` has not counted yet: the text of each new
/// message, and the whole request as the server renders it where it can (llama.cpp's
/// `/apply-template`), at every step: what a template adds around a message differs by role
/// and tool mode (text mode wraps each tool result), so a framing learnt at one step and applied
/// to the next step's new messages was a few tokens off. Nothing happens where the server has
/// no tokenizer.
pub(crate) async fn count_new(
    client: &dyn ModelClient,
    counter: &Mutex<Counter>,
    request: CompletionRequest<'_>,
) {
    if !count_messages(client, counter, request.messages).await {
        return;
    }
    let shape = Shape {
        tools: request.tools,
        text_tools: client.text_tools(),
    };
    if let Some(total) = client.count_request(request).await {
        lock(counter).learn(request.messages, shape, total);
    }
}

/// A message's text as a tokenizer sees it: the content and any tool calls.
fn text(message: &Message) -> String {
    match message {
        Message::System { content } | Message::User { content, .. } => content.clone(),
        Message::Tool { content, .. } => content.clone(),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let mut text = content.clone();
            for call in tool_calls {
                text.push('\n');
                text.push_str(&call.name);
                text.push(' ');
                text.push_str(&call.arguments);
            }
            text
        }
    }
}

fn key(message: &Message) -> u64 {
    let mut hasher = DefaultHasher::new();
    std::mem::discriminant(message).hash(&mut hasher);
    text(message).hash(&mut hasher);
    hasher.finish()
}

fn tools_key(tools: &[ToolDefinition]) -> u64 {
    let mut hasher = DefaultHasher::new();
    for t in tools {
        t.name.hash(&mut hasher);
        t.description.hash(&mut hasher);
        t.parameters.to_string().hash(&mut hasher);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(s: &str) -> Message {
        Message::user(s)
    }

    const NO_TOOLS: Shape<'static> = Shape {
        tools: &[],
        text_tools: false,
    };

    #[test]
    fn an_answers_count_makes_the_next_request_that_count_plus_what_is_new() {
        let mut counter = Counter::new(3.0);
        let sent = vec![
            Message::System {
                content: "s".repeat(3000),
            },
            user(&"u".repeat(300)),
        ];
        // The server read 1,400 tokens where the ratio guessed about 1,112.
        assert!(counter.learn(&sent, NO_TOOLS, 1400));
        assert_eq!(counter.count(&sent, NO_TOOLS), 1400);
        let mut next = sent.clone();
        next.push(user(&"n".repeat(60)));
        let new = counter.message_tokens(&user(&"n".repeat(60)));
        assert_eq!(counter.count(&next, NO_TOOLS), 1400 + new + PER_MESSAGE);
    }

    #[test]
    fn messages_the_tokenizer_counted_are_exact_and_the_template_is_the_rest() {
        let mut counter = Counter::new(3.0);
        let a = user("alpha beta gamma");
        let b = user("delta");
        counter.counted.insert(key(&a), 5);
        counter.counted.insert(key(&b), 2);
        // /apply-template + /tokenize said 40 for both: 33 of framing.
        assert!(counter.learn(&[a.clone(), b.clone()], NO_TOOLS, 40));
        // The tokenizer's ratio: 21 characters in 7 tokens.
        assert_eq!(counter.ratio, 3.0);
        let c = user("epsilon");
        counter.counted.insert(key(&c), 3);
        assert_eq!(counter.count(&[a, b, c], NO_TOOLS), 40 + 3 + PER_MESSAGE);
        // Other tools: the framing is estimated again.
        let tools = tandem_tools::Registry::workspace().definitions();
        let other = Shape {
            tools: &tools,
            text_tools: false,
        };
        assert!(counter.count(&[user("x")], other) > 100);
    }

    #[test]
    fn a_request_shares_the_beginning_of_earlier_ones() {
        let mut sent = SentPrefixes::default();
        let (s, a, b, c) = (user("system"), user("a"), user("b"), user("c"));
        assert_eq!(sent.shared_then_record(&[s.clone(), a.clone()]), 0);
        assert_eq!(
            sent.shared_then_record(&[s.clone(), a.clone(), b.clone()]),
            2
        );
        assert_eq!(
            sent.shared_then_record(&[s.clone(), a.clone(), b.clone()]),
            3
        );
        // Another conversation on the same system prompt; a compaction that rewrote `a`.
        assert_eq!(
            sent.shared_then_record(&[s.clone(), c.clone(), b.clone()]),
            1
        );
        assert_eq!(sent.shared_then_record(&[a, s, b]), 0);
    }

    #[test]
    fn a_lower_bound_only_raises_and_a_cut_prompt_is_not_learnt() {
        let mut counter = Counter::new(3.0);
        let sent = [user(&"w".repeat(3000))];
        counter.learn_at_least(&sent, NO_TOOLS, 100);
        assert_eq!(counter.count(&sent, NO_TOOLS), 1006);
        counter.learn_at_least(&sent, NO_TOOLS, 1500);
        assert_eq!(counter.count(&sent, NO_TOOLS), 1500);
        assert!(!counter.learn(&sent, NO_TOOLS, 20));
        assert_eq!(counter.count(&sent, NO_TOOLS), 1500);
    }
}
