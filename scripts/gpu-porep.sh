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
#           $WORK/porep27.params (target <= 3 min), with --timings (where
#           the time goes: a line a phase in setup.log, a row for the writer);
#           around it the page cache's dirty and writeback figures and the
#           vm.dirty_* settings, and `vmstat -n -t 1` during it, into
#           setup.log.  SETUP_DIRTY_RATIO=N raises vm.dirty_ratio to N (and
#           vm.dirty_background_ratio to N/2) for this step alone, then puts
#           the previous values back (as root; each change is logged);
#           SETUP_SYNC=1 adds --sync (the file fsync'd, timed apart);
#   prove   that file loaded (progress, ms per million points), the SRS
#           uploaded, 2 partitions from a pinned witness: per-phase table,
#           both proofs verified, trace-27.json;               ~2-3 min
#   sector  10 partitions (a 32 GiB sector) from the 2^27 file, two at a
#           time (--parallel 2: each its own workspace and streams, so one's
#           upload runs beside the other's NTTs and MSMs); trace-27-sector.json;
#                                                              ~2-3 min
#   capped  one partition with CUZK_GPU_VRAM_BUDGET_MB=24576 (SRS streamed
#           from page-locked host memory; trace-27-24g.json), then 16384
#           and 14336 (what a 16 GB card's default budget, its free memory
#           less 1 GiB, comes to): a proof or a clean VRAM error up front,
#           never a CUDA OOM;
#   capsector  10 partitions (the sector step) under CUZK_GPU_VRAM_BUDGET_MB
#           16384, then 24576: the SRS streamed for every partition, as
#           many partitions in flight as workspaces fit the budget;
#           trace-27-sector-16g.json, -24g.json;               ~1 min
#   scale   PoRep-shaped proofs at 2^20..2^26 (SCALE_LOGS) with the GPU
#           setup in memory, then the growth table (OUT/growth.md: a
#           partition's phases at every size, 2^27's too when the prove
#           step ran before it); 2^26 needs ~35 GB of RAM;      ~2 min
#   staging the 2^27 file loaded and uploaded with and without the pinned
#           staging of the upload (CUZK_GPU_SRS_STAGING=0), and with the
#           upload beside the decoding (the default: "params ready (load +
#           upload)") against the upload after it (CUZK_SRS_UPLOAD_OVERLAP=0),
#           and with the points decoded on the GPU (the default) against
#           the CPU (CUZK_GPU_DECODE=0);
#           then decoded alone on the CPU backend with 2 MiB pages (the
#           default) and without (CUZK_PARAMS_THP=0), with the kernel's THP
#           settings and its compaction counters around each load in
#           staging.log: where the decoding's system time goes;
#   daemon  the sector as 10 requests through cuzkd from one client's memfd:
#           cuzkd on the 2^27 file (preloaded while `cuzk gen-circuit`
#           writes the one-partition witness, ~17 GB, to $WORK; on a GPU
#           the preload uploads the SRS while it decodes it, and the step
#           checks cuzkd's log says it is resident), two warm-up requests
#           (they wait for the load and pay each worker's first working
#           memory), then
#           `cuzk submit --repeat 10 --inflight 2 --seed 1` (per request the
#           client's latency and the daemon's phases; wall time, proofs/s:
#           OUT/daemon-27.txt; the ten requests' timelines on one clock:
#           OUT/daemon-27-trace.json), every proof checked by `cuzk verify`, the
#           daemon's metrics (VRAM peak) and status; then the same from
#           3 memfds in turn with max_buffers_total = 2, so that every
#           request maps and pins its witness afresh, as a sector of ten
#           different witnesses does (OUT/daemon-27-buffers.txt; the
#           client holds 3 copies, ~50 GB); a clean stop; the witness
#           file is deleted at the end.                         ~3 min
#           DAEMON_LOG=K (default 27) and DAEMON_BACKEND=cpu try the same
#           at 2^K on any machine (parameters then made by the step in
#           $WORK); DAEMON_REPEAT (10), DAEMON_INFLIGHT (2) and
#           DAEMON_BUFFERS (3; at most DAEMON_INFLIGHT leaves that run
#           out); DAEMON_VRAM_BUDGET (cuzkd's vram_budget, default 0: all
#           the GPU has; 16G or 24G: a sector through cuzkd on the cards
#           most providers own).
# Every step appends to OUT/table.txt; the exit status is non-zero if any
# step failed.  ARCHIVE=FILE also packs everything under OUT into one
# gzipped tar (a device command brings back only a few files: put FILE
# under the command's $OUT and OUT elsewhere).
set -u
B=${1:?usage: scripts/gpu-porep.sh BUILD OUT [STEP...]}
OUT=${2:?usage: scripts/gpu-porep.sh BUILD OUT [STEP...]}
shift 2
STEPS=${*:-check setup prove sector capped}
WORK=${WORK:-/var/tmp/cuzk-porep}
CUZK=$B/src/cli/cuzk
CUZKD=$B/src/daemon/cuzkd
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

