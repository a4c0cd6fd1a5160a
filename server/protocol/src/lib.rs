//! The wire contract of `tandem lsp`: every method name, error code, parameter and result type of
//! the `tandem/*` methods, in one place. `docs/protocol.md` is its prose; keep them together.
//!
//! These are wire types only, separate from the core's, and this crate depends on nothing of the
//! core: the conversions live in the face that speaks this protocol (`tandem-lsp`'s `convert`),
//! so the core can change without the wire changing by accident (and the other way round), and
//! generating the TypeScript builds only serde. Field names are camelCase. The TypeScript the
//! extension compiles against is generated from these types, method names and error codes
//! included (`ts.rs`).

mod commands;
mod ids;
pub mod methods;
#[cfg(test)]
mod ts;
mod types;

pub use commands::*;
pub use ids::{SessionId, ToolCallId, TurnId};
pub use methods::error_code;
pub use types::*;
