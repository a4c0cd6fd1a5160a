//! The allow-list against the attacks from the hardening issue: each command below must ask,
//! through the real `AllowList` the agent's approval policy uses. (These commands were all let
//! through by the string-prefix matching the list replaced; that matching is gone, and so is the
//! copy of it these tests used to check themselves against.)

use tandem_sandbox::{AllowList, Verdict};

/// Asserts that the list made of `entries` asks for each command, and says why.
fn now_ask(entries: &[&str], commands: &[&str]) {
    let list = AllowList::new(entries);
    for command in commands {
        match list.check(command) {
            Verdict::Ask { reason } => assert!(!reason.is_empty(), "{command:?}: no reason"),
            allowed => panic!("{command:?} must ask, got {allowed:?}"),
        }
    }
}

#[test]
fn cargo_test_no_longer_admits_config_manifest_toolchain_or_unstable() {
    now_ask(
        &["cargo test"],
        &[
            r#"cargo test --config 'build.rustc-wrapper="/path/evil.sh"'"#,
            r#"cargo test --config='build.rustc-wrapper="/path/evil.sh"'"#,
            "cargo test --config target.x86_64-unknown-linux-gnu.runner=/evil",
            "cargo test --config FILE.toml",
            "cargo test --conf FILE.toml",
            "cargo test -p x --config=FILE.toml",
            "cargo test --manifest-path /outside/Cargo.toml",
            "cargo test --manifest-path=/outside/Cargo.toml",
            "cargo test -Zunstable-options",
            "cargo test -Z unstable-options",
            "cargo test -qZunstable-options",
            "cargo test -C /elsewhere",
            "cargo test -C/elsewhere",
            "cargo test --target-dir /home/me/.local/bin",
            "cargo test +nightly",
            "cargo test -- --config x",
        ],
    );
}

#[test]
fn words_before_the_entry_or_a_different_program_ask() {
    now_ask(
        &["cargo"],
        &[
            "cargo +nightly test",
            "cargo -Zunstable-options test",
            "cargo --config x test",
            "cargo -C /elsewhere test",
        ],
    );
    let list = AllowList::new(["cargo test"]);
    for command in [
        "cargo +nightly test",
        "cargo -C dir test",
        "cargo --config x test",
        "RUSTC_WRAPPER=x cargo test",
        "env RUSTC_WRAPPER=x cargo test",
        "/tmp/evil/cargo test",
        "./cargo test",
        "cargo testx",
        "cargo build",
        "cargo",
    ] {
        assert!(!list.allows(command), "{command:?} must ask");
    }
}

#[test]
fn shell_operators_substitutions_redirections_and_newlines_ask() {
    now_ask(
        &["cargo test", "git status"],
        &[
            "cargo test; rm -rf ~",
            "cargo test && curl x",
            "cargo test || sh",
            "cargo test | sh",
            "cargo test & rm x",
            "cargo test $(rm x)",
            "cargo test \"$(rm x)\"",
            "cargo test `rm x`",
            "cargo test ${HOME}",
            "cargo test > /etc/passwd",
            "cargo test >> ~/.bashrc",
            "cargo test < /etc/shadow",
            "cargo test 2>&1",
            "cargo test\nrm x",
            "cargo test\rrm x",
            "cargo test (x)",
            "git status\n",
        ],
    );
}

#[test]
fn expansions_that_prefix_matching_let_through_ask() {
    now_ask(
        &["cargo test", "git diff"],
        &[
            // A file the model named `--config=...` or `--output=...` becomes an option.
            "cargo test *",
            "git diff *",
            "git diff src/?",
            "git diff [a-z]*",
            "cargo test {--config,x}",
            "cargo test ~/x",
            "cargo test --x=~/y",
            "cargo test a:~/y",
            "cargo test \\--config x",
            "cargo test # comment",
            "cargo test !x",
            "git diff HEAD^",
            "cargo test =ls",
            "cargo test %self",
            "cargo test 'unclosed",
            "cargo test\tx\u{b}y",
            "cargo test \u{a0}--config x",
        ],
    );
}

