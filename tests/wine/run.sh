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

target=(--target x86_64-pc-windows-gnu)
echo "== stdx (private dirs), tools, sandbox policy, providers, protocol (under Wine)"
cargo test "${target[@]}" -p tandem-stdx -p tandem-tools -p tandem-provider -p tandem-protocol
# The sandbox's policy (allow-list, Seatbelt profile); its env and allow-list tests that run
# Unix programs (`sh`, `env`, `git`) have no such programs under Wine.
cargo test "${target[@]}" -p tandem-sandbox --lib
cargo test "${target[@]}" -p tandem-sandbox --test sandbox allow_props::
cargo test "${target[@]}" -p tandem-sandbox --test sandbox allow_list:: -- --skip a_glob_turns_a_file_name_into_an_option
echo "== end-to-end: tandem.exe lsp and tandem.exe tool (under Wine)"
cargo test "${target[@]}" -p tandem --test e2e windows::
