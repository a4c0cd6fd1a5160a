"""The tasks: folders of a stub (or a module with a bug), its tests and instructions.

A task folder holds `instructions.md`, the file(s) to change and the tests (`*_test.py`); a
`.meta/` folder, when there is one, holds a correct solution (never copied into a workspace).
"""

import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILIES = ("exercism", "bugfix")

# One prompt for every agent and every task; only the file names and the instructions vary.
PROMPT = (
    "Modify the supplied file {solution} so that the tests in {tests} pass. "
    "Keep the names the tests use (functions, classes, their arguments) and do not change "
    "the tests. You can run the tests with `python3 -m pytest -q {tests}`.\n\n"
    "{instructions}"
)


class Task:
    def __init__(self, family, name, folder):
        self.family = family
        self.name = name
        self.folder = folder
        files = sorted(
            f for f in os.listdir(folder) if f.endswith(".py") and os.path.isfile(os.path.join(folder, f))
        )
        self.tests = [f for f in files if f.endswith("_test.py")]
        self.solution = [f for f in files if f not in self.tests]
        if not self.tests or not self.solution:
            raise ValueError(f"{folder}: a task needs a *_test.py and a file to change")
        with open(os.path.join(folder, "instructions.md")) as f:
            self.instructions = f.read().strip()

    @property
    def id(self):
        return f"{self.family}:{self.name}"

    def prompt(self):
        return PROMPT.format(
            solution=", ".join(self.solution),
            tests=" ".join(self.tests),
            instructions=self.instructions,
        )

    def test_command(self):
        return ["python3", "-m", "pytest", "-q", *self.tests]

    def make_workspace(self, dest):
        """A fresh folder with the stub and the tests, committed in a git repo of its own."""
        os.makedirs(dest)
        for f in self.solution + self.tests:
            shutil.copy2(os.path.join(self.folder, f), os.path.join(dest, f))
        env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@localhost",
                   GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost")
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "task"]):
            subprocess.run(cmd, cwd=dest, check=True, env=env, stdout=subprocess.DEVNULL)

    def restore_tests(self, workspace):
        """Puts the pristine tests back; returns the names of those the agent had changed."""
        edited = []
        for f in self.tests:
            path = os.path.join(workspace, f)
            with open(os.path.join(self.folder, f), "rb") as src:
                pristine = src.read()
            try:
                with open(path, "rb") as cur:
                    changed = cur.read() != pristine
            except OSError:
                changed = True
            if changed:
                edited.append(f)
                with open(path, "wb") as out:
                    out.write(pristine)
        return edited


def load(spec):
    """`exercism:a-m`, `exercism`, `bugfix`, or names (`leap`, `bugfix:calc`), comma-separated."""
    out = []
    for part in [p.strip() for p in spec.split(",") if p.strip()]:
        family, _, rest = part.partition(":")
        if family in FAMILIES:
            root = os.path.join(HERE, family)
            names = sorted(n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)))
            if rest and "-" in rest and len(rest) == 3:
                lo, hi = rest.split("-")
                names = [n for n in names if lo <= n[0] <= hi]
            elif rest:
                names = [n for n in rest.split("+")]
            for n in names:
                out.append(Task(family, n, os.path.join(root, n)))
            continue
        found = [f for f in FAMILIES if os.path.isdir(os.path.join(HERE, f, part))]
        if not found:
            raise SystemExit(f"no task named {part!r} (families: {', '.join(FAMILIES)})")
        out.append(Task(found[0], part, os.path.join(HERE, found[0], part)))
    if not out:
        raise SystemExit("no tasks selected")
    return out