#[test]
fn git_options_that_run_programs_or_move_the_repository_ask() {
    now_ask(
        &["git"],
        &[
            "git -c core.fsmonitor=/evil status",
            "git -ccore.pager=/evil status",
            "git --exec-path=/evil status",
            "git --exec-path /evil status",
            "git --git-dir=/elsewhere/.git status",
            "git --work-tree=/ status",
            "git -C /elsewhere status",
            "git --config-env=core.pager=EVIL status",
            "git fetch --upload-pack=/evil origin",
            "git ls-remote -u /evil origin",
            "git push --receive-pack=/evil origin",
            "git push --exec=/evil origin",
            "git grep -O/evil x",
            "git grep --open-files-in-pager=/evil x",
            "git rebase -x /evil main",
            "git clone --template=/evil x",
        ],
    );
    now_ask(
        &["git status", "git diff", "git log"],
        &[
            "git diff --ext-diff",
            "git diff --output=/home/me/.bashrc",
            "git diff --output /home/me/.bashrc",
            "git diff --out=/home/me/.bashrc",
            "git log -p --output=x",
            "git status -c",
            "git diff --git-dir=/x",
        ],
    );
}

#[test]
fn make_and_npm_deny_lists() {
    now_ask(
        &["make test", "npm test"],
        &[
            "make test SHELL=/evil",
            "make test -f /elsewhere/Makefile",
            "make test --eval=x",
            "make test -C /elsewhere",
            "npm test --script-shell=/evil",
            "npm test --prefix /elsewhere",
            "npm test -C /elsewhere",
        ],
    );
}

#[test]
fn plain_arguments_and_harmless_options_are_still_admitted() {
    let list = AllowList::new(["cargo test", "git status", "git diff", "git log", "ls"]);
    for command in [
        "cargo test",
        "  cargo test  ",
        "cargo test -p tandem --lib",
        "cargo test -q -p tandem-sandbox -- --nocapture --test-threads=1",
        "cargo test 'name with spaces'",
        "cargo test \"name\" --features=a,b",
        "cargo test --release -j2",
        "git status --porcelain=v2 -b",
        "git diff HEAD~1 --stat",
        "git diff main..feature -- src/lib.rs",
        "git log --format=%h@%an -n 5",
        "git diff -- 'a file.rs'",
        "ls -la src/",
        // No deny list for ls: its entry admits further words that pass the character rules.
        "ls --color=never -C",
    ] {
        assert!(list.allows(command), "{command:?} must run unasked");
    }
}

#[test]
fn the_verdict_carries_the_entry_and_the_words_checked() {
    let list = AllowList::new(["git status", "cargo test"]);
    assert_eq!(
        list.check("cargo test 'a b' -p x"),
        Verdict::Allowed {
            entry: "cargo test".to_string(),
            argv: ["cargo", "test", "a b", "-p", "x"]
                .map(String::from)
                .to_vec(),
        }
    );
    match list.check("cargo test --config x") {
        Verdict::Ask { reason } => {
            assert!(reason.contains("--config"), "{reason}");
            assert!(reason.contains("after `cargo test`"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    match list.check("cargo test; x") {
        Verdict::Ask { reason } => assert!(reason.contains("`;`"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unusable_entries_admit_nothing_and_are_reported() {
    let list = AllowList::new(["", "ls; rm -rf ~", "cargo 'test", "git status"]);
    let unusable: Vec<&str> = list.unusable().iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(unusable, ["", "ls; rm -rf ~", "cargo 'test"]);
    for command in ["rm -rf /", "ls", "ls; rm -rf ~", "cargo test"] {
        assert!(!list.allows(command), "{command:?}");
    }
    assert!(!AllowList::new(Vec::<String>::new()).allows("ls"));
}

/// With prefix matching, `git diff *` in a folder where the model wrote a file named
/// `--output=...` made git write wherever that name says: a glob or an option that writes asks.
#[test]
fn a_glob_that_could_turn_a_file_name_into_an_option_asks() {
    now_ask(&["git diff"], &["git diff *", "git diff --output=planted"]);
}
