#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# PoRep-shaped synthetic circuits through the command line: gen-circuit
# --witness and setup --shape make the circuit and its parameters without an
# R1CS file (the same bytes as through one), the proof verifies, and
# `bench prove --trace` writes a Chrome trace-event timeline that parses as
# JSON (node) with every phase of every partition on a named track; `bench
# load` and `bench prove --params` time the loading of a parameter file.
# Runs from the top build directory ($CUZK overrides the binary).
set -u
srcdir=${srcdir:-.}
cuzk=${CUZK:-./src/cli/cuzk}
work=tests/cli/porep.$$
. "$srcdir/tests/testlib.sh"
test_begin "$cuzk"
w=$work

echo "== a PoRep-shaped circuit without an R1CS file"
expect 0 "gen-circuit --shape porep --witness" "$cuzk" gen-circuit --shape porep --log-constraints 12 --seed 4 \
	--witness "$w/p.witness"
expect 0 "setup --shape porep" "$cuzk" setup --shape porep --log-constraints 12 --seed 4 --params "$w/p.params" \
	--vk "$w/p.vk"
expect 0 "prove" "$cuzk" prove --params "$w/p.params" --witness "$w/p.witness" --out "$w/p.proof" --seed 4
expect 0 "verify" "$cuzk" verify --vk "$w/p.vk" --proof "$w/p.proof" --witness "$w/p.witness"
expect 0 "the same circuit as .r1cs/.wtns" "$cuzk" gen-circuit --shape porep --log-constraints 12 --seed 4 \
	--r1cs "$w/p.r1cs" --wtns "$w/p.wtns"
expect 0 "its setup from the .r1cs" "$cuzk" setup --r1cs "$w/p.r1cs" --seed 4 --params "$w/r.params"
cmp -s "$w/p.params" "$w/r.params" && pass "  the same parameters" || fail "  parameters differ"
expect 0 "synth from the .r1cs" "$cuzk" synth --r1cs "$w/p.r1cs" --wtns "$w/p.wtns" --out "$w/r.witness"
cmp -s "$w/p.witness" "$w/r.witness" && pass "  the same witness file" || fail "  witness files differ"
expect 2 "setup with both --r1cs and --log-constraints" "$cuzk" setup --r1cs "$w/p.r1cs" --log-constraints 12 \
	--params "$w/x.params"
expect 2 "setup --shape unknown" "$cuzk" setup --shape tall --log-constraints 12 --params "$w/x.params"
expect 2 "gen-circuit --shape unknown" "$cuzk" gen-circuit --shape tall --log-constraints 12 --witness "$w/x.witness"
expect 2 "setup --backend unknown" "$cuzk" setup --shape porep --log-constraints 12 --params "$w/x.params" \
	--backend tpu
expect nonzero "setup --shape porep too small for 328 inputs" "$cuzk" setup --shape porep --log-constraints 8 \
	--params "$w/x.params"
grep -q "328 inputs" "$work/err" && pass "  names the 328 inputs" || fail "  does not name the 328 inputs"

echo "== bench prove --trace"
expect 0 "bench prove --shape porep --partitions 2 --trace" "$cuzk" bench prove --shape porep --log-constraints 11 \
	--partitions 2 --trace "$w/t.json" --json "$w/b.json"
grep -q 'shape porep' "$work/out" && grep -q '"shape": "porep"' "$w/b.json" && pass "  reports the shape" ||
	fail "  no shape in the report"
grep -q '^all partitions wall' "$work/out" && pass "  and the wall time of both" || fail "  no 'all partitions wall'"
if command -v node >/dev/null 2>&1; then
	# Well-formed JSON; complete events with numeric times on named tracks;
	# every phase of the CPU prover for both partitions.
	expect 0 "the trace is Chrome trace-event JSON" node -e '
		const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const ev = t.traceEvents, named = new Set(), fail = (m) => { console.error(m); process.exit(1); };
		if (!Array.isArray(ev)) fail("no traceEvents array");
		for (const e of ev) if (e.ph === "M" && e.name === "thread_name") named.add(e.tid);
		const x = ev.filter((e) => e.ph === "X");
		for (const e of x) {
			if (typeof e.ts !== "number" || typeof e.dur !== "number" || e.dur < 0 || e.ts < 0)
				fail("bad times: " + JSON.stringify(e));
			if (!named.has(e.tid)) fail("track without a name: " + e.tid);
		}
		for (const p of [0, 1])
			for (const n of ["ntt (h)", "msm a", "msm b_g1", "msm b_g2", "assemble"])
				if (!x.some((e) => e.name === n && e.args.partition === p)) fail("no " + n + " of partition " + p);
		const a0 = x.find((e) => e.name === "assemble" && e.args.partition === 0);
		const n1 = x.find((e) => e.name === "ntt (h)" && e.args.partition === 1);
		if (n1.ts < a0.ts + a0.dur) fail("partition 1 starts before partition 0 ends");
		console.log(x.length + " spans on " + named.size + " tracks");' "$w/t.json"
else
	echo "SKIP: node is not installed: the trace is not parsed"
fi

expect 0 "bench prove --partitions 3 --parallel 2 (each verified)" "$cuzk" bench prove --shape porep \
	--log-constraints 11 --partitions 3 --parallel 2 --trace "$w/t2.json"
grep -q 'parallel 2' "$work/out" && pass "  reports the parallelism" || fail "  no 'parallel 2'"
if command -v node >/dev/null 2>&1; then
	expect 0 "its trace has all three partitions" node -e '
		const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const parts = new Set(t.traceEvents.filter((e) => e.name === "assemble").map((e) => e.args.partition));
		if (parts.size !== 3) { console.error("partitions: " + [...parts]); process.exit(1); }' "$w/t2.json"
fi

echo "== loading parameters"
expect 0 "bench load --runs 2" "$cuzk" bench load --params "$w/p.params" --runs 2 --json "$w/l.json"
grep -q '^load ms per million points' "$work/out" && grep -q '"points": [0-9]' "$w/l.json" &&
	pass "  the rate and the point count" || fail "  no rate or point count"
expect 0 "bench prove --params (loaded, not set up)" "$cuzk" bench prove --shape porep --log-constraints 12 --seed 4 \
	--params "$w/p.params"
grep -q '^load params ' "$work/out" && ! grep -q '^dev setup' "$work/out" && pass "  loads instead of a setup" ||
	fail "  did not load the parameters"
expect nonzero "bench prove --params of another circuit" "$cuzk" bench prove --shape basic --log-constraints 12 \
	--params "$w/p.params"
grep -q 'do not fit' "$work/err" && pass "  says they do not fit" || fail "  no 'do not fit'"

test_result
