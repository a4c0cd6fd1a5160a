//! The stop rules of a turn, apart from the loop that applies them: the step cap, one more try
//! after the server refused a request for size (never with the same request), and how an answer
//! without tool calls ends the turn. Plain data, so each rule is tested on its own.

use crate::context;
use crate::events::{StopReason, TurnErrorKind};
use tandem_model::FinishReason;
use tandem_provider::{ProviderError, ProviderErrorKind, ServerKind};

/// How a turn ended: why, and the error the user is shown when it was one.
pub(super) type Ended = (StopReason, Option<(TurnErrorKind, String)>);

/// How many times a turn's `Stop` hooks may keep it going (Claude Code sets no bound; a hook
/// that always blocks must not keep Tandem busy forever).
pub(super) const MAX_STOP_CONTINUATIONS: u32 = 5;

/// The size of a request as sent, in characters (the tool definitions included) and messages:
/// what the estimate is calibrated by and what a refusal for size is remembered by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sent {
    pub chars: u64,
    pub messages: usize,
    /// The tool definitions' share of `chars`.
    pub tools_chars: u64,
}

/// The requests a turn's whole tree has made (its subagents' with its own), against the user's
/// step cap: a subagent's own cap (its definition's, which a project writes) never lets the tree
/// make more requests than the user allowed the turn.
#[derive(Debug, Default)]
pub(crate) struct TreeSteps {
    used: std::sync::atomic::AtomicU32,
}

impl TreeSteps {
    /// Counts one request; `false` (nothing counted) once `max` are made.
    pub fn take(&self, max: u32) -> bool {
        use std::sync::atomic::Ordering;
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .is_ok()
    }

    /// A request that is retried does not count (as [`StopRules::retrying`]).
    pub fn give_back(&self) {
        use std::sync::atomic::Ordering;
        let _ = self
            .used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    }
}

/// Where a turn is in its rules: the steps taken, and what a refusal for size left behind.
pub(super) struct StopRules {
    max_steps: u32,
    step: u32,
    overflow_retried: bool,
    /// The size of the request a server refused for size: never sent again unchanged.
    refused: Option<(Sent, ProviderError)>,
}

impl StopRules {
    pub fn new(max_steps: u32) -> Self {
        Self {
            max_steps,
            step: 0,
            overflow_retried: false,
            refused: None,
        }
    }

    /// Counts a step; `false` once the cap is reached (the turn then ends with `MaxSteps`).
    pub fn next_step(&mut self) -> bool {
        if self.step >= self.max_steps {
            return false;
        }
        self.step += 1;
        true
    }

    /// The step being taken, from 1.
    #[cfg(test)]
    pub fn step(&self) -> u32 {
        self.step
    }

    /// Whether a failed request gets one more try: a refusal for size, the first of the turn,
    /// before any text was streamed.
    pub fn may_retry(&self, error: &ProviderError, streamed_text: bool) -> bool {
        matches!(error.kind, ProviderErrorKind::ContextOverflow { .. })
            && !self.overflow_retried
            && !streamed_text
    }

    /// The retry is taken: the step does not count, and the refused size is remembered.
    pub fn retrying(&mut self, sent: Sent, error: ProviderError) {
        self.overflow_retried = true;
        self.refused = Some((sent, error));
        self.step -= 1;
    }

    /// The refusal, when the next request is the same size as the refused one: it would be
    /// refused again, so the turn ends with it instead.
    pub fn refused_again(&mut self, sent: Sent) -> Option<ProviderError> {
        let (refused, error) = self.refused.take()?;
        ((refused.chars, refused.messages) == (sent.chars, sent.messages)).then_some(error)
    }
}

