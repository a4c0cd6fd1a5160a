"""Scores a finished task and, when it failed, names the cause from what the agent did.

The causes, first that applies: timeout (stopped at the cap), runaway (an answer cut at its token
bound or past it), loop (the step cap, or one call repeated 3 times), wrong code (the file changed
but the tests fail), edit not applied (edits tried, none landed), malformed call (a call written
as text that was not run, or one the agent could not parse), no call (no edit was tried).
"""

import json
import re
import subprocess

# A tool call written into the answer's text: Hermes tags, a fenced or bare JSON call.
TEXT_CALL = re.compile(r'<tool_call>|<tools>|"name"\s*:\s*"[A-Za-z_]+"\s*,\s*"(arguments|parameters)"')
AIDER_EDIT_ERRORS = ("did not conform to the edit format", "malformed", "no filename provided",
                     "unable to apply", "failed to apply")


def changed_files(workspace):
    """Paths that differ from the task's commit, untracked ones included."""
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "-z"],
                         cwd=workspace, check=True, capture_output=True, text=True).stdout
    return sorted(e[3:] for e in out.split("\0") if e)


def score(task, workspace, env):
    edited_tests = task.restore_tests(workspace)
    r = subprocess.run(task.test_command(), cwd=workspace, env=env, capture_output=True, text=True,
                       timeout=300)
    tail = (r.stdout.strip().splitlines() or [""])[-1]
    changed = changed_files(workspace)
    return {"solved": r.returncode == 0, "pytest_exit": r.returncode, "pytest_tail": tail[-200:],
            "tests_edited": edited_tests, "changed": changed,
            "solution_changed": any(f in changed for f in task.solution)}


def tandem_facts(events):
    calls = [e for e in events if e.get("type") == "toolCall" and not e.get("parentId")]
    results = {e.get("toolCallId"): e for e in events if e.get("type") == "toolResult"}
    ended = next((e for e in events if e.get("type") == "turnEnded"), None)
    edits = [c for c in calls if c.get("kind") == "edit"]
    edits_ok = [c for c in edits if results.get(c.get("toolCallId"), {}).get("status") == "ok"]
    signatures = [json.dumps([c.get("name"), c.get("arguments")], sort_keys=True) for c in calls]
    repeats = max((signatures.count(s) for s in set(signatures)), default=0)
    texts = [e.get("text") or "" for e in events if e.get("type") == "message"]
    errors = [results[c["toolCallId"]].get("output", "")[:200] for c in calls
              if results.get(c.get("toolCallId"), {}).get("status") == "error"]
    return {
        "calls": [c.get("name") for c in calls],
        "edits": len(edits), "edits_ok": len(edits_ok), "max_repeat": repeats,
        "text_calls": sum(1 for t in texts if TEXT_CALL.search(t)),
        "tool_errors": errors,
        "stop_reason": ended and ended.get("stopReason"),
        "error_kind": ended and ended.get("errorKind"),
        "error": ended and ended.get("error"),
        "exit_code": ended and ended.get("exitCode"),
        "usage": ended and ended.get("usage"),
    }


def other_changes(scored):
    """The files the agent changed or created, the tests (put back before scoring) left out."""
    return [f for f in scored["changed"] if f not in scored["tests_edited"]]


def wrong_code_detail(scored):
    if scored["solution_changed"]:
        return scored["pytest_tail"]
    return f"changed {', '.join(other_changes(scored))}, not the file to fix; {scored['pytest_tail']}"


def classify(agent, outcome, scored, records):
    """The failure's cause and a short detail, or (None, None) for a solved task."""
    if scored["solved"]:
        return None, None
    cut = [r for r in records if r.get("finish_reason") == "length"
           or (r.get("max_tokens") and (r.get("completion_tokens") or 0) >= r["max_tokens"])]
    if outcome["timed_out"]:
        if cut:
            return "runaway", f"{len(cut)} answer(s) cut at their bound, then the cap"
        return "timeout", f"stopped at the cap after {outcome['seconds']} s"
    if cut:
        return "runaway", f"answer cut at {cut[0].get('completion_tokens')} tokens"
    if agent == "tandem":
        f = outcome["facts"]
        if f["stop_reason"] == "maxSteps" or f["max_repeat"] >= 3:
            return "loop", f"stop {f['stop_reason']}, a call repeated {f['max_repeat']} times"
        if f["error_kind"] == "answerCut":
            return "runaway", f["error"]
        if other_changes(scored):
            return "wrong code", wrong_code_detail(scored)
        if f["edits"] and not f["edits_ok"]:
            return "edit not applied", "; ".join(f["tool_errors"])[:200] or f"{f['edits']} edit(s) refused"
        if f["text_calls"] or f["tool_errors"]:
            return "malformed call", f"{f['text_calls']} call(s) written as text, not run"
        if f["stop_reason"] == "error":
            return "timeout" if "timeout" in (f["error"] or "") else "no call", (f["error"] or "")[:200]
        return "no call", f"calls: {', '.join(f['calls']) or 'none'}"
    text = (outcome.get("output") or "").lower()
    if other_changes(scored):
        return "wrong code", wrong_code_detail(scored)
    if any(s in text for s in AIDER_EDIT_ERRORS):
        return "edit not applied", next(s for s in AIDER_EDIT_ERRORS if s in text)
    return "no call", "no edit made"
