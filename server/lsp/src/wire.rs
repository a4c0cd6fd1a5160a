//! The `tandem/*` messages the server sends, as `lsp_types` requests and notifications.

use tower_lsp_server::lsp_types::notification::Notification;
use tower_lsp_server::lsp_types::request::Request;

use tandem_protocol::{
    ApprovalReply, ApprovalRequest, FilesChangedParams, GetDiagnosticsParams, GetDiagnosticsResult,
    UpdateParams, methods,
};

/// `tandem/update`.
pub enum UpdateNote {}

impl Notification for UpdateNote {
    type Params = UpdateParams;
    const METHOD: &'static str = methods::UPDATE;
}

/// `tandem/requestApproval`.
pub enum RequestApproval {}

impl Request for RequestApproval {
    type Params = ApprovalRequest;
    type Result = ApprovalReply;
    const METHOD: &'static str = methods::REQUEST_APPROVAL;
}

/// `tandem/getDiagnostics`.
pub enum GetDiagnostics {}

impl Request for GetDiagnostics {
    type Params = GetDiagnosticsParams;
    type Result = GetDiagnosticsResult;
    const METHOD: &'static str = methods::GET_DIAGNOSTICS;
}

/// `tandem/filesChanged`.
pub enum FilesChangedNote {}

impl Notification for FilesChangedNote {
    type Params = FilesChangedParams;
    const METHOD: &'static str = methods::FILES_CHANGED;
}