# The page cache's state and limits: past vm.dirty_ratio of memory dirty
# (20% of 128 GiB, ~25 GB, against a 44 GB file) the kernel throttles a
# writer to the disk's speed, the suspect for the file setup's ~22 s more
# than the in-memory one.
dirty_state() {
	echo "== $1: $(grep -E 'Dirty|Writeback' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
	sysctl vm.dirty_ratio vm.dirty_background_ratio vm.dirty_bytes vm.dirty_background_bytes 2>&1
}

# SETUP_DIRTY_RATIO's change and its undoing.  Writing a ratio zeroes the
# matching *_bytes, so the undoing writes back whichever of the two was in
# force (a non-zero *_bytes, else the ratio).
dirty_saved=
dirty_raise() {
	ratio=$1
	case $ratio in
	'' | *[!0-9]*) echo "SETUP_DIRTY_RATIO=$ratio: not a percentage" >&2; return 1 ;;
	esac
	if [ "$ratio" -lt 1 ] || [ "$ratio" -gt 100 ]; then
		echo "SETUP_DIRTY_RATIO=$ratio: not in 1..100" >&2
		return 1
	fi
	saved=$(sysctl -n vm.dirty_ratio vm.dirty_background_ratio vm.dirty_bytes vm.dirty_background_bytes |
		tr '\n' ' ') || return 1
	dirty_saved=$saved
	sysctl -w vm.dirty_ratio="$ratio" vm.dirty_background_ratio="$((ratio / 2))" || { dirty_restore; return 1; }
	echo "== SETUP_DIRTY_RATIO=$ratio: vm.dirty_ratio $ratio, vm.dirty_background_ratio $((ratio / 2)) for the setup" \
		"(before: ratio, background ratio, bytes, background bytes = $saved)"
}

dirty_restore() {
	[ -n "$dirty_saved" ] || return 0
	# shellcheck disable=SC2086 # four numbers, split on purpose
	set -- $dirty_saved
	dirty_saved=
	if [ "$3" -gt 0 ]; then sysctl -w vm.dirty_bytes="$3"; else sysctl -w vm.dirty_ratio="$1"; fi
	if [ "$4" -gt 0 ]; then sysctl -w vm.dirty_background_bytes="$4"; else sysctl -w vm.dirty_background_ratio="$2"; fi
	echo "== vm.dirty_* put back"
}

