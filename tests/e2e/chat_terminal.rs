//! `tandem chat` in a real pseudo-terminal (xterm), checked on the emulated screen: the first run
//! with no model server, Ctrl-R and the history kept per workspace, Tab completion, the speed
//! while an answer streams, each line shown as it completes, no colour under NO_COLOR, and code
//! coloured for the background the terminal reports (OSC 11).

use crate::chat_pty::{Pty, prompts};
use crate::support::*;

const UP: &str = "\x1b[A";

fn provider(mock: &MockServer) -> Vec<String> {
    ["--base-url", &mock.base_url(), "--model", "mock-coder"]
        .map(String::from)
        .to_vec()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn the_first_run_without_a_model_server_guides_on_the_screen() {
    // Nothing may answer on the local servers' ports meanwhile (the discovery test opens one).
    let _ports = crate::discovery::LOCAL_PORTS.blocking_lock();
    let env = Env::new();
    let mut chat = Pty::spawn_sized(&env, &[], "xterm", 200, false);
    chat.wait_for_screen("`tandem doctor` checks the setup");
    chat.wait_for_screen("you> ");
    let screen = chat.screen();
    let config = env
        .workspace
        .parent()
        .unwrap()
        .join("home/.config/tandem/config.toml");
    for line in [
        "no model server yet",
        "No model server is set, and none answered on this machine. Tried:",
        "  http://127.0.0.1:8080/v1 (llama.cpp): no answer; start it with `llama-server -m MODEL.gguf --jinja`",
        "  http://127.0.0.1:1234/v1 (LM Studio): no answer",
        "  http://127.0.0.1:11434/v1 (Ollama): no answer; start it with `ollama serve`",
        "1. Start one of the local servers above and load a model.",
        "     export TANDEM_BASE_URL=http://127.0.0.1:8080/v1",
        "     export TANDEM_MODEL=your-model",
        &format!("3. Or for good, in {}:", config.display()),
        "     [provider]",
        "     base_url = \"http://127.0.0.1:8080/v1\"",
        "     model = \"your-model\"",
    ] {
        assert!(
            screen.contains(line),
            "{line:?} is not on the screen:\n{screen}"
        );
    }
    assert!(!screen.contains("initializationOptions"), "{screen}");
    // A prompt anyway: the guide again, not a message written for editors; the chat goes on.
    chat.type_keys("Hello?\r");
    chat.wait_for_n("`tandem doctor` checks the setup", 2);
    chat.wait_for_n("you> ", 2);
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
}

#[test]
fn ctrl_r_finds_a_prompt_and_the_history_is_kept_per_workspace() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("First."),
        Reply::text("Second."),
        Reply::text("Third."),
        Reply::text("Fourth."),
        Reply::text("Fifth."),
    ]));
    let provider = provider(&mock);
    let mut chat = Pty::spawn_as(&env, &args(&provider), "xterm");
    chat.wait_for_screen("you> ");
    chat.type_keys("alpha one\r");
    chat.wait_for_n("tokens in", 1);
    chat.type_keys("beta two\r");
    chat.wait_for_n("tokens in", 2);
    // Ctrl-R, a few letters: the older prompt comes back; Enter sends it.
    chat.type_keys("\x12alp");
    chat.wait_for_screen("alpha one");
    chat.type_keys("\r");
    chat.wait_for_screen("Third.");
    chat.wait_for_n("tokens in", 3);
    chat.type_keys("\x04");
    assert!(chat.exits_within(SAFETY).success());

    // The next chat in this workspace recalls it with Up…
    let mut again = Pty::spawn_as(&env, &args(&provider), "xterm");
    again.wait_for_screen("you> ");
    again.type_keys(&format!("{UP}\r"));
    again.wait_for_screen("Fourth.");
    again.wait_for_n("tokens in", 1);
    again.type_keys("\x04");
    assert!(again.exits_within(SAFETY).success());

    // …a chat in another workspace (the same data dir) has none of it.
    let mut other = Env::new();
    other.data_dir = env.data_dir.clone();
    let mut elsewhere = Pty::spawn_as(&other, &args(&provider), "xterm");
    elsewhere.wait_for_screen("you> ");
    elsewhere.type_keys(&format!("{UP}fresh\r"));
    elsewhere.wait_for_screen("Fifth.");
    elsewhere.wait_for_n("tokens in", 1);
    elsewhere.type_keys("\x04");
    assert!(elsewhere.exits_within(SAFETY).success());

    assert_eq!(
        prompts(&mock),
        ["alpha one", "beta two", "alpha one", "alpha one", "fresh"]
    );
}

