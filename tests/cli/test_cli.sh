#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The cuzk command end to end on a generated circuit: the command forms that
# scripts outside the project rely on, reproducibility of --seed, rejection
# of wrong proofs and inputs, and one-line errors that name the file.
# Runs from the top build directory ($CUZK overrides the binary).
set -u
srcdir=${srcdir:-.}
cuzk=${CUZK:-./src/cli/cuzk}
work=tests/cli/work.$$
. "$srcdir/tests/testlib.sh"
test_begin "$cuzk"

# one_line_naming TEXT: the last command's stderr is exactly one line and
# contains TEXT (the file at fault).
one_line_naming() {
	n=$(wc -l <"$work/err")
	if [ "$n" -eq 1 ] && grep -qF -- "$1" "$work/err"; then pass "  one line naming $1"
	else fail "  expected one stderr line naming $1, got $n line(s)"; fi
}
w=$work

echo "== the command forms"
expect 0 "cuzk --help" "$cuzk" --help
expect 0 "cuzk --version" "$cuzk" --version
grep -q '^cuzk [0-9]' "$work/out" || fail "--version prints 'cuzk VERSION'"
for c in setup synth prove verify gen-circuit export-snarkjs bench; do
	expect 0 "cuzk $c --help" "$cuzk" $c --help
done
expect 0 "gen-circuit" "$cuzk" gen-circuit --log-constraints 10 --inputs 3 --r1cs "$w/c.r1cs" --wtns "$w/c.wtns"
expect 0 "setup" "$cuzk" setup --r1cs "$w/c.r1cs" --params "$w/c.params" --vk "$w/c.vk" --seed 3
expect 0 "synth" "$cuzk" synth --r1cs "$w/c.r1cs" --wtns "$w/c.wtns" --out "$w/c.witness"
expect 0 "prove" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/c.proof" --backend cpu
[ "$(wc -c <"$w/c.proof")" -eq 192 ] && pass "one partition, 192 bytes" || fail "proof is not 192 bytes"
expect 0 "verify --vk --witness" "$cuzk" verify --vk "$w/c.vk" --proof "$w/c.proof" --witness "$w/c.witness"
expect 0 "verify --params --witness" "$cuzk" verify --params "$w/c.params" --proof "$w/c.proof" --witness "$w/c.witness"
expect 0 "export-snarkjs" "$cuzk" export-snarkjs --params "$w/c.params" --proof "$w/c.proof" --witness "$w/c.witness" --dir "$w/js"
for f in verification_key.json proof.json public.json; do
	[ -s "$w/js/$f" ] && pass "  wrote $f" || fail "  no $f"
done
grep -q '"nPublic": 3' "$w/js/verification_key.json" && pass "  nPublic is 3" || fail "  nPublic is not 3"
expect 0 "verify --public public.json" "$cuzk" verify --vk "$w/c.vk" --proof "$w/c.proof" --public "$w/js/public.json"
# Two copies of the proof: every partition is checked against public.json.
cat "$w/c.proof" "$w/c.proof" >"$w/two.proof"
expect 0 "verify checks each of two partitions" "$cuzk" verify --vk "$w/c.vk" --proof "$w/two.proof" --public "$w/js/public.json"
grep -q '2 proofs valid' "$work/out" && pass "  says 2 proofs" || fail "  did not say 2 proofs"

expect 0 "prove --params-check all --timings" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" \
	--out "$w/t.proof" --params-check all --timings
grep -q '^partition 0: ntt' "$work/out" && pass "  prints the phases" || fail "  no phase line"

# setup --timings: a line a phase, on stdout; the writer's bytes are the
# file's; the queries' times fit in the total; fsync only with --sync, and
# the file is the same either way.
expect 0 "setup --timings" "$cuzk" setup --log-constraints 10 --seed 3 --params "$w/t.params" --timings
missing=
for phase in device "qap at tau" "tables and vk" "writer open" h l a b_g1 b_g2 writer close fsync free total; do
	grep -q "^setup $phase: " "$work/out" || missing="$missing '$phase'"
done
[ -z "$missing" ] && pass "  prints every phase" || fail "  no line for$missing"
bytes=$(sed -n 's/^setup writer: \([0-9]*\) bytes .*/\1/p' "$work/out")
[ "$bytes" = "$(wc -c <"$w/t.params" | tr -d ' ')" ] && pass "  the writer's bytes are the file's size ($bytes)" ||
	fail "  the writer says '$bytes' bytes, the file has $(wc -c <"$w/t.params")"
awk '/^setup (h|l|a|b_g1|b_g2): / { q += $3 } /^setup total: / { t = $3 }
	END { exit !(t > 0 && q > 0 && q <= t) }' "$work/out" && pass "  the queries fit in the total" ||
	fail "  the queries' times do not fit in the total"
