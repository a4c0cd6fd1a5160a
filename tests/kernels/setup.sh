#!/usr/bin/env bash
# The kernel stage's kit: QEMU, and Debian's own kernels with a tiny busybox initramfs each, so
# that tests/kernels/run.sh can boot them with this machine's root file system shared read-only
# over 9p (see run.sh).
#
#   bash tests/kernels/setup.sh      then   . "${XDG_CACHE_HOME:-$HOME/.cache}/tandem-test/kernels/kernels.env"
#
# Kernels: Debian 12's current 6.1 (linux-image-6.1.0-N-amd64, the highest N apt offers) and the
# 6.12 kernel Debian 12 also ships (linux-image-6.12.N+deb12-amd64); TANDEM_KERNEL_6_1 and
# TANDEM_KERNEL_6_12 name other packages. Each kernel's vmlinuz and initramfs live in a folder of
# the cache named after its package, so a second run with the same versions does nothing (apt is
# not asked over the network then). Installs qemu-system-x86, busybox-static and cpio when
# missing (as root, with apt-get); runs `apt-get update` once when a package is not found.
set -euo pipefail

start=$SECONDS
root=${TANDEM_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem-test}/kernels
mkdir -p "$root"
root=$(cd "$root" && pwd)

# One setup at a time per cache (parallel CI jobs on one machine share it).
exec 9>"$root/.lock"
flock 9

export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_update() {
  [ $apt_updated = 1 ] && return 0
  echo "kernels setup: apt-get update"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt_updated=1
}
need_root() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "kernels setup: $1 (needs root and apt-get)" >&2
    exit 1
  fi
}

