#!/usr/bin/env bash
# The kernel stage: Debian's own kernels booted under QEMU (TCG), this machine's root file system
# shared read-only over 9p, the sandbox tested inside as root and as an unprivileged user with the
# host's own target/debug/tandem (tests/kernels/pass.py, the attacks in attack.sh).
#
#   bash tests/kernels/setup.sh       once: QEMU, the kernels, the initramfs (cached)
#   bash tests/kernels/run.sh [VARIANT...]     all variants, or the ones named (6.1 6.1-nolandlock 6.12)
#
# Boots in sequence, each with a time limit (TANDEM_KERNELS_TIMEOUT seconds, default 200). One
# line per case on the serial console, `KT ok VARIANT/PASS CASE` or `KT FAIL ...: WHY`; this script
# counts them and ends with node-style `# pass N` / `# fail N` lines (tests/run-all sums those).
# Exits 1 on any failed case and on a boot that never reports its end; the guest's console log is
# printed then. Logs stay in TARGET/kernels/VARIANT/ (console.log, results).
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

# What each pass should find, as `tandem doctor --json` puts it (the walls confining files, the
# network and processes; whether allow-listed commands run unasked; the Landlock ABI). `*`: not
# checked; `-`: no wall. Passes: root, user (uid 65534), user-nouserns (the user after
# `sysctl kernel.unprivileged_userns_clone=0`). Where unasked is false, every command must ask
# (exec then refuses it) and the attacks are not run.
expected='
# variant       pass           unasked  files                     network                                processes        abi
6.1             root           true     mount namespace,Landlock  network namespace,seccomp              PID namespace    2
6.1             user           true     mount namespace,Landlock  network namespace,seccomp              PID namespace    2
6.1             user-nouserns  true     Landlock                  seccomp                                subreaper sweep  2
6.1-nolandlock  root           true     mount namespace           network namespace,seccomp              PID namespace    *
6.1-nolandlock  user           true     mount namespace           network namespace,seccomp              PID namespace    *
6.1-nolandlock  user-nouserns  false    -                         seccomp                                subreaper sweep  *
6.12            root           true     mount namespace,Landlock  network namespace,seccomp               PID namespace    6
6.12            user           true     mount namespace,Landlock  network namespace,seccomp               PID namespace    6
'
# The boots: variant, kernel, what the kernel command line adds, Landlock on or off.
variants='
6.1             6.1   -                           on
6.1-nolandlock  6.1   lsm=lockdown,yama,apparmor  off
6.12            6.12  -                           on
'

cache=${TANDEM_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem-test}/kernels
if [ ! -f "$cache/kernels.env" ]; then
  echo "kernels: $cache/kernels.env is missing: run bash tests/kernels/setup.sh first" >&2
  exit 1
fi
# shellcheck source=/dev/null # written by setup.sh
. "$cache/kernels.env"
command -v qemu-system-x86_64 >/dev/null || { echo "kernels: no qemu-system-x86_64: run tests/kernels/setup.sh" >&2; exit 1; }

