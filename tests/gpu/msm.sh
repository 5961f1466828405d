#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The GPU MSM on the GPU machine, in one go: G1/G2 against the host reference
# (quick table plus 2^24 + 1 and 2^22 + 5 points), then timings of G1 at
# 2^16..2^MAX_G1 and G2 at 2^16..2^MAX_G2 with a per-phase breakdown.
#
#   tests/gpu/msm.sh TEST_BINARY [OUT_DIR [MAX_G1 [MAX_G2]]]
#
# TEST_BINARY is cuda/msm/test_gpu_msm of a build.  Without a device it says
# "SKIP: no CUDA device" and exits 77.
set -u
T=${1:?usage: tests/gpu/msm.sh TEST_BINARY [OUT_DIR [MAX_G1 [MAX_G2]]]}
OUT=${2:-$(mktemp -d)}
MAX1=${3:-26}
MAX2=${4:-24}
mkdir -p "$OUT"
failed=0

timeout 300 "$T" --large >"$OUT/msm_check.log" 2>&1
rc=$?
cat "$OUT/msm_check.log"
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || failed=$((failed + 1))

for curve in 1 2; do
	max=$MAX1
	[ $curve -eq 2 ] && max=$MAX2
	k=16
	while [ $k -le "$max" ]; do
		timeout 120 "$T" --bench $curve $k 5 2>&1 | tee -a "$OUT/msm_bench.log" || failed=$((failed + 1))
		k=$((k + 2))
	done
done
echo "msm.sh: $failed failure(s)"
[ $failed -eq 0 ]