#[test]
fn tab_completes_commands_and_paths_and_alt_enter_adds_a_line() {
    let env = Env::new();
    env.write("src/main.rs", "fn main() {}\n");
    let mock = MockServer::start(Scenario::new([Reply::text("Read it.")]));
    let provider = provider(&mock);
    let mut chat = Pty::spawn_as(&env, &args(&provider), "xterm");
    chat.wait_for_screen("you> ");
    // `/mc` Tab is `/mcp `: run here, nothing sent.
    chat.type_keys("/mc\t");
    chat.wait_for_screen("you> /mcp");
    chat.type_keys("\r");
    chat.wait_for_screen("No MCP servers.");
    // `@sr` Tab, `ma` Tab: a path in the workspace, in the middle of a prompt.
    chat.type_keys("Explain @sr\t");
    chat.wait_for_screen("Explain @src/");
    chat.type_keys("ma\t");
    chat.wait_for_screen("Explain @src/main.rs");
    // Alt-Enter: a new line in the same message.
    chat.type_keys(" briefly\x1b\rthen stop\r");
    chat.wait_for_screen("Read it.");
    chat.wait_for_n("tokens in", 1);
    chat.type_keys("\x04");
    assert!(chat.exits_within(SAFETY).success());
    let prompts = prompts(&mock);
    assert_eq!(prompts.len(), 1, "{}", chat.screen());
    assert!(
        prompts[0].contains("Explain @src/main.rs briefly\nthen stop"),
        "{prompts:?}"
    );
}

#[test]
fn the_speed_shows_while_the_answer_streams() {
    let env = Env::new();
    let answer = format!(
        "Intro paragraph.\n\n{} ZEBRA.",
        "words that keep coming ".repeat(8)
    );
    let mock = MockServer::start(Scenario::new([Reply::text(answer)
        .chunk_size(4)
        .delay_ms(40)]));
    let provider = provider(&mock);
    let mut chat = Pty::spawn_sized(&env, &args(&provider), "xterm-256color", 80, true);
    chat.wait_for_screen("you> ");
    chat.type_keys("Go\r");
    chat.wait_for_screen("ZEBRA.");
    chat.wait_for_screen("tokens in");
    let raw = chat.output();
    // Drawn while the answer came (the raw output keeps every frame), before its last word…
    let speed = raw
        .find(" tok/s")
        .unwrap_or_else(|| panic!("no speed while streaming: {raw:?}"));
    let last_word = raw.find("ZEBRA").unwrap();
    assert!(speed < last_word, "the speed came only after: {raw:?}");
    assert!(raw[..last_word].contains("answering… "), "{raw:?}");
    // …after the intro was shown…
    assert!(raw.find("Intro paragraph.").unwrap() < speed, "{raw:?}");
    // …and gone from the screen at the end, where the status line has the server's count.
    let screen = chat.screen();
    assert!(!screen.contains("answering…"), "{screen}");
    assert!(screen.contains("ai> Intro paragraph."), "{screen}");
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
}

