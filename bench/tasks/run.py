"""The task benchmark: coding agents side by side on one local model server.

    python3 bench/tasks/run.py --agents tandem,aider --model 0.5b --tasks bugfix --cap 480 --window 16384

For each task and each agent: a fresh workspace (the stub and the tests, in a git repo of its
own), the same prompt, the same llama-server (started here: `--jinja -c WINDOW -t 2 -np 1` on a
free loopback port, one for the whole run), the same time cap. Then the tests are put back from
the task's pristine copy (an agent that edited them is counted) and pytest scores the workspace.
A recording proxy between the agents and the server counts every agent's requests and tokens the
same way (the server's own figures). The table goes to stdout, as Markdown; the run folder keeps
results.json, every workspace and what each agent printed.

Tasks: `exercism` (or `exercism:a-m`, `exercism:leap+bob`), `bugfix`, or task names; comma-separated.
Nothing of a model's quality is asserted here: it measures.
"""

import argparse
import datetime
import json
import os
import signal
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from taskbench import agents, analysis, server, tasks, tools  # noqa: E402

CAUSES = ("no call", "malformed call", "edit not applied", "wrong code", "loop", "runaway", "timeout")


def summarize(results, agent):
    rows = [r for r in results if r["agent"] == agent]
    solved = [r for r in rows if r["solved"]]
    prompt = sum(r["prompt_tokens"] for r in rows)
    gen = sum(r["completion_tokens"] for r in rows)
    causes = {c: sum(1 for r in rows if r["cause"] == c) for c in CAUSES}
    return {
        "agent": agent, "tasks": len(rows), "solved": len(solved),
        "median_seconds": statistics.median(r["seconds"] for r in rows) if rows else None,
        "median_seconds_solved": statistics.median(r["seconds"] for r in solved) if solved else None,
        "prompt_tokens": prompt, "completion_tokens": gen,
        "prompt_per_solved": round(prompt / len(solved)) if solved else None,
        "completion_per_solved": round(gen / len(solved)) if solved else None,
        "requests": sum(r["requests"] for r in rows),
        "tests_edited": sum(1 for r in rows if r["tests_edited"]),
        "causes": causes,
    }


def table(summaries, results, meta):
    out = [f"Tasks: {meta['tasks']} ({meta['n_tasks']}), model {meta['model']}, window {meta['window']}, "
           f"cap {meta['cap']} s, {meta['date']}", "",
           "| agent | solved | median s | prompt tok / solved | generated tok / solved | requests | tests edited | "
           + " | ".join(CAUSES) + " |",
           "|---|---|---|---|---|---|---|" + "---|" * len(CAUSES)]
    for s in summaries:
        out.append(
            f"| {s['agent']} | {s['solved']}/{s['tasks']} | {s['median_seconds']:.0f} | "
            f"{s['prompt_per_solved'] if s['solved'] else '-'} | {s['completion_per_solved'] if s['solved'] else '-'} | "
            f"{s['requests']} | {s['tests_edited']} | " + " | ".join(str(s['causes'][c]) for c in CAUSES) + " |")
    out += ["", "Tokens are the server's own counts (prompt: the whole prompt, cached part included), summed "
            "over all the agent's tasks and divided by the tasks it solved. Median seconds over all tasks.", "",
            "| task | agent | solved | s | requests | prompt tok | generated tok | cause | detail |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        detail = (r["detail"] or "").replace("|", "\\|").replace("\n", " ")[:90]
        out.append(f"| {r['task']} | {r['agent']} | {'yes' if r['solved'] else 'no'} | {r['seconds']:.0f} | "
                   f"{r['requests']} | {r['prompt_tokens']} | {r['completion_tokens']} | {r['cause'] or ''} | {detail} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agents", default="tandem,aider")
    ap.add_argument("--model", choices=sorted(tools.MODELS), default="0.5b")
    ap.add_argument("--tasks", default="bugfix")
    ap.add_argument("--cap", type=int, default=480, help="seconds per task and agent")
    ap.add_argument("--window", type=int, default=16384)
    ap.add_argument("--out", help="the run folder (default: a new one under the temp dir)")
    args = ap.parse_args()

    selected = tasks.load(args.tasks)
    names = [a.strip() for a in args.agents.split(",") if a.strip()]
    runners = [agents.make(n, tools) for n in names]
    model = tools.model(args.model)
    out = args.out or tempfile.mkdtemp(prefix="tandem-bench-")
    os.makedirs(out, exist_ok=True)
    pytest_bin = tools.pytest_bin()
    llama = server.LlamaServer(tools.llama_server(), model, args.window, os.path.join(out, "llama-server.log"))
    results = []
    meta = {"tasks": args.tasks, "n_tasks": len(selected), "model": f"Qwen2.5-Coder-{args.model.upper()}-Instruct Q4_K_M",
            "window": args.window, "cap": args.cap, "agents": names,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": "python3 bench/tasks/run.py " + " ".join(sys.argv[1:])}
    try:
        llama.wait_ready()
        proxy = server.Proxy(llama.port)
        for task in selected:
            for runner in runners:
                label = f"{task.id}/{runner.name}"
                home = os.path.join(out, task.family, task.name, runner.name)
                workspace = os.path.join(home, "workspace")
                os.makedirs(home)
                task.make_workspace(workspace)
                env = agents.clean_env(pytest_bin, os.path.join(home, "home"))
                proxy.label = label
                print(f"bench: {label} …", file=sys.stderr, flush=True)
                outcome = runner.run(task, workspace, home, proxy.url, args.window, args.cap, env)
                proxy.label = None
                if runner.name == "tandem":
                    outcome["facts"] = analysis.tandem_facts(outcome.pop("events"))
                scored = analysis.score(task, workspace, env)
                records = proxy.of(label)
                cause, detail = analysis.classify(runner.name, outcome, scored, records)
                r = {"task": task.id, "agent": runner.name, "solved": scored["solved"],
                     "seconds": outcome["seconds"], "exit": outcome["exit"], "timed_out": outcome["timed_out"],
                     "requests": len(records),
                     "prompt_tokens": sum(x.get("prompt_tokens") or 0 for x in records),
                     "completion_tokens": sum(x.get("completion_tokens") or 0 for x in records),
                     "native_tool_calls": sum(x.get("tool_calls") or 0 for x in records),
                     "tests_edited": scored["tests_edited"], "changed": scored["changed"],
                     "pytest": scored["pytest_tail"], "cause": cause, "detail": detail,
                     "facts": outcome.get("facts"), "server_requests": records}
                results.append(r)
                with open(os.path.join(home, "result.json"), "w") as f:
                    json.dump(r, f, indent=1)
                print(f"bench: {label}: {'solved' if r['solved'] else 'not solved: ' + str(cause)} "
                      f"in {r['seconds']:.0f} s, {r['requests']} requests", file=sys.stderr, flush=True)
        proxy.stop()
    finally:
        llama.stop()
    summaries = [summarize(results, n) for n in names]
    text = table(summaries, results, meta)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"meta": meta, "summary": summaries, "results": results}, f, indent=1)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    print(f"\nrun folder: {out} (results.json, results.md, each workspace and log)", file=sys.stderr)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwind: the server is stopped too
    main()
