#!/bin/bash
# PID 1 of a kernel-stage guest, after the initramfs's switch_root (tests/kernels/setup.sh): the
# host's root file system is / (read-only), run.sh's share is /run/kt-out (writable) with the job
# in job.env. Mounts what a system has, runs pass.py once per pass (as root and as an
# unprivileged user side by side, then as the user with unprivileged user namespaces switched
# off), prints their lines whole and powers off. Every line run.sh reads starts with `KT `.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
out=/run/kt-out
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=0700 root /root
# The passes' homes: writable, outside every temp directory (pass.py).
mkdir -p /run/kt-home 2>/dev/null
mount -t tmpfs -o mode=1777 home /run/kt-home
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if command -v ip >/dev/null; then ip link set lo up; else busybox ip link set lo up; fi
hostname kt-guest

off() {
  sync
  echo o >/proc/sysrq-trigger
  sleep 60
}
# shellcheck source=/dev/null # written by run.sh
. "$out/job.env" || {
  echo "KT FAIL boot: no job.env"
  off
}

lsm=$(cat /sys/kernel/security/lsm 2>/dev/null)
echo # the BIOS's escape codes end the line before
echo "KT booted $KT_VARIANT: $(uname -r), lsm=$lsm, up $(cut -d' ' -f1 /proc/uptime)s" | tee -a "$out/results"
# The variant is what run.sh asked for: the kernel, and Landlock on or off.
case ",$lsm," in *,landlock,*) landlock=on ;; *) landlock=off ;; esac
if [ "$(uname -r)" = "$KT_RELEASE" ] && [ "$landlock" = "$KT_LANDLOCK" ]; then
  echo "KT ok $KT_VARIANT kernel" | tee -a "$out/results"
else
  echo "KT FAIL $KT_VARIANT kernel: $(uname -r) with Landlock $landlock, want $KT_RELEASE with Landlock $KT_LANDLOCK" |
    tee -a "$out/results"
fi

# run_pass PASS: pass.py as root or as the user, its lines into the share's PASS.lines (run.sh
# shows them when a boot never ends). It ends with `KT done VARIANT/PASS` when it ran to its end.
run_pass() {
  local pass=$1 name=$KT_VARIANT/$1 work=/tmp/kt-$1 expect_var start
  local lines=$out/$pass.lines
  mkdir -p "$work"
  expect_var=KT_EXPECT_${pass//-/_}
  local run=(env KT_EXPECT="${!expect_var}")
  case $pass in
    user*)
      chown 65534:65534 "$work"
      run=(setpriv --reuid=65534 --regid=65534 --clear-groups "${run[@]}")
      ;;
  esac
  start=$(date +%s)
  (cd "$work" && "${run[@]}" python3 "$KT_BIN/pass.py" "$name" "$work") >"$lines" 2>&1
  grep -qx "KT done $name" "$lines" ||
    echo "KT FAIL $name pass.py: stopped before its end (its output is above)" >>"$lines"
  echo "KT info $name took $(($(date +%s) - start))s" >>"$lines"
}
show() { # show PASS...: their lines, whole, on the console and in the results
  local pass
  for pass in "$@"; do tee -a "$out/results" <"$out/$pass.lines"; done
}

# The passes with user namespaces as the kernel has them run side by side (two CPUs); then the
# switch goes off for the rest.
first=() later=()
for pass in $KT_PASSES; do
  case $pass in *nouserns) later+=("$pass") ;; *) first+=("$pass") ;; esac
done
for pass in "${first[@]}"; do run_pass "$pass" & done
wait
show "${first[@]}"
if [ ${#later[@]} -gt 0 ]; then
  # sysctl kernel.unprivileged_userns_clone=0, without procps (a fresh Debian lacks it)
  if echo 0 2>/dev/null >/proc/sys/kernel/unprivileged_userns_clone; then
    for pass in "${later[@]}"; do run_pass "$pass"; done
    show "${later[@]}"
  else
    echo "KT FAIL $KT_VARIANT/${later[0]} setup: cannot switch unprivileged user namespaces off" | tee -a "$out/results"
  fi
fi
echo "KT end $KT_VARIANT (up $(cut -d' ' -f1 /proc/uptime)s)" | tee -a "$out/results"
off