step_setup() {
	df_gb=$(df -BG --output=avail "$WORK" | tail -1 | tr -dc 0-9)
	if [ "${df_gb:-0}" -lt 50 ]; then
		row "GPU dev setup, porep 2^27" FAIL "only ${df_gb} GB free in $WORK (needs ~46)"
		failed=$((failed + 1))
		return
	fi
	rm -f "$P27"
	slog=$OUT/setup.log
	sync_opt=
	[ "${SETUP_SYNC:-0}" = 1 ] && sync_opt=--sync
	dirty_state "before the setup" >>"$slog"
	if [ -n "${SETUP_DIRTY_RATIO:-}" ]; then
		if ! dirty_raise "$SETUP_DIRTY_RATIO" >>"$slog" 2>&1; then
			row "GPU dev setup, porep 2^27" FAIL "SETUP_DIRTY_RATIO=$SETUP_DIRTY_RATIO not applied, see setup.log"
			failed=$((failed + 1))
			return
		fi
		# Put back even when the run is stopped half-way.
		trap 'dirty_restore >>"$slog" 2>&1; exit 130' INT TERM HUP
		dirty_state "raised" >>"$slog"
	fi
	vmstat -n -t 1 >"$WORK/setup-vmstat.txt" 2>&1 &
	vmstat_pid=$!
	step "GPU dev setup, porep 2^27 -> $P27 (target <= 180 s)" setup.log \
		"$CUZK" setup --backend gpu --shape porep --log-constraints 27 --seed 1 --params "$P27" --timings $sync_opt
	kill "$vmstat_pid" 2>/dev/null
	wait "$vmstat_pid" 2>/dev/null
	dirty_state "after the setup" >>"$slog"
	dirty_restore >>"$slog" 2>&1
	trap - INT TERM HUP
	dirty_state "at the end" >>"$slog"
	{
		echo "== vmstat -n -t 1 during the setup"
		cat "$WORK/setup-vmstat.txt"
	} >>"$slog" 2>&1
	rm -f "$WORK/setup-vmstat.txt"
	ls -l "$P27" >>"$slog" 2>&1
	# The figures that say where the time went, from the last run's lines.
	setup_fig() { sed -n "$1" "$slog" | tail -1; }
	row "  setup ms: total, blocked in put, write(2), close" "" \
		"$(setup_fig 's/^setup total: \([0-9.]*\) ms.*/\1/p') $(setup_fig 's/^setup writer: .*blocked in put \([0-9.]*\) ms.*/\1/p') $(setup_fig 's/^setup writer: .*write(2) \([0-9.]*\) ms.*/\1/p') $(setup_fig 's/^setup close: \([0-9.]*\) ms.*/\1/p')"
	if [ -n "$sync_opt" ]; then
		row "  setup fsync ms" "" "$(setup_fig 's/^setup fsync: \([0-9.]*\) ms.*/\1/p')"
	fi
}

# json_num KEY FILE: the number under KEY in a bench's --json FILE (one
# flat line; the phases' names are unique across it), or nothing.
json_num() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" "$2"; }

# The device memory a bench's proofs held (its --json FILE), as one row.
vram_row() {
	[ -s "$1" ] || return 0
	row "  vram MiB: budget, peak reserved, device used" "" \
		"$(json_num "vram budget MiB" "$1") $(json_num "vram peak reserved MiB" "$1") $(json_num "device used MiB" "$1")"
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
	vram_row "$OUT/prove-27.json"
}

step_sector() {
	need_p27 "porep 2^27, 10 partitions" || return
	step "porep 2^27: 10 partitions, 2 at a time, pinned, verified" sector.log \
		"$CUZK" bench prove --backend gpu --shape porep --log-constraints 27 --seed 1 --params "$P27" \
		--pin --partitions 10 --parallel 2 --trace "$OUT/trace-27-sector.json" --json "$OUT/sector-27.json"
	vram_row "$OUT/sector-27.json"
}

step_capped() {
	need_p27 "porep 2^27, capped VRAM" || return
	step "porep 2^27, vram budget 24 GiB (SRS streamed), verified" capped.log env CUZK_GPU_VRAM_BUDGET_MB=24576 \
		"$CUZK" bench prove --backend gpu --shape porep --log-constraints 27 --seed 1 --params "$P27" \
		--pin --trace "$OUT/trace-27-24g.json" --json "$OUT/prove-27-24g.json"
	vram_row "$OUT/prove-27-24g.json"
	# 16 GiB and 14 GiB: a proof, or a refusal up front that names the
	# VRAM budget; a CUDA out-of-memory error half-way is a failure.
	capped_at() {
		CUZK_GPU_VRAM_BUDGET_MB=$1 "$CUZK" bench prove --backend gpu --shape porep --log-constraints 27 \
			--seed 1 --params "$P27" --pin --trace "$OUT/trace-27-$2.json" --json "$OUT/prove-27-$2.json" \
			>"$WORK/capped-$2.out" 2>&1
		rc=$?
		cat "$WORK/capped-$2.out"
		[ $rc -eq 0 ] && return 0
		grep -q "budget is $1 MiB" "$WORK/capped-$2.out" && return 0
		return 1
	}
	for b in 16384:16g 14336:14g; do
		rm -f "$OUT/prove-27-${b#*:}.json"
		step "porep 2^27, vram budget $((${b%:*} / 1024)) GiB (a proof or a clean refusal)" capped.log \
			capped_at "${b%:*}" "${b#*:}"
		vram_row "$OUT/prove-27-${b#*:}.json"
	done
}

