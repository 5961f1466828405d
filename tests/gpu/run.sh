#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Every GPU check in one run, for the GPU machine (CI has no device: there
# this prints "SKIP: no CUDA device" and exits 77).
#
#   tests/gpu/run.sh BUILD_DIR [MAX_LOG [OUT_DIR]]
#
# 1. cuda/test_gpu_ntt: GPU NTTs (all kinds, 2^1..2^20, and 2^21..2^NTT_MAX,
#    default 22) and h against the CPU, with the radix-8 kernel (both tile
#    sizes, both forms of its Fr product) and with the radix-2 one at each
#    of its register-round widths;
# 2. the GPU MSM test, if the build has one, with each form of the field products;
#    the GPU development setup's parameters == the CPU's
#    (cuda/test_gpu_setup, 2^10..2^16, and `cuzk setup --backend gpu` ==
#    `--backend cpu` for a PoRep-shaped 2^14); the parameter file's points
#    decoded on the GPU == the CPU's, and files loaded through that decoder
#    == the CPU's loads, their errors included (cuda/test_gpu_decode);
# 3. for 2^10 .. 2^MAX_LOG constraints (default 18), circuits from the
#    generator: `cuzk prove --backend gpu --seed N` must write the bytes of
#    `--backend cpu --seed N`, and the GPU proof must verify; the same bytes
#    with the five MSMs side by side (CUZK_GPU_MSM_STREAMS=5) up to 2^16,
#    and at 2^16 with 1, 2, 3 and auto streams and with 1 stream and the
#    rounds, whose h and l sum in the NTT's b and c (`cuzk prove` uploads
#    the SRS while it decodes the file: every proof here is one made after
#    that overlapped upload);
# 4. a 2^14 proof with the SRS streamed instead of resident, same bytes (also
#    with CUZK_GPU_MSM_STREAMS=5, which a streamed SRS keeps serial; and two
#    PoRep-shaped 2^14 partitions from a pinned witness, verified, where the
#    queries' batches take turns), a 2^16
#    proof in a budget too small for it, which must fail with a VRAM error,
#    and a bad CUZK_GPU_MSM_STREAMS, which must fail naming it; a 2^14 proof
#    with the upload only after the decoding (CUZK_SRS_UPLOAD_OVERLAP=0),
#    same bytes; a PoRep-shaped 2^16 benchmark from a parameter file (upload
#    beside the decoding, "params ready" printed, its proofs verified);
# 5. compute-sanitizer memcheck and racecheck on a 2^16 GPU proof (one MSM
#    stream, and five), a streamed 2^14 proof and on 2^16 NTTs in three
#    blocks (each bounded by $SANITIZER_TIMEOUT seconds, default 300;
#    SANITIZE=0 skips);
# 6. the backends' test (shared views, params uploaded in parts) and every
#    daemon test (tests/daemon) against a cuzkd on the GPU backend
#    (CUZKD_TEST_BACKEND=gpu), each bounded by $DAEMON_TEST_TIMEOUT seconds
#    (default 300).
# Prints a table; logs go to OUT_DIR (default: a temporary directory), the
# table row by row to $TABLE (default OUT_DIR/table.txt), so that a run cut
# off by a time limit still leaves the rows it finished.
set -u
B=${1:?usage: tests/gpu/run.sh BUILD_DIR [MAX_LOG [OUT_DIR]]}
MAX=${2:-18}
OUT=${3:-$(mktemp -d)}
SEED=7
CUZK=$B/src/cli/cuzk
mkdir -p "$OUT"
TABLE=${TABLE:-$OUT/table.txt}
: >"$TABLE"
failed=0

. "$(dirname "$0")/lib.sh"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "SKIP: no CUDA device"
	exit 77
fi
nvidia-smi -L | tee "$OUT/gpu.txt"

# NTT_MAX 20 or less: the 2^1..2^20 kinds alone (--large takes 21..28).
NTT_MAX=${NTT_MAX:-22}
ntt_large=
if [ "$NTT_MAX" -gt 20 ]; then ntt_large="--large $NTT_MAX"; else NTT_MAX=20; fi
# shellcheck disable=SC2086  # ntt_large is an option and its value, or nothing
step "GPU NTT and h == CPU (2^1..2^$NTT_MAX), radix-8" ntt.log \
	env CUZK_NTT_IMPL=radix8 "$B/cuda/test_gpu_ntt" $ntt_large
