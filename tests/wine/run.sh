#!/usr/bin/env bash
# The Windows build's tests, run under Wine: private dirs' ACLs, the tools (commands through
# cmd.exe, Job Objects, reparse points leading out of the workspace), the sandbox policy, the
# providers and the protocol crates, and
# end-to-end turns through `tandem.exe lsp` and `tandem.exe tool` with C:\ paths and CRLF files.
#
# Installs what it needs (idempotent): the Rust target, mingw-w64, Wine. Caches a Wine prefix in
# target/wine-prefix. Debian 12's Wine 8 lacks bcryptprimitives.dll, which every Rust .exe
# loads; the stub built from bcryptprimitives.c goes into the prefix's system32. Wine's own
# powershell.exe is a stub that runs nothing, so it is removed from the prefix: commands then go
# through cmd.exe, as on a Windows without PowerShell.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"

rustup target list --installed | grep -qx x86_64-pc-windows-gnu || rustup target add x86_64-pc-windows-gnu
missing=()
for p in gcc-mingw-w64-x86-64 wine wine64; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

export WINEPREFIX="$root/target/wine-prefix" WINEDEBUG=-all
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
system32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -d "$system32" ]; then
  echo "== creating the Wine prefix"
  wineboot -i >/dev/null 2>&1
fi
dll="$root/target/wine/bcryptprimitives.dll"
if [ ! -f "$dll" ] || [ "$root/tests/wine/bcryptprimitives.c" -nt "$dll" ]; then
  mkdir -p "$(dirname "$dll")"
  x86_64-w64-mingw32-gcc -shared -O2 -o "$dll" "$root/tests/wine/bcryptprimitives.c" -ladvapi32
fi
cp "$dll" "$system32/bcryptprimitives.dll"
rm -f "$system32/WindowsPowerShell/v1.0/powershell.exe"

# Reparse points for tools_reparse_windows: Wine 8 cannot make a junction (FSCTL_SET_REPARSE_POINT
# answers ERROR_NOT_SUPPORTED, CreateSymbolicLinkW is a stub) but shows a host symbolic link as
# one, resolved by GetFinalPathNameByHandleW as Windows resolves a junction. Made fresh each run.
links="$root/target/wine-links"
rm -rf "$links"
mkdir -p "$links/ws" "$links/outside"
printf 's\n' >"$links/outside/secret"
printf 'in\n' >"$links/ws/inside.txt"
ln -s "$links/outside" "$links/ws/dir-link"
ln -s "$links/outside/secret" "$links/ws/file-link"
export TANDEM_WINE_LINKS="Z:${links//\//\\}"

# One build for every test below. Cargo picks dependencies' features from the packages an
# invocation selects, so one `cargo test` per package compiled most dependencies twice (8.5 min
# from cold); here one selection builds them once and the test programs run straight under Wine.
# Dependencies build unoptimised: the tests here are small, and LLVM's optimiser was most of
# the build's time (the suite's Linux build keeps opt-level 2 for its large-input tests).
packages=(-p tandem-stdx -p tandem-tools -p tandem-provider -p tandem-protocol -p tandem-sandbox -p tandem)
tests=(--lib --test tools --test provider --test sandbox --test e2e)
echo "== building the tests for Windows (stdx, tools, sandbox, providers, protocol, end-to-end)"
artifacts=$root/target/wine/artifacts.tsv
cargo test --target x86_64-pc-windows-gnu --config 'profile.dev.package."*".opt-level=0' \
  "${packages[@]}" "${tests[@]}" --no-run --message-format=json-render-diagnostics |
  jq -r 'select(.reason == "compiler-artifact" and .profile.test and .executable != null)
         | [.target.name, (.target.kind | join(",")), .executable, .manifest_path] | @tsv' >"$artifacts"

# under_wine NAME KIND [ARGS...]: runs one test program, from its package's folder as cargo would.
under_wine() {
  local name=$1 kind=$2 exe manifest
  shift 2
  IFS=$'\t' read -r exe manifest < <(awk -F'\t' -v n="$name" -v k="$kind" '$1 == n && $2 == k { print $3 "\t" $4 }' "$artifacts")
  if [ -z "${exe:-}" ]; then
    echo "wine: no test program $name ($kind) in the build; see $artifacts" >&2
    return 1
  fi
  echo "     Running $name ($kind) under Wine: ${exe#"$root"/}"
  (cd "$(dirname "$manifest")" && wine "$exe" "$@")
}

status=0
echo "== stdx (private dirs), tools, sandbox policy, providers, protocol (under Wine)"
for lib in tandem_stdx tandem_tools tandem_provider tandem_protocol tandem_sandbox; do
  under_wine "$lib" lib || status=1
done
under_wine tools test || status=1
under_wine provider test || status=1
# The sandbox's policy (allow-list, Seatbelt profile); its env and allow-list tests that run
# Unix programs (`sh`, `env`, `git`) have no such programs under Wine.
under_wine sandbox test allow_props:: || status=1
under_wine sandbox test allow_list:: --skip a_glob_turns_a_file_name_into_an_option || status=1
echo "== end-to-end: tandem.exe lsp and tandem.exe tool (under Wine)"
under_wine e2e test windows:: || status=1
exit $status
