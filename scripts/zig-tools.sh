# Zig and cargo-zigbuild from PyPI, pinned, in a venv of their own under ~/.cache/tandem-release
# (reinstalled only when a pin changes). Sourced by scripts/release.sh and tests/cross/check.sh,
# so the release and the cross checks use the same Zig.
#   zig_tools    installs if needed, then puts the venv first on PATH
# Pinned so that a release is reproducible; bump deliberately.
ZIGLANG_VERSION=0.17.1
CARGO_ZIGBUILD_VERSION=0.24.0
zig_venv="${TANDEM_RELEASE_CACHE:-$HOME/.cache/tandem-release}/venv"

zig_tools() {
  local stamp="$zig_venv/.tandem-$ZIGLANG_VERSION-$CARGO_ZIGBUILD_VERSION"
  if [ ! -e "$stamp" ]; then
    printf '\n== installing ziglang %s and cargo-zigbuild %s into %s (PyPI)\n' \
      "$ZIGLANG_VERSION" "$CARGO_ZIGBUILD_VERSION" "$zig_venv"
    mkdir -p "$(dirname "$zig_venv")"
    python3 -m venv "$zig_venv" &&
      "$zig_venv/bin/pip" install -q "ziglang==$ZIGLANG_VERSION" "cargo-zigbuild==$CARGO_ZIGBUILD_VERSION" &&
      touch "$stamp" || return 1
  fi
  # cargo-zigbuild and tests/cross/zig-cc run Zig as `python3 -m ziglang`: the venv's python3
  # must come first.
  case ":$PATH:" in *":$zig_venv/bin:"*) ;; *) export PATH="$zig_venv/bin:$PATH" ;; esac
}
