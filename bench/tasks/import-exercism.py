"""Copies Exercism's Python practice exercises into bench/tasks/exercism/ (MIT; see LICENSE there).

    python3 bench/tasks/import-exercism.py GIT_DIR [--examples DIR] [--first a-m]

GIT_DIR is a clone (bare or not) of github.com/exercism/python. For each active practice exercise
whose name begins with a letter in --first (default a-m; the others are kept out of the repository,
so that a check can run on exercises the benchmark does not hold), it writes
exercism/NAME/{instructions.md, STUB.py, TEST.py}: the stub and the tests as the track has them,
and the instructions (.docs/instructions.md, then .docs/instructions.append.md, the track's notes
for Python). The example solution is not copied into the repository; with --examples DIR it goes
to DIR/NAME/STUB.py, for `verify-tasks.py`. SOURCES.md records the repository and the commit.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Refactoring exercises: the stub already passes its tests, so they can't tell a solution.
REFACTORING = {"ledger", "markdown"}


def git(git_dir, *args):
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], check=True, capture_output=True
    ).stdout


def show(git_dir, commit, path):
    return git(git_dir, "show", f"{commit}:{path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("git_dir")
    ap.add_argument("--commit", default="HEAD")
    ap.add_argument("--examples")
    ap.add_argument("--first", default="a-m")
    args = ap.parse_args()
    lo, hi = args.first.split("-")
    commit = git(args.git_dir, "rev-parse", args.commit).decode().strip()
    config = json.loads(show(args.git_dir, commit, "config.json"))
    out = os.path.join(HERE, "exercism")
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    names = []
    for ex in config["exercises"]["practice"]:
        slug = ex["slug"]
        if not lo <= slug[0] <= hi or ex.get("status", "active") != "active" or slug in REFACTORING:
            continue
        base = f"exercises/practice/{slug}"
        files = json.loads(show(args.git_dir, commit, f"{base}/.meta/config.json"))["files"]
        (stub,) = files["solution"]
        (test,) = files["test"]
        (example,) = files["example"]
        instructions = show(args.git_dir, commit, f"{base}/.docs/instructions.md").decode()
        try:
            append = show(args.git_dir, commit, f"{base}/.docs/instructions.append.md").decode()
            instructions = instructions.rstrip("\n") + "\n\n" + append
        except subprocess.CalledProcessError:
            pass
        dest = os.path.join(out, slug)
        os.makedirs(dest)
        with open(os.path.join(dest, "instructions.md"), "w") as f:
            f.write(instructions)
        for name in (stub, test):
            with open(os.path.join(dest, name), "wb") as f:
                f.write(show(args.git_dir, commit, f"{base}/{name}"))
        if args.examples:
            os.makedirs(os.path.join(args.examples, slug), exist_ok=True)
            with open(os.path.join(args.examples, slug, stub), "wb") as f:
                f.write(show(args.git_dir, commit, f"{base}/{example}"))
        names.append(slug)
    with open(os.path.join(out, "LICENSE"), "wb") as f:
        f.write(show(args.git_dir, commit, "LICENSE"))
    with open(os.path.join(out, "SOURCES.md"), "w") as f:
        f.write(
            "# Sources\n\n"
            "Every folder here is a practice exercise of Exercism's Python track,\n"
            "https://github.com/exercism/python (MIT License: LICENSE beside this file),\n"
            f"at commit {commit}, copied by `bench/tasks/import-exercism.py`:\n"
            "`exercises/practice/NAME/` gave `instructions.md` (`.docs/instructions.md`, then\n"
            "`.docs/instructions.append.md` where there is one), the stub and the tests, unchanged.\n"
            "The example solutions (`.meta/example.py`) are not copied.\n\n"
            f"Only the active exercises whose names begin with {lo} to {hi} are here ({len(names)}), less the\n"
            f"refactoring ones ({', '.join(sorted(REFACTORING))}: their stub passes already); the\n"
            "others are kept out of the repository, for a check on tasks the benchmark does not hold.\n"
        )
    print(f"{len(names)} exercises from {commit} into {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
