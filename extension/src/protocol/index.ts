// The sidecar's wire contract as the extension sees it: types, method names and error codes, all
// generated from the Rust wire types (server/protocol, checked by its `protocol_ts` test).

export type * from './generated';
export { ErrorCode, Method } from './generated';

import type { ApprovalRequest } from './generated';

/** An approval request for an edit: the ones that open a diff. */
export type EditApprovalRequest = Extract<ApprovalRequest, { kind: 'edit' }>;

export { sessionIdFrom, toolCallIdFrom, turnIdFrom } from './ids';
