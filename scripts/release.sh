#!/usr/bin/env bash
# Release binaries of the sidecar for every platform VS Code ships on, cross-compiled on this
# (x86_64 Linux) machine, then one .vsix per platform (scripts/package.mjs --target).
#
#   scripts/release.sh [--no-package] [TRIPLE ...]     (default: every triple below)
#
# Linux, macOS and aarch64 Windows link with Zig (cargo-zigbuild; Linux against glibc 2.28, VS
# Code's own floor), x86_64 Windows with mingw-w64 (see windows_arm64 below for aarch64).
# Tools are installed on first use and reused: Zig and cargo-zigbuild from PyPI into a venv under
# ~/.cache/tandem-release, Rust's standard library per target with rustup, mingw-w64 with apt.
# Binaries land in target/<triple>/release/; a log per target in target/release-logs/.
# Exits non-zero if any requested target failed, after trying all of them.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${TANDEM_RELEASE_CACHE:-$HOME/.cache/tandem-release}"
venv="$cache/venv"
logs="$repo/target/release-logs"
# Pinned so that a release is reproducible; bump deliberately.
ZIGLANG_VERSION=0.17.1
CARGO_ZIGBUILD_VERSION=0.24.0
GLIBC=2.28

# Rust triple -> VS Code target.
declare -A VSCODE=(
  [x86_64-unknown-linux-gnu]=linux-x64
  [aarch64-unknown-linux-gnu]=linux-arm64
  [x86_64-apple-darwin]=darwin-x64
  [aarch64-apple-darwin]=darwin-arm64
  [x86_64-pc-windows-gnu]=win32-x64
  [aarch64-pc-windows-gnullvm]=win32-arm64
)
# The order they build in: the ones that can fail early (missing SDK, toolchain) come after the
# Linux builds, so one failing never leaves nothing built.
ALL=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-pc-windows-gnu
  x86_64-apple-darwin aarch64-apple-darwin aarch64-pc-windows-gnullvm)

package=1
targets=()
for arg in "$@"; do
  case "$arg" in
    --no-package) package=0 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "release.sh: unknown option $arg" >&2; exit 2 ;;
    *)
      if [ -z "${VSCODE[$arg]:-}" ]; then
        echo "release.sh: unknown target $arg; known: ${ALL[*]}" >&2
        exit 2
      fi
      targets+=("$arg") ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=("${ALL[@]}")

say() { printf '\n== %s\n' "$*"; }

# Zig and cargo-zigbuild, pinned, in a venv of their own (reinstalled only when a pin changes).
zig_tools() {
  local stamp="$venv/.tandem-$ZIGLANG_VERSION-$CARGO_ZIGBUILD_VERSION"
  if [ ! -e "$stamp" ]; then
    say "installing ziglang $ZIGLANG_VERSION and cargo-zigbuild $CARGO_ZIGBUILD_VERSION into $venv (PyPI)"
    mkdir -p "$cache"
    python3 -m venv "$venv" &&
      "$venv/bin/pip" install -q "ziglang==$ZIGLANG_VERSION" "cargo-zigbuild==$CARGO_ZIGBUILD_VERSION" &&
      touch "$stamp" || return 1
  fi
  # cargo-zigbuild runs Zig as `python3 -m ziglang`: the venv's python3 must come first.
  export PATH="$venv/bin:$PATH"
}

# mingw-w64 for x86_64-pc-windows-gnu: the C compiler and linker.
mingw() {
  command -v x86_64-w64-mingw32-gcc >/dev/null && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing gcc-mingw-w64-x86-64 (apt)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64 >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64 >/dev/null; }
  else
    echo "x86_64-pc-windows-gnu needs mingw-w64: install Debian's gcc-mingw-w64-x86-64 (as root)." >&2
    return 1
  fi
}

# aarch64 Windows: the MSVC route (cargo-xwin) downloads Microsoft's CRT and SDK from Microsoft,
# which this machine cannot reach; the GNU-LLVM ABI links with Zig, which carries mingw-w64's CRT
# and import libraries for aarch64. Nothing here can run the result (Wine on x86_64 runs no
# aarch64 code): it is built and checked for its format only.
windows_arm64() {
  zig_tools && nice -n 10 cargo zigbuild --release --locked -p tandem --target aarch64-pc-windows-gnullvm
}

