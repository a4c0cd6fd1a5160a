//! `tandem exec --json`: the events, one JSON object per line, as docs/exec.md and
//! docs/exec-events.schema.json describe them. The core's events are translated here; a change
//! of meaning or a removed field raises [`VERSION`].

use serde_json::{Value, json};

use tandem_agent::ToolCallId;
use tandem_agent::approval::{ApprovalAction, ApprovalReply, DecidedBy, Decision};
use tandem_agent::events::{StopReason, ToolStatus, TurnErrorKind};

/// The events' format version, in `sessionStarted`.
pub const VERSION: u32 = 1;

pub fn stop_reason(reason: StopReason) -> &'static str {
    match reason {
        StopReason::EndTurn => "endTurn",
        StopReason::Cancelled => "cancelled",
        StopReason::MaxSteps => "maxSteps",
        StopReason::Error => "error",
    }
}

pub fn error_kind(kind: TurnErrorKind) -> &'static str {
    match kind {
        TurnErrorKind::NoServer => "noServer",
        TurnErrorKind::Auth => "auth",
        TurnErrorKind::Connection => "connection",
        TurnErrorKind::ContextOverflow => "contextOverflow",
        TurnErrorKind::AnswerCut => "answerCut",
        TurnErrorKind::Other => "other",
    }
}

pub fn tool_status(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Ok => "ok",
        ToolStatus::Error => "error",
        ToolStatus::Rejected => "rejected",
    }
}

/// `approval`: what was asked, what was decided and by whom.
pub fn approval(
    tool_call_id: &ToolCallId,
    action: &ApprovalAction,
    reply: &ApprovalReply,
    by: DecidedBy,
) -> Value {
    let (kind, target, outside_sandbox) = match action {
        ApprovalAction::Edit(e) => ("edit", e.path.display().to_string(), false),
        ApprovalAction::Command(c) => ("command", c.command.clone(), c.outside_sandbox),
        ApprovalAction::Mcp(m) => ("mcpTool", format!("{}/{}", m.server, m.tool), false),
        ApprovalAction::McpServer(s) => ("mcpServer", s.server.clone(), false),
        ApprovalAction::Fetch(f) => ("fetch", f.url.clone(), false),
    };
    json!({
        "type": "approval",
        "toolCallId": tool_call_id,
        "action": kind,
        "target": target,
        "outsideSandbox": outside_sandbox,
        "decision": match reply.decision {
            Decision::Accept => "accept",
            Decision::AcceptAlways => "acceptAlways",
            Decision::Reject => "reject",
        },
        "decidedBy": match by {
            DecidedBy::Policy => "policy",
            DecidedBy::Session => "session",
            DecidedBy::Face => "exec",
            DecidedBy::Timeout => "timeout",
            DecidedBy::Cancelled => "cancelled",
        },
        "note": reply.feedback,
    })
}

pub fn tool_kind(kind: tandem_tools::ToolKind) -> &'static str {
    use tandem_tools::ToolKind as K;
    match kind {
        K::Read => "read",
        K::Search => "search",
        K::Edit => "edit",
        K::Execute => "execute",
        K::Fetch => "fetch",
        K::Other => "other",
    }
}
