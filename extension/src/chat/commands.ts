// The custom commands (prompt files in .tandem/commands/ and the like) for the composer's `/`
// menu. The sidecar reads the files on each call, so a new file shows the next time the menu
// opens. Running one needs nothing here: a prompt that starts with `/name` is expanded by the
// sidecar (tandem/prompt).

import type { CustomCommand, ListCommandsParams, SessionId } from '../protocol';
import { Method } from '../protocol';
import type { Requester } from './mode';

/** The most commands the menu lists. */
export const MAX_MENU_COMMANDS = 200;

/**
 * The commands of the shown session, or those a session on `root` would have (a new chat); none
 * when there is neither, or the sidecar can't say (the menu then offers nothing).
 */
export async function listCommands(sidecar: Requester, sessionId: SessionId | null, root: string | undefined): Promise<CustomCommand[]> {
  const params: ListCommandsParams | undefined = sessionId ? { sessionId } : root ? { root } : undefined;
  if (!params) return [];
  try {
    const result = await sidecar.request(Method.listCommands, params);
    return result.commands.slice(0, MAX_MENU_COMMANDS);
  } catch {
    return [];
  }
}
