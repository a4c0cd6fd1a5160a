//! Method names and error codes. The TypeScript constants are generated from [`ALL`] and
//! [`error_code::ALL`].

pub const NEW_SESSION: &str = "tandem/newSession";
pub const PROMPT: &str = "tandem/prompt";
pub const CANCEL: &str = "tandem/cancel";
pub const LIST_SESSIONS: &str = "tandem/listSessions";
pub const LOAD_SESSION: &str = "tandem/loadSession";
pub const FORK_SESSION: &str = "tandem/forkSession";
pub const UNDO: &str = "tandem/undo";
pub const TURN_CHANGES: &str = "tandem/turnChanges";
pub const LIST_MODELS: &str = "tandem/listModels";
pub const SET_MODEL: &str = "tandem/setModel";
pub const SET_MODE: &str = "tandem/setMode";
pub const LIST_COMMANDS: &str = "tandem/listCommands";
pub const RUN_COMMAND: &str = "tandem/runCommand";
pub const UPDATE: &str = "tandem/update";
pub const REQUEST_APPROVAL: &str = "tandem/requestApproval";
pub const GET_DIAGNOSTICS: &str = "tandem/getDiagnostics";
pub const FILES_CHANGED: &str = "tandem/filesChanged";

/// Every method, by the key the TypeScript `Method` object gives it.
pub const ALL: &[(&str, &str)] = &[
    ("newSession", NEW_SESSION),
    ("prompt", PROMPT),
    ("cancel", CANCEL),
    ("listSessions", LIST_SESSIONS),
    ("loadSession", LOAD_SESSION),
    ("forkSession", FORK_SESSION),
    ("undo", UNDO),
    ("turnChanges", TURN_CHANGES),
    ("listModels", LIST_MODELS),
    ("setModel", SET_MODEL),
    ("setMode", SET_MODE),
    ("listCommands", LIST_COMMANDS),
    ("runCommand", RUN_COMMAND),
    ("update", UPDATE),
    ("requestApproval", REQUEST_APPROVAL),
    ("getDiagnostics", GET_DIAGNOSTICS),
    ("filesChanged", FILES_CHANGED),
];

/// JSON-RPC error codes of the `tandem/*` methods, besides the standard ones. Application codes,
/// outside the ranges JSON-RPC and LSP reserve.
pub mod error_code {
    /// The session id names no session.
    pub const UNKNOWN_SESSION: i64 = 1001;
    /// A turn is already running in the session.
    pub const TURN_RUNNING: i64 = 1002;
    /// The model endpoint failed or could not be found.
    pub const MODEL_ERROR: i64 = 1003;
    /// The workspace root can't be used (for a saved session: its folder is gone).
    pub const INVALID_ROOT: i64 = 1004;
    /// The data dir could not be written or read.
    pub const IO_ERROR: i64 = 1005;

    /// Every code, by the key the TypeScript `ErrorCode` object gives it.
    pub const ALL: &[(&str, i64)] = &[
        ("unknownSession", UNKNOWN_SESSION),
        ("turnRunning", TURN_RUNNING),
        ("modelError", MODEL_ERROR),
        ("invalidRoot", INVALID_ROOT),
        ("ioError", IO_ERROR),
    ];
}
