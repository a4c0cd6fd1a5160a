#!/usr/bin/env python3
"""Prints the fingerprint of what the names in server/tandem/startup-order.txt depend on: the
compiler (`rustc -vV`), the release profile, and every crate of `tandem`'s release build on x86_64
Linux (its version, source and features; normal and build dependencies). A symbol's hash is
derived from its crate's `-C metadata`, which cargo computes from exactly these, so while the
fingerprint is the one the list records, its names are the binary's; when it differs, most are
not (scripts/check-startup-order.sh).

    python3 scripts/startup-fingerprint.py
"""

import hashlib
import json
import os
import re
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fingerprint():
    # The compiler's release and commit; not its host, so any machine computes the same.
    rustc = "\n".join(line for line in subprocess.run(
        ["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines()
        if line.startswith(("release:", "commit-hash:")))
    manifest = open(os.path.join(REPO, "Cargo.toml")).read()
    # The [profile.release] table, comments aside.
    profile = re.search(r"^\[profile\.release\]\n(.*?)(?=^\[|\Z)", manifest, re.S | re.M)
    profile = "\n".join(line for line in (profile.group(1) if profile else "").splitlines()
                        if line.strip() and not line.lstrip().startswith("#"))
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked",
         "--filter-platform", "x86_64-unknown-linux-gnu"],
        cwd=REPO, capture_output=True, text=True, check=True).stdout)
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    packages = {p["id"]: p for p in meta["packages"]}
    root = next(p["id"] for p in meta["packages"] if p["name"] == "tandem" and p["source"] is None)
    seen, stack = set(), [root]
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        for dep in nodes[pid]["deps"]:
            if any(k["kind"] in (None, "build") for k in dep["dep_kinds"]):
                stack.append(dep["pkg"])
    crates = sorted(
        f'{packages[p]["name"]} {packages[p]["version"]} {packages[p]["source"] or "workspace"} '
        f'{",".join(sorted(nodes[p]["features"]))}'
        for p in seen)
    digest = hashlib.sha256("\n".join([rustc, profile, *crates]).encode()).hexdigest()
    return digest[:16], len(crates)


if __name__ == "__main__":
    print(fingerprint()[0])
