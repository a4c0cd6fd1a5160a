//! Tool calls a model wrote as text, in whichever markup its chat template taught it: Hermes and
//! Qwen `<tool_call>{json}</tool_call>`, Qwen3 Coder `<function=NAME><parameter=P>…`, llama-cpp-python
//! `functions.NAME:` lines, Mistral
//! `[TOOL_CALLS]`, Llama `<|python_tag|>`, gpt-oss harmony leftovers, and a bare JSON object that
//! names a known tool. Also the text tool mode: the tools described in the system prompt, for
//! servers and models that take no native tools.
//!
//! [`MarkupFilter`] keeps the markup from the user while the answer streams; [`extract`] turns
//! it into [`ToolCall`]s once the answer is whole, and [`extract_meant`] keeps only the calls
//! the model made (not quoted, not echoed, at the end of its answer).

mod filter;
mod meant;
mod parse;
mod prompt;
mod repair;

pub use filter::MarkupFilter;
pub use meant::extract_meant;
pub use parse::extract;
pub use prompt::{render_history, tools_prompt};
pub use repair::repair_json;