step_capsector() {
	need_p27 "porep 2^27, 10 partitions, capped VRAM" || return
	# A sector on a 16 GB or a 24 GB card: the SRS streamed for every
	# partition, as many partitions in flight as workspaces fit the budget.
	for b in 16384:16g 24576:24g; do
		step "porep 2^27: 10 partitions, vram budget $((${b%:*} / 1024)) GiB, verified" capsector.log \
			env CUZK_GPU_VRAM_BUDGET_MB="${b%:*}" "$CUZK" bench prove --backend gpu --shape porep \
			--log-constraints 27 --seed 1 --params "$P27" --pin --partitions 10 --parallel 2 \
			--trace "$OUT/trace-27-sector-${b#*:}.json" --json "$OUT/sector-27-${b#*:}.json"
		vram_row "$OUT/sector-27-${b#*:}.json"
	done
}

step_scale() {
	for k in ${SCALE_LOGS-20 21 22 23 24 25 26}; do
		step "porep 2^$k (gpu setup in memory, pinned), verified" scale.log \
			"$CUZK" bench prove --backend gpu --shape porep --log-constraints $k --pin --runs 2 \
			--json "$OUT/prove-$k.json"
	done
	growth_table
}

# The growth table, one row per OUT/prove-K.json there is (2^27's from the
# prove step, when it ran first): a partition's phases in milliseconds (the
# mean over the partitions of the fastest run) and the device memory it
# held, as markdown in OUT/growth.md.
growth_table() {
	g=$OUT/growth.md
	echo "| 2^K | upload | ntt (h) | msm h | l | a | b_g1 | b_g2 | prove total | prove wall | peak reserved MiB |" >"$g"
	echo "|---|---|---|---|---|---|---|---|---|---|---|" >>"$g"
	for j in "$OUT"/prove-[0-9][0-9].json; do
		[ -s "$j" ] || continue
		line="| $(json_num log_size "$j")"
		for ph in upload "ntt (h)" "msm h" "msm l" "msm a" "msm b_g1" "msm b_g2" "prove total" "prove wall"; do
			v=$(json_num "$ph" "$j")
			[ -n "$v" ] && v=$(printf '%.1f' "$v")
			line="$line | ${v:--}"
		done
		echo "$line | $(json_num "vram peak reserved MiB" "$j") |" >>"$g"
	done
	row "growth table (ms a partition)" "" "$g"
}

