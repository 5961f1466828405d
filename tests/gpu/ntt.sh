#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The GPU NTT on the GPU machine, every kernel configuration in one go: each
# against the CPU (test_gpu_ntt, every kind 2^1..2^22 and h), then `cuzk
# bench ntt` at 2^24 and 2^27, forward and coset, and h (7 NTTs + quotient)
# at 2^24 and 2^H_LOG; one line per figure in OUT_DIR/ntt_bench.txt.
#
#   tests/gpu/ntt.sh BUILD_DIR [OUT_DIR [H_LOG]]
#
# Configurations: radix8 (2^11 tiles, two blocks per SM, the default),
# radix8 with CUZK_NTT8_TILE_LOG=10 (2^10 tiles, three blocks per SM), each
# also with its parity-layout Fr product (CUZK_NTT_FR=parity, ":p"), and
# radix2.  Without a device it says "SKIP: no CUDA device" and exits 77.
set -u
B=${1:?usage: tests/gpu/ntt.sh BUILD_DIR [OUT_DIR [H_LOG]]}
OUT=${2:-$(mktemp -d)}
HLOG=${3:-26}
mkdir -p "$OUT"
RES=$OUT/ntt_bench.txt
: >"$RES"
failed=0
CONFIGS="radix8:11 radix8:10 radix8:11:p radix8:10:p radix2:11"

run() {   # config (impl:tile[:p]), command...
	cfg=$1
	shift
	impl=${cfg%%:*} rest=${cfg#*:}
	fr=two-chain
	[ "${rest#*:}" = p ] && fr=parity
	CUZK_NTT_IMPL=$impl CUZK_NTT8_TILE_LOG=${rest%%:*} CUZK_NTT_FR=$fr timeout 600 "$@"
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
