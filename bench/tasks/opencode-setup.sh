#!/usr/bin/env bash
# Installs opencode (npm `opencode-ai`, its Linux binary an optional dependency) for the benchmark:
#
#   bash bench/tasks/opencode-setup.sh     prints the path of its `opencode`
#
# Idempotent: under $TANDEM_TEST_CACHE/opencode/ (default ~/.cache/tandem-test), keyed by version.
set -euo pipefail

OPENCODE_VERSION=1.18.33

dir=${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/opencode/opencode-ai-$OPENCODE_VERSION
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ ! -f "$dir/.ok" ]; then
  command -v npm >/dev/null || { echo "opencode setup: needs npm (Node.js)" >&2; exit 1; }
  echo "opencode setup: installing opencode-ai $OPENCODE_VERSION into $dir" >&2
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "opencode-ai@$OPENCODE_VERSION" >&2
  "$dir/node_modules/.bin/opencode" --version >&2
  touch "$dir/.ok"
fi
echo "$dir/node_modules/.bin/opencode"
