//! Where a plain client's command is about (`tandem.ask`'s second argument,
//! `tandem.editSelection`'s first): a document and, optionally, a range of it.

use serde::Deserialize;
use tower_lsp_server::lsp_types::{Range, Uri};

#[derive(Deserialize)]
pub(super) struct Location {
    pub(super) uri: Uri,
    #[serde(default)]
    pub(super) range: Option<Range>,
}
