#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Runs the whole cuzk test suite, as CI does (.ci/run calls this):
#   1. installs the build and test dependencies (Debian 12, as root);
#   2. the main build (the CUDA code too when nvcc exists, for compute
#      capabilities 8.0 and 9.0: CUZK_CUDA_ARCH) and `make check`;
#   3. a build with -fsanitize=address,undefined and its `make check`;
#   4. the libFuzzer targets, each for a bounded time;
#   5. `make distcheck`;
#   6. the Debian package, installed into a container booted with systemd,
#      where socket activation, the sandbox, draining and the journal are
#      checked (tests/systemd).
# It ends with one summary line: "N passed, N failed, N skipped".
# Environment: CUZK_FUZZ_SECONDS (default 20 per target), CUZK_CUDA_ARCH
# (default "80 90"), CUZK_SKIP="san fuzz
# distcheck systemd" to leave steps out when iterating by hand.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc)
work="$root/build"
skip=" ${CUZK_SKIP:-} "
pass=0 fail=0 skipped=0
failed_steps=()

# Each heading says when its step began (seconds since the start), so that
# a CI log shows where its time goes.
log() { printf '\n=== %s (at %d s) ===\n' "$*" "$SECONDS"; }
count_suite() {   # adds a build's automake test-suite.log counts
	local f=$1/test-suite.log
	[ -f "$f" ] || return 0
	local p f_ s e x
	p=$(sed -n 's/^# PASS: *//p' "$f"); s=$(sed -n 's/^# SKIP: *//p' "$f")
	f_=$(sed -n 's/^# FAIL: *//p' "$f"); e=$(sed -n 's/^# ERROR: *//p' "$f")
	x=$(sed -n 's/^# XPASS: *//p' "$f")
	pass=$((pass + ${p:-0})); skipped=$((skipped + ${s:-0}))
	fail=$((fail + ${f_:-0} + ${e:-0} + ${x:-0}))
}
step() {          # step NAME CMD...: one entry for a whole step (exit 77 = skipped)
	local name=$1 rc=0; shift
	"$@" || rc=$?
	case $rc in
	0) pass=$((pass + 1)) ;;
	77) skipped=$((skipped + 1)); echo "SKIP: $name" ;;
	*) fail=$((fail + 1)); failed_steps+=("$name") ;;
	esac
}
show_skips() {    # why each skipped automake test skipped (its log's SKIP line)
	local dir=$1 t
	grep -l -E '^:test-result: SKIP' $(find "$dir" -name '*.trs' 2>/dev/null) 2>/dev/null |
	while read -r t; do
		echo "  ${t%.trs}: $(grep -m1 '^SKIP' "${t%.trs}.log" || echo 'no reason given')"
	done
}
show_failures() { # prints the logs of failed automake tests
	local dir=$1
	grep -l -E '^:test-result: (FAIL|ERROR)' $(find "$dir" -name '*.trs' 2>/dev/null) 2>/dev/null |
	while read -r t; do echo "--- ${t%.trs}.log"; tail -n 40 "${t%.trs}.log"; done
}

log "dependencies"
bash scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"
# ccache in front of nvcc and the C compilers, so that the Debian package's
# build (the same nvcc command lines: out of tree two levels down, the same
# GPU list) takes the main build's objects instead of compiling the CUDA code
# again.  The cache starts empty each run; paths are relative, so the build
# directory is left out of the hash.
if command -v ccache >/dev/null; then
	mkdir -p "$work/ccache/bin"
	ln -sf "$(command -v ccache)" "$work/ccache/bin/nvcc"
	export PATH="$work/ccache/bin:/usr/lib/ccache:$PATH"
	export CCACHE_DIR="$work/ccache/cache" CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
fi

