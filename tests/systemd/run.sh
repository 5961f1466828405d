#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Builds the Debian package, installs it with apt into a container that
# boots a real systemd (an overlay of / under systemd-nspawn, see
# shared/SYSTEMD-TESTING.md), and runs tests/systemd/inside.sh there as a
# oneshot unit.  usage: run.sh WORKDIR
# Exit: 0 all checks passed, 1 a check failed, 77 this machine cannot boot
# a container (no nspawn, no overlayfs): said on stdout as SKIP.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:?usage: run.sh WORKDIR}
jobs=$(nproc)

command -v systemd-nspawn >/dev/null || { echo "SKIP: systemd-nspawn missing"; exit 77; }
command -v dpkg-buildpackage >/dev/null || { echo "FAIL: dpkg-buildpackage missing"; exit 1; }

if [ -n "${CUZK_REUSE_DEBS:-}" ] && ls "$work"/cuzk_*.deb >/dev/null 2>&1; then
	echo "--- reusing the packages in $work (CUZK_REUSE_DEBS)"
else
	rm -rf "$work"; mkdir -p "$work/src"
	# Build from the files git knows (tracked, or new and not ignored): no build
	# outputs or node_modules leak into the package build.
	git -C "$root" ls-files -z --cached --others --exclude-standard | (cd "$root" && xargs -0 cp --parents -t "$work/src")
	echo "--- dpkg-buildpackage -us -uc -b"
	# The GPU list is CUZK_CUDA_ARCH's (scripts/test.sh sets it to the main
	# build's, so that ccache hands the package's nvcc runs that build's
	# objects), else the default one of released packages.
	if ! (cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=$jobs" \
	      dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1); then
		tail -n 60 "$work/build.log"; echo "FAIL: dpkg-buildpackage"; exit 1
	fi
	echo "--- built at $SECONDS s"
fi
ls "$work"/*.deb
echo "--- lintian"
# binaries/spelling is left out: it spell-checks every string of the
# statically linked CUDA runtime and of each GPU's machine code, which is
# NVIDIA's text, not ours, and it was two thirds of lintian's time (28 of 43 s
# for one GPU architecture, more with four).  Our own text (man pages, docs,
# control files) is still checked.
lintian --profile debian -X binaries/spelling --suppress-tags-from-file "$here/lintian-accepted" \
	"$work"/*.changes | tee "$work/lintian.out" || true
if grep -E '^E: ' "$work/lintian.out"; then echo "FAIL: lintian errors"; exit 1; fi
echo "--- lintian done at $SECONDS s"

d=$(mktemp -d /tmp/cuzk-systemd.XXXXXX)
mkdir -p "$d/up" "$d/work" "$d/root"
cleanup() { umount "$d/root" 2>/dev/null || true; rm -rf "$d"; }
trap cleanup EXIT
if ! mount -t overlay overlay -o "lowerdir=/,upperdir=$d/up,workdir=$d/work" "$d/root" 2>"$work/mount.err"; then
	echo "SKIP: cannot mount an overlay of / here: $(cat "$work/mount.err")"; exit 77
fi
# A clean slate inside: nothing of a host cuzk install may leak in, and no
# container-image policy-rc.d (it makes postinst skip starting the socket,
# which a real server does not do).
rm -f "$d/root/usr/sbin/policy-rc.d"
rm -rf "$d/root/usr/local/bin/cuzk" "$d/root/usr/local/sbin/cuzkd" "$d/root/etc/cuzk" "$d/root/var/lib/cuzk"
# The packages are installed by apt inside the booted container (inside.sh),
# so their maintainer scripts meet a live systemd, as on a server.
mkdir -p "$d/root/root/debs" && cp "$work"/cuzk_*.deb "$work"/libcuzk1_*.deb "$d/root/root/debs/"
cp "$here/inside.sh" "$d/root/usr/local/lib/cuzk-itest.sh"
chmod +x "$d/root/usr/local/lib/cuzk-itest.sh"
cat > "$d/root/etc/systemd/system/cuzk-itest.service" <<'UNIT'
[Unit]
After=cuzkd.socket
[Service]
Type=oneshot
ExecStart=/bin/sh -c '/usr/local/lib/cuzk-itest.sh > /root/itest.out 2>&1; echo $? > /root/itest.rc; systemctl poweroff'
UNIT
echo "--- boot"
timeout 600 systemd-nspawn --register=no --keep-unit -q -M cuzkitest$$ -D "$d/root" -b systemd.unit=cuzk-itest.service \
	>"$work/boot.log" 2>&1 || true
echo "--- container done at $SECONDS s"
cat "$d/up/root/itest.out" 2>/dev/null || { tail -n 40 "$work/boot.log"; echo "FAIL: the container produced no result"; exit 1; }
rc=$(cat "$d/up/root/itest.rc" 2>/dev/null || echo 1)
cp "$d/up/root/itest.out" "$work/itest.out"
[ "$rc" = 0 ] && echo "PASS: systemd" || echo "FAIL: systemd (rc $rc)"
exit "$rc"
