#!/usr/bin/env bash
# Checks that server/tandem/startup-order.txt still matches a release binary: fails when fewer than
# 90% of the names it lists are symbols of the binary (by `nm`). The names carry hashes of the
# compiler and of each crate's version and features, so a dependency update, a new Rust or a
# change of a crate's dependencies decays the list silently: release links still work, but the
# start's functions are no longer side by side and an idle sidecar maps more memory (see
# server/tandem/build.rs). Renew the list with `python3 scripts/startup-order.py` (CONTRIBUTING.md).
#
#   bash scripts/check-startup-order.sh [BINARY]    default: the release binary under the target dir
#   bash scripts/check-startup-order.sh --fingerprint
#
# --fingerprint needs no build (seconds; the fast tier runs it): it compares the fingerprint the
# list records with that of what the names' hashes are derived from now (the compiler, the release
# profile, every crate of the release build with its features: scripts/startup-fingerprint.py).
#
# The fingerprint misses one cause: changes to Tandem's own code (fat LTO inlines a different set
# of functions), which only the binary shows. The full tier (tests/run-all) runs the binary check
# when a release binary is in the target dir (it builds none itself: a fat-LTO build is ~8 min on 2
# cores). The list is only linked on x86_64 Linux; elsewhere this says so and passes.
set -euo pipefail
export LC_ALL=C
repo=$(cd "$(dirname "$0")/.." && pwd)
list=$repo/server/tandem/startup-order.txt
binary=${1:-${CARGO_TARGET_DIR:-$repo/target}/release/tandem}
# The least share of listed names the binary must have, in percent.
min=${TANDEM_STARTUP_ORDER_MIN:-90}

if [ "${1:-}" = --fingerprint ]; then
  recorded=$(sed -n 's/^# fingerprint: \([0-9a-f]*\).*/\1/p' "$list")
  now=$(python3 "$repo/scripts/startup-fingerprint.py")
  if [ "$recorded" = "$now" ]; then
    echo "startup order: the list's fingerprint $now is the build's: its names are the release binary's"
    exit 0
  fi
  cat >&2 <<EOF
startup order: server/tandem/startup-order.txt was made for fingerprint ${recorded:-(none)}, the
release build's is now $now: the compiler, the release profile or a crate of the build (a version,
a feature) changed, and with it the hashes in most of the list's names. Renew the list:
python3 scripts/startup-order.py (needs valgrind; about 15 minutes on 2 cores), and commit
server/tandem/startup-order.txt. See CONTRIBUTING.md.
EOF
  exit 1
fi

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  echo "startup order: not checked (the list is linked on x86_64 Linux only)"
  exit 0
fi
if [ ! -f "$binary" ]; then
  echo "startup order: $binary is not there (build it with cargo build --release -p tandem)" >&2
  exit 1
fi
command -v nm >/dev/null || { echo "startup order: nm is not installed (binutils)" >&2; exit 1; }

# The names a release binary should have: the list's first part, up to the line that starts the
# names only `cargo bench`'s binary has (scripts/startup-order.py writes it); all of a list
# without that line.
names=$(awk '/^# only in the binary `cargo bench` builds/ { exit } !/^#/' "$list" | sort -u)
listed=$(grep -c . <<<"$names")
# The binary's defined symbols, one name a line; the listed names that are among them.
found=$(nm --defined-only "$binary" | awk 'NF == 3 { print $3 }' | sort -u | comm -12 - <(echo "$names") | wc -l)
share=$((found * 100 / listed))
echo "startup order: $found of the $listed release names in server/tandem/startup-order.txt are in $binary ($share%; at least $min% needed)"
if [ "$share" -lt "$min" ]; then
  cat >&2 <<EOF
startup order: the list no longer matches the binary (a dependency, the compiler or a crate's
dependencies changed the names' hashes). Renew it: python3 scripts/startup-order.py (needs valgrind;
about 15 minutes on 2 cores), and commit server/tandem/startup-order.txt. See CONTRIBUTING.md.
EOF
  exit 1
fi
