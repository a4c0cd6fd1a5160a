//! The ids on the wire: a session's, a turn's, a tool call's, each a type of its own so one
//! can't be passed where another is meant, in Rust and in the generated TypeScript (a branded
//! `string`, e.g. `string & { readonly __brand: "SessionId" }`).
//!
//! Each is a string underneath and (de)serializes as one (`#[serde(transparent)]`): the JSON
//! is the same as with plain strings. These are the wire's own types, separate from the core's
//! (`tandem_model::SessionId` and the others); the face converts at the boundary.
//!
//! ```
//! use tandem_protocol::{PromptResult, TurnId};
//! fn undo_since(_turn: &TurnId) {}
//! let result = PromptResult { turn_id: TurnId::from("t3") };
//! undo_since(&result.turn_id);
//! ```
//!
//! The same call with a session id does not compile:
//!
//! ```compile_fail,E0308
//! use tandem_protocol::{NewSessionResult, SessionId, TurnId};
//! fn undo_since(_turn: &TurnId) {}
//! let result = NewSessionResult { session_id: SessionId::from("0123abcd") };
//! undo_since(&result.session_id);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// Declares a wire id: a `String` newtype, in TypeScript the branded string given (ts-rs takes
/// only a literal there, so each id spells its brand out). The same shape as `tandem_model`'s
/// `id_type!`, written again because this crate depends on serde alone (scripts/check-layers.sh).
macro_rules! wire_id {
    ($(#[$doc:meta])* $name:ident, $branded:literal) => {
        $(#[$doc])*
        #[cfg_attr(test, derive(ts_rs::TS), ts(type = $branded))]
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id's text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_string())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
    };
}

wire_id!(
    /// A session's id, as `tandem/newSession` gave it.
    SessionId,
    "string & { readonly __brand: \"SessionId\" }"
);

wire_id!(
    /// A turn's id within its session (`t1`, `t2`, …), as `tandem/prompt` gave it.
    TurnId,
    "string & { readonly __brand: \"TurnId\" }"
);

wire_id!(
    /// A tool call's id, as `tandem/update`'s `toolCall` gave it.
    ToolCallId,
    "string & { readonly __brand: \"ToolCallId\" }"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ApprovalRequest, Update, UpdateParams};

    /// The ids change nothing on the wire: a message with them is byte for byte what the
    /// plain strings made.
    #[test]
    fn a_message_with_ids_is_the_plain_strings_bytes() {
        let update = UpdateParams {
            session_id: SessionId::from("0123abcd"),
            turn_id: TurnId::from("t2"),
            update: Update::ToolOutput {
                tool_call_id: ToolCallId::from("call_1"),
                delta: "ok\n".into(),
            },
        };
        assert_eq!(
            serde_json::to_string(&update).unwrap(),
            r#"{"sessionId":"0123abcd","turnId":"t2","kind":"toolOutput","toolCallId":"call_1","delta":"ok\n"}"#
        );
        let plain =
            r#"{"sessionId":"s","turnId":"t1","toolCallId":"c","kind":"fetch","url":"https://x"}"#;
        let request: ApprovalRequest = serde_json::from_str(plain).unwrap();
        assert_eq!(request.session_id, "s");
        assert_eq!(request.turn_id, "t1");
        assert_eq!(request.tool_call_id, "c");
        assert_eq!(serde_json::to_string(&request).unwrap(), plain);
    }

    #[test]
    fn an_id_that_is_not_a_string_is_refused() {
        let err = serde_json::from_str::<crate::SessionParams>(r#"{"sessionId":7}"#).unwrap_err();
        assert!(err.to_string().contains("expected a string"), "{err}");
    }
}
