// Generated from server/protocol/src/methods.rs by the protocol_ts test. Do not edit.

export const Method = {
  newSession: 'tandem/newSession',
  prompt: 'tandem/prompt',
  cancel: 'tandem/cancel',
  listSessions: 'tandem/listSessions',
  loadSession: 'tandem/loadSession',
  forkSession: 'tandem/forkSession',
  undo: 'tandem/undo',
  turnChanges: 'tandem/turnChanges',
  listModels: 'tandem/listModels',
  setModel: 'tandem/setModel',
  setMode: 'tandem/setMode',
  listCommands: 'tandem/listCommands',
  runCommand: 'tandem/runCommand',
  update: 'tandem/update',
  requestApproval: 'tandem/requestApproval',
  getDiagnostics: 'tandem/getDiagnostics',
  filesChanged: 'tandem/filesChanged',
} as const;

export const ErrorCode = {
  unknownSession: 1001,
  turnRunning: 1002,
  modelError: 1003,
  invalidRoot: 1004,
  ioError: 1005,
} as const;
