#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The GPU NTT on the GPU machine, both kernels in one go: each against the
# CPU (test_gpu_ntt, every kind 2^1..2^22 and h), then `cuzk bench ntt` at
# 2^24 and 2^27, forward and coset, and h (7 NTTs + quotient) at 2^24 and
# 2^H_LOG, one line per figure in OUT_DIR/ntt_bench.txt.
#
#   tests/gpu/ntt.sh BUILD_DIR [OUT_DIR [H_LOG]]
#
# Without a device it says "SKIP: no CUDA device" and exits 77.
set -u
B=${1:?usage: tests/gpu/ntt.sh BUILD_DIR [OUT_DIR [H_LOG]]}
OUT=${2:-$(mktemp -d)}
HLOG=${3:-26}
mkdir -p "$OUT"
RES=$OUT/ntt_bench.txt
: >"$RES"
failed=0

for impl in radix8 radix2; do
	CUZK_NTT_IMPL=$impl timeout 600 "$B/cuda/test_gpu_ntt" --large 22 >"$OUT/check-$impl.log" 2>&1
	rc=$?
	[ $rc -eq 77 ] && { cat "$OUT/check-$impl.log"; exit 77; }
	if [ $rc -eq 0 ]; then
		echo "$impl: GPU NTT and h == CPU (2^1..2^22): PASS" | tee -a "$RES"
	else
		echo "$impl: GPU NTT and h == CPU: FAIL (rc $rc, see check-$impl.log)" | tee -a "$RES"
		failed=$((failed + 1))
	fi
done

for impl in radix8 radix2; do
	for args in "--log-size 24" "--log-size 27" "--log-size 27 --coset"; do
		# shellcheck disable=SC2086
		CUZK_NTT_IMPL=$impl timeout 600 "$B/src/cli/cuzk" bench ntt --backend gpu $args \
			>"$OUT/bench.log" 2>&1 || failed=$((failed + 1))
		line=$(grep "(device, median of 10)" "$OUT/bench.log" | head -1)
		echo "$impl: bench ntt $args: ${line:-no figure, see bench-$impl.log}" | tee -a "$RES"
		cat "$OUT/bench.log" >>"$OUT/bench-$impl.log"
	done
	for k in 24 "$HLOG"; do
		CUZK_NTT_IMPL=$impl timeout 600 "$B/cuda/test_gpu_ntt" --bench-h "$k" >"$OUT/h.log" 2>&1 ||
			failed=$((failed + 1))
		tee -a "$RES" <"$OUT/h.log"
	done
done
echo "ntt.sh: $failed failure(s)"
[ $failed -eq 0 ]
