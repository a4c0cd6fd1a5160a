#!/usr/bin/env python3
"""Link stubs for the Apple frameworks the macOS sidecar links, for a cross build without Xcode.

    scripts/macos-frameworks.py OUT_DIR FRAMEWORK=SYS_CRATE_DIR ...

Zig carries macOS's C library (libSystem) but not Apple's frameworks. A macOS SDK's frameworks are
text stubs (.tbd): an install name and the symbols exported, which the linker needs to record
"symbol S comes from /System/Library/Frameworks/F.framework/Versions/A/F"; the code itself is
loaded from the Mac at run time. This writes such stubs, OUT_DIR/F.framework/F.tbd, for each
framework a `-sys` crate binds, listing exactly what that crate declares in its `extern "C"`
blocks (with `link_name` overrides): the same symbols, install names and two-level namespace a
link against Xcode's SDK records for the sidecar. A symbol declared by two crates goes to the
framework whose prefix it carries (CF -> CoreFoundation), so it is bound to one framework only.
"""

import re
import sys
from pathlib import Path

# The platforms the stubs serve: both macOS architectures the release builds.
TARGETS = "[ x86_64-macos, arm64-macos ]"

EXTERN_START = re.compile(r'\bextern\s+"C"\s*\{')
ITEM = re.compile(r"\bpub\s+(?:static\s+(?:mut\s+)?|fn\s+)([A-Za-z_][A-Za-z0-9_]*)")
LINK_NAME = re.compile(r'link_name\s*=\s*"([^"]+)"')


def declared_symbols(source: str) -> set[str]:
    """Names declared inside `extern "C" { ... }` blocks, as the linker sees them."""
    symbols = set()
    pos = 0
    while (m := EXTERN_START.search(source, pos)) is not None:
        depth, i = 1, m.end()
        while depth and i < len(source):
            depth += {"{": 1, "}": -1}.get(source[i], 0)
            i += 1
        block = source[m.end() : i - 1]
        pending_link_names: list[str] = []
        for line in block.splitlines():
            pending_link_names += LINK_NAME.findall(line)
            item = ITEM.search(line)
            if item:
                symbols.add(item.group(1))
                # A `link_name` (e.g. an architecture's `$LEGACYMAC` variant) is the name linked.
                symbols.update(pending_link_names)
                pending_link_names = []
        pos = i
    return symbols


def tbd(framework: str, symbols: list[str]) -> str:
    # Mach-O C symbols carry a leading underscore.
    names = ", ".join(f"'_{s}'" if "$" in s else f"_{s}" for s in symbols)
    return (
        "--- !tapi-tbd\n"
        "tbd-version:     4\n"
        f"targets:         {TARGETS}\n"
        f"install-name:    '/System/Library/Frameworks/{framework}.framework/Versions/A/{framework}'\n"
        "exports:\n"
        f"  - targets:         {TARGETS}\n"
        f"    symbols:         [ {names} ]\n"
        "...\n"
    )


def owner(symbol: str, claimants: list[str]) -> str:
    if len(claimants) == 1:
        return claimants[0]
    if symbol.lstrip("_").startswith(("CF", "kCF")) and "CoreFoundation" in claimants:
        return "CoreFoundation"
    return sorted(claimants)[0]


def main(argv: list[str]) -> int:
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out = Path(argv[1])
    claims: dict[str, list[str]] = {}
    for arg in argv[2:]:
        framework, crate = arg.split("=", 1)
        sources = sorted(Path(crate, "src").rglob("*.rs"))
        if not sources:
            print(f"macos-frameworks: no Rust sources under {crate}/src", file=sys.stderr)
            return 1
        for symbol in set().union(*(declared_symbols(p.read_text(encoding="utf-8")) for p in sources)):
            claims.setdefault(symbol, []).append(framework)
    frameworks = {a.split("=", 1)[0] for a in argv[2:]}
    for framework in sorted(frameworks):
        symbols = sorted(s for s, c in claims.items() if owner(s, c) == framework)
        if not symbols:
            print(f"macos-frameworks: {framework}: no extern declarations found", file=sys.stderr)
            return 1
        folder = out / f"{framework}.framework"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{framework}.tbd").write_text(tbd(framework, symbols), encoding="utf-8")
        print(f"{framework}: {len(symbols)} symbols")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