step_staging() {
	need_p27 "staging comparison" || return
	step "load + upload 2^27, pinned staging" staging.log "$CUZK" bench load --backend gpu --params "$P27" \
		--json "$OUT/load-27-staged.json"
	step "load + upload 2^27, plain cudaMemcpy" staging.log env CUZK_GPU_SRS_STAGING=0 \
		"$CUZK" bench load --backend gpu --params "$P27" --json "$OUT/load-27-plain.json"
	step "load, then upload 2^27 (not overlapped)" staging.log env CUZK_SRS_UPLOAD_OVERLAP=0 \
		"$CUZK" bench load --backend gpu --params "$P27" --json "$OUT/load-27-after.json"
	step "load + upload 2^27, decoded on the CPU" staging.log env CUZK_GPU_DECODE=0 \
		"$CUZK" bench load --backend gpu --params "$P27" --json "$OUT/load-27-cpudecode.json"
	for f in staged plain after cpudecode; do
		ready=$(json_num "params ready (load + upload)" "$OUT/load-27-$f.json")
		dev=$(json_num "points decoded on the device" "$OUT/load-27-$f.json")
		row "  params ready, $f (ms; points decoded on the GPU)" "" "${ready:-?} ${dev:-?}"
	done
	# The decoding's system time: 2 MiB pages (compacted for in the fault
	# where THP defrag says so) or 4 KiB ones.
	thp_counters() {
		echo "== $1: $(grep -E '^(thp_fault_alloc|thp_fault_fallback|compact_stall|compact_success|compact_fail) ' \
			/proc/vmstat | tr '\n' ' ')"
	}
	{
		echo "== THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1)"
		echo "== THP defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>&1)"
		grep -E '^(MemFree|Cached|AnonHugePages):' /proc/meminfo
	} >>"$OUT/staging.log" 2>&1
	for thp in 1 0; do
		thp_counters "before, CUZK_PARAMS_THP=$thp" >>"$OUT/staging.log"
		step "load 2^27 on the CPU backend, CUZK_PARAMS_THP=$thp" staging.log env CUZK_PARAMS_THP=$thp \
			"$CUZK" bench load --backend cpu --params "$P27" --json "$OUT/load-27-cpu-thp$thp.json"
		thp_counters "after" >>"$OUT/staging.log"
		sys=$(sed -n 's/.*"load params sys (all threads)": \([0-9.]*\).*/\1/p' "$OUT/load-27-cpu-thp$thp.json")
		cpu=$(sed -n 's/.*"load params cpu (all threads)": \([0-9.]*\).*/\1/p' "$OUT/load-27-cpu-thp$thp.json")
		row "  CPU ms (all threads), of which sys" "" "${cpu:-?} ${sys:-?}"
	done
}

# A bounded wait for a state cuzkd reaches on its own (its socket): a test
# of the state every 0.1 s, for at most $1 tenths.
wait_until() {
	tenths=$1
	shift
	until "$@"; do
		tenths=$((tenths - 1))
		[ "$tenths" -gt 0 ] || return 1
		sleep 0.1
	done
}

