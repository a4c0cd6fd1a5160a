"""What the benchmark installs: pytest for the tasks' tests, in a cached venv; aider; the models."""

import fcntl
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PYTEST_VERSION = "9.0.2"
MODELS = {"0.5b": "TANDEM_CODER_MODEL_0_5B", "1.5b": "TANDEM_CODER_MODEL_1_5B"}


def cache_root():
    return os.environ.get("TANDEM_TEST_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "tandem-test")


def base_python():
    return os.environ.get("TANDEM_PYTHON") or ("/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable)


def pytest_bin():
    """A folder whose `python3` has pytest: put first on PATH, `python3 -m pytest` finds it."""
    py = base_python()
    ver = subprocess.run([py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         check=True, capture_output=True, text=True).stdout.strip()
    venv = os.path.join(cache_root(), "bench", f"pytest-{PYTEST_VERSION}-py{ver}")
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    with open(venv + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(os.path.join(venv, ".ok")):
            print(f"bench: installing pytest {PYTEST_VERSION} into {venv}", file=sys.stderr)
            subprocess.run([py, "-m", "venv", "--clear", venv], check=True)
            subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", f"pytest=={PYTEST_VERSION}"], check=True)
            open(os.path.join(venv, ".ok"), "w").close()
    return os.path.join(venv, "bin")


def aider():
    out = subprocess.run(["bash", os.path.join(REPO, "bench", "tasks", "aider-setup.sh")],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1]


def opencode():
    out = subprocess.run(["bash", os.path.join(REPO, "bench", "tasks", "opencode-setup.sh")],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1]


def _paths_env():
    path = os.path.join(cache_root(), "llama", "paths.env")
    env = {}
    if os.path.exists(path):
        for line in open(path):
            key, sep, value = line.strip().partition("=")
            if sep and not key.startswith("#"):
                env[key] = value
    return env


def model(size):
    """The GGUF of Qwen2.5-Coder SIZE-Instruct, assembled (and checked) by coder-model-setup.sh."""
    subprocess.run(["bash", os.path.join(REPO, "tests", "llama", "coder-model-setup.sh"), size],
                   check=True, stdout=sys.stderr)
    return _paths_env()[MODELS[size]]


def llama_server():
    """llama-server as tests/llama/server-setup.sh left it (it is not built here: minutes)."""
    server = os.environ.get("TANDEM_LLAMA_SERVER") or _paths_env().get("TANDEM_LLAMA_SERVER")
    if not server or not os.access(server, os.X_OK):
        raise SystemExit("bench: no llama-server; build it with `bash tests/llama/server-setup.sh` "
                         "(or set TANDEM_LLAMA_SERVER)")
    return server


def tandem():
    """The tandem binary: TANDEM_BIN, else this tree's debug build."""
    path = os.environ.get("TANDEM_BIN") or os.path.join(
        os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target"), "debug", "tandem")
    if not os.access(path, os.X_OK):
        raise SystemExit(f"bench: no tandem binary at {path}; run `cargo build -p tandem` (or set TANDEM_BIN)")
    return path
