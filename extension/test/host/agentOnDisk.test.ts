import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentChangeOnDisk } from '../../src/sidecar/agentOnDisk';

const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');

describe("Accept in an unsaved buffer: the agent's change alone on disk", () => {
  it('a buffer equal to the disk: the disk gets the buffer', () => {
    assert.equal(agentChangeOnDisk('a\n', 'b\n', 'a\n'), 'b\n');
  });

  it("carries the change over the user's unsaved lines, before and after it", () => {
    const disk = lines('1', '2', '3', '4', '5', '6', '7', '8');
    // The user inserted a line at the top and changed line 8, unsaved.
    const before = lines('mine', '1', '2', '3', '4', '5', '6', '7', '8 edited');
    // The agent changed line 4 and appended nothing else.
    const after = lines('mine', '1', '2', '3', 'FOUR', '5', '6', '7', '8 edited');
    assert.equal(agentChangeOnDisk(before, after, disk), lines('1', '2', '3', 'FOUR', '5', '6', '7', '8'));
  });

  it('keeps insertions and deletions of the agent in place', () => {
    const disk = lines('a', 'b', 'c', 'd', 'e', 'f');
    const before = lines('a', 'b', 'c', 'd', 'e', 'f', 'user tail');
    const after = lines('new first', 'a', 'c', 'd', 'e', 'f', 'user tail');
    assert.equal(agentChangeOnDisk(before, after, disk), lines('new first', 'a', 'c', 'd', 'e', 'f'));
  });

  it("refuses when the agent's change touches or overlaps the user's unsaved lines", () => {
    const disk = lines('a', 'b', 'c');
    const before = lines('a', 'B by me', 'c');
    assert.equal(agentChangeOnDisk(before, lines('a', 'B by me and agent', 'c'), disk), undefined);
    // Right next to it counts too: which order the lines go in is not ours to guess.
    assert.equal(agentChangeOnDisk(before, lines('a', 'B by me', 'C'), disk), undefined);
    const deleted = lines('a', 'c');
    assert.equal(agentChangeOnDisk(deleted, lines('a', 'x', 'c'), disk), undefined);
  });
});
