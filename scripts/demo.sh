#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Sets up cuzk on a fresh Debian 12 machine (as root) and runs a demo proof
# through the daemon:
#   installs the build dependencies, builds (with the GPU backend when nvcc is
#   there), installs under /usr/local, then
#   - when PID 1 is systemd: installs the units, starts cuzkd.socket, and the
#     first client starts the service (socket activation);
#   - otherwise: runs cuzkd in the foreground of this script on a temporary
#     socket;
#   makes a demo circuit and its (insecure, development) parameters, proves
#   through the daemon (GPU if there is one, else CPU) and verifies the proof.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

say "installing build dependencies"
bash scripts/install-deps.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"

say "building"
./autogen.sh >/dev/null 2>&1 || { ./autogen.sh; exit 1; }
mkdir -p build/demo
( cd build/demo && ../../configure --prefix=/usr/local --sysconfdir=/etc --localstatedir=/var >configure.out &&
  make -j"$(nproc)" >make.out 2>&1 ) || { tail -n 40 build/demo/make.out; exit 1; }
say "installing into /usr/local"
make -C build/demo install >/dev/null
ldconfig
# Where they were installed, whatever this shell's PATH holds.
export PATH="/usr/local/sbin:/usr/local/bin:$PATH"

demo=$(mktemp -d /tmp/cuzk-demo.XXXXXX)
daemon_pid=""
if [ "$(ps -o comm= -p 1)" = systemd ]; then
	say "PID 1 is systemd: enabling cuzkd.socket"
	systemd-sysusers
	systemd-tmpfiles --create /usr/local/lib/tmpfiles.d/cuzk.conf
	systemctl daemon-reload
	systemctl enable --now cuzkd.socket
	sock=/run/cuzk/cuzkd.sock
	srs_dir=/var/lib/cuzk/params
else
	say "PID 1 is not systemd: running cuzkd in the foreground of this script"
	sock="$demo/cuzkd.sock"
	srs_dir="$demo/params"
	mkdir -p "$srs_dir"
	cuzkd --socket "$sock" --srs-dir "$srs_dir" --backend auto >"$demo/cuzkd.log" 2>&1 &
	daemon_pid=$!
	trap '[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null; wait 2>/dev/null' EXIT
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ] || { cat "$demo/cuzkd.log"; exit 1; }
fi

say "making a demo circuit (2^12 constraints) and its development parameters"
cd "$demo"
cuzk gen-circuit --log-constraints 12 --inputs 4 --r1cs demo.r1cs --wtns demo.wtns
cuzk setup --r1cs demo.r1cs --params "$srs_dir/demo.params" --vk demo.vk --seed 1
chmod 0644 "$srs_dir/demo.params"
cuzk synth --r1cs demo.r1cs --wtns demo.wtns --out demo.witness

say "proving through the daemon ($sock)"
cuzk submit --socket "$sock" --srs demo.params --witness demo.witness --out demo.proof
say "verifying"
cuzk verify --vk demo.vk --proof demo.proof --witness demo.witness
cuzk status --socket "$sock"

say "done"
cat <<INFO
  daemon socket:  $sock
  parameters:     $srs_dir/demo.params (insecure development setup)
  circuit:        $demo/demo.r1cs, witness $demo/demo.witness
  proof:          $demo/demo.proof (192 bytes, bellperson encoding)
  verifying key:  $demo/demo.vk
INFO
[ -n "$daemon_pid" ] && echo "  daemon log:     $demo/cuzkd.log"
exit 0