step_daemon() {
	k=${DAEMON_LOG:-27}
	dbe=${DAEMON_BACKEND:-gpu}
	nreq=${DAEMON_REPEAT:-10}
	inflight=${DAEMON_INFLIGHT:-2}
	# A second run from DAEMON_BUFFERS memfds in turn (0 leaves it out),
	# with max_buffers_total one below that: every request then maps and
	# pins its buffer afresh, as a sector of ten different witnesses does.
	nbuf=${DAEMON_BUFFERS:-3}
	[ "$nbuf" -gt "$inflight" ] || nbuf=0
	ddir=$WORK/daemon
	sock=$ddir/cuzkd.sock
	wit=$WORK/daemon-$k.witness
	txt=$OUT/daemon-$k.txt
	if [ "$k" = 27 ]; then
		need_p27 "daemon: porep 2^27 through cuzkd" || return
		dparams=$P27
	else
		dparams=$WORK/porep$k.params
		if [ ! -s "$dparams" ]; then
			step "daemon: dev setup porep 2^$k ($dbe)" daemon.log "$CUZK" setup --backend "$dbe" --shape porep \
				--log-constraints "$k" --seed 1 --params "$dparams" || return
		fi
	fi
	[ -x "$CUZKD" ] || { row "daemon: porep 2^$k through cuzkd" FAIL "no $CUZKD"; failed=$((failed + 1)); return; }
	# The witness: a, b, c and aux of one partition, 32 bytes a scalar
	# (16.7 GB at 2^27), written next to the parameters.
	rm -f "$wit"   # a run cut short leaves it, and it would count as used
	need_gb=$(awk -v k="$k" 'BEGIN { printf "%d", 2^k * 130278869 / 2^27 * 4 * 32 / 1e9 + 1 }')
	df_gb=$(df -BG --output=avail "$WORK" | tail -1 | tr -dc 0-9)
	if [ "${df_gb:-0}" -lt "$need_gb" ]; then
		row "daemon: porep 2^$k through cuzkd" FAIL "only ${df_gb} GB free in $WORK (the witness needs ~$need_gb)"
		failed=$((failed + 1))
		return
	fi
	mkdir -p "$ddir" || return
	rm -f "$sock" "$ddir"/*.proof
	# srs_dir is the parameters' directory; preload loads them as soon as
	# cuzkd is up, beside the witness generation.  The limits' defaults
	# (192G and more) would do; written out, they say what this run needs:
	# one partition's witness is 16.7 GB, and each request in flight counts
	# it once more against the per-client and per-uid limits, even when it
	# is the same buffer.  The decoded 2^27 parameters take ~45 GB.
	cat >"$ddir/cuzkd.conf" <<-EOF
		[daemon]
		socket = $sock
		srs_dir = $(dirname "$dparams")
		backend = $dbe
		drain_timeout = 30s
		[limits]
		max_witness_bytes = 32G
		max_pinned_bytes_per_client = 96G
		max_pinned_bytes_per_uid = 96G
		max_pinned_bytes_total = 64G
		max_buffers_total = $([ "$nbuf" -gt 0 ] && echo $((nbuf - 1)) || echo 1024)
		[engine]
		workers_per_device = 2
		verify = yes
		vram_budget = ${DAEMON_VRAM_BUDGET:-0}
		[srs]
		cache_budget = 64G
		preload = $(basename "$dparams")
	EOF
	{
		echo "== THP for shmem: $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>&1)"
		grep -i hugepages_ /proc/meminfo
	} >>"$OUT/daemon.log" 2>&1
	step "daemon: cuzkd.conf accepted (--check-config)" daemon.log \
		"$CUZKD" --check-config --config "$ddir/cuzkd.conf" || return
	"$CUZKD" --config "$ddir/cuzkd.conf" >"$OUT/cuzkd-$k.log" 2>&1 &
	dpid=$!
	up() { [ -S "$sock" ] || ! kill -0 "$dpid" 2>/dev/null; }
	if ! wait_until 600 up || ! kill -0 "$dpid" 2>/dev/null; then
		row "daemon: cuzkd started" FAIL "no socket $sock, see cuzkd-$k.log"
		failed=$((failed + 1))
		kill "$dpid" 2>/dev/null
		wait "$dpid"
		return
	fi
	row "daemon: cuzkd started (pid $dpid, preloading)" PASS ""
	# The first requests wait for the preload to finish (on a GPU it has
	# uploaded the parameters beside their decoding) and allocate each
	# worker's working memory (two at once: one for each of the two
	# workers): what a fresh daemon costs once, kept out of the figure of
	# the requests after them, as bench prove keeps its load out.
	# submit_to TEXT PROOFS N K [B [TRACE]]: N requests of the witness, K
	# in flight, from B memfds in turn (default 1), their lines into TEXT
	# and to the step's log; with TRACE, their timelines on one clock.
	submit_to() {
		"$CUZK" submit --socket "$sock" --srs "$(basename "$dparams")" --witness "$wit" --out "$2" \
			--seed 1 --repeat "$3" --inflight "$4" --buffers "${5:-1}" ${6:+--trace "$6"} >"$1" 2>&1
		rc_submit=$?
		cat "$1"
		return $rc_submit
	}
	# The witness file is written while the daemon loads the parameters.
	step "daemon: porep 2^$k witness, 1 partition (gen-circuit)" daemon.log \
		"$CUZK" gen-circuit --shape porep --log-constraints "$k" --seed 1 --witness "$wit" &&
		ls -l "$wit" >>"$OUT/daemon.log" 2>&1 &&
		step "daemon: warm-up, 2 requests (load, SRS upload, arenas)" daemon.log \
			submit_to "$OUT/daemon-$k-warmup.txt" "$ddir/warmup.proof" 2 2 &&
		"$CUZK" params list --socket "$sock" >>"$OUT/daemon.log" 2>&1
	warm=$?
	# The preload's end (the warm-up waited for it): on a GPU the SRS is
	# resident, uploaded while it was decoded.
	res=$(grep -o "resident on [0-9]* of [0-9]* devices, [0-9]* ms after its decoding ended" "$OUT/cuzkd-$k.log" |
		head -1)
	if [ "$dbe" = gpu ]; then
		case $res in
		"resident on 0 "*)
			# Under a budget too small for it the SRS streams: expected.
			if [ "${DAEMON_VRAM_BUDGET:-0}" != 0 ]; then
				row "daemon: SRS streamed (vram_budget $DAEMON_VRAM_BUDGET)" PASS "$res"
			else
				row "daemon: SRS resident after the preload" FAIL "$res"
				failed=$((failed + 1))
			fi
			;;
		"")
			row "daemon: SRS resident after the preload" FAIL "no line in cuzkd-$k.log"
			failed=$((failed + 1))
			;;
		*) row "daemon: SRS resident after the preload" PASS "$res" ;;
		esac
	fi
	if [ $warm -eq 0 ]; then
		step "daemon: $nreq requests from one memfd, $inflight in flight" daemon.log \
			submit_to "$txt" "$ddir/sector.proof" "$nreq" "$inflight" 1 "$OUT/daemon-$k-trace.json" &&
			row "  cuzk submit --repeat $nreq --inflight $inflight" "" "$(sed -n 's/.* in flight: //p' "$txt")"
		verify_all() {   # verify_all PROOFS
			size=$(wc -c <"$1")
			[ "$size" -eq $((nreq * 192)) ] || { echo "$1: $size bytes, not $((nreq * 192))"; return 1; }
			i=0
			while [ $i -lt "$nreq" ]; do
				dd if="$1" of="$ddir/one.proof" bs=192 skip=$i count=1 2>/dev/null &&
					"$CUZK" verify --params "$dparams" --proof "$ddir/one.proof" --witness "$wit" || return 1
				i=$((i + 1))
			done
		}
		step "daemon: every proof verifies (cuzk verify)" daemon.log verify_all "$ddir/sector.proof"
		"$CUZK" metrics --socket "$sock" >"$OUT/daemon-$k-metrics.txt" 2>&1
		"$CUZK" status --socket "$sock" >"$OUT/daemon-$k-status.txt" 2>&1
		# What the table cites beside the times: the VRAM the daemon held at
		# most, and one registration for the whole run.
		grep -h '^cuzk_gpu_vram_bytes{.*kind="\(peak\|budget\)"\|^cuzk_registration_cache_\(hits\|misses\)_total ' \
			"$OUT/daemon-$k-metrics.txt" >>"$txt"
		if [ "$nbuf" -gt 0 ]; then
			step "daemon: $nreq requests from $nbuf memfds in turn (max_buffers_total $((nbuf - 1))), $inflight in flight" \
				daemon.log submit_to "$OUT/daemon-$k-buffers.txt" "$ddir/buffers.proof" "$nreq" "$inflight" "$nbuf" &&
				row "  cuzk submit --repeat $nreq --inflight $inflight --buffers $nbuf" "" \
					"$(sed -n 's/.* in flight: //p' "$OUT/daemon-$k-buffers.txt")" &&
				step "daemon: every proof from $nbuf memfds verifies" daemon.log verify_all "$ddir/buffers.proof"
			# The cache's counters, now the one-memfd run's plus these.
			"$CUZK" metrics --socket "$sock" 2>&1 |
				grep '^cuzk_registration\(_cache_\(hits\|misses\|evictions\)\|s\|_seconds\)_total ' \
					>>"$OUT/daemon-$k-buffers.txt"
		fi
	fi
	# SIGTERM drains: with nothing in flight any more cuzkd stops at once,
	# and whatever still ran would be failed after drain_timeout (30 s).
	kill -TERM "$dpid"
	wait "$dpid"
	rc_daemon=$?
	if [ $rc_daemon -eq 0 ]; then
		row "daemon: cuzkd drained and stopped" PASS "exit 0"
	else
		row "daemon: cuzkd drained and stopped" FAIL "exit $rc_daemon, see cuzkd-$k.log"
		failed=$((failed + 1))
	fi
	rm -f "$wit"
}

for s in $STEPS; do
	case $s in
	check | setup | prove | sector | capped | capsector | scale | staging | daemon) "step_$s" ;;
	*) echo "unknown step $s" >&2; failed=$((failed + 1)) ;;
	esac
done
echo
echo "== results in $OUT"
cat "$TABLE"
if [ -n "${ARCHIVE:-}" ] && ! tar -czf "$ARCHIVE" -C "$OUT" .; then
	echo "could not pack $OUT into $ARCHIVE" >&2
	failed=$((failed + 1))
fi
[ "$failed" -eq 0 ]
