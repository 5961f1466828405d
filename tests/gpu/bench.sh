#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The GPU figures of one device call, beside the anchor's (sppark) from the
# same call, so that every figure is a ratio measured together:
#
#   tests/gpu/bench.sh BUILD_DIR OUT_DIR [ANCHOR_DIR]
#
#   1. G1 MSM 2^16/2^20/2^24/2^26 for each form of the field products named
#      in $MSM_FORMS (default "lazy fused"; CUZK_MSM_FP, cuda/msm/fp_impl.cuh),
#      G2 MSM 2^16/2^20/2^24 for each form in $MSM_G2_FORMS (default
#      "lazy fused"); per-phase device times in OUT_DIR/msm.log;
#   2. Fr NTT 2^24/2^27 and coset 2^27 (`cuzk bench ntt`), for each
#      $NTT_IMPLS (CUZK_NTT_IMPL; empty: the default only), and the radix-8
#      kernel in each block shape of $NTT8_SHAPES beside the default's
#      (default "10x3 10x4"; CUZK_NTT8_SHAPE, cuda/ntt/radix8.cuh);
#   3. whole proofs, SRS resident (`cuzk bench prove --backend gpu`) at
#      2^$PROVE_LOGS (default "16 20"), once for each count of MSMs side by
#      side in $MSM_STREAMS (default "1 5"; CUZK_GPU_MSM_STREAMS,
#      cuda/prove/prove.cu), side by side in one row, with a timeline of
#      each (OUT_DIR/prove-K-sN.json);
#   4. the anchor (ANCHOR_DIR/run.sh: sppark's G1 MSM and Fr NTT), if given.
# Prints a table last; full logs under OUT_DIR.  Without a device: exit 77.
set -u
B=${1:?usage: tests/gpu/bench.sh BUILD_DIR OUT_DIR [ANCHOR_DIR]}
OUT=${2:?usage: tests/gpu/bench.sh BUILD_DIR OUT_DIR [ANCHOR_DIR]}
ANCHOR=${3:-}
MSM=$B/cuda/msm/test_gpu_msm
CUZK=$B/src/cli/cuzk
mkdir -p "$OUT"
TABLE=$OUT/bench-table.txt
: >"$TABLE"
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "SKIP: no CUDA device"
	exit 77
fi
row() { printf '%-40s %s\n' "$1" "$2" | tee -a "$TABLE"; }

# "G1 MSM 2^20: best 33.10 ms, median ..." -> "33.10"
best_of() { sed -n 's/.*best \([0-9.]*\) ms.*/\1/p' | head -1; }

for form in ${MSM_FORMS:-lazy fused}; do
	for k in ${MSM_G1_LOGS:-16 20 24 26}; do
		reps=5
		[ "$k" -ge 26 ] && reps=3
		echo "== G1 2^$k form $form" >>"$OUT/msm.log"
		t=$(CUZK_MSM_FP=$form timeout 300 "$MSM" --bench 1 "$k" $reps 2>&1 | tee -a "$OUT/msm.log" | best_of)
		row "G1 MSM 2^$k ($form)" "${t:-FAIL} ms"
	done
done
for form in ${MSM_G2_FORMS:-lazy fused}; do
	for k in ${MSM_G2_LOGS:-16 20 24}; do
		echo "== G2 2^$k form $form" >>"$OUT/msm.log"
		t=$(CUZK_MSM_FP=$form timeout 300 "$MSM" --bench 2 "$k" 3 2>&1 | tee -a "$OUT/msm.log" | best_of)
		row "G2 MSM 2^$k ($form)" "${t:-FAIL} ms"
	done
done

# "ntt (device, median of 10) 12.34 ms" in a bench report: "12.34 ms".
ntt_ms() { sed -n 's/^[a-z ]*ntt (device, median of [0-9]*) *\([0-9.]*\).*/\1 ms/p' "$1"; }
for impl in ${NTT_IMPLS:-default}; do
	for spec in "24" "27" "27 --coset"; do
		set -- $spec
		log=$OUT/ntt-$impl-$1${2:+-coset}.log
		if [ "$impl" = default ]; then
			timeout 300 "$CUZK" bench ntt --backend gpu --log-size "$@" >"$log" 2>&1
		else
			CUZK_NTT_IMPL=$impl timeout 300 "$CUZK" bench ntt --backend gpu --log-size "$@" >"$log" 2>&1
		fi
		row "Fr NTT 2^$1${2:+ coset} ($impl)" "$(ntt_ms "$log")"
	done
done
for shape in ${NTT8_SHAPES-10x3 10x4}; do
	for spec in "24" "27" "27 --coset"; do
		set -- $spec
		log=$OUT/ntt-shape-$shape-$1${2:+-coset}.log
		CUZK_NTT_IMPL=radix8 CUZK_NTT8_SHAPE=$shape timeout 300 "$CUZK" bench ntt --backend gpu --log-size "$@" >"$log" 2>&1
		row "Fr NTT 2^$1${2:+ coset} (radix8, shape $shape)" "$(ntt_ms "$log")"
	done
done

# "prove total   12.34 ms" -> "12.34"; every phase's line, and the VRAM
# peak (each extra stream has its own MSM scratch), into the table after
# the totals (the MSMs' times overlap when they run side by side).
prove_total() { sed -n 's/^prove total *\([0-9.]*\).*/\1/p' "$1"; }
: >"$OUT/prove-phases.txt"
for k in ${PROVE_LOGS:-16 20}; do
	cells="" heads=""
	for n in ${MSM_STREAMS:-1 5}; do
		log=$OUT/prove-$k-s$n.log
		CUZK_GPU_MSM_STREAMS=$n timeout 300 "$CUZK" bench prove --backend gpu --log-constraints "$k" --runs 5 \
			--trace "$OUT/prove-$k-s$n.json" >"$log" 2>&1
		t=$(prove_total "$log")
		heads="$heads${heads:+ / }$n"
		cells="$cells${cells:+ / }${t:-FAIL}"
		grep -E '^(upload|ntt|msm|assemble|prove|vram)' "$log" | sed "s/^/2^$k, $n MSM streams: /" >>"$OUT/prove-phases.txt"
	done
	row "proof 2^$k, SRS resident, total (MSM streams $heads)" "$cells ms"
done
cat "$OUT/prove-phases.txt" >>"$TABLE"

if [ -n "$ANCHOR" ] && [ -x "$ANCHOR/run.sh" ] || [ -f "$ANCHOR/run.sh" ]; then
	BENCH_LOG=$OUT/anchor.txt timeout 300 bash "$ANCHOR/run.sh" >/dev/null 2>&1
	grep '^sppark' "$OUT/anchor.txt" | sed 's/^/anchor: /' | tee -a "$TABLE"
fi
echo
echo "== GPU figures ($(nvidia-smi -L | head -1))"
cat "$TABLE"
