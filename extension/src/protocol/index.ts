// The sidecar's wire contract as the extension sees it. The types come from the Rust types
// (generated/, checked by the server's `protocol_ts` test); the method names and error codes are
// the constants of server/src/protocol.rs.

export type * from './generated';

export const Method = {
  newSession: 'tandem/newSession',
  prompt: 'tandem/prompt',
  cancel: 'tandem/cancel',
  listSessions: 'tandem/listSessions',
  loadSession: 'tandem/loadSession',
  undo: 'tandem/undo',
  listModels: 'tandem/listModels',
  setModel: 'tandem/setModel',
  update: 'tandem/update',
  requestApproval: 'tandem/requestApproval',
  getDiagnostics: 'tandem/getDiagnostics',
} as const;

export const ErrorCode = {
  unknownSession: 1001,
  turnRunning: 1002,
  modelError: 1003,
  invalidRoot: 1004,
  ioError: 1005,
} as const;
