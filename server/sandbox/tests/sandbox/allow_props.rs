//! Properties of the allow-list parser over generated input.

use proptest::prelude::*;
use tandem_sandbox::AllowList;

fn list() -> AllowList {
    AllowList::new(["cargo test", "git status", "ls", "echo"])
}

/// Shell control operators and expansions, one of which is put outside any quotes. (`~` is
/// literal after a letter, as in `HEAD~1`; `allow_list.rs` covers where it expands.)
const OPERATORS: &[&str] = &[
    ";", "&", "&&", "|", "||", "|&", ">", ">>", "<", "<<", "<<<", ">|", "&>", "2>&1", "$(", "`",
    "${", "$", "(", ")", "\n", "\r", "{", "}", "*", "?", "[", "\\", "#", "!", "^",
];

/// Text an entry would otherwise admit: letters, digits, spaces and harmless punctuation,
/// with quotes balanced.
fn admitted_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-z0-9_.:@,+/-]{1,8}",
            "'[a-z0-9 _.-]{0,6}'",
            "\"[a-z0-9 _.-]{0,6}\"",
        ],
        0..5,
    )
    .prop_map(|words| words.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_input_never_panics(command in any::<String>()) {
        let _ = list().check(&command);
        let _ = AllowList::new([command.as_str()]).check(&command);
    }

    #[test]
    fn arbitrary_printable_input_never_panics(command in "\\PC{0,80}") {
        let _ = list().check(&command);
    }

    #[test]
    fn an_operator_outside_quotes_is_never_allowed(
        entry in prop::sample::select(vec!["cargo test", "git status", "ls", "echo"]),
        before in admitted_text(),
        op in prop::sample::select(OPERATORS.to_vec()),
        glued_before in any::<bool>(),
        after in admitted_text(),
    ) {
        let gap = if glued_before { "" } else { " " };
        let command = format!("{entry} {before}{gap}{op}{after}");
        prop_assert!(!list().allows(&command), "{:?} was allowed", command);
    }

    /// The counterpart, so the property above is not met by refusing everything.
    #[test]
    fn plain_words_after_an_entry_are_allowed(
        entry in prop::sample::select(vec!["cargo test", "git status", "ls", "echo"]),
        words in prop::collection::vec("[a-z0-9_][a-z0-9_.:@,/-]{0,8}", 0..5),
    ) {
        let command = format!("{entry} {}", words.join(" "));
        prop_assert!(list().allows(&command), "{:?} was not allowed", command);
    }
}
