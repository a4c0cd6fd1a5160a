#!/usr/bin/env bash
# The layering of docs/architecture.md, as the crates' dependencies enforce it: the core crates
# never depend on a protocol, an editor or a terminal. Fails naming the crate and what it pulls in.
set -euo pipefail
cd "$(dirname "$0")/.."
core=(tandem-stdx tandem-model tandem-provider tandem-tools tandem-sandbox tandem-mcp tandem-agent)
faces='^(tower-lsp-server|agent-client-protocol|tandem-protocol|tandem-lsp|tandem-acp|tandem-config|tandem|clap|ts-rs) '
status=0
for crate in "${core[@]}"; do
  found=$(cargo tree -q -p "$crate" -e normal --prefix none | grep -E "$faces" | sort -u || true)
  if [ -n "$found" ]; then
    echo "layering: the core crate $crate depends on: $found" >&2
    status=1
  fi
done
# The wire types of `tandem lsp` are wire types only: serde, and nothing of the core (the
# conversions live in tandem-lsp), so generating the TypeScript compiles in seconds.
wire_allowed='^(tandem-protocol|serde|serde_json) '
direct=$(cargo tree -q -p tandem-protocol -e normal --depth 1 --prefix none | grep -vE "$wire_allowed" | sort -u || true)
if [ -n "$direct" ]; then
  echo "layering: tandem-protocol may depend on serde and serde_json only, not: $direct" >&2
  status=1
fi
# Within a crate: no import circle between sibling modules (scripts/module-cycles.py); the
# circles listed in scripts/module-cycles.known predate the check and may only go.
python=$(command -v python3 || command -v python)
if ! "$python" scripts/module-cycles.py --known scripts/module-cycles.known; then
  echo "layering: an import circle between modules (above): move what both use into a module of its own" >&2
  status=1
fi
[ "$status" = 0 ] && echo "layers: ${core[*]} depend on no protocol, editor or terminal crate; tandem-protocol on serde alone"
exit "$status"