grep -q '^setup fsync: not asked' "$work/out" && pass "  no fsync unless asked" || fail "  fsync without --sync"
expect 0 "setup --timings --sync" "$cuzk" setup --log-constraints 10 --seed 3 --params "$w/t2.params" --timings --sync
grep -q '^setup fsync: [0-9.]* ms (the file is on the disk)' "$work/out" && pass "  the fsync timed" ||
	fail "  no fsync line"
cmp -s "$w/t.params" "$w/t2.params" && pass "  the same file" || fail "  --sync changed the file"
expect 0 "setup without --timings" "$cuzk" setup --log-constraints 10 --seed 3 --params "$w/t2.params"
[ ! -s "$work/out" ] && pass "  prints nothing on stdout" || fail "  printed on stdout without --timings"

echo "== bench"
expect 0 "bench prove" "$cuzk" bench prove --backend cpu --log-constraints 8 --runs 2 --json "$w/b.json"
grep -q '^prove total' "$work/out" && grep -q '"prove total": [0-9]' "$w/b.json" && pass "  table and JSON" ||
	fail "  no prove total in the table or the JSON"
expect 0 "bench msm" "$cuzk" bench msm --log-size 8
expect 0 "bench msm --g2" "$cuzk" bench msm --log-size 6 --g2
expect 0 "bench msm --shape porep" "$cuzk" bench msm --log-size 8 --shape porep
grep -q '^bench msm: .*shape porep' "$work/out" && pass "  says the shape" || fail "  does not say shape porep"
expect 0 "bench msm --g2 --shape porep" "$cuzk" bench msm --log-size 6 --g2 --shape porep
expect nonzero "bench ntt --shape porep" "$cuzk" bench ntt --log-size 8 --shape porep
one_line_naming "--shape is for prove and msm"
expect 0 "bench ntt" "$cuzk" bench ntt --log-size 10
expect nonzero "bench without a kind" "$cuzk" bench --log-size 10
one_line_naming "expected prove, msm, ntt or load"

echo "== several partitions"
join=${JOIN_WITNESS:-./tests/cli/join_witness}
expect 0 "a witness file of three partitions" "$join" "$w/p3.witness" "$w/c.witness" "$w/c.witness" "$w/c.witness"
expect 0 "prove --seed 5 proves each" "$cuzk" prove --params "$w/c.params" --witness "$w/p3.witness" --out "$w/p3.proof" --seed 5
[ "$(wc -c <"$w/p3.proof")" -eq 576 ] && pass "  3 x 192 bytes" || fail "  not 576 bytes"
head -c 192 "$w/p3.proof" >"$w/p3-0.proof"
expect 0 "verify checks the three" "$cuzk" verify --vk "$w/c.vk" --proof "$w/p3.proof" --witness "$w/p3.witness"
grep -q '3 proofs valid' "$work/out" && pass "  says 3 proofs" || fail "  did not say 3 proofs"
cp "$w/p3.proof" "$w/p3bad.proof"
flip_byte "$w/p3bad.proof" $((2 * 192)) 32
expect nonzero "a bad third partition fails" "$cuzk" verify --vk "$w/c.vk" --proof "$w/p3bad.proof" --witness "$w/p3.witness"
grep -q 'partition 2' "$work/err" && pass "  names partition 2" || fail "  does not name partition 2"
expect nonzero "3 proofs against a 1-partition witness" "$cuzk" verify --vk "$w/c.vk" --proof "$w/p3.proof" --witness "$w/c.witness"
one_line_naming "$w/c.witness"

echo "== r and s"
expect 0 "prove --seed 5" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/s1.proof" --seed 5
expect 0 "prove --seed 5 again" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/s2.proof" --seed 5
cmp -s "$w/s1.proof" "$w/s2.proof" && pass "--seed gives identical bytes" || fail "--seed proofs differ"
cmp -s "$w/s1.proof" "$w/p3-0.proof" && pass "  and the same proof as partition 0 of the joined file" ||
	fail "  partition 0 of the joined file differs"
