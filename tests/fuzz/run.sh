#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Runs every parser fuzz target for a bounded time and fails on any crash.
#   [JOBS=N] tests/fuzz/run.sh SECONDS [BUILDDIR]
# BUILDDIR (default: the current directory) is a build configured with
# --enable-fuzz CC=clang; the seed corpus is generated there by gen_corpus.
set -eu
secs=${1:?usage: run.sh SECONDS [BUILDDIR]}
build=${2:-.}
fuzz="$build/tests/fuzz"
for t in gen_corpus fuzz_witness fuzz_params fuzz_r1cs fuzz_wtns fuzz_protocol fuzz_trace; do
	if [ ! -x "$fuzz/$t" ]; then
		echo "run.sh: $fuzz/$t is missing (configure --enable-fuzz CC=clang, then make)" >&2
		exit 1
	fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$fuzz/gen_corpus" "$work/seeds"
# The parsers start threads for big inputs; two are plenty here.
CUZK_THREADS=2
export CUZK_THREADS
# JOBS (default 1) targets run side by side, each still for SECONDS.
jobs=${JOBS:-1}
one() {   # one TARGET SEEDS: its log in $work, its exit status in $work/TARGET.rc
	mkdir -p "$work/corpus-$1" "$2"
	rc=0
	"$fuzz/$1" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
		-artifact_prefix="$work/" -print_final_stats=1 "$work/corpus-$1" "$2" \
		>"$work/$1.log" 2>&1 || rc=$?
	echo "$rc" >"$work/$1.rc"
}
report() {
	if [ "$(cat "$work/$1.rc")" != 0 ]; then
		echo "run.sh: $1 FAILED; its log:" >&2
		tail -n 60 "$work/$1.log" >&2
		status=1
	else
		grep -E '^stat::number_of_executed_units' "$work/$1.log" || true
	fi
}
flush() {   # waits for the running batch and reports each of its targets
	wait
	for b in $batch; do report "$b"; done
	batch=""
	n=0
}
status=0
batch=""
n=0
for t in witness params r1cs wtns protocol trace; do
	echo "run.sh: fuzz_$t for ${secs}s"
	one "fuzz_$t" "$work/seeds/$t" &
	batch="$batch fuzz_$t"
	n=$((n + 1))
	[ "$n" -lt "$jobs" ] || flush
done
flush
if [ "$status" != 0 ]; then
	for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
		if [ -e "$a" ]; then
			cp "$a" . && echo "run.sh: kept $(basename "$a") in $(pwd)" >&2
		fi
	done
fi
exit $status