/// Whether `raw` holds an SGR escape (colour, bold…): `ESC [` digits and `;` then `m`.
fn has_sgr(raw: &str) -> bool {
    raw.match_indices("\x1b[").any(|(i, _)| {
        let rest = &raw[i + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(rest.len());
        rest[end..].starts_with('m')
    })
}

#[test]
fn no_color_means_no_colour_on_a_terminal() {
    let env = Env::new();
    let answer = "## Plan\n\nThis **matters**.\n\n```rust\nfn main() {}\n```\n";
    let mock = MockServer::start(Scenario::new([Reply::text(answer)]));
    let provider = provider(&mock);
    // NO_COLOR set (spawn_sized's `color` false).
    let mut chat = Pty::spawn_sized(&env, &args(&provider), "xterm-256color", 80, false);
    chat.wait_for_screen("you> ");
    chat.type_keys("Go\r");
    chat.wait_for_screen("fn main() {}");
    chat.wait_for_screen("tokens in");
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
    let raw = chat.output();
    assert!(!has_sgr(&raw), "a colour escape under NO_COLOR: {raw:?}");
    // No colours, so no question to the terminal about its background.
    assert!(!raw.contains("\x1b]11;?"), "{raw:?}");
    // Still rendered: no Markdown marks on the screen.
    let screen = chat.screen();
    assert!(
        !screen.contains("**") && !screen.contains("```"),
        "{screen}"
    );
    assert!(has_sgr("a \x1b[1mb\x1b[0m") && !has_sgr("\r\x1b[2K"));
}

#[test]
fn each_line_shows_before_the_stream_goes_on() {
    let env = Env::new();
    // Chunks of 4 characters after the role chunk: the first 8 end exactly at the code line's
    // end, the 9th is the start of the next line (the provider holds a line's last newline until
    // the next piece shows it starts no written tool call). The stream then stalls: nothing
    // after is ever sent.
    let answer = "First line.\n```rust\nlet x = 12;\nnever shown\n\nNor this.";
    let mock = MockServer::start(Scenario::new([Reply::text(answer)
        .chunk_size(4)
        .stall_after(1 + 9)]));
    let provider = provider(&mock);
    let mut chat = Pty::spawn_sized(&env, &args(&provider), "xterm-256color", 80, true);
    chat.wait_for_screen("you> ");
    chat.type_keys("Go\r");
    // The paragraph has not ended (no blank line came), nor has the code block (no closing
    // fence): each complete line is on the screen all the same, while the stream holds.
    chat.wait_for_screen("ai> First line.");
    chat.wait_for_screen("let x = 12;");
    let screen = chat.screen();
    let lines: Vec<&str> = screen.lines().collect();
    let first = lines.iter().position(|l| l.contains("First line."));
    let code = lines.iter().position(|l| l.contains("let x = 12;"));
    assert!(first < code, "{screen}");
    // Without its fence, and the line still coming is not shown half-way.
    assert!(
        !screen.contains("```") && !screen.contains("neve"),
        "{screen}"
    );
    // Highlighted as code (24-bit colours), line by line.
    let raw = chat.output();
    let after = &raw[raw.find("First line.").unwrap()..];
    assert!(after.contains("\x1b[38;2;"), "no highlight: {after:?}");
    // Ctrl-C stops the held turn; the chat goes on.
    chat.type_keys("\x03");
    chat.wait_for_n("you> ", 2);
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
    assert!(!chat.output().contains("never shown"));
}

/// A light terminal's answers: OSC 11 (white, ended by ST) then DA1, as xterm sends them.
const LIGHT_TERMINAL: &str = "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?64;1;2c";
/// Plain code's colour in each theme (base16-ocean's foreground), as a 24-bit SGR.
const LIGHT_CODE: &str = "\x1b[38;2;79;91;102m";
const DARK_CODE: &str = "\x1b[38;2;192;197;206m";

#[test]
fn code_follows_the_background_the_terminal_reports_and_keys_typed_meanwhile_are_kept() {
    let env = Env::new();
    let code = "```text\nplain words\n```\n";
    let mock = MockServer::start(Scenario::new([
        Reply::text(code),
        Reply::text(code),
        Reply::text(code),
    ]));
    let provider = provider(&mock);
    let look = ("xterm-256color", 80, true);

    // A terminal that answers white: light code. "Go" was typed before the chat started; the
    // chat read it with the answer, and it is still the first prompt.
    let mut light = Pty::spawn_terminal(&env, &args(&provider), look, Some(LIGHT_TERMINAL), "Go\r");
    light.wait_for_screen("plain words");
    light.wait_for_n("you> ", 2);
    light.type_keys("/exit\r");
    assert!(light.exits_within(SAFETY).success());
    let raw = light.output();
    assert!(
        raw.contains("\x1b]11;?"),
        "the terminal was not asked: {raw:?}"
    );
    assert!(raw.contains(LIGHT_CODE), "not the light theme: {raw:?}");
    assert!(!raw.contains(DARK_CODE), "{raw:?}");
    // The answer did not reach the screen.
    assert!(!light.screen().contains("rgb:"), "{}", light.screen());

    // A terminal that answers nothing: dark, and the chat starts all the same, a line and half
    // of the next typed meanwhile kept.
    let mut dark = Pty::spawn_terminal(&env, &args(&provider), look, None, "Go on\rha");
    dark.wait_for_screen("plain words");
    dark.wait_for_screen("you> ha");
    dark.type_keys("lf\r");
    dark.wait_for_n("plain words", 2);
    dark.wait_for_n("you> ", 3);
    dark.type_keys("/exit\r");
    assert!(dark.exits_within(SAFETY).success());
    let raw = dark.output();
    assert!(raw.contains(DARK_CODE), "not the dark theme: {raw:?}");
    assert!(!raw.contains(LIGHT_CODE), "{raw:?}");
    assert_eq!(prompts(&mock), ["Go", "Go on", "half"]);
}

#[test]
fn a_prompt_typed_while_the_answer_streams_is_sent_at_the_next_prompt() {
    let env = Env::new();
    // The first answer streams for about 3 s after its first line; the keys go in meanwhile,
    // where the terminal's line mode holds them with Enter turned into a line feed.
    let slow = Reply::text(format!("first line\n{}\n", "more ".repeat(16)))
        .chunk_size(4)
        .delay_ms(150);
    let mock = MockServer::start(Scenario::new([slow, Reply::text("the second answer")]));
    let provider = provider(&mock);
    let mut chat = Pty::spawn_sized(&env, &args(&provider), "xterm-256color", 100, false);
    chat.wait_for_screen("you> ");
    chat.type_keys("Go\r");
    chat.wait_for_screen("first line");
    chat.type_keys("and then\r");
    // Sent as typed, not held as the first line of a longer message.
    chat.wait_for_screen("the second answer");
    assert_eq!(mock.chat_requests().len(), 2);
    let last = mock.chat_requests().last().unwrap().body.clone();
    let sent = last["messages"].as_array().unwrap().last().unwrap()["content"].clone();
    assert_eq!(sent.as_str(), Some("and then"), "{last}");
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
}
