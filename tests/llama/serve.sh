#!/usr/bin/env bash
# Runs the real local model server (llama-cpp-python + SmolLM2-135M) on 127.0.0.1, for tests.
#
#   tests/llama/serve.sh PORT N_CTX [CHAT_FORMAT [more server flags...]]
#
# e.g. `serve.sh 18080 2048` or `serve.sh 0 4096 chatml-function-calling`.
# The model is served as `smollm2` at http://127.0.0.1:PORT/v1. PORT 0 lets the server take a free
# port itself (no race with another process for a port found free); the READY line names it.
#
# The script execs the server, so the process the caller started IS the server: killing that pid
# stops it. Once GET /v1/models answers, one line goes to stdout:
#     READY http://127.0.0.1:PORT/v1
# and the caller can start talking. If the server exits or is not up within
# TANDEM_LLAMA_START_TIMEOUT seconds (default 60), a line starting with `FAILED` goes to stderr
# with the log's tail. The server's own output (including the reasons it cuts streams, such as
# "Requested tokens (N) exceed context window of M") goes to TANDEM_LLAMA_LOG (default:
# llama-server-PORT.log in the cache dir next to paths.env).
#
# Needs tests/llama/setup.sh to have run; TANDEM_LLAMA_PYTHON and TANDEM_LLAMA_MODEL come from the
# environment, else from the paths.env it wrote.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 PORT N_CTX [CHAT_FORMAT [server flags...]]" >&2
  exit 2
fi
port=$1 n_ctx=$2
shift 2
format=${1:-}
[ $# -gt 0 ] && shift

cache=${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/llama
if [ -z "${TANDEM_LLAMA_PYTHON:-}" ] || [ -z "${TANDEM_LLAMA_MODEL:-}" ]; then
  [ -f "$cache/paths.env" ] || { echo "FAILED: $cache/paths.env is missing: run tests/llama/setup.sh" >&2; exit 1; }
  # shellcheck disable=SC1091
  . "$cache/paths.env"
fi
log=${TANDEM_LLAMA_LOG:-$cache/llama-server-$port.log}

args=(--model "$TANDEM_LLAMA_MODEL" --model_alias smollm2 --host 127.0.0.1 --port "$port"
  --n_ctx "$n_ctx" --n_threads 1 --n_threads_batch 1)
[ -n "$format" ] && args+=(--chat_format "$format")
args+=("$@")

# A server already on the port would answer the readiness check in our place: refuse early.
if [ "$port" != 0 ] && ! "$TANDEM_LLAMA_PYTHON" -c 'import socket, sys; socket.create_server(("127.0.0.1", int(sys.argv[1]))).close()' "$port" 2>/dev/null; then
  echo "FAILED: 127.0.0.1:$port is already in use" >&2
  exit 1
fi

# The watcher outlives the exec below: it polls the server (whose pid is ours, $$) and reports once.
"$TANDEM_LLAMA_PYTHON" - "$$" "$port" "${TANDEM_LLAMA_START_TIMEOUT:-60}" "$log" <<'EOF' &
import os, re, sys, time, urllib.request
pid, port, timeout, log = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4]
url = f"http://127.0.0.1:{port}/v1"
deadline = time.monotonic() + timeout
def tail():
    try:
        with open(log, errors="replace") as f:
            return "".join(f.readlines()[-20:])
    except OSError:
        return ""
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.stderr.write(f"FAILED: the server exited before answering; {log}:\n{tail()}")
        sys.exit(1)
    try:
        # Our own log says uvicorn is up (so the answer below is from our server, not another),
        # and on which port (the one it took when asked for port 0).
        with open(log, errors="replace") as f:
            running = re.search(r"Uvicorn running on http://127\.0\.0\.1:(\d+)", f.read())
        if not running:
            raise OSError("not yet")
        url = f"http://127.0.0.1:{running.group(1)}/v1"
        with urllib.request.urlopen(url + "/models", timeout=2) as r:
            if r.status == 200:
                print(f"READY {url}", flush=True)
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.2)
sys.stderr.write(f"FAILED: no answer on {url}/models within {timeout:g}s; {log}:\n{tail()}")
sys.exit(1)
EOF

# Unbuffered, so the log is current when a test reads it (e.g. for the reason a stream was cut).
PYTHONUNBUFFERED=1 exec "$TANDEM_LLAMA_PYTHON" -m llama_cpp.server "${args[@]}" >"$log" 2>&1