# The radix-8 kernel's other block shapes (CUZK_NTT8_SHAPE; ntt/radix8.cuh).
for shape in 10x3 10x4; do
	step "GPU NTT and h == CPU (2^1..2^20), radix-8, shape $shape" "ntt-$shape.log" \
		env CUZK_NTT_IMPL=radix8 CUZK_NTT8_SHAPE=$shape "$B/cuda/test_gpu_ntt"
done
# Three blocks a launch (CUZK_NTT8_GRID): every block runs many tiles, so
# the prefetch of each next tile during the last round of the one before
# (ntt/radix8.cuh) is exercised from the smallest sizes on.
step "GPU NTT and h == CPU (2^1..2^20), radix-8, 3 blocks a launch" ntt-grid3.log \
	env CUZK_NTT_IMPL=radix8 CUZK_NTT8_GRID=3 "$B/cuda/test_gpu_ntt"
# The radix-2 kernel at each register-round width (a tuning knob) computes
# the same.
for rb in 1 2 3; do
	step "GPU NTT and h == CPU (2^1..2^20), radix-2 rb $rb" "ntt-radix2-rb$rb.log" \
		env CUZK_NTT_IMPL=radix2 CUZK_NTT_ROUND_BITS=$rb "$B/cuda/test_gpu_ntt"
done
# Every compiled form of the accumulations' field products, G1's and G2's
# (CUZK_MSM_FP; cuda/msm/fp_impl.cuh).
for msm_test in "$B"/cuda/msm/test_gpu_msm "$B"/cuda/test_gpu_msm; do
	[ -x "$msm_test" ] || continue
	for form in lazy fused; do
		step "GPU MSM == CPU, field products $form" "msm-$form.log" env CUZK_MSM_FP=$form "$msm_test"
	done
	# G1 and G2 lists shortened by batch-affine rounds
	# (cuda/msm/affine_rounds.cuh) down to rounds of one pair, so that the
	# small cases have them too.
	step "GPU MSM == CPU, G1 and G2 batch-affine rounds" msm-rounds.log \
		env CUZK_MSM_ACC=rounds CUZK_MSM_ROUNDS=6 CUZK_MSM_ROUNDS_MIN=1 "$msm_test"
	# Groups of at most 2^12 pairs (G2's 2^11), so that the small cases have many
	# groups with their rounds, and the batches' layouts the sizes whose
	# capped groups take more windows than their bit length's largest.
	step "GPU MSM == CPU, rounds in groups of 2^12 pairs" msm-rounds-group12.log \
		env CUZK_MSM_ACC=rounds CUZK_MSM_ROUNDS=6 CUZK_MSM_ROUNDS_MIN=1 CUZK_MSM_ROUNDS_GROUP=12 "$msm_test"
	# The same with the narrowest and the widest second level (the scratch
	# is sized for the narrowest).
	for level in 16 256; do
		step "GPU MSM == CPU, G1 rounds, second level of $level" msm-rounds-$level.log \
			env CUZK_MSM_ACC=rounds CUZK_MSM_ROUNDS=6 CUZK_MSM_ROUNDS_MIN=1 \
			CUZK_MSM_ROUNDS_LEVEL=$level "$msm_test"
	done
done
step "GPU dev setup == CPU dev setup (2^10..2^16)" setup.log "$B/cuda/test_gpu_setup" 16
step "GPU point decoder, and loads through it == CPU" decode.log "$B/cuda/test_gpu_decode"
setup_cli() {
	d=$OUT/work/setup
	mkdir -p "$d"
	for be in cpu gpu; do
		"$CUZK" setup --shape porep --log-constraints 14 --seed 3 --backend $be --params "$d/$be.params" || return 2
	done
	cmp "$d/cpu.params" "$d/gpu.params"
}
step "cuzk setup --backend gpu == cpu (porep, 2^14)" setup-cli.log setup_cli

