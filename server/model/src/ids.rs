//! The ids of sessions, turns and tool calls, each a type of its own so one can't be passed
//! where another is meant (the compiler says so).
//!
//! Each is a string underneath and (de)serializes as one (`#[serde(transparent)]`), so the
//! stored records and the wire don't change. New ids are made here and nowhere else:
//! [`SessionId::generate`], [`TurnId::numbered`], [`ToolCallId::generate`]. Ids that come from
//! outside (a client, a transcript, the model) are taken as they are with `From<String>`.
//!
//! ```
//! use tandem_model::{SessionId, TurnId};
//! fn undo_since(_turn: &TurnId) {}
//! undo_since(&TurnId::numbered(3));
//! # let _ = SessionId::generate();
//! ```
//!
//! The same call with a session id does not compile:
//!
//! ```compile_fail,E0308
//! use tandem_model::{SessionId, TurnId};
//! fn undo_since(_turn: &TurnId) {}
//! undo_since(&SessionId::generate());
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// Declares an id type: a `String` newtype with the conversions every id has.
macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
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

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
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

id_type!(
    /// A session's id: 32 lowercase hex digits (a random UUID), which also names its transcript
    /// and undo folder.
    SessionId
);

id_type!(
    /// A turn's id within its session: `t1`, `t2`, … in the order the turns started.
    TurnId
);

id_type!(
    /// A tool call's id, as the model gave it (`call_…`, `toolu_…`), or one of ours where the
    /// model gave none.
    ToolCallId
);

impl SessionId {
    /// A new, random session id.
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().simple().to_string())
    }

    /// Whether the id could be one of ours (letters and digits only), so it can name a file.
    /// Ids from a client are checked with this before they go near the disk.
    pub fn is_well_formed(&self) -> bool {
        !self.0.is_empty() && self.0.chars().all(|c| c.is_ascii_alphanumeric())
    }
}

impl TurnId {
    /// The id of a session's `n`th turn (counting from 1).
    pub fn numbered(n: u32) -> Self {
        Self(format!("t{n}"))
    }

    /// The id stored records made outside any turn carry (a note after a restore, a compaction
    /// the user asked for).
    pub fn outside() -> Self {
        Self("outside".to_string())
    }
}

impl ToolCallId {
    /// A new id for a tool call the model gave none (or a duplicate one), in OpenAI's shape.
    pub fn generate() -> Self {
        Self(format!("call_{}", uuid::Uuid::new_v4().simple()))
    }

    /// Whether the model gave no id.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_serialize_as_plain_strings() {
        let id = ToolCallId::from("call_1");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"call_1\"");
        let back: ToolCallId = serde_json::from_str("\"call_1\"").unwrap();
        assert_eq!(back, id);
        let turn: TurnId = serde_json::from_str("\"t3\"").unwrap();
        assert_eq!(turn, TurnId::numbered(3));
    }

    #[test]
    fn generated_ids_have_their_shape() {
        let session = SessionId::generate();
        assert_eq!(session.as_str().len(), 32);
        assert!(session.is_well_formed());
        assert_ne!(session, SessionId::generate());
        let call = ToolCallId::generate();
        assert!(call.as_str().starts_with("call_"));
        assert_ne!(call, ToolCallId::generate());
    }

    #[test]
    fn ids_from_outside_that_cannot_name_a_file_are_told_apart() {
        for bad in ["", "../x", "a/b", "a.jsonl", "a b"] {
            assert!(!SessionId::from(bad).is_well_formed(), "{bad:?}");
        }
        assert!(SessionId::from("0123abcdef").is_well_formed());
    }
}