a=$(dd if="$w/p3.proof" bs=192 skip=1 count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
b=$(dd if="$w/p3.proof" bs=192 skip=2 count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
[ "$a" != "$b" ] && pass "  partitions get their own r and s" || fail "  partitions 1 and 2 have the same proof"
expect 0 "prove --seed 6" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/s3.proof" --seed 6
cmp -s "$w/s1.proof" "$w/s3.proof" && fail "different seeds gave the same proof" || pass "another seed, another proof"
expect 0 "prove without --seed again" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/r2.proof"
cmp -s "$w/c.proof" "$w/r2.proof" && fail "unseeded proofs are identical" || pass "unseeded proofs differ"
expect 0 "the seeded proof verifies" "$cuzk" verify --vk "$w/c.vk" --proof "$w/s1.proof" --witness "$w/c.witness"

echo "== wrong proofs and inputs"
# The first public value with its last digit changed (stays far below r).
awk 'BEGIN { done = 0 } !done && match($0, /"[0-9]+"/) {
	s = substr($0, RSTART + 1, RLENGTH - 2); d = substr(s, length(s), 1);
	s = substr(s, 1, length(s) - 1) ((d + 1) % 10);
	$0 = substr($0, 1, RSTART) s substr($0, RSTART + RLENGTH - 1); done = 1 } { print }' \
	"$w/js/public.json" >"$w/wrong.json"
cmp -s "$w/js/public.json" "$w/wrong.json" && fail "wrong.json is not different"
expect nonzero "a wrong public input fails" "$cuzk" verify --vk "$w/c.vk" --proof "$w/c.proof" --public "$w/wrong.json"
one_line_naming "$w/c.proof"
cp "$w/c.proof" "$w/neg.proof"
flip_byte "$w/neg.proof" 0 32
expect nonzero "a proof with A negated fails" "$cuzk" verify --vk "$w/c.vk" --proof "$w/neg.proof" --witness "$w/c.witness"
one_line_naming "$w/neg.proof"
cp "$w/c.proof" "$w/bad.proof"
flip_byte "$w/bad.proof" 150 1
expect nonzero "a proof with a byte of C changed fails" "$cuzk" verify --vk "$w/c.vk" --proof "$w/bad.proof" --witness "$w/c.witness"
one_line_naming "$w/bad.proof"
expect 0 "another circuit" "$cuzk" gen-circuit --log-constraints 10 --inputs 3 --seed 9 --r1cs "$w/d.r1cs" --wtns "$w/d.wtns"
expect 0 "its setup" "$cuzk" setup --r1cs "$w/d.r1cs" --vk "$w/d.vk" --params "$w/d.params" --seed 3
expect nonzero "a wrong vk fails" "$cuzk" verify --vk "$w/d.vk" --proof "$w/c.proof" --witness "$w/c.witness"

echo "== errors name the file, on one line"
expect nonzero "missing params file" "$cuzk" prove --params "$w/nope.params" --witness "$w/c.witness" --out "$w/x.proof"
one_line_naming "$w/nope.params"
size=$(wc -c <"$w/c.params")
head -c $((size - 100)) "$w/c.params" >"$w/trunc.params"
expect nonzero "truncated params" "$cuzk" prove --params "$w/trunc.params" --witness "$w/c.witness" --out "$w/x.proof"
one_line_naming "$w/trunc.params"
head -c 5000 /dev/urandom >"$w/garbage.witness"
expect 0 "verify --params reads only the VK at the start" "$cuzk" verify --params "$w/trunc.params" --proof "$w/c.proof" \
	--witness "$w/c.witness"
head -c 500 "$w/c.params" >"$w/vkcut.params"
expect nonzero "params cut inside the VK" "$cuzk" verify --params "$w/vkcut.params" --proof "$w/c.proof" --witness "$w/c.witness"
one_line_naming "$w/vkcut.params"
expect nonzero "garbage witness" "$cuzk" prove --params "$w/c.params" --witness "$w/garbage.witness" --out "$w/x.proof"
one_line_naming "$w/garbage.witness"
head -c 100 "$w/c.proof" >"$w/short.proof"
expect nonzero "short proof file" "$cuzk" verify --vk "$w/c.vk" --proof "$w/short.proof" --witness "$w/c.witness"
one_line_naming "$w/short.proof"
expect nonzero "missing r1cs" "$cuzk" setup --r1cs "$w/nope.r1cs" --params "$w/x.params"
one_line_naming "$w/nope.r1cs"
expect nonzero "garbage wtns" "$cuzk" synth --r1cs "$w/c.r1cs" --wtns "$w/garbage.witness" --out "$w/x.witness"
one_line_naming "$w/garbage.witness"
expect nonzero "witness of another circuit" "$cuzk" synth --r1cs "$w/c.r1cs" --wtns "$w/d.wtns" --out "$w/x.witness"
one_line_naming "$w/d.wtns"
expect 0 "a circuit of another size" "$cuzk" gen-circuit --log-constraints 11 --inputs 3 --r1cs "$w/e.r1cs" --wtns "$w/e.wtns"
expect 0 "its setup" "$cuzk" setup --r1cs "$w/e.r1cs" --params "$w/e.params"
expect nonzero "params of another circuit" "$cuzk" prove --params "$w/e.params" --witness "$w/c.witness" --out "$w/x.proof"
one_line_naming "$w/c.witness"

echo "== a file of another kind is named for what it is"
expect 1 "an .r1cs as --params" "$cuzk" prove --params "$w/c.r1cs" --witness "$w/c.witness" --out "$w/x.proof"
one_line_naming "c.r1cs is a circom constraint system (.r1cs), not a parameter file (cuzk setup"
expect 1 "a .wtns as --witness" "$cuzk" prove --params "$w/c.params" --witness "$w/c.wtns" --out "$w/x.proof"
one_line_naming "c.wtns is a circom witness (.wtns), not a cuzk witness file (cuzk synth"
expect 1 "a witness file as --vk" "$cuzk" verify --vk "$w/c.witness" --proof "$w/c.proof" --witness "$w/c.witness"
one_line_naming "c.witness is a cuzk witness file, not a verifying key"
expect 1 "public.json as --proof" "$cuzk" verify --vk "$w/c.vk" --proof "$w/js/public.json" --witness "$w/c.witness"
one_line_naming "public.json is a JSON file, not a proofs file"
expect 1 "the .wtns and .r1cs swapped" "$cuzk" synth --r1cs "$w/c.wtns" --wtns "$w/c.r1cs" --out "$w/x.witness"
one_line_naming "c.wtns is a circom witness (.wtns), not a circom constraint system (.r1cs)"

echo "== usage errors exit 2, everything else 1"
expect 2 "unknown option" "$cuzk" prove --params "$w/c.params" --frobnicate
one_line_naming "--frobnicate"
expect 2 "missing argument" "$cuzk" prove --params
one_line_naming "--params"
expect 2 "missing required option" "$cuzk" prove --params "$w/c.params" --out "$w/x.proof"
one_line_naming "--witness"
expect 2 "unknown command" "$cuzk" frobnicate
one_line_naming "frobnicate"
expect 2 "bad number" "$cuzk" gen-circuit --log-constraints ten --r1cs "$w/x.r1cs" --wtns "$w/x.wtns"
one_line_naming "ten"
expect 2 "unknown backend" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/x.proof" --backend tpu
one_line_naming "tpu"
expect 2 "verify with both --witness and --public" "$cuzk" verify --vk "$w/c.vk" --proof "$w/c.proof" \
	--witness "$w/c.witness" --public "$w/js/public.json"
expect 1 "a missing file is not a usage error" "$cuzk" prove --params "$w/nope.params" --witness "$w/c.witness" --out "$w/x.proof"
expect 1 "neither is a wrong proof" "$cuzk" verify --vk "$w/c.vk" --proof "$w/bad.proof" --witness "$w/c.witness"

echo "== the GPU backend"
# Without --backend, prove takes the GPU when a CUDA device is usable (as
# cuzkd's backend = auto does), else the CPU.
gpu_usable=no
grep -q '^#define CUZK_HAVE_CUDA 1' config.h 2>/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU' && gpu_usable=yes
expect 0 "prove without --backend" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/a.proof" --seed 5
if [ $gpu_usable = yes ]; then want="gpu backend"; else want="cpu backend"; fi
grep -q "($want" "$work/out" && pass "  on the $want" || fail "  not on the $want"
expect 0 "  and with --backend cpu" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/a-cpu.proof" \
	--seed 5 --backend cpu
cmp -s "$w/a.proof" "$w/a-cpu.proof" && pass "  the same proof" || fail "  a different proof"
expect 0 "--backend auto" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/a.proof" --backend auto
if ! grep -q '^#define CUZK_HAVE_CUDA 1' config.h 2>/dev/null; then
	expect nonzero "--backend gpu without the GPU backend" \
		"$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/x.proof" --backend gpu
	one_line_naming "without the GPU backend"
	[ -e "$w/x.proof" ] && fail "  it wrote a proof file" || pass "  no proof file written"
elif nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
	expect 0 "--backend gpu --seed 5" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" \
		--out "$w/g.proof" --backend gpu --seed 5
	cmp -s "$w/g.proof" "$w/s1.proof" && pass "  GPU proof == CPU proof, byte for byte" || fail "  GPU and CPU proofs differ"
	expect 0 "--backend gpu, three partitions" "$cuzk" prove --params "$w/c.params" --witness "$w/p3.witness" \
		--out "$w/g3.proof" --backend gpu --seed 5
	cmp -s "$w/g3.proof" "$w/p3.proof" && pass "  == the CPU proofs" || fail "  GPU and CPU proofs differ"
else
	expect nonzero "--backend gpu with no GPU visible" \
		"$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/x.proof" --backend gpu
	one_line_naming "--backend gpu"
fi

test_result