W=$OUT/work
mkdir -p "$W"
prove_pair() {   # k
	k=$1 d=$W/k$1
	mkdir -p "$d"
	"$CUZK" gen-circuit --log-constraints "$k" --seed "$k" --r1cs "$d/c.r1cs" --wtns "$d/c.wtns" &&
		"$CUZK" setup --r1cs "$d/c.r1cs" --params "$d/c.params" --seed "$k" &&
		"$CUZK" synth --r1cs "$d/c.r1cs" --wtns "$d/c.wtns" --out "$d/c.witness" || return 2
	t0=$(now)
	"$CUZK" prove --params "$d/c.params" --witness "$d/c.witness" --out "$d/cpu.proof" --backend cpu --seed $SEED || return 3
	t1=$(now)
	"$CUZK" prove --params "$d/c.params" --witness "$d/c.witness" --out "$d/gpu.proof" --backend gpu --seed $SEED || return 4
	t2=$(now)
	echo "cpu $(secs "$t0" "$t1")s gpu $(secs "$t1" "$t2")s" >"$d/times"
	cmp "$d/cpu.proof" "$d/gpu.proof" || return 5
	"$CUZK" verify --params "$d/c.params" --proof "$d/gpu.proof" --witness "$d/c.witness" || return 6
}
k=10
while [ "$k" -le "$MAX" ]; do
	if prove_pair "$k" >"$OUT/prove$k.log" 2>&1; then
		row "prove 2^$k: gpu bytes == cpu bytes, verifies" PASS "$(cat "$W/k$k/times")"
	else
		row "prove 2^$k: gpu bytes == cpu bytes, verifies" FAIL "rc $?, see prove$k.log"
		failed=$((failed + 1))
	fi
	k=$((k + 1))
done

# The MSMs side by side, each on its own stream and thread after the events
# its scalars need (cuda/prove/prove.cu, run_concurrent): the same bytes.
# Up to 2^16 (where they are latency-bound, what the streams are for), and
# at 2^16 with fewer streams than MSMs (lanes take the next query as they
# finish) and with the count chosen from the budget.
streams_pair() {   # k n [VAR=VALUE: one more setting in the environment]
	d=$W/k$1
	out=$d/gpu-s$2${3:+-${3%%=*}}.proof
	env CUZK_GPU_MSM_STREAMS=$2 ${3:-} "$CUZK" prove --params "$d/c.params" --witness "$d/c.witness" \
		--out "$out" --backend gpu --seed $SEED && cmp "$d/cpu.proof" "$out"
}
k=10
while [ "$k" -le "$MAX" ] && [ "$k" -le 16 ]; do
	if [ -f "$W/k$k/cpu.proof" ]; then
		step "prove 2^$k, 5 MSM streams: gpu bytes == cpu" "prove$k-s5.log" streams_pair "$k" 5
	fi
	k=$((k + 1))
done
if [ -f "$W/k16/cpu.proof" ]; then
	for n in 1 2 3 auto; do
		step "prove 2^16, $n MSM streams: gpu bytes == cpu" "prove16-s$n.log" streams_pair 16 $n
	done
	# One stream: h's and l's MSMs take the NTT's b and c as scratch too
	# (the lent layout, prove.cu), so they must be done with them before
	# the A and B scalars are compacted there; with the rounds their lists
	# lie there.
	step "prove 2^16, 1 MSM stream, CUZK_MSM_ACC=rounds: gpu bytes == cpu" prove16-s1r.log \
		streams_pair 16 1 CUZK_MSM_ACC=rounds
fi

