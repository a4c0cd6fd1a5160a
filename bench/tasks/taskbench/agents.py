"""The agents under test: each is started in a task's workspace with the same prompt, pointed at
the run's model server, and stopped at the time cap. What each prints is kept in the run folder.
"""

import json
import os
import signal
import subprocess
import time

MODEL_NAME = "qwen2.5-coder-instruct"


def clean_env(pytest_bin, home):
    """The environment of every agent: no TANDEM_/OPENAI_/AIDER_ setting from outside, pytest on
    PATH, and nothing the tests' runs would leave in the workspace (byte code, pytest's cache)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TANDEM_", "OPENAI_", "AIDER_", "ANTHROPIC_"))}
    env.update(PATH=pytest_bin + os.pathsep + os.environ.get("PATH", ""),
               PYTHONDONTWRITEBYTECODE="1", PYTEST_ADDOPTS="-p no:cacheprovider",
               XDG_CONFIG_HOME=os.path.join(home, "config"), XDG_DATA_HOME=os.path.join(home, "data"),
               XDG_CACHE_HOME=os.path.join(home, "cache"))
    for d in ("config", "data", "cache"):
        os.makedirs(os.path.join(home, d), exist_ok=True)
    return env


def stop_group(proc):
    """Ends PROC's process group (the agent and whatever it started): TERM, then KILL."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            return proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return proc.wait()


def run_capped(cmd, cwd, env, cap, stdout_path, stderr_path, stdin=None):
    """Runs CMD in its own process group; at CAP seconds the group is ended. (rc, seconds, timed_out)"""
    started = time.monotonic()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL if stdin is None else stdin,
                                start_new_session=True)
        timed_out = False
        try:
            rc = proc.wait(timeout=cap)
        except subprocess.TimeoutExpired:
            timed_out = True
            rc = stop_group(proc)
        except BaseException:
            stop_group(proc)  # the runner itself is being stopped: take the agent with it
            raise
    return rc, round(time.monotonic() - started, 1), timed_out


class Tandem:
    name = "tandem"

    def __init__(self, binary):
        self.binary = binary

    def command(self, task, base_url, window, max_steps=None):
        cmd = [self.binary, "exec", "--json", "--yes", "--allow", "python3 -m pytest",
               "--base-url", base_url + "/v1", "--model", MODEL_NAME, "--context-window", str(window)]
        if max_steps:
            cmd += ["--max-steps", str(max_steps)]
        return cmd + ["-"]

    def run(self, task, workspace, home, base_url, window, cap, env, max_steps=None):
        out, err = os.path.join(home, "events.jsonl"), os.path.join(home, "stderr.log")
        with open(os.path.join(home, "prompt.txt"), "w") as f:
            f.write(task.prompt())
        with open(os.path.join(home, "prompt.txt"), "rb") as prompt:
            rc, secs, timed_out = run_capped(
                self.command(task, base_url, window, max_steps) + ["--data-dir", os.path.join(home, "tandem-data")],
                workspace, env, cap, out, err, stdin=prompt)
        return {"exit": rc, "seconds": secs, "timed_out": timed_out, "events": read_events(out)}


def read_events(path):
    events = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    events.append({"type": "unparsable", "line": line[:500]})
    return events


class Aider:
    name = "aider"

    def __init__(self, binary):
        self.binary = binary

    def run(self, task, workspace, home, base_url, window, cap, env, max_steps=None):
        model = "openai/" + MODEL_NAME
        settings = os.path.join(home, "aider-model-settings.yml")
        with open(settings, "w") as f:
            # whole-file edits, temperature 0 (aider's default for a model that takes one).
            f.write(f"- name: {model}\n  edit_format: whole\n  use_temperature: 0.0\n")
        metadata = os.path.join(home, "aider-model-metadata.json")
        with open(metadata, "w") as f:
            json.dump({model: {"max_input_tokens": window, "max_output_tokens": window // 4,
                               "max_tokens": window, "input_cost_per_token": 0,
                               "output_cost_per_token": 0, "litellm_provider": "openai", "mode": "chat"}}, f)
        env = dict(env, LITELLM_LOCAL_MODEL_COST_MAP="True", OPENAI_API_KEY="local")
        cmd = [self.binary, "--model", model, "--openai-api-base", base_url + "/v1",
               "--model-settings-file", settings, "--model-metadata-file", metadata,
               "--edit-format", "whole", "--yes-always", "--no-git", "--no-gitignore",
               "--no-auto-commits", "--map-tokens", "0", "--no-check-update", "--analytics-disable",
               "--no-show-model-warnings", "--no-pretty", "--no-fancy-input", "--no-suggest-shell-commands",
               "--no-detect-urls",
               "--chat-history-file", os.path.join(home, "aider.chat.md"),
               "--input-history-file", os.path.join(home, "aider.input"),
               "--llm-history-file", os.path.join(home, "aider.llm.md"),
               "--test-cmd", " ".join(task.test_command()), "--auto-test"]
        for f in task.solution:
            cmd += ["--file", f]
        for f in task.tests:
            cmd += ["--read", f]
        cmd += ["--message", task.prompt()]
        out, err = os.path.join(home, "stdout.log"), os.path.join(home, "stderr.log")
        rc, secs, timed_out = run_capped(cmd, workspace, env, cap, out, err)
        with open(out, encoding="utf-8", errors="replace") as f:
            text = f.read()
        return {"exit": rc, "seconds": secs, "timed_out": timed_out, "output": text}


class Opencode:
    """opencode (npm `opencode-ai`) on an OpenAI-compatible provider, every permission granted."""

    name = "opencode"

    def __init__(self, binary):
        self.binary = binary

    def run(self, task, workspace, home, base_url, window, cap, env, max_steps=None):
        config = os.path.join(home, "opencode.json")
        with open(config, "w") as f:
            json.dump({"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
                       "provider": {"llama": {
                           "npm": "@ai-sdk/openai-compatible", "name": "llama-server",
                           "options": {"baseURL": base_url + "/v1", "apiKey": "local"},
                           "models": {MODEL_NAME: {"name": MODEL_NAME,
                                                   "limit": {"context": window, "output": window // 4}}}}}}, f)
        env = dict(env, OPENCODE_CONFIG=config, OPENCODE_DISABLE_MODELS_FETCH="1", OPENCODE_DISABLE_AUTOUPDATE="1")
        cmd = [self.binary, "run", "--model", "llama/" + MODEL_NAME, "--auto", "--format", "json", task.prompt()]
        out, err = os.path.join(home, "events.jsonl"), os.path.join(home, "stderr.log")
        rc, secs, timed_out = run_capped(cmd, workspace, env, cap, out, err)
        with open(out, encoding="utf-8", errors="replace") as f:
            text = f.read()
        return {"exit": rc, "seconds": secs, "timed_out": timed_out, "output": text}


def make(name, tools):
    if name == "tandem":
        return Tandem(tools.tandem())
    if name == "aider":
        return Aider(tools.aider())
    if name == "opencode":
        return Opencode(tools.opencode())
    raise SystemExit(f"unknown agent {name!r} (tandem, aider, opencode)")