/// An answer with no tool calls ends the turn: an error when the server (of `kind`) cut it at
/// its output limit (`output_limit`, when known), else the end of the turn.
pub(super) fn answered(
    finish_reason: Option<FinishReason>,
    output_limit: Option<u64>,
    kind: ServerKind,
) -> Ended {
    match finish_reason {
        Some(FinishReason::Length) => (
            StopReason::Error,
            Some((
                TurnErrorKind::AnswerCut,
                context::cut_answer_message(output_limit, kind),
            )),
        ),
        _ => (StopReason::EndTurn, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(chars: u64, messages: usize) -> Sent {
        Sent {
            chars,
            messages,
            tools_chars: 0,
        }
    }

    fn overflow() -> ProviderError {
        ProviderError::new(
            ProviderErrorKind::ContextOverflow {
                window: Some(4096),
                requested: Some(5000),
            },
            "too long",
        )
    }

    #[test]
    fn the_step_cap_counts_every_step() {
        let mut rules = StopRules::new(2);
        assert!(rules.next_step());
        assert_eq!(rules.step(), 1);
        assert!(rules.next_step());
        assert!(!rules.next_step(), "a third step past a cap of 2");
        assert!(!StopRules::new(0).next_step());
    }

    #[test]
    fn a_refusal_for_size_is_retried_once_without_counting_the_step() {
        let mut rules = StopRules::new(1);
        assert!(rules.next_step());
        assert!(rules.may_retry(&overflow(), false));
        rules.retrying(sent(100, 2), overflow());
        assert!(rules.next_step(), "the refused step is not counted");
        assert!(!rules.may_retry(&overflow(), false), "only once a turn");
    }

    #[test]
    fn no_retry_after_text_or_for_other_errors() {
        let rules = StopRules::new(5);
        assert!(!rules.may_retry(&overflow(), true), "text was streamed");
        let other = ProviderError::new(ProviderErrorKind::Status(500), "boom");
        assert!(!rules.may_retry(&other, false));
    }

    #[test]
    fn the_same_request_is_never_sent_again() {
        let mut rules = StopRules::new(5);
        rules.next_step();
        rules.retrying(sent(100, 2), overflow());
        assert_eq!(rules.refused_again(sent(100, 2)), Some(overflow()));

        let mut rules = StopRules::new(5);
        rules.next_step();
        rules.retrying(sent(100, 2), overflow());
        assert_eq!(rules.refused_again(sent(80, 2)), None, "fitted smaller");
        assert_eq!(
            rules.refused_again(sent(100, 2)),
            None,
            "remembered for the next request only"
        );
    }

    #[test]
    fn an_answer_cut_at_the_output_limit_is_an_error() {
        let llama = ServerKind::LlamaCpp;
        assert_eq!(
            answered(Some(FinishReason::Stop), None, llama),
            (StopReason::EndTurn, None)
        );
        assert_eq!(answered(None, None, llama), (StopReason::EndTurn, None));
        let (reason, error) = answered(Some(FinishReason::Length), Some(512), llama);
        assert_eq!(reason, StopReason::Error);
        let (kind, message) = error.unwrap();
        assert_eq!(kind, TurnErrorKind::AnswerCut);
        assert_eq!(message, context::cut_answer_message(Some(512), llama));
    }

    /// The server's own limit is raised where that server sets it: llama.cpp's flag is no
    /// help on Ollama or LM Studio.
    #[test]
    fn a_cut_at_the_servers_own_limit_names_that_servers_fix() {
        let said = |kind| {
            answered(Some(FinishReason::Length), None, kind)
                .1
                .unwrap()
                .1
        };
        assert!(said(ServerKind::LlamaCpp).contains("--n-predict"));
        for (kind, fix) in [
            (ServerKind::Ollama, "num_predict"),
            (ServerKind::LmStudio, "Limit Response Length"),
            (ServerKind::Vllm, "--max-model-len"),
            (ServerKind::LlamaCppPython, "--n_ctx"),
        ] {
            let message = said(kind);
            assert!(message.contains(fix), "{kind:?}: {message}");
            assert!(!message.contains("--n-predict"), "{kind:?}: {message}");
        }
    }
}
