#!/usr/bin/env bash
# Runs a command as root inside a throwaway VM booted on Debian 12's Linux
# 6.1 kernel (linux-image-amd64), with this host's root filesystem shared
# read-only over 9p: the guest runs the very same build/cli/ccreplay, iperf3,
# tc and ip as the host, on another kernel. Made for DCTCP ground truth
# (issue 14): the host's kernel has no tcp_dctcp, Debian's 6.1 ships it.
#
# Usage: sudo scripts/vm-lab.sh OUT_DIR COMMAND...
#   OUT_DIR is shared read-write and mounted at the same path in the guest;
#   COMMAND runs there (bash -c "$*", working directory: this repository)
#   and its output goes to the console and OUT_DIR/vm-console.log. The exit
#   status is the command's.
#   Example: sudo scripts/vm-lab.sh /tmp/dctcp 'modprobe tcp_dctcp &&
#     build/cli/ccreplay lab --cc dctcp ... -o /tmp/dctcp/b1'
#
# Needs (all from Debian's archive, none installed by this script):
# qemu-system-x86, linux-image-amd64 (/boot/vmlinuz-V and /lib/modules/V on
# the host disk; the host keeps running its own kernel), kmod (modprobe
# --show-depends) and busybox-static (the initramfs' shell). KVM when
# /dev/kvm is there (VM_CPU: the -cpu model, default host without
# arch-capabilities), else or with VM_TCG=1 TCG, slow: say so beside any
# figure. On this project's machine /dev/kvm is kvm_pvm (a PVM hypervisor
# that runs only PVM-built guests): Debian's stock 6.1 hangs right after
# the boot loader there, so runs here use VM_TCG=1. Not used by CI.
# VM_KERNEL=V picks the kernel version (default: the newest 6.1 in
# /lib/modules), VM_MEM / VM_CPUS the guest size (2048 MB, 2), VM_APPEND
# extra kernel arguments (default quiet), VM_MACHINE qemu's -machine.
#
# The guest: a busybox initramfs loads virtio + 9p, mounts the host's / at
# /host read-only, puts tmpfs on /tmp /run /root and
# proc/sys/dev/tracefs/bpffs over it, mounts OUT_DIR writable, then chroots
# there. /lib/modules/V is the host's, so modprobe works in the guest; the
# kernel's own module autoloading is sent to it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
[[ $# -ge 2 ]] || { sed -n '/^# Usage/,/^#   Example/p' "$0"; exit 2; }
out=$(realpath "$1")
shift
mkdir -p "$out"
kver=${VM_KERNEL:-$(find /lib/modules -maxdepth 1 -name '6.1.*' -printf '%f\n' 2>/dev/null | sort -V | tail -1)}
[[ -n "$kver" && -f "/boot/vmlinuz-$kver" && -d "/lib/modules/$kver" ]] || {
  echo "vm-lab: no 6.1 kernel: apt-get install linux-image-amd64" >&2
  exit 1
}
busybox=/bin/busybox
if [[ ! -x $busybox ]] || ! file -L "$busybox" | grep -q 'statically linked'; then
  echo "vm-lab: need a static busybox: apt-get install busybox-static" >&2
  exit 1
fi
command -v qemu-system-x86_64 >/dev/null || {
  echo "vm-lab: apt-get install qemu-system-x86" >&2
  exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
init=$work/initramfs
mkdir -p "$init"/{bin,dev,proc,sys,host,modules}
cp "$busybox" "$init/bin/busybox"
ln -s busybox "$init/bin/sh"
# The modules the guest needs before its root is mounted, in load order.
: >"$work/load"
for module in virtio_pci 9pnet_virtio 9p; do
  modprobe -S "$kver" --show-depends "$module" | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
  cp "$ko" "$init/modules/"
  echo "/modules/$(basename "$ko")" >>"$work/load"
done
printf '%s\n' "$*" >"$out/.vm-command"
cat >"$init/init" <<EOF
#!/bin/sh
export PATH=/bin
busybox mount -t proc proc /proc
busybox mount -t sysfs sys /sys
busybox mount -t devtmpfs dev /dev
for ko in $(tr '\n' ' ' <"$work/load"); do busybox insmod \$ko; done
busybox mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000 hostroot /host
for d in tmp run root; do busybox mount -t tmpfs tmpfs /host/\$d; done
busybox mkdir -p /host$out
busybox mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /host$out
busybox mount -t proc proc /host/proc
busybox mount -t sysfs sys /host/sys
busybox mount -t devtmpfs dev /host/dev
busybox mkdir -p /host/dev/pts /host/dev/shm
busybox mount -t devpts devpts /host/dev/pts
busybox mount -t tmpfs tmpfs /host/dev/shm
busybox mount -t tracefs tracefs /host/sys/kernel/tracing
busybox mount -t debugfs debugfs /host/sys/kernel/debug
busybox mount -t bpf bpf /host/sys/fs/bpf
busybox mount -t cgroup2 cgroup2 /host/sys/fs/cgroup
# The kernel's module autoloading (request_module) runs its helper in this
# initramfs' root: hand it to the host's modprobe in the chroot.
printf '#!/bin/sh\nexec /bin/busybox chroot /host /sbin/modprobe "\$@"\n' >/bin/modprobe-host
busybox chmod +x /bin/modprobe-host
echo /bin/modprobe-host >/proc/sys/kernel/modprobe
busybox chroot /host /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb /bin/bash -c 'hostname vm-lab; ip link set lo up; cd $repo &&
  echo "vm-lab: \$(uname -r), \$(nproc) cpus"; bash $out/.vm-command; echo \$? >$out/.vm-rc' \
  2>&1 | busybox tee /host$out/vm-console.log
busybox sync
busybox poweroff -f
EOF
chmod +x "$init/init"
(cd "$init" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.gz"

accel=(-enable-kvm -cpu "${VM_CPU:-host,-arch-capabilities}")
if [[ ! -w /dev/kvm || -n "${VM_TCG:-}" ]]; then
  echo "vm-lab: TCG (slow): no writable /dev/kvm or VM_TCG set" >&2
  accel=(-accel tcg)
fi
rm -f "$out/.vm-rc"
qemu-system-x86_64 "${accel[@]}" -m "${VM_MEM:-2048}" -smp "${VM_CPUS:-2}" \
  ${VM_MACHINE:+-machine "$VM_MACHINE"} -kernel "/boot/vmlinuz-$kver" -initrd "$work/initramfs.gz" \
  -append "console=ttyS0 panic=-1 ${VM_APPEND:-quiet}" \
  -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=$out,mount_tag=out,security_model=none" \
  -nographic -no-reboot -nic none </dev/null
rc=$(cat "$out/.vm-rc" 2>/dev/null || echo 255)
rm -f "$out/.vm-command" "$out/.vm-rc"
exit "$rc"
