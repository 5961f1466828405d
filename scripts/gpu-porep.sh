#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# A 32 GiB-sector PoRep partition on the GPU machine (issue 10), one step at a
# time so that each fits one device command:
#
#   scripts/gpu-porep.sh BUILD OUT [STEP...]
#
# BUILD: a build directory configured --with-cuda-arch=90 (it needs
#   BUILD/src/cli/cuzk, and BUILD/cuda/test_gpu_setup for `check`).
# OUT:   where the small results go (logs, JSON, traces, table.txt).
# The parameter file (~45 GB at 2^27) goes to $WORK (default
# /var/tmp/cuzk-porep), never under OUT; it is kept between calls so that
# `prove` and `capped` reuse what `setup` made.
#
# Steps (default: check setup prove sector capped):
#   check   GPU dev setup == CPU dev setup (2^10..2^14, both shapes, and the
#           CLI at 2^14), then a PoRep-shaped 2^18 proof on the GPU with
#           its trace, verified;                                  ~1 min
#   setup   the GPU dev setup of a PoRep-shaped 2^27 circuit, written to
#           $WORK/porep27.params (target <= 3 min);
#   prove   that file loaded (progress, ms per million points), the SRS
#           uploaded, 2 partitions from a pinned witness: per-phase table,
#           both proofs verified, trace-27.json;               ~2-3 min
#   sector  10 partitions (a 32 GiB sector) from the 2^27 file, two at a
#           time (--parallel 2: each its own workspace and streams, so one's
#           upload runs beside the other's NTTs and MSMs); trace-27-sector.json;
#                                                              ~2-3 min
#   capped  one partition with CUZK_GPU_VRAM_BUDGET_MB=24576 (SRS streamed
#           from page-locked host memory; trace-27-24g.json), then 16384
#           (expected today: a clean VRAM error up front, no CUDA OOM);
#   scale   PoRep-shaped proofs at 2^20, 2^22, 2^24, 2^26 with the GPU
#           setup in memory (the growth table); 2^26 needs ~35 GB of RAM;
#   staging the 2^27 file loaded and uploaded with and without the pinned
#           staging of the upload (CUZK_GPU_SRS_STAGING=0).
# Every step appends to OUT/table.txt; the exit status is non-zero if any
# step failed.
set -u
B=${1:?usage: scripts/gpu-porep.sh BUILD OUT [STEP...]}
OUT=${2:?usage: scripts/gpu-porep.sh BUILD OUT [STEP...]}
shift 2
STEPS=${*:-check setup prove sector capped}
WORK=${WORK:-/var/tmp/cuzk-porep}
CUZK=$B/src/cli/cuzk
P27=$WORK/porep27.params
mkdir -p "$OUT" "$WORK" || exit 1
TABLE=$OUT/table.txt
failed=0

ROW_WIDTH=58
. "$(dirname "$0")/../tests/gpu/lib.sh"

[ -x "$CUZK" ] || { echo "no $CUZK: build with ../configure --with-cuda-arch=90 && make" >&2; exit 2; }
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
	nproc
	free -g | sed -n 2p
	df -h "$WORK" | tail -1
	git -C "$(dirname "$0")/.." log --oneline -1 2>/dev/null
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

step_check() {
	if [ -x "$B/cuda/test_gpu_setup" ]; then
		step "GPU dev setup == CPU dev setup (2^10..2^14)" check.log "$B/cuda/test_gpu_setup" 14
	fi
	d=$WORK/check
	mkdir -p "$d"
	setup_both() {
		for be in cpu gpu; do
			"$CUZK" setup --shape porep --log-constraints 14 --seed 3 --backend $be --params "$d/$be.params" || return 2
		done
		cmp "$d/cpu.params" "$d/gpu.params"
	}
	step "cuzk setup --backend gpu == cpu (porep 2^14)" check.log setup_both
	step "porep 2^18 on the GPU (gpu setup, pinned, traced), verified" check.log \
		"$CUZK" bench prove --backend gpu --shape porep --log-constraints 18 --pin --partitions 2 \
		--trace "$OUT/trace-18.json" --json "$OUT/prove-18.json"
}

