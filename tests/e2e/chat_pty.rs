//! `tandem chat` in a pseudo-terminal, as a user types at it: the start line, type-ahead during
//! a turn that must not answer the approval question, `/sessions`, `/exit` and Ctrl-C that quit
//! at once, and `--resume`.

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::approvals::{EDIT, ORIGINAL, PROPOSED};
use crate::support::*;

/// `tandem chat` on the slave side of a pty; the test holds the master.
pub struct Pty {
    master: std::fs::File,
    output: Arc<Mutex<String>>,
    child: Child,
    /// The terminal's width.
    cols: u16,
}

impl Pty {
    fn spawn(env: &Env, args: &[&str]) -> Pty {
        Pty::spawn_as(env, args, "dumb")
    }

    /// `tandem chat` in an 80x24 terminal of type `term` (`dumb`: no line editor).
    pub fn spawn_as(env: &Env, args: &[&str], term: &str) -> Pty {
        Pty::spawn_sized(env, args, term, 80, false)
    }

    /// `tandem chat` in a terminal `cols` wide, with colours unless NO_COLOR (`color` false).
    pub fn spawn_sized(env: &Env, args: &[&str], term: &str, cols: u16, color: bool) -> Pty {
        Pty::spawn_terminal(env, args, (term, cols, color), None, "")
    }

