#!/usr/bin/env bash
# Release binaries of the sidecar for every platform VS Code ships on, cross-compiled on this
# (x86_64 Linux) machine, then one .vsix per platform (scripts/package.mjs --target).
#
#   scripts/release.sh [--no-package] [TRIPLE ...]     (default: every triple below)
#
# Linux, macOS and aarch64 Windows link with Zig (cargo-zigbuild; Linux against glibc 2.28, VS
# Code's own floor), x86_64 Windows with mingw-w64 (see windows_arm64 below for aarch64).
# Tools are installed on first use and reused: Zig and cargo-zigbuild from PyPI into a venv under
# ~/.cache/tandem-release (scripts/zig-tools.sh), Rust's standard library per target with rustup,
# mingw-w64 with apt.
# Binaries land in target/<triple>/release/; a log per target in target/release-logs/.
# Exits non-zero if any requested target failed, after trying all of them.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
logs="$repo/target/release-logs"
# shellcheck source=scripts/zig-tools.sh
source "$repo/scripts/zig-tools.sh"
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
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# macOS: Zig carries libSystem but not Apple's frameworks, which crates with a `-sys` part link
# (Security and CoreFoundation, for rustls-platform-verifier: reqwest checks certificates against
# the Mac's own trust store). With SDKROOT=/path/to/MacOSX.sdk (from Xcode) the SDK's stubs are
# used; without it, scripts/macos-frameworks.py writes the same kind of text stubs (install name
# and the symbols each -sys crate declares) into target/macos-frameworks, so the link records
# what a link against Xcode's SDK would. A framework-linking crate it does not know stops the
# build at once, naming it.
declare -A FRAMEWORK_OF=(
  [core-foundation-sys]=CoreFoundation
  [security-framework-sys]=Security
  [system-configuration-sys]=SystemConfiguration
)
# The oldest macOS each binary says it runs on (Zig alone would stamp its newest): VS Code's own
# floor, 10.15, on Intel (the certificate verifier calls SecTrustEvaluateWithError, 10.14+), and
# 11.0, the first on Apple silicon.
declare -A MACOS_MIN=([x86_64-apple-darwin]=10.15 [aarch64-apple-darwin]=11.0)

# "name manifest_dir" for each package the sidecar builds for $1 (cargo metadata, resolved).
packages_for() {
  cargo metadata --locked --format-version 1 --filter-platform "$1" 2>/dev/null | python3 -c '
import json, os, sys
m = json.load(sys.stdin)
used = {n["id"] for n in m["resolve"]["nodes"]}
for p in m["packages"]:
    if p["id"] in used:
        print(p["name"], os.path.dirname(p["manifest_path"]))'
}

# The oldest macOS a Mach-O binary says it runs on (LC_BUILD_VERSION, or before 10.14's format
# LC_VERSION_MIN_MACOSX).
macos_min() {
  llvm-objdump --macho --private-headers "$1" |
    awk '/LC_BUILD_VERSION|LC_VERSION_MIN_MACOSX/ {b=1} b && ($1=="minos" || $1=="version") {print $2; exit}'
}

macos() {
  local triple="$1" stubs="$repo/target/macos-frameworks" name dir unknown=() specs=() var flags
  zig_tools || return 1
  var="CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")_RUSTFLAGS"
  flags="${!var:-}"
  if [ -z "${SDKROOT:-}" ]; then
    while read -r name dir; do
      if [ -n "${FRAMEWORK_OF[$name]:-}" ]; then
        specs+=("${FRAMEWORK_OF[$name]}=$dir")
      elif [[ "$name" =~ ^(objc2-.*|fsevent-sys|io-kit-sys|coreaudio-sys|metal)$ ]]; then
        unknown+=("$name")
      fi
    done < <(packages_for "$triple")
    if [ ${#unknown[@]} -gt 0 ]; then
      echo "error: $triple links Apple frameworks through ${unknown[*]}, which scripts/macos-frameworks.py" \
        "has no stubs for. Add them to FRAMEWORK_OF in scripts/release.sh, or set SDKROOT to a MacOSX.sdk." >&2
      return 1
    fi
    rm -rf "$stubs"
    if [ ${#specs[@]} -gt 0 ]; then
      python3 "$repo/scripts/macos-frameworks.py" "$stubs" "${specs[@]}" || return 1
      flags="$flags -C link-arg=-F$stubs"
    fi
  fi
  env "$var=$flags" MACOSX_DEPLOYMENT_TARGET="${MACOS_MIN[$triple]}" \
    nice -n 10 cargo zigbuild --release --locked -p tandem --target "$triple" || return 1
  # What the Mac's loader will check: the oldest macOS and the libraries it must find.
  if command -v llvm-objdump >/dev/null; then
    local bin="$repo/target/$triple/release/tandem" minos
    minos=$(macos_min "$bin")
    if [ "$minos" != "${MACOS_MIN[$triple]}" ]; then
      echo "error: $bin asks for macOS $minos, not ${MACOS_MIN[$triple]}" >&2
      rm -f "$bin"
      return 1
    fi
  fi
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
    *-apple-darwin)
      if command -v llvm-objdump >/dev/null; then
        echo "not run here; macOS $(macos_min "$bin")+," \
          "loads $(llvm-objdump --macho --dylibs-used "$bin" | sed -n 's|^[[:space:]]*\(/[^ ]*\) (.*|\1|p' | xargs -n1 basename | paste -sd' ')"
      else
        echo "not run here"
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