# 1. The tools: QEMU, a static busybox for the initramfs, cpio to pack it, xz for 6.12's modules.
missing=()
for p in qemu-system-x86 busybox-static cpio xz-utils; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  need_root "please install: ${missing[*]}"
  echo "kernels setup: apt-get install ${missing[*]}"
  install() { apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
  install || { apt_update && install; }
fi

# 2. Which kernels: the highest version of each that apt's lists name.
newest() { apt-cache search --names-only "$1" | cut -d' ' -f1 | sort -V | tail -1; }
pick() {
  local pattern=$1 found
  found=$(newest "$pattern")
  if [ -z "$found" ]; then
    need_root "no package matches $pattern in apt's lists"
    apt_update
    found=$(newest "$pattern")
  fi
  [ -n "$found" ] || { echo "kernels setup: apt offers no package matching $pattern" >&2; exit 1; }
  echo "$found"
}
k61=${TANDEM_KERNEL_6_1:-$(pick '^linux-image-6\.1\.0-[0-9]+-amd64$')}
k612=${TANDEM_KERNEL_6_12:-$(pick '^linux-image-6\.12\.[0-9]+\+deb12-amd64$')}

# The 9p client over virtio-pci; what they need comes in first, as each module's own `depends=`
# names it (the package has no modules.dep). A module the kernel has built in is skipped.
modules=(virtio_pci 9pnet_virtio 9p overlay)

# PID 1 of the initramfs: loads the modules, mounts the host's root read-only and the writable
# results share, reads the job run.sh left there, and hands over to its script with switch_root
# (not chroot: the kernel refuses unshare(CLONE_NEWUSER) inside a chroot).
init_script='#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules.list); do insmod "/modules/$m.ko" || echo "KT init: insmod $m failed"; done
mkdir -p /newroot
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /newroot; then
  echo "KT init: cannot mount the host root"; echo o > /proc/sysrq-trigger; sleep 60
fi
mount -t tmpfs -o mode=0755 run /newroot/run
mkdir -p /newroot/run/kt-out
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /newroot/run/kt-out; then
  echo "KT init: cannot mount the results share"; echo o > /proc/sysrq-trigger; sleep 60
fi
script=$(cat /newroot/run/kt-out/script)
umount /proc /sys /dev 2>/dev/null
exec switch_root /newroot /bin/bash "$script"
'

# The initramfs's recipe is part of each folder's name: changing it rebuilds.
recipe=$(printf '%s\n' "$init_script" "${modules[*]}" | sha256sum | cut -c1-8)

# add_module NAME: puts NAME's dependencies, then NAME, into the initramfs being built (uses
# build's $mods and $tmp).
add_module() {
  local m=$1 f dep
  grep -qx "$m" "$tmp/initrd/modules.list" && return 0
  f=$(find "$mods/kernel" \( -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" \) | head -1)
  if [ -z "$f" ]; then
    grep -q "/$m.ko\$" "$mods/modules.builtin" 2>/dev/null && return 0
    echo "kernels setup: $pkg has no module $m" >&2
    exit 1
  fi
  case $f in
    *.xz) xz -dc "$f" >"$tmp/initrd/modules/$m.ko" ;;
    *.zst) zstd -qdc "$f" >"$tmp/initrd/modules/$m.ko" ;;
    *) cp "$f" "$tmp/initrd/modules/$m.ko" ;;
  esac
  for dep in $(tr '\0' '\n' <"$tmp/initrd/modules/$m.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do
    add_module "$dep"
  done
  echo "$m" >>"$tmp/initrd/modules.list"
}

# 3. Each kernel: its package unpacked once, vmlinuz and the initramfs kept, the rest removed.
build() {
  pkg=$1
  local dir=$root/$1-$recipe deb
  if [ -f "$dir/ready" ]; then
    echo "kernels setup: $pkg is ready (cached)"
    return 0
  fi
  echo "kernels setup: building $dir"
  rm -rf "$dir"
  tmp=$(mktemp -d "$root/.build.XXXXXX")
  building=$tmp
  # apt-get download runs as _apt when it can read and write the folder.
  chmod 0777 "$tmp"
  if ! (cd "$tmp" && apt-get download -qq "$pkg" 2>/dev/null); then
    need_root "cannot download $pkg"
    apt_update
    (cd "$tmp" && apt-get download -qq "$pkg")
  fi
  deb=$(ls "$tmp"/*.deb)
  dpkg -x "$deb" "$tmp/x"
  mods=$(echo "$tmp"/x/lib/modules/*)
  [ -d "$mods/kernel" ] || { echo "kernels setup: $pkg holds no modules" >&2; exit 1; }
  mkdir -p "$tmp/initrd/bin" "$tmp/initrd/modules" "$tmp/initrd/proc" "$tmp/initrd/sys" "$tmp/initrd/dev"
  cp /bin/busybox "$tmp/initrd/bin/busybox"
  : >"$tmp/initrd/modules.list"
  for m in "${modules[@]}"; do add_module "$m"; done
  printf '%s' "$init_script" >"$tmp/initrd/init"
  chmod +x "$tmp/initrd/init"
  mkdir -p "$tmp/out"
  cp "$tmp"/x/boot/vmlinuz-* "$tmp/out/vmlinuz"
  (cd "$tmp/initrd" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/out/initrd.gz"
  basename "$mods" >"$tmp/out/release"
  touch "$tmp/out/ready"
  mv "$tmp/out" "$dir"
  rm -rf "$tmp"
  building=
}
building=
trap '[ -z "$building" ] || rm -rf "$building"' EXIT
build "$k61"
build "$k612"
# Kernels apt no longer offers go: the cache holds the current two.
for old in "$root"/linux-image-*; do
  case ${old##*/} in "$k61-$recipe" | "$k612-$recipe") ;; *) [ -e "$old" ] && rm -rf "$old" ;; esac
done

cat >"$root/kernels.env.tmp" <<EOF
# Written by tests/kernels/setup.sh; read by tests/kernels/run.sh.
KT_KERNEL_6_1=$root/$k61-$recipe
KT_KERNEL_6_12=$root/$k612-$recipe
EOF
mv "$root/kernels.env.tmp" "$root/kernels.env"
echo "kernels setup: $k61, $k612 (initramfs $recipe) ready in $((SECONDS - start))s"
