#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The GPU NTT on the GPU machine, every kernel configuration in one go: each
# against the CPU (test_gpu_ntt, every kind 2^1..2^22 and h), then `cuzk
# bench ntt` at 2^24 and 2^27, forward and coset, and h (6 NTTs)
# at 2^24 and 2^H_LOG; one line per figure in OUT_DIR/ntt_bench.txt.
#
#   tests/gpu/ntt.sh BUILD_DIR [OUT_DIR [H_LOG]]
#
# Configurations: radix8 in each block shape (CUZK_NTT8_SHAPE: 11x2, the
# default, 10x3, 10x4; cuda/ntt/radix8.cuh), and radix2.  Without a device it says "SKIP: no CUDA device" and exits 77.
set -u
B=${1:?usage: tests/gpu/ntt.sh BUILD_DIR [OUT_DIR [H_LOG]]}
OUT=${2:-$(mktemp -d)}
HLOG=${3:-26}
mkdir -p "$OUT"
RES=$OUT/ntt_bench.txt
: >"$RES"
failed=0
CONFIGS="radix8:11x2 radix8:10x3 radix8:10x4 radix2:11x2"

run() {   # config (impl:shape), command...
	cfg=$1
	shift
	CUZK_NTT_IMPL=${cfg%%:*} CUZK_NTT8_SHAPE=${cfg#*:} timeout 600 "$@"
}

for cfg in $CONFIGS; do
	run "$cfg" "$B/cuda/test_gpu_ntt" --large 22 >"$OUT/check-$cfg.log" 2>&1
	rc=$?
	[ $rc -eq 77 ] && { cat "$OUT/check-$cfg.log"; exit 77; }
	if [ $rc -eq 0 ]; then
		echo "$cfg: GPU NTT and h == CPU (2^1..2^22): PASS" | tee -a "$RES"
	else
		echo "$cfg: GPU NTT and h == CPU: FAIL (rc $rc, see check-$cfg.log)" | tee -a "$RES"
		failed=$((failed + 1))
	fi
done

for cfg in $CONFIGS; do
	for args in "--log-size 24" "--log-size 27" "--log-size 27 --coset"; do
		# shellcheck disable=SC2086
		run "$cfg" "$B/src/cli/cuzk" bench ntt --backend gpu $args >"$OUT/bench.log" 2>&1 ||
			failed=$((failed + 1))
		line=$(grep "(device, median of 10)" "$OUT/bench.log" | head -1)
		echo "$cfg: bench ntt $args: ${line:-no figure, see bench-$cfg.log}" | tee -a "$RES"
		cat "$OUT/bench.log" >>"$OUT/bench-$cfg.log"
	done
	for k in 24 "$HLOG"; do
		run "$cfg" "$B/cuda/test_gpu_ntt" --bench-h "$k" >"$OUT/h.log" 2>&1 || failed=$((failed + 1))
		sed "s/^/$cfg: /" "$OUT/h.log" | tee -a "$RES"
	done
done
echo "ntt.sh: $failed failure(s)"
[ $failed -eq 0 ]
