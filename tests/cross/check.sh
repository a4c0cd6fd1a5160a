#!/usr/bin/env bash
# Type-checks the whole workspace, tests included, for Windows and macOS, so a Unix-only or
# Linux-only call fails the build. Installs what it needs (idempotent): the Rust targets, mingw-w64
# (Windows' C compiler, for crates with C parts) and Zig from PyPI (macOS's; the release's pinned
# Zig, scripts/zig-tools.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"

rustup target list --installed | grep -qx x86_64-pc-windows-gnu || rustup target add x86_64-pc-windows-gnu
rustup target list --installed | grep -qx aarch64-apple-darwin || rustup target add aarch64-apple-darwin
if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64 >/dev/null
fi
# shellcheck source=scripts/zig-tools.sh
source scripts/zig-tools.sh
zig_tools

echo "== cargo check --target x86_64-pc-windows-gnu"
cargo check --workspace --all-targets --target x86_64-pc-windows-gnu
echo "== cargo check --target aarch64-apple-darwin"
CC_aarch64_apple_darwin="$PWD/tests/cross/zig-cc" \
  cargo check --workspace --all-targets --target aarch64-apple-darwin
