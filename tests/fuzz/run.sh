#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Runs every parser fuzz target for a bounded time and fails on any crash.
#   tests/fuzz/run.sh SECONDS [BUILDDIR]
# BUILDDIR (default: the current directory) is a build configured with
# --enable-fuzz CC=clang; the seed corpus is generated there by gen_corpus.
set -eu
secs=${1:?usage: run.sh SECONDS [BUILDDIR]}
build=${2:-.}
fuzz="$build/tests/fuzz"
for t in gen_corpus fuzz_witness fuzz_params fuzz_r1cs fuzz_wtns fuzz_protocol; do
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
status=0
for pair in witness:witness params:params r1cs:r1cs wtns:wtns protocol:protocol; do
	target=fuzz_${pair%%:*}
	seeds=$work/seeds/${pair#*:}
	corpus=$work/corpus-$target
	mkdir -p "$corpus" "$seeds"
	echo "run.sh: $target for ${secs}s"
	if ! "$fuzz/$target" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
		-artifact_prefix="$work/" -print_final_stats=1 "$corpus" "$seeds" \
		>"$work/$target.log" 2>&1; then
		echo "run.sh: $target FAILED; its log:" >&2
		tail -n 60 "$work/$target.log" >&2
		for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
			if [ -e "$a" ]; then
				cp "$a" . && echo "run.sh: kept $(basename "$a") in $(pwd)" >&2
			fi
		done
		status=1
	else
		grep -E '^stat::number_of_executed_units' "$work/$target.log" || true
	fi
done
exit $status
