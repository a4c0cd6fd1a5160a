"""Applies the unified diffs an agent reported, to check them against what is on disk."""

import re

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def target(diff):
    """The path a diff's `+++` line names (without `b/`), or None for a deletion."""
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[4:].split("\t")[0].strip()
            if path == "/dev/null":
                return None
            return path[2:] if path.startswith("b/") else path
    return None


def apply(text, diff):
    """TEXT with DIFF's hunks applied; raises ValueError where a hunk's old lines don't match."""
    old = text.splitlines(keepends=True)
    out, pos = [], 0
    lines = diff.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            i += 1
            continue
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        if start < pos:
            raise ValueError(f"hunk at line {start + 1} overlaps the one before")
        out.extend(old[pos:start])
        pos = start
        i += 1
        while i < len(lines) and not HUNK.match(lines[i]):
            line = lines[i]
            tag, body = line[:1], line[1:]
            if line.startswith("\\"):
                # "\ No newline at end of file": the line before has none.
                if out and out[-1].endswith("\n") and lines[i - 1][:1] in "+ ":
                    out[-1] = out[-1][:-1]
                i += 1
                continue
            if tag in (" ", "-"):
                have = old[pos] if pos < len(old) else None
                if have is None or have.rstrip("\n") != body.rstrip("\n"):
                    raise ValueError(f"line {pos + 1}: expected {body.rstrip()!r}, found {have!r}")
                if tag == " ":
                    out.append(have)
                pos += 1
            elif tag == "+":
                out.append(body if body.endswith("\n") else body + "\n")
            elif line.startswith(("---", "+++")):
                break
            i += 1
    out.extend(old[pos:])
    result = "".join(out)
    return result
