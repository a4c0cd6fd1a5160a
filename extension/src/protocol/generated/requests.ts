// Generated from server/protocol/src/ts.rs by the protocol_ts test. Do not edit.

import type { ApprovalReply } from "./ApprovalReply";
import type { ApprovalRequest } from "./ApprovalRequest";
import type { Empty } from "./Empty";
import type { ForkSessionParams } from "./ForkSessionParams";
import type { GetDiagnosticsParams } from "./GetDiagnosticsParams";
import type { GetDiagnosticsResult } from "./GetDiagnosticsResult";
import type { ListCommandsParams } from "./ListCommandsParams";
import type { ListCommandsResult } from "./ListCommandsResult";
import type { ListModelsResult } from "./ListModelsResult";
import type { ListSessionsResult } from "./ListSessionsResult";
import type { LoadSessionResult } from "./LoadSessionResult";
import type { NewSessionParams } from "./NewSessionParams";
import type { NewSessionResult } from "./NewSessionResult";
import type { PromptParams } from "./PromptParams";
import type { PromptResult } from "./PromptResult";
import type { RunCommandParams } from "./RunCommandParams";
import type { SessionParams } from "./SessionParams";
import type { SetModeParams } from "./SetModeParams";
import type { SetModelParams } from "./SetModelParams";
import type { TurnChangesParams } from "./TurnChangesParams";
import type { TurnChangesResult } from "./TurnChangesResult";
import type { UndoParams } from "./UndoParams";
import type { UndoResult } from "./UndoResult";

/** The requests the client sends: params and result by method. */
export interface Requests {
  'tandem/newSession': { params: NewSessionParams; result: NewSessionResult };
  'tandem/prompt': { params: PromptParams; result: PromptResult };
  'tandem/cancel': { params: SessionParams; result: Empty };
  'tandem/listSessions': { params: Empty; result: ListSessionsResult };
  'tandem/loadSession': { params: SessionParams; result: LoadSessionResult };
  'tandem/forkSession': { params: ForkSessionParams; result: LoadSessionResult };
  'tandem/undo': { params: UndoParams; result: UndoResult };
  'tandem/turnChanges': { params: TurnChangesParams; result: TurnChangesResult };
  'tandem/listModels': { params: Empty; result: ListModelsResult };
  'tandem/setModel': { params: SetModelParams; result: Empty };
  'tandem/setMode': { params: SetModeParams; result: Empty };
  'tandem/listCommands': { params: ListCommandsParams; result: ListCommandsResult };
  'tandem/runCommand': { params: RunCommandParams; result: PromptResult };
}

/** The requests the sidecar sends the client: params and result by method. */
export interface ClientRequests {
  'tandem/requestApproval': { params: ApprovalRequest; result: ApprovalReply };
  'tandem/getDiagnostics': { params: GetDiagnosticsParams; result: GetDiagnosticsResult };
}

export type RequestMethod = keyof Requests;
export type ParamsOf<M extends RequestMethod> = Requests[M]['params'];
export type ResultOf<M extends RequestMethod> = Requests[M]['result'];
