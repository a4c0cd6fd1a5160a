//! `tandem chat`'s line editor in a real pseudo-terminal (xterm), checked on the emulated
//! screen: cursor keys edit the line, a pasted block is one message, history recalls a prompt,
//! `/help` sends nothing, Ctrl-D quits.

use crate::chat_pty::Pty;
use crate::support::*;

const LEFT: &str = "\x1b[D";
const UP: &str = "\x1b[A";

#[test]
fn the_line_editor_edits_pastes_recalls_and_quits() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("First answer."),
        Reply::text("Second answer."),
        Reply::text("Third answer."),
    ]));
    let mut chat = Pty::spawn_as(
        &env,
        &["--base-url", &mock.base_url(), "--model", "mock-coder"],
        "xterm",
    );
    chat.wait_for_screen("you> ");

    // A typo fixed with the cursor keys: the model gets the edited line.
    chat.type_keys(&format!("Hello wrld{LEFT}{LEFT}{LEFT}o\r"));
    chat.wait_for_screen("First answer.");

    // A pasted two-line block (bracketed paste) is one message, sent by the Enter after it.
    // The turn's end (its token line) comes before the next prompt reads keys.
    chat.wait_for_n("tokens in", 1);
    chat.type_keys("\x1b[200~line one\rline two\x1b[201~");
    chat.wait_for_screen("line two");
    assert_eq!(
        model_requests(&mock).len(),
        1,
        "the paste alone sent nothing"
    );
    chat.type_keys("\r");
    chat.wait_for_screen("Second answer.");

    // Up recalls the pasted prompt (its last line), Up moves to its first line, Up recalls the
    // first prompt.
    chat.wait_for_n("tokens in", 2);
    chat.type_keys(&format!("{UP}{UP}{UP}\r"));
    chat.wait_for_screen("Third answer.");
    chat.wait_for_n("tokens in", 3);

    // /help is answered here.
    chat.type_keys("/help\r");
    chat.wait_for_screen("/undo [TURN]");

    // Ctrl-D on an empty line quits.
    chat.type_keys("\x04");
    let status = chat.exits_within(SAFETY);
    assert!(status.success(), "{status}\n{}", chat.screen());

    let prompts = crate::chat_pty::prompts(&mock);
    assert_eq!(
        prompts,
        ["Hello world", "line one\nline two", "Hello world"],
        "{}",
        chat.screen()
    );
    // The prompts are kept for the next chat in this workspace.
    let history = std::fs::read_dir(env.data_dir.join("history"))
        .expect("a history folder")
        .count();
    assert_eq!(history, 1);
}

#[test]
fn a_spinner_shows_while_the_model_is_silent_then_a_status_line() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([Reply::text("Slow answer.").delay_ms(300)]));
    let mut chat = Pty::spawn_as(
        &env,
        &["--base-url", &mock.base_url(), "--model", "mock-coder"],
        "xterm",
    );
    chat.wait_for_screen("you> ");
    chat.type_keys("Take your time\r");
    // Drawn while nothing has come (the raw output keeps every frame)…
    chat.wait_for("waiting for the model… ");
    chat.wait_for_screen("Slow answer.");
    chat.wait_for_screen("tokens in");
    // …and gone from the screen once the answer came: the answer took its line.
    let screen = chat.screen();
    assert!(!screen.contains("waiting for the model"), "{screen}");
    let status = screen
        .lines()
        .find(|l| l.starts_with("[mock-coder: "))
        .unwrap_or_else(|| panic!("no status line:\n{screen}"));
    assert!(
        status.contains(" tokens in, ") && status.contains(" s"),
        "{status}"
    );
    assert!(
        screen.contains("ai> Slow answer."),
        "the answer starts its own line:\n{screen}"
    );
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
}

#[test]
fn answers_render_as_markdown_wrapped_at_spaces_with_highlighted_code() {
    let env = Env::new();
    let answer = "## The plan\n\nThis **matters** because every single word here must stay \
                  whole when the terminal is narrow.\n\n```rust\nfn main() { let x = 1; }\n```\n\
                  \nDone.";
    let mock = MockServer::start(Scenario::new([Reply::text(answer).chunk_size(7)]));
    let mut chat = Pty::spawn_sized(
        &env,
        &["--base-url", &mock.base_url(), "--model", "mock-coder"],
        "xterm-256color",
        40,
        true,
    );
    chat.wait_for_screen("you> ");
    chat.type_keys("Explain\r");
    chat.wait_for_screen("Done.");
    chat.wait_for_screen("tokens in");
    let screen = chat.screen();
    assert!(
        !screen.contains("**") && !screen.contains("```"),
        "{screen}"
    );
    assert!(
        screen.contains("The plan") && !screen.contains("## The plan"),
        "{screen}"
    );
    // Wrapped at 40 columns between words: every word of the paragraph is whole on a line, and
    // so is every word of the banner and of the status line after the turn.
    for word in [
        "matters",
        "because",
        "every",
        "single",
        "word",
        "here",
        "must",
        "stay",
        "whole",
        "terminal",
        "narrow.",
        "commands;",
        "/exit",
        "quits.",
        "tokens",
        "in,",
    ] {
        assert!(
            screen
                .lines()
                .any(|l| l.split_whitespace().any(|w| w == word)),
            "{word:?} was broken:\n{screen}"
        );
    }
    // The code is coloured (24-bit foreground escapes around it), the bold is an escape.
    let raw = chat.output();
    assert!(raw.contains("\x1b[38;2;"), "no highlighting: {raw:?}");
    assert!(raw.contains("\x1b[1mmatters"), "no bold: {raw:?}");
    assert!(screen.contains("fn main()"), "{screen}");
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
}
