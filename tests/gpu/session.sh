#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# One device command of a GPU session, from the repository root on the GPU
# machine: build incrementally, then the chosen steps, each bounded, with
# their tables printed last and every log packed into one archive (a device
# command brings back only a few files).
#
#   tests/gpu/session.sh OUT_DIR [STEP...]
#
# Steps (default: build check bench):
#   build    ./configure --with-cuda-arch=90 once, then make and every
#            test program (make check TESTS=), in $BUILD
#            (default build-gpu, which git ignores, so that it stays on the
#            machine between commands while the machine is held); the
#            build dependencies the machine lacks come from .devkit/ when
#            it is there (../shared/device/devkit-prepare makes it);
#   check    tests/gpu/run.sh $BUILD $MAX_LOG (default 20): GPU == CPU;
#   quick    the same with MAX_LOG 16 and SANITIZE=0 (after a small change);
#   bench    tests/gpu/bench.sh $BUILD, with the anchor kit from $ANCHOR
#            (default .anchor, a copy of ../shared/anchor) if it is there;
#   profile  tests/gpu/profile.sh $BUILD $PROFILE_WHAT (Nsight Compute,
#            text; default its own list: ntt msm-g1 msm-g2).
# OUT_DIR gets the tables (check.txt, bench.txt, profile.txt) and logs.tgz.
set -u
OUT=${1:?usage: tests/gpu/session.sh OUT_DIR [STEP...]}
shift
STEPS=${*:-build check bench}
BUILD=${BUILD:-build-gpu}
ANCHOR=${ANCHOR:-.anchor}
root=$(pwd)
logs=$(mktemp -d) || exit 1
mkdir -p "$OUT" || exit 1
failed=0

note() { printf '%s\n' "$*" | tee -a "$OUT/session.txt"; }

build() {
	if [ -f .devkit/setup.sh ]; then
		. .devkit/setup.sh >"$logs/devkit.log" 2>&1
	fi
	case :$PATH: in *:/usr/local/cuda/bin:*) ;; *) PATH=$PATH:/usr/local/cuda/bin ;; esac
	[ -x configure ] || ./autogen.sh >"$logs/autogen.log" 2>&1 || return 1
	mkdir -p "$BUILD" || return 1
	(
		cd "$BUILD" || exit 1
		[ -f Makefile ] || ../configure --with-cuda-arch=90 >"$logs/configure.log" 2>&1 || exit 1
		# every test program too (TESTS= runs none of them): the GPU
		# checks run the backend's and the daemon's tests on the device
		make -j"$(nproc)" >"$logs/make.log" 2>&1 &&
			make -j"$(nproc)" check TESTS= >>"$logs/make.log" 2>&1
	) || { tail -n 40 "$logs/make.log"; return 1; }
}

# table SRC DST: a step's table to OUT_DIR, whatever the step's status.
table() { [ -f "$1" ] && cp "$1" "$OUT/$2"; return 0; }
check() {
	rc=0
	# The rows straight into OUT_DIR: a call's time limit that stops the
	# run still leaves the rows done.
	TABLE=$OUT/check.txt SANITIZE=${SANITIZE:-1} sh tests/gpu/run.sh "$BUILD" "$1" "$logs/check" \
		>/dev/null 2>&1 || rc=$?
	return $rc
}

for s in $STEPS; do
	t0=$(date +%s)
	rc=0
	case $s in
	build) build || rc=$? ;;
	check) check "${MAX_LOG:-20}" || rc=$? ;;
	quick) SANITIZE=0 check 16 || rc=$? ;;
	bench)
		sh tests/gpu/bench.sh "$BUILD" "$logs/bench" "$root/$ANCHOR" >/dev/null 2>&1 || rc=$?
		table "$logs/bench/bench-table.txt" bench.txt
		;;
	profile)
		# shellcheck disable=SC2086  # PROFILE_WHAT is a list of profiles
		sh tests/gpu/profile.sh "$BUILD" "$logs/profile" ${PROFILE_WHAT:-} >/dev/null 2>&1 || rc=$?
		table "$logs/profile/profile-summary.txt" profile.txt
		;;
	*) echo "unknown step '$s' (build, check, quick, bench, profile)" >&2; exit 2 ;;
	esac
	note "$s: rc $rc, $(($(date +%s) - t0)) s"
	[ $rc -eq 0 ] || failed=$((failed + 1))
	[ "$s" = build ] && [ $rc -ne 0 ] && break
done
# Not the checks' circuits, parameters and witnesses (check/work: hundreds
# of MB at 2^20), which would keep the archive from coming back.
tar -czf "$OUT/logs.tgz" --exclude=./check/work -C "$logs" . 2>/dev/null
rm -rf "$logs"
for t in session check bench profile; do
	[ -f "$OUT/$t.txt" ] && { echo "== $t"; cat "$OUT/$t.txt"; }
done
[ $failed -eq 0 ]
