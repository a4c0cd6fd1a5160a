"""Checks every task can be scored: its tests fail with the file as supplied and pass with a
correct solution.

    python3 bench/tasks/verify-tasks.py [--examples DIR] [TASKS]

A bug fix's solution is its `.meta/` copy; an Exercism exercise's is the track's example, which
the repository does not hold: `import-exercism.py --examples DIR` writes them to DIR.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taskbench import tasks, tools  # noqa: E402


def pytest(task, folder, env):
    r = subprocess.run(task.test_command(), cwd=folder, env=env, capture_output=True, timeout=120)
    return r.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples")
    ap.add_argument("tasks", nargs="?", default="exercism,bugfix")
    args = ap.parse_args()
    env = dict(os.environ, PATH=tools.pytest_bin() + os.pathsep + os.environ["PATH"],
               PYTHONDONTWRITEBYTECODE="1", PYTEST_ADDOPTS="-p no:cacheprovider")
    bad = checked = 0
    for task in tasks.load(args.tasks):
        if task.family == "exercism":
            if not args.examples:
                continue
            solved = os.path.join(args.examples, task.name)
        else:
            solved = os.path.join(task.folder, ".meta")
        with tempfile.TemporaryDirectory() as tmp:
            ws = os.path.join(tmp, "ws")
            task.make_workspace(ws)
            stub_rc = pytest(task, ws, env)
            for f in task.solution:
                shutil.copy2(os.path.join(solved, f), os.path.join(ws, f))
            solved_rc = pytest(task, ws, env)
        checked += 1
        if stub_rc == 0 or solved_rc != 0:
            bad += 1
            print(f"{task.id}: tests exit {stub_rc} with the stub (want non-zero), {solved_rc} solved (want 0)")
    print(f"verify-tasks: {checked - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