# The streamed-SRS path (points in double-buffered batches, each query one
# batched MSM whose buckets stay on the device), forced with small batches
# so that every query spans several of them.
streamed() {
	d=$W/k14
	CUZK_GPU_STREAM_BATCH=1000 "$CUZK" prove --params "$d/c.params" --witness "$d/c.witness" \
		--out "$d/streamed.proof" --backend gpu --seed $SEED && cmp "$d/cpu.proof" "$d/streamed.proof" &&
		CUZK_GPU_STREAM_BATCH=1000 CUZK_GPU_MSM_STREAMS=5 "$CUZK" prove --params "$d/c.params" \
			--witness "$d/c.witness" --out "$d/streamed-s5.proof" --backend gpu --seed $SEED &&
		cmp "$d/cpu.proof" "$d/streamed-s5.proof"
}
# The same path from a registered (pinned) witness, where aux crosses PCIe
# on a copy stream of its own beside h's batches and the queries' batches
# take turns (prove.cu, run_streamed): two PoRep-shaped partitions, each
# verified by the benchmark against its key.
streamed_pinned() {
	CUZK_GPU_STREAM_BATCH=1000 "$CUZK" bench prove --backend gpu --shape porep --log-constraints 14 --seed 5 \
		--pin --partitions 2
}
# The same path with a PoRep-shaped witness, whose A and B scalars fit the
# NTT's c together (a's batches spread between h's, prove.cu's ab_in_c;
# k14's basic circuit, 12288 + 4097 scalars against 16384, takes the other
# path, a last): the CPU's bytes.
streamed_porep() {
	d=$W/porep14
	mkdir -p "$d"
	"$CUZK" setup --shape porep --log-constraints 14 --seed 5 --params "$d/p.params" &&
		"$CUZK" gen-circuit --shape porep --log-constraints 14 --seed 5 --witness "$d/p.witness" &&
		"$CUZK" prove --params "$d/p.params" --witness "$d/p.witness" --out "$d/cpu.proof" --backend cpu \
			--seed $SEED || return 2
	CUZK_GPU_STREAM_BATCH=1000 "$CUZK" prove --params "$d/p.params" --witness "$d/p.witness" \
		--out "$d/streamed.proof" --backend gpu --seed $SEED && cmp "$d/cpu.proof" "$d/streamed.proof"
}
# A bad stream count is refused by name, before any proof.
bad_streams() {
	d=$W/k14
	! CUZK_GPU_MSM_STREAMS=7 "$CUZK" prove --params "$d/c.params" --witness "$d/c.witness" \
		--out "$d/bad.proof" --backend gpu --seed $SEED 2>"$d/bad.err" &&
		grep -q "CUZK_GPU_MSM_STREAMS" "$d/bad.err" && cat "$d/bad.err"
}
# So is a bad workspace cap (a test setting, but a typo must not pass for
# no cap).
bad_workspaces() {
	d=$W/k14
	! CUZK_GPU_WORKSPACES=1x "$CUZK" prove --params "$d/c.params" --witness "$d/c.witness" \
		--out "$d/bad.proof" --backend gpu --seed $SEED 2>"$d/bad-ws.err" &&
		grep -q "CUZK_GPU_WORKSPACES" "$d/bad-ws.err" && cat "$d/bad-ws.err"
}
# k14_with NAME VAR=VALUE: the 2^14 proof on the GPU with one setting in the
# environment writes the CPU's bytes.
k14_with() {
	d=$W/k14
	env "$2" "$CUZK" prove --params "$d/c.params" --witness "$d/c.witness" \
		--out "$d/$1.proof" --backend gpu --seed $SEED && cmp "$d/cpu.proof" "$d/$1.proof"
}
# One workspace ($CUZK_GPU_WORKSPACES, tests) and two provers: the one
# waiting claims the workspace once the other's h is summed and copies its
# a into A before it takes it (prove.cu, lend_a).  Six partitions, each
# verified by the benchmark, and the early copies on its timeline.
early_a() {
	d=$W/early
	mkdir -p "$d"
	CUZK_GPU_WORKSPACES=1 CUZK_GPU_MSM_STREAMS=1 "$CUZK" bench prove --backend gpu --shape porep \
		--log-constraints 16 --seed 6 --pin --partitions 6 --parallel 2 --trace "$d/trace.json" || return 2
	n=$(grep -o '"upload a (early)"' "$d/trace.json" | wc -l)
	bc=$(grep -o '"upload b,c"' "$d/trace.json" | wc -l)
	echo "early copies of a: $n, copies of b and c alone: $bc"
	[ "$n" -ge 1 ] && [ "$bc" -eq "$n" ]
}
# A budget that cannot hold one proof fails up front with a VRAM error (no
# CUDA out-of-memory half-way through).
too_small() {
	d=$W/k16
	! CUZK_GPU_VRAM_BUDGET_MB=24 "$CUZK" prove --params "$d/c.params" --witness "$d/c.witness" \
		--out "$d/small.proof" --backend gpu --seed $SEED 2>"$d/small.err" &&
		grep -qi "vram" "$d/small.err" && cat "$d/small.err"
}
# A parameter file loaded with its upload beside the decoding, then proofs
# from it (each verified by the benchmark): "params ready" is the figure
# issue 10 asks for, and "srs upload (first use)" should be ~0 (resident).
bench_from_file() {
	d=$W/porep16
	mkdir -p "$d"
	"$CUZK" setup --shape porep --log-constraints 16 --seed 4 --params "$d/p.params" || return 2
	"$CUZK" bench prove --backend gpu --shape porep --log-constraints 16 --seed 4 --params "$d/p.params" \
		--partitions 2 >"$d/out" || return 3
	cat "$d/out"
	grep -q '^params ready (load + upload) ' "$d/out"
}
if [ -f "$W/k14/cpu.proof" ]; then
	step "prove 2^14, SRS streamed in 1000-point batches == cpu" streamed.log streamed
	step "bench porep 2^14, pinned, SRS streamed in 1000-point batches, verified" streamed-pinned.log \
		streamed_pinned
	step "prove porep 2^14, SRS streamed in 1000-point batches, a beside h == cpu" streamed-porep.log \
		streamed_porep
	step "prove 2^14, CUZK_GPU_MSM_STREAMS=7: refused by name" bad-streams.log bad_streams
	step "prove 2^14, CUZK_GPU_WORKSPACES=1x: refused by name" bad-workspaces.log bad_workspaces
	# The SRS uploaded only once the file is decoded (the order before the
	# overlapped upload, through the same code).
	step "prove 2^14, SRS uploaded after the decoding == cpu" after-load.log \
		k14_with after CUZK_SRS_UPLOAD_OVERLAP=0
