#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# snarkjs vs cuzk on the same circom circuit and witness (issue 2, "Speed"):
# `snarkjs groth16 prove` (its zkey from `snarkjs groth16 setup` on the given
# powers of tau) against `cuzk prove` (its own development setup), both timed
# as whole processes, best of $RUNS (default 3).  Both proofs are verified,
# cuzk's also by snarkjs after export-snarkjs.  Not part of make check.
#
# usage: tests/bench/snarkjs_compare.sh PTAU [LOG] [x5|bits]
#   PTAU  a prepared BLS12-381 powers-of-tau file (power >= LOG)
#   LOG   circuit size: the largest circuit whose constraints + public
#         inputs + 1 fit 2^LOG (default 14, what a power-14 ptau allows)
#   x5    (default) a Poseidon-like x^5 round chain: dense random values
#   bits  64-bit decompositions of many public values: mostly 0/1 values
# Environment: CUZK (default ./src/cli/cuzk, else cuzk on PATH), RUNS, WORK
# (a directory to work in and keep; a zkey already there is reused, so that
# the figures can be measured again without snarkjs's slow setup).
set -eu
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 2; }
ptau=${1:?usage: snarkjs_compare.sh PTAU [LOG] [x5|bits]}
log=${2:-14}
kind=${3:-x5}
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${CUZK:-}" ]; then cuzk=$CUZK
elif [ -x ./src/cli/cuzk ]; then cuzk=./src/cli/cuzk
else cuzk=$(command -v cuzk || true); fi
[ -x "$cuzk" ] || { echo "no cuzk: run from the build directory or set CUZK" >&2; exit 2; }
oracle=$here/oracle
if [ ! -d "$oracle/node_modules/snarkjs" ]; then
	(cd "$oracle" && npm ci --no-audit --no-fund >/dev/null)
fi
snarkjs="node $oracle/node_modules/.bin/snarkjs"
circom2="node $oracle/node_modules/.bin/circom2"
if [ -n "${WORK:-}" ]; then
	work=$WORK
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
room=$(( (1 << log) - 16 ))

case $kind in
x5)
	# 4 constraints per round (t, t^2, t^4, t^5).
	sed "s/X5Rounds(100)/X5Rounds($((room / 4)))/" "$oracle/circuits/x5rounds.circom" >"$work/c.circom"
	echo '{"start": "3", "key": "12345", "salt": "99"}' >"$work/in.json"
	;;
bits)
	# 64 constraints per value, one for the total; each value is public.
	k=$((room / 66))
	sed "s/RangeSum(5, 64)/RangeSum($k, 64)/" "$oracle/circuits/bits.circom" >"$work/c.circom"
	node -e 'const k = +process.argv[1]; let v = [], t = 0n, x = 0x9e3779b97f4a7c15n;
		for (let i = 0; i < k; i++) { x = (x * 6364136223846793005n + 1442695040888963407n) % (1n << 64n);
			v.push(x.toString()); t += x; }
		console.log(JSON.stringify({ v, total: t.toString() }));' "$k" >"$work/in.json"
	;;
*) echo "unknown circuit kind $kind (x5 or bits)" >&2; exit 2 ;;
esac

now() { date +%s.%N; }
# best_of N CMD...: runs CMD N times; prints the least wall time and the
# least CPU time (user + system, all threads; 10 ms resolution) in seconds.
# On a shared machine the CPU time is the steadier figure.
best_of() {
	n=$1
	shift
	: >"$work/times"
	i=0
	while [ $i -lt "$n" ]; do
		t0=$(now)
		/usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null
		t1=$(now)
		echo "$t0 $t1 $(cat "$work/time")" >>"$work/times"
		i=$((i + 1))
	done
	awk '{ d = $2 - $1 } NR == 1 || d < w { w = d } NR == 1 || $3 + $4 < c { c = $3 + $4 }
		END { printf "%.3f %.2f", w, c }' "$work/times"
}