    /// As [`Pty::spawn_sized`], in a terminal that sends `answer` once the chat asks its
    /// background (OSC 11), and where `typed` was typed before the chat started.
    pub fn spawn_terminal(
        env: &Env,
        args: &[&str],
        (term, cols, color): (&str, u16, bool),
        answer: Option<&'static str>,
        typed: &str,
    ) -> Pty {
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize {
            ws_row: 24,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two descriptors into the integers we pass and reads the size;
        // no other memory.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                // `*const` on Linux, `*mut` on macOS: a null `*mut` coerces to both.
                std::ptr::null_mut(),
                &size as *const _ as *mut _,
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened and are owned here alone.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let mut master = std::fs::File::from(master);
        // Keys typed before the chat runs wait in the terminal (echoed, as in a shell).
        master.write_all(typed.as_bytes()).unwrap();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tandem"));
        for (name, _) in std::env::vars_os() {
            let name_str = name.to_string_lossy();
            if name_str.starts_with("TANDEM_") || name_str.starts_with("OPENAI_") {
                command.env_remove(&name);
            }
        }
        command
            .arg("chat")
            .args(args)
            .arg("--root")
            .arg(&env.workspace)
            .arg("--data-dir")
            .arg(&env.data_dir)
            .env("HOME", env.workspace.parent().unwrap().join("home"))
            // The user's config file is where the first-run guide says: under this HOME.
            .env(
                "XDG_CONFIG_HOME",
                env.workspace.parent().unwrap().join("home/.config"),
            )
            .env("TERM", term)
            // The background is the terminal's answer alone (or dark without one).
            .env_remove("COLORFGBG")
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls between fork and exec: a new session whose
        // controlling terminal is the pty, so ^C there is a SIGINT for the chat.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        if !color {
            command.env("NO_COLOR", "1");
        } else {
            command.env_remove("NO_COLOR");
        }
        let child = command.spawn().expect("cannot start tandem chat");
        drop(command); // closes our copies of the slave: reads end when the chat exits
        let output = Arc::new(Mutex::new(String::new()));
        let (mut reader, sink) = (master.try_clone().unwrap(), output.clone());
        let mut answerer = master.try_clone().unwrap();
        let mut answer = answer;
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut output = sink.lock().unwrap();
                output.push_str(&String::from_utf8_lossy(&buf[..n]));
                if output.contains("\x1b]11;?")
                    && let Some(answer) = answer.take()
                {
                    answerer.write_all(answer.as_bytes()).unwrap();
                }
            }
        });
        Pty {
            master,
            output,
            child,
            cols,
        }
    }

    /// The screen as a terminal shows it now (what the chat wrote, run through an emulator).
    pub fn screen(&self) -> String {
        let mut terminal = vt100::Parser::new(
            std::num::NonZeroU16::new(24).unwrap(),
            std::num::NonZeroU16::new(self.cols).unwrap(),
            0,
        );
        terminal.process(self.output().as_bytes());
        terminal.screen().contents()
    }

    /// Waits until the screen shows `text`.
    pub fn wait_for_screen(&self, text: &str) {
        let deadline = Instant::now() + SAFETY;
        while !self.screen().contains(text) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {text:?} on the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the screen's last line with text to be `line` (trailing spaces aside).
    pub fn wait_for_last_line(&self, line: &str) {
        let deadline = Instant::now() + SAFETY;
        let last = |screen: &str| {
            screen
                .lines()
                .map(str::trim_end)
                .rfind(|l| !l.is_empty())
                .unwrap_or("")
                .to_string()
        };
        while last(&self.screen()) != line {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {line:?} as the last line:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// Waits until the screen shows `text` `count` times in all.
    pub fn wait_for_n(&self, text: &str, count: usize) {
        let deadline = Instant::now() + SAFETY;
        while self.output().matches(text).count() < count {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {text:?}; the screen:\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_for(&self, text: &str) {
        self.wait_for_n(text, 1);
    }

    pub fn type_keys(&mut self, keys: &str) {
        self.master.write_all(keys.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    /// Waits for the chat to exit; fails if it takes longer than `within`.
    pub fn exits_within(&mut self, within: Duration) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if started.elapsed() > within {
                let _ = self.child.kill();
                panic!(
                    "tandem chat still ran {within:?} later; the screen:\n{}",
                    self.output()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The prompt of each request, as the model got it (the last user message).
pub fn prompts(mock: &MockServer) -> Vec<String> {
    model_requests(mock)
        .iter()
        .map(|r| {
            r.messages_with_role("user")
                .last()
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn type_ahead_is_not_an_answer_exit_quits_at_once_and_resume_reopens() {
    let env = Env::new();
    env.write("src/answer.rs", ORIGINAL);
    let mock = MockServer::start(Scenario::new([
        // Slow enough that the user types while it streams.
        Reply::tool(
            "replace_in_file",
            json!({"path": "src/answer.rs", "diff": EDIT}),
        )
        .with_text("Thinking it over before I change anything.")
        .chunk_size(2)
        .delay_ms(40),
        Reply::text("The answer is now 42.").expect_tool_result_contains("Applied the edit"),
        Reply::text("Still 42.").expect_messages_contain("Make the answer 42"),
    ]));
    let url = mock.base_url();
    let provider = ["--base-url", url.as_str(), "--model", "mock-coder"];

    let mut chat = Pty::spawn(&env, &provider);
    // The start line says which model answers, and where.
    chat.wait_for(&format!("mock-coder at {url}"));
    chat.wait_for("you> ");
    chat.type_keys("Make the answer 42\r");
    chat.wait_for("Thinking");
    // Type-ahead while the model streams: a whole "n" line and half a line.
    chat.type_keys("n\r");
    chat.type_keys("no wa");
    // The chat discards the type-ahead before it shows the question: once the question is on
    // the screen, only what is typed now answers.
    chat.wait_for("Apply this edit to src/answer.rs?");
    chat.type_keys("y\r");
    chat.wait_for("The answer is now 42.");
    assert_eq!(env.read("src/answer.rs"), PROPOSED, "{}", chat.output());

    chat.wait_for_n("you> ", 2);
    chat.type_keys("/sessions\r");
    chat.wait_for("/resume ID reopens one.");
    let screen = chat.output();
    let listed = screen
        .lines()
        .find(|l| l.starts_with("* "))
        .unwrap_or_else(|| panic!("the current session is not marked:\n{screen}"));
    let session = listed[2..].split_whitespace().next().unwrap().to_string();
    assert!(listed.contains("Make the answer 42"), "{listed}");

    // /exit quits at once: no further Enter needed.
    chat.wait_for_n("you> ", 3);
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());

    // --resume without an id reopens this workspace's latest session, with its context.
    let mut resumed = Pty::spawn(&env, &[&provider[..], &["--resume"]].concat());
    resumed.wait_for(&format!(
        "Resumed session {session} (1 turn; last asked: Make the answer 42)."
    ));
    resumed.wait_for("you> ");
    resumed.type_keys("And now?\r");
    resumed.wait_for("Still 42.");
    // Ctrl-C at an empty prompt quits at once.
    resumed.wait_for_n("you> ", 2);
    resumed.type_keys("\x03");
    resumed.exits_within(SAFETY);
    let failures = mock.failures();
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A command that changes, creates and deletes files, in a real terminal: `/diff` shows each of
/// its changes as the command's, `/undo` puts every file back.
#[test]
fn a_commands_changes_show_in_diff_and_undo_puts_them_back() {
    let env = Env::new();
    env.write("a.txt", "one\ntwo\n");
    env.write("gone.txt", "old line\n");
    let mock = MockServer::start(Scenario::new([
        Reply::tool(
            "execute_command",
            json!({"command": "sed -i s/one/ONE/ a.txt && printf 'fresh\\n' > b.txt && rm gone.txt && echo done"}),
        ),
        Reply::text("Changed them.").expect_tool_result_contains("done"),
    ]));
    let url = mock.base_url();
    let mut chat = Pty::spawn(
        &env,
        &["--base-url", &url, "--model", "mock-coder", "--yes"],
    );
    chat.wait_for("you> ");
    chat.type_keys("Change the files\r");
    chat.wait_for("Changed them.");
    assert_eq!(env.read("a.txt"), "ONE\ntwo\n", "{}", chat.output());

    chat.wait_for_n("you> ", 2);
    chat.type_keys("/diff\r");
    chat.wait_for("Turn t1: 3 files changed");
    chat.wait_for_n("you> ", 3);
    let output = chat.output();
    let shown = &output[output.find("Turn t1: 3 files changed").unwrap()..];
    for part in [
        "modified a.txt  by a command (",
        "-one\r\n+ONE",
        "created b.txt  by a command (",
        "+fresh",
        "deleted gone.txt  by a command (",
        "-old line",
    ] {
        assert!(shown.contains(part), "{part:?} not in:\n{shown}");
    }

    chat.type_keys("/undo\r");
    chat.wait_for("Restored: ");
    chat.wait_for_n("you> ", 4);
    assert_eq!(env.read("a.txt"), "one\ntwo\n", "{}", chat.output());
    assert_eq!(env.read("gone.txt"), "old line\n", "{}", chat.output());
    assert!(!env.workspace.join("b.txt").exists(), "{}", chat.output());
    chat.type_keys("/diff\r");
    chat.wait_for("No changes in this session.");
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
    let failures = mock.failures();
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `/rewind 1` in a real terminal: the first prompt comes back in the line editor, edited there
/// and sent in a new session from before that turn: the model sees the edited prompt and nothing
/// of the later turn; the old session stays, and the files stay as they are.
#[test]
fn rewind_edits_an_earlier_prompt_and_sends_it_in_a_fork() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("First answer."),
        Reply::text("Second answer."),
        Reply::text("Answer to the edit."),
    ]));
    let url = mock.base_url();
    let mut chat = Pty::spawn_as(
        &env,
        &["--base-url", &url, "--model", "mock-coder"],
        "xterm",
    );
    chat.wait_for("you> ");
    chat.type_keys("alpha question\r");
    chat.wait_for("First answer.");
    chat.wait_for_n("you> ", 2);
    chat.type_keys("later question\r");
    chat.wait_for("Second answer.");
    chat.wait_for_n("you> ", 3);

    chat.type_keys("/rewind 1\r");
    chat.wait_for("Edit the prompt of turn t1");
    // The old prompt is in the line, editable: the cursor at its end, Ctrl-W drops its last word.
    chat.wait_for_last_line("you> alpha question");
    chat.type_keys("\x17edited\r");
    chat.wait_for("Answer to the edit.");
    let sent = mock.chat_requests().last().unwrap().body.to_string();
    assert!(sent.contains("alpha edited"), "{sent}");
    assert!(
        !sent.contains("later question"),
        "the later turn went with the fork: {sent}"
    );
    assert!(!sent.contains("Second answer."), "{sent}");
    chat.wait_for("New session ");

    // Two sessions now: the original is kept.
    chat.wait_for_n("you> ", 5);
    chat.type_keys("/sessions\r");
    chat.wait_for("/resume ID reopens one.");
    let listed = chat.output();
    let listed = &listed[listed.rfind("/sessions").unwrap()..];
    assert_eq!(listed.matches("alpha question").count(), 2, "{listed}");
    chat.wait_for_last_line("you>");
    chat.type_keys("/rewind 9\r");
    chat.wait_for("This session has no turn 9; its turns are: t1.");
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
}

/// Without a line editor (TERM=dumb, an editor's shell buffer) `/rewind` shows the old prompt and
/// the next line replaces it; an empty line sends it unchanged.
#[test]
fn rewind_without_a_line_editor_resends_the_prompt_on_an_empty_line() {
    let env = Env::new();
    let mock = MockServer::start(Scenario::new([
        Reply::text("First answer."),
        Reply::text("Again."),
    ]));
    let url = mock.base_url();
    let mut chat = Pty::spawn(&env, &["--base-url", &url, "--model", "mock-coder"]);
    chat.wait_for("you> ");
    chat.type_keys("the only question\r");
    chat.wait_for("First answer.");
    chat.wait_for_n("you> ", 2);
    chat.type_keys("/rewind\r");
    chat.wait_for("Edit the prompt of turn t1");
    chat.wait_for_n("the only question", 2);
    chat.type_keys("\r");
    chat.wait_for("Again.");
    let requests = mock.chat_requests();
    let sent = requests.last().unwrap().body["messages"].to_string();
    assert_eq!(sent.matches("the only question").count(), 1, "{sent}");
    assert!(!sent.contains("First answer."), "{sent}");
    chat.wait_for_n("you> ", 4);
    chat.type_keys("/exit\r");
    assert!(chat.exits_within(SAFETY).success());
}
