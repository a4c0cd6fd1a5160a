#!/usr/bin/env python3
"""Import circles between the modules of each crate under server/ (scripts/check-layers.sh).

Cargo forbids a circle between crates; nothing forbids one between the modules of a crate, and
one grows quietly: `a` uses `b` for one helper, `b` uses `a` for another, and neither can be read,
tested or moved without the other. This reads each module file's paths (`use crate::…`,
`super::…`, `self::…`, and the same paths written inline), resolves them to the module they name
(through the `pub use` re-exports of the crate root and of `mod.rs` files), and projects each
edge onto the two sibling modules it joins: `crate::http::local` using `crate::http::failure` is
the edge local -> failure among the children of `crate::http`. A child using its parent (or a
parent its child) is the ordinary shape of a module and not counted. Test modules (`#[cfg(test)]
mod tests`) are left out: they are not part of the build's graph. Prints every circle found and
exits 1 if there is one.

A circle listed in the known-circles file (`--known FILE`: lines `SRC PARENT MEMBER...`, `#`
comments) is reported but passes, so a crate's old circle can be untangled in its own change
while no new one comes in; a listed circle that is gone is reported, to be struck from the list.

Usage: module-cycles.py [--known FILE] [CRATE_SRC_DIR...]   (default: every server/*/src)
"""