echo "compiling the circuit ($kind, 2^$log)" >&2
$circom2 "$work/c.circom" --r1cs --wasm --prime bls12381 -o "$work" >/dev/null
$snarkjs wtns calculate "$work/c_js/c.wasm" "$work/in.json" "$work/c.wtns"
constraints=$($snarkjs r1cs info "$work/c.r1cs" | sed -n 's/.*# of Constraints: //p')

echo "snarkjs groth16 setup (slow)" >&2
if [ -s "$work/c.zkey" ] && [ -n "${WORK:-}" ]; then
	snark_setup="reused from $work"
else
	t0=$(now)
	$snarkjs groth16 setup "$work/c.r1cs" "$ptau" "$work/c.zkey" >/dev/null
	t1=$(now)
	snark_setup=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f s", b - a }')
fi
$snarkjs zkey export verificationkey "$work/c.zkey" "$work/vk.json" >/dev/null
snark=$(best_of "$runs" $snarkjs groth16 prove "$work/c.zkey" "$work/c.wtns" "$work/proof.json" "$work/public.json")
$snarkjs groth16 verify "$work/vk.json" "$work/public.json" "$work/proof.json" >/dev/null

echo "cuzk setup, synth, prove" >&2
"$cuzk" setup --r1cs "$work/c.r1cs" --params "$work/c.params" --seed 1 2>/dev/null
synth=$(best_of "$runs" "$cuzk" synth --r1cs "$work/c.r1cs" --wtns "$work/c.wtns" --out "$work/c.witness")
prove=$(best_of "$runs" "$cuzk" prove --params "$work/c.params" --witness "$work/c.witness" --out "$work/c.proof")
prove_all=$(best_of "$runs" "$cuzk" prove --params-check all --params "$work/c.params" --witness "$work/c.witness" --out "$work/c.proof")
inner=$("$cuzk" prove --params "$work/c.params" --witness "$work/c.witness" --out "$work/c.proof" | sed -n 's/.*, \([0-9.]*\) ms proving.*/\1/p')
"$cuzk" verify --params "$work/c.params" --proof "$work/c.proof" --witness "$work/c.witness" >/dev/null
"$cuzk" export-snarkjs --params "$work/c.params" --proof "$work/c.proof" --witness "$work/c.witness" --dir "$work/js"
$snarkjs groth16 verify "$work/js/verification_key.json" "$work/js/public.json" "$work/js/proof.json" >/dev/null

awk -v s="$snark" -v p="$prove" -v pa="$prove_all" -v y="$synth" -v in_="$inner" -v c="$constraints" \
    -v kind="$kind" -v lg="$log" -v ss="$snark_setup" -v runs="$runs" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" '
function x(a, b) { return b > 0 ? sprintf("%6.1fx", a / b) : "     -" }
BEGIN {
	split(s, S, " "); split(p, P, " "); split(pa, A, " "); split(y, Y, " ")
	printf "circuit %s: %d constraints (domain 2^%d); whole processes, best of %d runs\n", kind, c, lg, runs
	printf "%-40s %9s %9s %14s\n", "", "wall s", "cpu s", "speed-up w/c"
	printf "%-40s %9.3f %9.2f\n", "snarkjs groth16 prove", S[1], S[2]
	printf "%-40s %9.3f %9.2f %s %s\n", "cuzk prove", P[1], P[2], x(S[1], P[1]), x(S[2], P[2])
	printf "%-40s %9.3f %9.2f %s %s\n", "cuzk synth + prove", Y[1] + P[1], Y[2] + P[2], x(S[1], Y[1] + P[1]), x(S[2], Y[2] + P[2])
	printf "%-40s %9.3f %9.2f %s %s\n", "cuzk prove --params-check all", A[1], A[2], x(S[1], A[1]), x(S[2], A[2])
	printf "(cuzk synth alone %.3f s; proving inside cuzk prove %.3f s; snarkjs setup: %s)\n", Y[1], in_ / 1000, ss
	printf "load average at the end: %s\n", load
}'