# macOS: Zig carries libSystem but not Apple's frameworks. A dependency that links one (today
# security-framework, for reqwest's platform certificate verifier: Security and CoreFoundation)
# needs Apple's SDK: SDKROOT=/path/to/MacOSX.sdk (copied from Xcode on a Mac; it cannot be
# downloaded here). Without it, say so at once instead of failing at the link after minutes.
macos() {
  local triple="$1" sys
  zig_tools || return 1
  if [ -z "${SDKROOT:-}" ]; then
    sys=$(cargo tree --locked -p tandem --target "$triple" -e normal --prefix none 2>/dev/null |
      grep -oE '^(core-foundation-sys|security-framework-sys|system-configuration-sys|objc2?-[a-z-]+|fsevent-sys) v[0-9.]+' | sort -u | tr '\n' ' ')
    if [ -n "$sys" ]; then
      echo "error: $triple links Apple frameworks (through ${sys% }), which Zig does not carry." \
        "Set SDKROOT to a MacOSX.sdk (from Xcode on a Mac) and run again." >&2
      return 1
    fi
  fi
  nice -n 10 cargo zigbuild --release --locked -p tandem --target "$triple"
}

build() {
  local triple="$1"
  rustup target add "$triple" >/dev/null 2>&1 || { echo "rustup target add $triple failed" >&2; return 1; }
  case "$triple" in
    *-linux-gnu) zig_tools && nice -n 10 cargo zigbuild --release --locked -p tandem --target "$triple.$GLIBC" ;;
    *-apple-darwin) macos "$triple" ;;
    x86_64-pc-windows-gnu) mingw && nice -n 10 cargo build --release --locked -p tandem --target "$triple" ;;
    aarch64-pc-windows-gnullvm) windows_arm64 ;;
  esac
}

# Runs a built binary's --version where this machine can: natively, or aarch64 Linux under
# qemu-user (Debian qemu-user and libc6-arm64-cross, when installed). Prints what it ran, or why not.
smoke() {
  local triple="$1" bin="$2"
  case "$triple" in
    "$(uname -m)-unknown-linux-gnu") "$bin" --version 2>&1 | head -1 ;;
    aarch64-unknown-linux-gnu)
      if command -v qemu-aarch64 >/dev/null && [ -d /usr/aarch64-linux-gnu ]; then
        echo "$(qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" --version 2>&1 | head -1) (qemu-aarch64)"
      else
        echo "not run (no qemu-aarch64 with libc6-arm64-cross)"
      fi ;;
    *) echo "not run here" ;;
  esac
}

binary() { case "$1" in *windows*) echo "$repo/target/$1/release/tandem.exe" ;; *) echo "$repo/target/$1/release/tandem" ;; esac; }

mkdir -p "$logs"
cd "$repo" || exit 1
built=()
failed=()
summary=()
for triple in "${targets[@]}"; do
  say "$triple (${VSCODE[$triple]}): building, log in target/release-logs/$triple.log"
  start=$SECONDS
  # A stale binary from an earlier build must not pass for this one.
  rm -f "$(binary "$triple")"
  build "$triple" >"$logs/$triple.log" 2>&1
  status=$?
  took=$((SECONDS - start))
  if [ $status -eq 0 ] && [ -f "$(binary "$triple")" ]; then
    built+=("$triple")
    summary+=("$(printf '%-28s %-13s built in %4ss: %s; %s' "$triple" "${VSCODE[$triple]}" "$took" \
      "$(file -b "$(binary "$triple")" | cut -d, -f1-2)" "$(smoke "$triple" "$(binary "$triple")")")")
  else
    failed+=("$triple")
    # The first errors say why (a compile error, a missing linker, library or SDK).
    why=$(grep -m 8 -E '^error|error:|cannot find|not found|unable to' "$logs/$triple.log" || tail -n 8 "$logs/$triple.log")
    summary+=("$(printf '%-28s %-13s FAILED after %ss (target/release-logs/%s.log):\n%s' "$triple" "${VSCODE[$triple]}" "$took" "$triple" "$(sed 's/^/    /' <<<"$why")")")
  fi
done

if [ $package -eq 1 ] && [ ${#built[@]} -gt 0 ]; then
  say "packaging one .vsix per built target"
  [ -d "$repo/node_modules/@vscode/vsce" ] || (cd "$repo" && npm ci --no-audit --no-fund --loglevel=error)
  args=()
  for triple in "${built[@]}"; do args+=(--target "${VSCODE[$triple]}"); done
  TANDEM_SKIP_CARGO=1 node "$repo/scripts/package.mjs" "${args[@]}" || failed+=("packaging")
fi

say "summary"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
