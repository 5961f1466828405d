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
#            $MSM_G2_FORMS (default "lazy"; CUZK_MSM_FP, cuda/msm/fp_impl.cuh);
#   kernels  every kernel of a G1 MSM of 2^K, K in $KERNEL_LOGS (default
#            "16 24"): where its time goes, kernel by kernel, with each
#            one's pipe use (not in the default list).
# One file per profile under OUT_DIR (ncu's details page; with SASS=1 also
# ncu-NAME-sass.csv.gz, the first launch's instructions with their stall
# samples), and OUT_DIR/profile-summary.txt with each kernel's duration,
# issue rate, occupancy, its top stall reasons and each pipe's use against
# its peak.  ncu runs with --clock-control none: the clocks stay as the
# machine has them, as for every other figure.  Without a device or without
# ncu: exit 77.
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

# Achieved against peak per pipe (the integer multiply-adds go to the fma
# pipes, IMAD.WIDE to fmaheavy; FP64 and the ALU beside them), with the SM's
# and DRAM's throughput: the names this ncu knows, from a list, so that an
# ncu without one of them still profiles; printed comma-separated.
pipe_metrics() {
	"$NCU" --query-metrics --chip "${NCU_CHIP:-gh100}" >"$OUT/ncu-metrics.txt" 2>&1 || return 0
	m=""
	for base in sm__throughput dram__throughput sm__inst_executed sm__pipe_fma_cycles_active \
		sm__pipe_fmaheavy_cycles_active sm__pipe_alu_cycles_active sm__pipe_fp64_cycles_active \
		sm__pipe_shared_cycles_active sm__inst_executed_pipe_fma sm__inst_executed_pipe_fmaheavy \
		sm__inst_executed_pipe_alu sm__inst_executed_pipe_lsu sm__inst_executed_pipe_fp64; do
		grep -q "^$base " "$OUT/ncu-metrics.txt" || continue
		case $base in
		sm__throughput | dram__throughput) m="$m${m:+,}$base.avg.pct_of_peak_sustained_elapsed" ;;
		*) m="$m${m:+,}$base.avg.pct_of_peak_sustained_active" ;;
		esac
	done
	printf '%s' "$m"
}
METRICS=$(pipe_metrics)

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
		$SECTIONS ${METRICS:+--metrics "$METRICS"} --print-details all "$@" >"$log" 2>&1
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
		grep -E '^  [a-zA-Z_].*\(|Duration|Issued Ipc Active|Issue Slots Busy|Achieved Occupancy|Registers Per Thread|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|No Eligible|Warp Cycles Per Issued|[Ss]tall|pct_of_peak' "$log"
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
	kernels)
		# every kernel of the G1 MSM calls of `--bench 1 K 1` (the warm-up
		# and the timed one) for each K in $KERNEL_LOGS (default "16 24"):
		# its time a call, its share and its pipes' use
		for k in ${KERNEL_LOGS:-16 24}; do
			csv=$OUT/kernels-g1-$k.csv
			timeout 300 "$NCU" --clock-control none --launch-count 400 --csv --print-units base \
				--metrics "gpu__time_duration.sum${METRICS:+,$METRICS}" \
				"$MSM" --bench 1 "$k" 1 >"$csv" 2>"$OUT/kernels-g1-$k.log" || {
				echo "kernels $k: FAIL (see kernels-g1-$k.log)" | tee -a "$SUMMARY"
				failed=$((failed + 1))
				continue
			}
			{
				echo "== kernels of a G1 MSM of 2^$k: device time a call (mean over the calls), share, % of peak"
				python3 - "$csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, rows = rows[0], rows[1:]
ki, mi, vi = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
agg = collections.OrderedDict()
for r in rows:
    name = r[ki].split("(")[0].split("<")[0].replace("void ", "")
    # the test's own kernels (cuzk::) make the points, before the MSMs
    if name.startswith("cuzk::"):
        continue
    d = agg.setdefault(name, collections.defaultdict(list))
    d[r[mi]].append(float(r[vi].replace(",", "")))
TIME = "gpu__time_duration.sum"
def weighted(v, ts):
    # a metric's mean over the launches, each weighted by its time
    if len(v) != len(ts) or not sum(ts):
        return sum(v) / len(v)
    return sum(x * w for x, w in zip(v, ts)) / sum(ts)
# every MSM call ends with one conversion to Jacobian
calls = len(agg.get("msm::levels_to_jacobian", {}).get(TIME, [])) or 1
total = sum(sum(d.get(TIME, [])) for d in agg.values()) / calls
print("%d calls, %.1f us of kernels a call" % (calls, total / 1e3))
for name, d in agg.items():
    ts = d.get(TIME, [])
    t = sum(ts) / calls
    # % of peak: the pipes' busy cycles (IMAD.WIDE is fmaheavy's), the SM's, DRAM's
    extra = "  ".join("%s %.1f" % (label, weighted(d[m], ts)) for label, m in (
        ("fmaheavy", "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"),
        ("alu", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"),
        ("fp64", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"),
        ("sm", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        ("dram", "dram__throughput.avg.pct_of_peak_sustained_elapsed")) if d.get(m))
    print("%-36s %11.1f us %5.1f%% %4d launches  %s" % (name[:36], t / 1e3, 100 * t / total,
          len(ts) // calls, extra))
PY
			} | tee -a "$SUMMARY"
		done
		;;
	*)
		echo "unknown profile '$w' (ntt, msm-g1, msm-g2, kernels)" >&2
		exit 2
		;;
	esac
done
[ $failed -eq 0 ]