# The GPU code is compiled and linked for the oldest and the newest compute
# capability we support ("80 90", machine code for both, PTX of the newest),
# not the release list "80 86 89 90": sm_86 and sm_89 add no code path of
# their own (nothing tests __CUDA_ARCH__'s version), and each architecture is
# one more front-end and ptxas pass over every .cu file, which made the CUDA
# compile most of this script's time.  The Debian package step builds the same
# list (CUZK_CUDA_ARCH), so ccache hands it the main build's objects.
# CUZK_CUDA_ARCH="80 86 89 90" (or any list) overrides it.
export CUZK_CUDA_ARCH=${CUZK_CUDA_ARCH:-80 90}

log "oracle packages (npm ci in tests/oracle)"
( cd tests/oracle && npm ci --no-audit --no-fund >/dev/null ) || { echo "npm ci failed"; echo "0 passed, 1 failed"; exit 1; }

log "licence lines"
step licence bash tests/licence.sh

log "autogen"
./autogen.sh >/dev/null || { echo "0 passed, 1 failed"; exit 1; }

log "main build and make check"
rm -rf "$work/main"; mkdir -p "$work/main"
( cd "$work/main" && ../../configure --with-cuda-arch="$CUZK_CUDA_ARCH" ${CUZK_CONFIGURE_FLAGS:-} >configure.out &&
  make -j"$jobs" >make.out 2>&1 || { tail -n 60 make.out; exit 1; } ) || { echo "main build failed"; echo "$pass passed, $((fail + 1)) failed"; exit 1; }
echo "built at $SECONDS s"
( cd "$work/main" && make -j"$jobs" check ) >"$work/main/check.out" 2>&1 || { show_failures "$work/main"; failed_steps+=(check); }
grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS|XFAIL):' "$work/main/check.out"
show_skips "$work/main"
count_suite "$work/main"

if [[ $skip != *" san "* ]]; then
	log "sanitizer build (address, undefined) and make check"
	rm -rf "$work/san"; mkdir -p "$work/san"
	if ( cd "$work/san" && ../../configure --without-cuda --enable-sanitizers >configure.out &&
	     make -j"$jobs" >make.out 2>&1 ); then
		( cd "$work/san" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		  CUZK_SANITIZED=1 make -j"$jobs" check ) >"$work/san/check.out" 2>&1 || { show_failures "$work/san"; failed_steps+=(san-check); }
		grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS|XFAIL):' "$work/san/check.out" | sed 's/^/san /'
		count_suite "$work/san"
	else
		tail -n 40 "$work/san/make.out"; fail=$((fail + 1)); failed_steps+=(san-build)
	fi
fi

if [[ $skip != *" fuzz "* ]]; then
	log "fuzzing (${CUZK_FUZZ_SECONDS:-20} s per target)"
	rm -rf "$work/fuzz"; mkdir -p "$work/fuzz"
	step fuzz bash -c "cd '$work/fuzz' && ../../configure --without-cuda --enable-fuzz CC=clang >configure.out &&
		make -j$jobs >make.out 2>&1 || { tail -n 40 make.out; exit 1; }
		JOBS=$jobs sh '$root/tests/fuzz/run.sh' '${CUZK_FUZZ_SECONDS:-20}' '$work/fuzz'"
fi

if [[ $skip != *" distcheck "* ]]; then
	log "make distcheck"
	step distcheck bash -c "cd '$work/main' && make -j$jobs distcheck DISTCHECK_CONFIGURE_FLAGS='--without-cuda' >distcheck.out 2>&1 || { tail -n 60 distcheck.out; exit 1; }"
	# a failed distcheck leaves its tree: the failed tests' own logs say why
	[ -d "$work/main/cuzk-0.1.0" ] && show_failures "$work/main/cuzk-0.1.0"
fi

if [[ $skip != *" systemd "* ]]; then
	log "Debian package and systemd"
	step systemd bash "$root/tests/systemd/run.sh" "$work/deb"
fi

command -v ccache >/dev/null && { echo; ccache -s | head -n 8; }
echo "done at $SECONDS s"
if [ ${#failed_steps[@]} -gt 0 ]; then echo "failed: ${failed_steps[*]}"; fi
echo
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ] && [ ${#failed_steps[@]} -eq 0 ]