target=${CARGO_TARGET_DIR:-$repo/target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
# The binaries the guest runs, from this tree: built as the suite builds them (with the tests,
# which changes dependencies' features), so this is a no-op after the suite's build.
cargo build --workspace --bins --tests --quiet || exit 1
tandem=$target/debug/tandem mock=$target/debug/mock-model

# The columns of the expected table are two or more spaces apart (wall names have spaces).
row() { # row VARIANT PASS: that row's KT_EXPECT, or nothing
  printf '%s\n' "$expected" | sed 's/  \+/\t/g' | awk -F'\t' -v v="$1" -v p="$2" '
    $1 == v && $2 == p { f = ($4 == "-") ? "" : $4; n = ($5 == "-") ? "" : $5; q = ($6 == "-") ? "" : $6
      printf "unasked=%s;files=%s;network=%s;processes=%s;abi=%s", $3, f, n, q, $7 }'
}

wanted=("$@")
for w in "${wanted[@]}"; do
  printf '%s\n' "$variants" | awk '{ print $1 }' | grep -qx -- "$w" ||
    { echo "kernels: no variant $w (there are:$(printf '%s' "$variants" | awk 'NF { printf " %s", $1 }'))" >&2; exit 2; }
done
timeout_s=${TANDEM_KERNELS_TIMEOUT:-200}
passed=0 failed=0 stage_start=$SECONDS
failures=()
while read -r variant kernel append landlock; do
  [ -n "$variant" ] || continue
  if [ ${#wanted[@]} -gt 0 ] && ! printf '%s\n' "${wanted[@]}" | grep -qx -- "$variant"; then continue; fi
  case $kernel in 6.1) kdir=$KT_KERNEL_6_1 ;; 6.12) kdir=$KT_KERNEL_6_12 ;; esac
  [ "$append" = - ] && append=
  passes=$(printf '%s\n' "$expected" | awk -v v="$variant" '$1 == v { printf "%s ", $2 }')
  out=$target/kernels/$variant
  rm -rf "$out"
  # What the passes run (the binaries, pass.py, attack.sh) goes into the share, which the guest
  # mounts at /run/kt-out: the unprivileged passes (uid 65534) can read it there even when the
  # tree sits under a directory others can't enter (mktemp -d makes one 0700). Hard links where
  # the file system allows, else copies.
  mkdir -p "$out/share/bin"
  chmod 0755 "$out/share" "$out/share/bin"
  for f in "$tandem" "$mock" tests/kernels/pass.py tests/kernels/attack.sh; do
    ln -f "$f" "$out/share/bin/" 2>/dev/null || cp "$f" "$out/share/bin/" || exit 1
  done
  chmod a+rX "$out/share/bin"/*
  echo "$repo/tests/kernels/guest.sh" >"$out/share/script"
  {
    printf 'export KT_VARIANT=%q KT_PASSES=%q KT_BIN=%q KT_RELEASE=%q KT_LANDLOCK=%q\n' \
      "$variant" "$passes" /run/kt-out/bin "$(cat "$kdir/release")" "$landlock"
    printf 'export KT_TANDEM=%q KT_MOCK=%q KT_ATTACK=%q\n' /run/kt-out/bin/tandem /run/kt-out/bin/mock-model /run/kt-out/bin/attack.sh
    for pass in $passes; do
      printf 'export KT_EXPECT_%s=%q\n' "${pass//-/_}" "$(row "$variant" "$pass")"
    done
  } >"$out/share/job.env"
  printf '\n== kernel %s (%s%s): %s\n' "$variant" "$(cat "$kdir/release")" "${append:+, $append}" "$passes"
  t=$SECONDS
  timeout --foreground -k 5 "$timeout_s" qemu-system-x86_64 \
    -accel tcg -cpu max -smp 2 -m 2048 -nographic -no-reboot -nic none \
    -kernel "$kdir/vmlinuz" -initrd "$kdir/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet $append" \
    -fsdev local,id=h,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=h,mount_tag=host \
    -fsdev "local,id=o,path=$out/share,security_model=none" \
    -device virtio-9p-pci,fsdev=o,mount_tag=out \
    </dev/null >"$out/console.raw" 2>&1
  rc=$?
  tr -d '\r' <"$out/console.raw" >"$out/console.log"
  took=$((SECONDS - t))
  grep -a '^KT ' "$out/console.log" >"$out/results" || true
  # The lines as they came, the info ones indented.
  sed -n 's/^KT ok /  ok    /p; s/^KT FAIL /  FAIL  /p; s/^KT info /        /p' "$out/results"
  ok=$(grep -c '^KT ok ' "$out/results")
  bad=$(grep -c '^KT FAIL ' "$out/results")
  if ! grep -q "^KT end $variant " "$out/results"; then
    if [ $rc = 124 ]; then why="timed out after ${timeout_s}s"; else why="QEMU exited $rc"; fi
    echo "  FAIL  $variant: the guest never reported its end ($why); the passes' lines so far:"
    cat "$out"/share/*.lines 2>/dev/null | sed 's/^/   | /'
    bad=$((bad + 1))
  fi
  passed=$((passed + ok)) failed=$((failed + bad))
  echo "-- $variant: $ok passed, $bad failed in ${took}s"
  if [ "$bad" -gt 0 ]; then
    failures+=("$variant")
    echo "-- $variant: the guest's console ($out/console.log):"
    sed 's/^/   | /' "$out/console.log"
  fi
done <<<"$variants"

echo
echo "kernels: $passed passed, $failed failed in $((SECONDS - stage_start))s${failures[*]:+ (failed: ${failures[*]})}"
echo "# pass $passed"
echo "# fail $failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