step_setup() {
	df_gb=$(df -BG --output=avail "$WORK" | tail -1 | tr -dc 0-9)
	if [ "${df_gb:-0}" -lt 50 ]; then
		row "GPU dev setup, porep 2^27" FAIL "only ${df_gb} GB free in $WORK (needs ~46)"
		failed=$((failed + 1))
		return
	fi
	rm -f "$P27"
	step "GPU dev setup, porep 2^27 -> $P27 (target <= 180 s)" setup.log \
		"$CUZK" setup --backend gpu --shape porep --log-constraints 27 --seed 1 --params "$P27"
	ls -l "$P27" >>"$OUT/setup.log" 2>&1
}

need_p27() {
	[ -s "$P27" ] && return 0
	row "$1" SKIP "no $P27 (run the setup step first)"
	return 1
}

step_prove() {
	need_p27 "porep 2^27, 2 partitions" || return
	step "porep 2^27: load, upload, 2 pinned partitions, verified" prove.log \
		"$CUZK" bench prove --backend gpu --shape porep --log-constraints 27 --seed 1 --params "$P27" \
		--pin --partitions 2 --trace "$OUT/trace-27.json" --json "$OUT/prove-27.json"
}

step_sector() {
	need_p27 "porep 2^27, 10 partitions" || return
	step "porep 2^27: 10 partitions, 2 at a time, pinned, verified" sector.log \
		"$CUZK" bench prove --backend gpu --shape porep --log-constraints 27 --seed 1 --params "$P27" \
		--pin --partitions 10 --parallel 2 --trace "$OUT/trace-27-sector.json" --json "$OUT/sector-27.json"
}

step_capped() {
	need_p27 "porep 2^27, capped VRAM" || return
	step "porep 2^27, vram budget 24 GiB (SRS streamed), verified" capped.log env CUZK_GPU_VRAM_BUDGET_MB=24576 \
		"$CUZK" bench prove --backend gpu --shape porep --log-constraints 27 --seed 1 --params "$P27" \
		--pin --trace "$OUT/trace-27-24g.json" --json "$OUT/prove-27-24g.json"
	# 16 GiB: a proof, or (today) a refusal up front that names the VRAM
	# budget; a CUDA out-of-memory error half-way is a failure.
	capped16() {
		CUZK_GPU_VRAM_BUDGET_MB=16384 "$CUZK" bench prove --backend gpu --shape porep --log-constraints 27 \
			--seed 1 --params "$P27" --pin --trace "$OUT/trace-27-16g.json" --json "$OUT/prove-27-16g.json" \
			>"$WORK/capped16.out" 2>&1
		rc=$?
		cat "$WORK/capped16.out"
		[ $rc -eq 0 ] && return 0
		grep -q "budget is 16384 MiB" "$WORK/capped16.out" && return 0
		return 1
	}
	step "porep 2^27, vram budget 16 GiB (a proof or a clean refusal)" capped.log capped16
}

step_scale() {
	for k in 20 22 24 26; do
		step "porep 2^$k (gpu setup in memory, pinned), verified" scale.log \
			"$CUZK" bench prove --backend gpu --shape porep --log-constraints $k --pin --runs 2 \
			--json "$OUT/prove-$k.json"
	done
}

step_staging() {
	need_p27 "staging comparison" || return
	step "load + upload 2^27, pinned staging" staging.log "$CUZK" bench load --backend gpu --params "$P27" \
		--json "$OUT/load-27-staged.json"
	step "load + upload 2^27, plain cudaMemcpy" staging.log env CUZK_GPU_SRS_STAGING=0 \
		"$CUZK" bench load --backend gpu --params "$P27" --json "$OUT/load-27-plain.json"
}

for s in $STEPS; do
	case $s in
	check | setup | prove | sector | capped | scale | staging) "step_$s" ;;
	*) echo "unknown step $s" >&2; failed=$((failed + 1)) ;;
	esac
done
echo
echo "== results in $OUT"
cat "$TABLE"
[ "$failed" -eq 0 ]