import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
STRING = re.compile(r'r(#*)".*?"\1|b?"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)\'', re.S)
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
LINE_COMMENT = re.compile(r"//[^\n]*")
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*\{")
USE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
PATH = re.compile(r"(?<![A-Za-z0-9_:])\$?(crate|super|self)((?:\s*::\s*" + IDENT + r")+)")


def strip(text):
    """The code only: no comments, no string or char literals, no test modules."""
    text = STRING.sub('""', text)
    text = BLOCK_COMMENT.sub("", text)
    text = LINE_COMMENT.sub("", text)
    match = TEST_MOD.search(text)
    if match:
        # The test module's block, by its braces; the rest of the file stays.
        depth, end = 0, match.end() - 1
        for i in range(match.end() - 1, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                end = i
                break
        text = text[: match.start()] + text[end + 1 :]
    return text


def expand(tree):
    """`a::{b, c::{self, D}}` -> [[a, b], [a, c], [a, c, D]]; `as` renames and globs dropped."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, rest):
        depth, start, parts = 0, 0, []
        for i, ch in enumerate(rest):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(rest[start:i])
                start = i + 1
        parts.append(rest[start:])
        for part in filter(None, parts):
            brace = part.find("{")
            if brace >= 0:
                head = [s for s in part[:brace].split("::") if s]
                walk(prefix + head, part[brace + 1 : part.rfind("}")])
            else:
                segs = [s.split("as")[0] if "as" in s and re.fullmatch(IDENT + "as" + IDENT, s) else s
                        for s in part.split("::")]
                segs = [s for s in segs if s and s != "*"]
                if segs and segs[-1] == "self":
                    segs = segs[:-1]
                out.append(prefix + segs)

    walk([], tree)
    return out


class Crate:
    def __init__(self, src):
        self.src = Path(src)
        root = self.src / "lib.rs"
        if not root.exists():
            root = self.src / "main.rs"
        self.files = {}  # module path (tuple) -> stripped text
        self.collect(root, ())
        self.exports = {}  # (module, name) -> module path the name comes from

    def collect(self, path, module):
        if not path.exists():
            return
        text = strip(path.read_text(encoding="utf-8", errors="replace"))
        self.files[module] = text
        here = path.parent if path.name in ("lib.rs", "main.rs", "mod.rs") else path.with_suffix("")
        for match in re.finditer(r"(?:#\[path\s*=[^\]]*\]\s*)?\b(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", text):
            if "#[path" in match.group(0):
                continue
            name = match.group(1)
            for candidate in (here / f"{name}.rs", here / name / "mod.rs"):
                if candidate.exists():
                    self.collect(candidate, module + (name,))
                    break

    def absolute(self, module, segs):
        """A path written in `module` as a path from the crate root, or None (an outside crate)."""
        if not segs:
            return None
        head, rest = segs[0], list(segs[1:])
        if head in ("crate", "$crate"):
            return rest
        if head == "self":
            return list(module) + rest
        if head == "super":
            base = list(module)
            while True:
                base = base[:-1]
                if rest and rest[0] == "super":
                    rest = rest[1:]
                    continue
                return base + rest
        # A bare path in a `use` names a child module (2018 paths), when there is one.
        if tuple(module) + (head,) in self.files:
            return list(module) + segs
        return None

    def resolve(self, path, seen=0):
        """The module a crate path lands in: its longest module prefix, through re-exports."""
        best = ()
        for i in range(len(path), -1, -1):
            if tuple(path[:i]) in self.files:
                best = tuple(path[:i])
                rest = path[i:]
                break
        if rest and (best, rest[0]) in self.exports and seen < 8:
            return self.resolve(self.exports[(best, rest[0])] + rest[1:], seen + 1)
        return best

    def read_exports(self):
        for module, text in self.files.items():
            for match in USE.finditer(text):
                if not match.group(1):
                    continue
                for segs in expand(match.group(2)):
                    target = self.absolute(module, segs)
                    if target and target[-1:] and tuple(target[:-1]) != module:
                        self.exports[(module, segs[-1])] = target

    def edges(self):
        """Sibling edges: (parent, from_child, to_child) -> one example of the use."""
        self.read_exports()
        found = {}
        for module, text in self.files.items():
            paths = []
            for match in USE.finditer(text):
                paths += expand(match.group(2))
            code = USE.sub("", text)
            for match in PATH.finditer(code):
                paths.append([match.group(1)] + [s.strip() for s in match.group(2).split("::") if s.strip()])
            for segs in paths:
                target = self.absolute(module, segs)
                if target is None:
                    continue
                to = self.resolve(target)
                common = 0
                while common < min(len(module), len(to)) and module[common] == to[common]:
                    common += 1
                if common == len(module) or common == len(to):
                    continue  # the module itself, an ancestor or a descendant
                key = (module[:common], module[common], to[common])
                found.setdefault(key, "::".join(module) + " uses " + "::".join(segs))
        return found


def cycles(edges):
    """Strongly connected components of more than one module, per parent."""
    graphs = {}
    for (parent, a, b) in edges:
        graphs.setdefault(parent, {}).setdefault(a, set()).add(b)
    result = []
    for parent, graph in graphs.items():
        index, low, stack, on, counter = {}, {}, [], set(), [0]

        def connect(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in graph.get(v, ()):
                if w not in index:
                    connect(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    result.append((parent, sorted(component)))

        for v in list(graph):
            if v not in index:
                connect(v)
    return result


def read_known(path):
    known = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        words = line.split("#")[0].split()
        if len(words) >= 4:
            known.add((words[0], words[1], tuple(sorted(words[2:]))))
    return known


def main(argv):
    known = set()
    if argv[:1] == ["--known"]:
        known, argv = read_known(argv[1]), argv[2:]
    roots = argv or sorted(str(p) for p in Path("server").glob("*/src"))
    status, seen = 0, set()
    for src in roots:
        crate = Crate(src)
        edges = crate.edges()
        for parent, members in cycles(edges):
            where = "::".join(("crate",) + parent)
            key = (src, where, tuple(members))
            if key in known:
                seen.add(key)
                print(f"module circle in {src} (known, left for its own change): {' <-> '.join(members)} (children of {where})")
                continue
            status = 1
            print(f"module circle in {src}: {' <-> '.join(members)} (children of {where})", file=sys.stderr)
            for (p, a, b), example in sorted(edges.items()):
                if p == parent and a in members and b in members:
                    print(f"  {a} -> {b}: {example}", file=sys.stderr)
    for src, where, members in sorted(known - seen):
        if src in roots:
            print(f"module circles: the known circle {' <-> '.join(members)} in {src} ({where}) is gone; strike it from the list")
    if status == 0:
        print(f"module circles: no new one in {len(roots)} crates")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
