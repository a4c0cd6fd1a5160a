"""One short bug fix with a real small coding model through `tandem exec`, asserting only Tandem's
behaviour (run by tests/task-model/run.sh, which sets the hard timeout):

- calls parsed and run: each call Tandem shows gets exactly one result, each native call the
  server returned is shown, and a turn that ends with exit 0 has no call written as text in its
  answer that was left unrun;
- no answer past its budget: every request carries a `max_tokens`, and no answer goes past it;
- the turn ends within its steps: a `turnEnded` within the time cap, no more model requests
  than `--max-steps`;
- the exit status is the one `turnEnded` gives, and the one its stop reason means;
- the workspace is consistent: the files changed on disk are those Tandem reported, each as its
  reported diffs make it, and nothing else appeared.

Whether the model solved the task is printed, never asserted. Ends with `N passed, N failed`.
"""

import json
import os
import signal
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bench", "tasks"))
from taskbench import agents, analysis, diffs, server, tasks, tools  # noqa: E402

TASK = os.environ.get("TANDEM_TASK_MODEL_TASK", "bugfix:calc")
MAX_STEPS = 6
CAP = int(os.environ.get("TANDEM_TASK_MODEL_CAP", "170"))
WINDOW = 8192

passed, failed = [], []


def check(name, ok, detail=""):
    (passed if ok else failed).append(name)
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""), flush=True)


def reported_changes(events):
    """Paths Tandem said it changed, with the diffs of its edits in order."""
    edits, written = {}, set()
    for e in events:
        if e.get("type") == "toolResult" and e.get("status") == "ok" and e.get("diff"):
            path = diffs.target(e["diff"])
            if path:
                edits.setdefault(path, []).append(e["diff"])
        if e.get("type") == "filesChanged":
            for c in e.get("changes") or []:
                written.add(c.get("path"))
    return edits, written


def main():
    (task,) = tasks.load(TASK)
    model = os.environ.get("TANDEM_CODER_MODEL_0_5B") or tools.model("0.5b")
    out = tempfile.mkdtemp(prefix="tandem-task-model-")
    pytest_bin = tools.pytest_bin()
    # The server's default sampling made greedy, with a fixed seed, so that one run is like the
    # next as far as the server goes (a temperature Tandem sends still wins).
    llama = server.LlamaServer(tools.llama_server(), model, WINDOW, os.path.join(out, "llama-server.log"),
                               extra=("--temp", "0", "--seed", "1"))
    try:
        llama.wait_ready()
        proxy = server.Proxy(llama.port)
        workspace = os.path.join(out, "workspace")
        task.make_workspace(workspace)
        env = agents.clean_env(pytest_bin, os.path.join(out, "home"))
        proxy.label = "task"
        tandem = agents.Tandem(tools.tandem())
        outcome = tandem.run(task, workspace, out, proxy.url, WINDOW, CAP, env, max_steps=MAX_STEPS)
        records = proxy.of("task")
        proxy.stop()
    finally:
        llama.stop()
    events = outcome["events"]
    print(f"task-model: {task.id}, Qwen2.5-Coder-0.5B, {len(records)} requests, {outcome['seconds']} s, "
          f"exit {outcome['exit']} (run folder {out})", flush=True)
    for e in events:
        if e.get("type") in ("toolCall", "toolResult", "message", "turnEnded", "notice"):
            print("   | " + json.dumps(e)[:300])

    # The turn ends within its steps.
    ended = [e for e in events if e.get("type") == "turnEnded"]
    check("the turn ended before the cap", not outcome["timed_out"] and len(ended) == 1,
          f"timed out: {outcome['timed_out']}, {len(ended)} turnEnded events")
    check("no more model requests than --max-steps", len(records) <= MAX_STEPS and
          (not ended or (ended[0].get("usage") or {}).get("requests", 0) <= MAX_STEPS),
          f"{len(records)} requests at the server, max steps {MAX_STEPS}")
    check("every event line is JSON", not any(e.get("type") == "unparsable" for e in events))

    # The exit status.
    if ended:
        end = ended[0]
        want = {"endTurn": 4 if end.get("rejectedActions") else 0, "maxSteps": 3, "error": 1,
                "cancelled": 130}.get(end.get("stopReason"))
        check("the exit status is turnEnded's and its stop reason's",
              outcome["exit"] == end.get("exitCode") == want,
              f"process {outcome['exit']}, turnEnded.exitCode {end.get('exitCode')}, "
              f"stopReason {end.get('stopReason')} means {want}")

    # Calls parsed and run.
    calls = [e for e in events if e.get("type") == "toolCall"]
    results = [e for e in events if e.get("type") == "toolResult"]
    check("each call got exactly one result",
          sorted(c["toolCallId"] for c in calls) == sorted(r["toolCallId"] for r in results),
          f"calls {[c['toolCallId'] for c in calls]}, results {[r['toolCallId'] for r in results]}")
    native = sum(r.get("tool_calls") or 0 for r in records)
    check("each native call the server returned was shown", len(calls) >= native,
          f"{native} native calls in the answers, {len(calls)} toolCall events")
    messages = [e.get("text") or "" for e in events if e.get("type") == "message"]
    unrun = ended and ended[0].get("exitCode") == 0 and messages and analysis.TEXT_CALL.search(messages[-1])
    check("a turn that ends with exit 0 leaves no call written as text unrun", not unrun,
          f"its last message: {messages[-1][:200] if messages else ''!r}")

    # No answer past its budget.
    unbounded = [r for r in records if not r.get("max_tokens")]
    over = [r for r in records if r.get("max_tokens") and (r.get("completion_tokens") or 0) > r["max_tokens"]]
    check("every request carries an answer bound", not unbounded, f"{len(unbounded)} without max_tokens")
    check("no answer went past its bound", not over,
          "; ".join(f"{r['completion_tokens']} > {r['max_tokens']}" for r in over))

    # The workspace.
    edits, written = reported_changes(events)
    changed = analysis.changed_files(workspace)
    stray = [p for p in changed if p not in edits and p not in written]
    check("only the files Tandem reported changed", not stray, f"unreported: {stray}")
    wrong = []
    for path, ds in edits.items():
        try:
            with open(os.path.join(task.folder, path)) as f:
                text = f.read()
        except FileNotFoundError:
            text = ""
        try:
            for d in ds:
                text = diffs.apply(text, d)
            with open(os.path.join(workspace, path)) as f:
                on_disk = f.read()
            if on_disk != text and path not in written:
                wrong.append(f"{path}: on disk differs from its reported diffs")
        except (ValueError, FileNotFoundError) as e:
            wrong.append(f"{path}: {e}")
    check("each edited file is as its reported diffs make it", not wrong, "; ".join(wrong))

    scored = analysis.score(task, workspace, env)
    print(f"task-model: the task was {'solved' if scored['solved'] else 'not solved'} "
          f"(reported, not asserted): pytest {scored['pytest_tail']!r}, tests edited {scored['tests_edited']}")
    print(f"task-model: {len(passed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    # run.sh's hard timeout sends TERM: unwind, so the server and tandem are stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    main()
