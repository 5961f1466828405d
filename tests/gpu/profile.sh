#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Nsight Compute profiles of the kernels that issue 9 measures, for the GPU
# machine: where each one's time goes (issue rate, pipe use, stall reasons,
# occupancy, memory traffic, the hottest SASS lines), as text.
#
#   tests/gpu/profile.sh BUILD_DIR OUT_DIR [WHAT...]
#
# WHAT (default: ntt msm-g1 msm-g2):
#   ntt      the passes of one Fr NTT of 2^$NTT_LOG (default 27), natural
#            order, and of one coset NTT (`cuzk bench ntt`): the first
#            launches of the radix-8 kernel, i.e. the first transform, in
#            each block shape of $NTT8_SHAPES (default "11x2";
#            CUZK_NTT8_SHAPE, cuda/ntt/radix8.cuh);
#   msm-g1   the bucket accumulation of a G1 MSM of 2^$MSM_G1_LOG (default
#            24) random scalars, one launch per form in $MSM_FORMS
#            (default "lazy");
#   msm-g2   the same for G2 at 2^$MSM_G2_LOG (default 22), per form in
#            $MSM_G2_FORMS (default "lazy"; CUZK_MSM_FP, cuda/msm/fp_impl.cuh).
# One file per profile under OUT_DIR (ncu's details page; with SASS=1 also
# ncu-NAME-sass.csv.gz, the first launch's instructions with their stall
# samples), and OUT_DIR/
# profile-summary.txt with each kernel's duration, issue rate, occupancy and
# its top stall reasons.  ncu runs with --clock-control none: the clocks
# stay as the machine has them, as for every other figure.  Without a device
# or without ncu: exit 77.
set -u
B=${1:?usage: tests/gpu/profile.sh BUILD_DIR OUT_DIR [WHAT...]}
OUT=${2:?usage: tests/gpu/profile.sh BUILD_DIR OUT_DIR [WHAT...]}
shift 2
WHAT=${*:-ntt msm-g1 msm-g2}
CUZK=$B/src/cli/cuzk
MSM=$B/cuda/msm/test_gpu_msm
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
mkdir -p "$OUT" || exit 1
SUMMARY=$OUT/profile-summary.txt
: >"$SUMMARY"
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "SKIP: no CUDA device"
	exit 77
fi
[ -x "$NCU" ] || { echo "SKIP: no ncu (Nsight Compute) at $NCU"; exit 77; }
failed=0

SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
	--section Occupancy --section SchedulerStats --section WarpStateStats --section LaunchStats
	--section InstructionStats --section SourceCounters"

# profile NAME KERNEL_REGEX LAUNCHES CMD...: ncu's details of the first
# LAUNCHES launches of the kernels CMD starts whose names match.
profile() {
	name=$1 regex=$2 count=$3
	shift 3
	log=$OUT/ncu-$name.txt
	# shellcheck disable=SC2086  # SECTIONS is a list of options
	timeout 300 "$NCU" --clock-control none --kernel-name "regex:$regex" --launch-count "$count" \
		$SECTIONS --print-details all "$@" >"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q 'Duration' "$log"; then
		echo "$name: FAIL (ncu rc $rc, see $(basename "$log"))" | tee -a "$SUMMARY"
		failed=$((failed + 1))
		return
	fi
	# With SASS=1, where inside the kernel: every SASS instruction of the
	# first launch with its executed count and stall samples (ncu's source
	# page as CSV, gzipped), from a second, saved profile.
	if [ "${SASS:-0}" = 1 ]; then
		rep=$OUT/ncu-$name
		if timeout 300 "$NCU" --clock-control none --kernel-name "regex:$regex" --launch-count 1 \
			--section SourceCounters --section WarpStateStats -f -o "$rep" "$@" >"$rep-save.log" 2>&1; then
			{ "$NCU" -i "$rep.ncu-rep" --page source --csv --print-source sass 2>/dev/null ||
				"$NCU" -i "$rep.ncu-rep" --page source --csv; } | gzip >"$rep-sass.csv.gz"
		fi
		rm -f "$rep.ncu-rep"
	fi
	# The lines that say where the time goes, per profiled launch.
	{
		echo "== $name: $*"
		grep -E '^  [a-zA-Z_].*\(|Duration|Issued Ipc Active|Issue Slots Busy|Achieved Occupancy|Registers Per Thread|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|No Eligible|Warp Cycles Per Issued|[Ss]tall' "$log"
	} | tee -a "$SUMMARY"
}

for w in $WHAT; do
	case $w in
	ntt)
		k=${NTT_LOG:-27}
		for shape in ${NTT8_SHAPES:-11x2}; do
			profile "ntt$k-$shape" ntt8 3 env CUZK_NTT8_SHAPE="$shape" "$CUZK" bench ntt --backend gpu --log-size "$k"
			profile "ntt$k-coset-$shape" ntt8 3 env CUZK_NTT8_SHAPE="$shape" "$CUZK" bench ntt --backend gpu \
				--log-size "$k" --coset
		done
		;;
	msm-g1)
		for form in ${MSM_FORMS:-lazy}; do
			profile "msm-g1-${MSM_G1_LOG:-24}-$form" accumulate 1 \
				env CUZK_MSM_FP="$form" "$MSM" --bench 1 "${MSM_G1_LOG:-24}" 1
		done
		;;
	msm-g2)
		for form in ${MSM_G2_FORMS:-lazy}; do
			profile "msm-g2-${MSM_G2_LOG:-22}-$form" accumulate 1 \
				env CUZK_MSM_FP="$form" "$MSM" --bench 2 "${MSM_G2_LOG:-22}" 1
		done
		;;
	*)
		echo "unknown profile '$w' (ntt, msm-g1, msm-g2)" >&2
		exit 2
		;;
	esac
done
[ $failed -eq 0 ]
