// Accept in a file with unsaved changes: the agent's change goes to the disk, the user's unsaved
// text stays unsaved in the buffer. The agent's change is the difference between the buffer
// before and after the edit; it is carried over to the disk's text when every changed line lies
// away from the user's unsaved lines (touching counts as overlapping: no guessing).

import { changes, splitLines, type Change } from '../approvals/hunks';

/**
 * The disk's text with the agent's change (`before` → `after`, both buffer texts) applied, or
 * undefined when the change touches the user's unsaved lines (`disk` → `before`).
 */
export function agentChangeOnDisk(before: string, after: string, disk: string): string | undefined {
  if (before === disk) return after;
  const user = changes(disk, before); // old: the disk, new: the buffer before the edit
  const agent = changes(before, after); // old: the buffer before, new: the buffer after
  const away = (a: Change) => user.every((u) => a.oldEnd < u.newStart || a.oldStart > u.newEnd);
  if (!agent.every(away)) return undefined;
  // A buffer line position outside the user's changes, as a disk line position.
  const onDisk = (p: number) =>
    p - user.filter((u) => u.newEnd < p).reduce((shift, u) => shift + (u.newEnd - u.newStart) - (u.oldEnd - u.oldStart), 0);
  const diskLines = splitLines(disk);
  const afterLines = splitLines(after);
  // From the last change to the first, so earlier positions stay put.
  for (const a of [...agent].reverse()) {
    diskLines.splice(onDisk(a.oldStart), a.oldEnd - a.oldStart, ...afterLines.slice(a.newStart, a.newEnd));
  }
  return diskLines.join('');
}
