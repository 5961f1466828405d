#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Sets up cuzk on a fresh Debian 12 machine (as root) and runs a demo proof
# through the daemon:
#   installs the build dependencies; builds, with the GPU backend for the
#   GPUs of this machine (their compute capability, from nvidia-smi) when
#   nvcc and a GPU are both here, and without it otherwise (the demo then
#   proves on the CPU); installs under /usr/local; then
#   - when PID 1 is systemd: installs the units, starts cuzkd.socket, and the
#     first client starts the service (socket activation);
#   - otherwise: runs cuzkd in the foreground of this script on a temporary
#     socket, and stops it when the script ends;
#   makes a demo circuit and its (insecure, development) parameters, proves
#   through the daemon (GPU if there is one, else CPU) and verifies the proof.
# CUZK_CUDA_ARCH="80 90" builds for those compute capabilities instead of
# the ones found (e.g. to build on a machine without the GPU it is for).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

say "installing build dependencies"
bash scripts/install-deps.sh
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"

# What to build the GPU code for.  Each architecture costs nvcc about a
# CPU-minute (measured on a 2-core machine: 2 CPU-minutes for sm_90 with its
# PTX and the C code, 25 CPU-seconds for the C code alone), so building only
# for the GPUs that are here keeps the first build short; with no GPU,
# nothing.
have_nvcc=no have_gpu=no
command -v nvcc >/dev/null 2>&1 && have_nvcc=yes
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && have_gpu=yes
archs=${CUZK_CUDA_ARCH:-}
configure_cuda=(--without-cuda)
if [ $have_nvcc = no ]; then
	if [ $have_gpu = yes ]; then
		gpu_note="a GPU is here but not the CUDA toolkit (nvcc): building without the GPU backend (proofs on the CPU); install NVIDIA's toolkit in /usr/local/cuda and run this again for GPU proofs"
	else
		gpu_note="no CUDA toolkit and no GPU: building without the GPU backend (proofs on the CPU)"
	fi
elif [ -n "$archs" ]; then
	gpu_note="GPU backend for compute capability $archs (CUZK_CUDA_ARCH)"
elif [ $have_gpu = no ]; then
	gpu_note="nvcc is here but no GPU (nvidia-smi lists none): building without the GPU backend (proofs on the CPU); CUZK_CUDA_ARCH=\"90\" builds it anyway"
else
	archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
		tr -d '. ' | grep -E '^[0-9]+$' | sort -u | tr '\n' ' ' || true)
	archs=${archs% }
	if [ -n "$archs" ]; then
		gpu_note="GPU backend for compute capability $archs (the GPUs here), with PTX for newer GPUs"
	else
		archs="80 86 89 90"
		gpu_note="GPU backend for compute capability $archs (this driver's nvidia-smi does not report the GPUs' own)"
	fi
fi
cpu_s=30
if [ -n "$archs" ] && [ $have_nvcc = yes ]; then
	configure_cuda=(--with-cuda "--with-cuda-arch=$archs")
	cpu_s=$((cpu_s + 60 * ($(wc -w <<<"$archs") + 1)))   # each architecture, and the PTX of the newest
fi
# make -j uses every core, but the CUDA code is a handful of large files.
cores=$(nproc)
par=$((cores < 6 ? cores : 6))
minutes=$(((cpu_s / par + 59) / 60))

mkdir -p build/demo
log="$root/build/demo/build.log"
say "building ($gpu_note)"
echo "    about $minutes minute$([ "$minutes" = 1 ] || echo s) on $cores core$([ "$cores" = 1 ] || echo s) (longer on a busy machine); the whole log: $log"
./autogen.sh >"$log" 2>&1 || { tail -n 40 "$log"; echo "autogen failed; the whole log: $log"; exit 1; }
( cd build/demo && ../../configure --prefix=/usr/local --sysconfdir=/etc --localstatedir=/var \
	"${configure_cuda[@]}" >>"$log" 2>&1 ) || { tail -n 40 "$log"; echo "configure failed; the whole log: $log"; exit 1; }

# Progress: make's silent-rule lines ("  CC  file", "  GEN  cuda/x.o" for
# nvcc) counted against what make -n says it will run.  On a terminal one
# line is rewritten; otherwise each nvcc step (the slow ones) and every 20th
# step gets a line.
total=$(make -C build/demo -n 2>/dev/null | grep -cE '^echo "  [A-Z]+ ' || true)
[ "${total:-0}" -gt 0 ] || total="?"
start=$SECONDS
progress() {
	local done=0 line what tty=0
	[ -t 1 ] && tty=1
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$log"
		[[ $line =~ ^\ \ [A-Z]+\ +([^ ]+) ]] || continue
		done=$((done + 1))
		what=${BASH_REMATCH[1]}
		local t=$((SECONDS - start))
		local msg
		msg=$(printf '    [%3d/%s] %d:%02d  %s' "$done" "$total" $((t / 60)) $((t % 60)) "$what")
		if [ $tty = 1 ]; then
			printf '\r\033[K%s' "$msg"
		elif [[ $what == cuda/*.o ]] || [ $((done % 20)) = 0 ]; then
			printf '%s\n' "$msg"
		fi
	done
	[ $tty = 1 ] && printf '\n'
	return 0
}
rc=0
make -C build/demo -j"$cores" 2>&1 | progress || rc=$?   # pipefail: make's status
if [ $rc != 0 ]; then
	grep -E 'error|Error' "$log" | tail -n 20 || tail -n 40 "$log"
	echo "the build failed after $((SECONDS - start)) s; the whole log: $log"
	exit 1
fi
echo "    built in $(((SECONDS - start) / 60)):$(printf '%02d' $(((SECONDS - start) % 60)))"

say "installing into /usr/local"
make -C build/demo install >>"$log" 2>&1 || { tail -n 40 "$log"; exit 1; }
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
	sock_opt=()      # the packaged socket is the cuzk commands' default
	srs_dir=/var/lib/cuzk/params
else
	say "PID 1 is not systemd: running cuzkd in the foreground of this script"
	sock="$demo/cuzkd.sock"
	sock_opt=(--socket "$sock")
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
cuzk submit "${sock_opt[@]}" --srs demo.params --witness demo.witness --out demo.proof
say "verifying"
cuzk verify --vk demo.vk --proof demo.proof --witness demo.witness
cuzk status "${sock_opt[@]}"

say "done"
cat <<INFO
  parameters:     $srs_dir/demo.params (insecure development setup)
  circuit:        $demo/demo.r1cs, witness $demo/demo.witness
  proof:          $demo/demo.proof (192 bytes, bellperson encoding)
  verifying key:  $demo/demo.vk
INFO
if [ -n "$daemon_pid" ]; then
	cat <<INFO
  daemon log:     $demo/cuzkd.log
  The daemon ran in the foreground of this script and stops with it.  To run
  one yourself on the same files:
    cuzkd --socket $sock --srs-dir $srs_dir &
    cuzk submit --socket $sock --srs demo.params --witness $demo/demo.witness --out again.proof
INFO
else
	cat <<INFO
  daemon:         cuzkd.socket on $sock (systemd starts cuzkd on the first
                  connection); try: cuzk status
INFO
fi
exit 0