fi
step "bench porep 2^16 from a file: upload beside decoding, verified" bench-file.log bench_from_file
step "bench porep 2^16, one workspace, two provers: the next a copied early, verified" early-a.log early_a
if [ -f "$W/k16/c.witness" ]; then
	step "prove 2^16 in a 24 MiB budget: clear VRAM error" small.log too_small
fi

CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sanitize_streams() {   # tool
	CUZK_GPU_MSM_STREAMS=5 timeout "${SANITIZER_TIMEOUT:-300}" "$CS" --tool "$1" --error-exitcode 1 \
		"$CUZK" prove --params "$W/k16/c.params" --witness "$W/k16/c.witness" --out "$W/k16/san-s5.proof" \
		--backend gpu --seed $SEED && cmp "$W/k16/cpu.proof" "$W/k16/san-s5.proof"
}
if [ "${SANITIZE:-1}" = 0 ]; then
	row "compute-sanitizer" SKIP "SANITIZE=0"
elif [ -x "$CS" ] && [ -f "$W/k16/c.witness" ]; then
	for tool in memcheck racecheck; do
		step "compute-sanitizer $tool, 2^16 proof" "sanitizer-$tool.log" \
			timeout "${SANITIZER_TIMEOUT:-300}" "$CS" --tool "$tool" --error-exitcode 1 "$CUZK" prove --params "$W/k16/c.params" \
			--witness "$W/k16/c.witness" --out "$W/k16/san.proof" --backend gpu --seed $SEED
		# The five MSMs at once, from five host threads on five streams,
		# and still the CPU's bytes.
		step "compute-sanitizer $tool, 2^16 proof, 5 MSM streams" "sanitizer-$tool-s5.log" \
			sanitize_streams "$tool"
		# The streamed path: batched MSMs, the next batch's copy beside
		# the current one's accumulation.
		if [ -f "$W/k14/c.witness" ]; then
			step "compute-sanitizer $tool, 2^14 proof, SRS streamed in 1000-point batches" \
				"sanitizer-$tool-streamed.log" env CUZK_GPU_STREAM_BATCH=1000 \
				timeout "${SANITIZER_TIMEOUT:-300}" "$CS" --tool "$tool" --error-exitcode 1 "$CUZK" prove \
				--params "$W/k14/c.params" --witness "$W/k14/c.witness" --out "$W/k14/san-streamed.proof" \
				--backend gpu --seed $SEED
		fi
		# A 2^16 proof's NTTs run one tile a block: with three blocks each
		# runs ~10, through the next-tile prefetch.
		for spec in "" "--coset"; do
			step "compute-sanitizer $tool, NTT 2^16 $spec, 3 blocks a launch" "sanitizer-$tool-ntt$spec.log" \
				env CUZK_NTT8_GRID=3 timeout "${SANITIZER_TIMEOUT:-300}" "$CS" --tool "$tool" --error-exitcode 1 \
				"$CUZK" bench ntt --backend gpu --log-size 16 $spec
		done
	done
else
	row "compute-sanitizer" SKIP "no compute-sanitizer or no 2^16 circuit"
fi

step "backends: shared views, wrong shape first, uploads in parts" backend.log "$B/src/prover/test_backend"
for t in "$B"/tests/daemon/test_*; do
	case $t in *.o | *.log | *.trs | *.sh) continue ;; esac
	[ -x "$t" ] || continue
	n=$(basename "$t")
	step "daemon on the GPU: $n" "daemon-$n.log" \
		env CUZKD_TEST_BACKEND=gpu timeout "${DAEMON_TEST_TIMEOUT:-300}" "$t"
done

echo
echo "== GPU checks ($(head -1 "$OUT/gpu.txt"))"
cat "$TABLE"
[ "$failed" -eq 0 ] || exit 1
exit 0
