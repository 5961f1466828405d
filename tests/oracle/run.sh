#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# The independent oracle (make check): circom circuits compiled here by the
# npm package circom2, witnesses by circom's wasm (snarkjs wtns calculate),
# proved by cuzk, and judged by three verifiers that share nothing: cuzk's
# own, @noble/curves (verify_noble.mjs) and snarkjs (on export-snarkjs
# output).  A tampered proof and a wrong public input must be rejected by
# all three.  Before any of that, the oracle itself is checked on a proof
# snarkjs made (fixtures/, see make_fixture.sh).
#
# Runs from the top build directory (automake sets $srcdir); $CUZK overrides
# the cuzk binary.  Needs node >= 18 (skips without node) and runs `npm ci`
# when node_modules is absent (the npm registry must be reachable then).
set -u
srcdir=${srcdir:-.}
here=$srcdir/tests/oracle
cuzk=${CUZK:-./src/cli/cuzk}
work=tests/oracle/work/run.$$

command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed"; exit 77; }
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 18 ] || { echo "SKIP: node $(node --version) is older than 18"; exit 77; }
[ -x "$cuzk" ] || { echo "FAIL: $cuzk is not built"; exit 1; }

# The scripts must sit next to node_modules for their imports to resolve.
# Use the source tree's when someone installed it there; otherwise install
# into the build tree (the source tree may be read-only, as in distcheck).
if [ -d "$here/node_modules/@noble/curves" ]; then
	oracle=$here
else
	oracle=tests/oracle/work/npm
	mkdir -p "$oracle" || exit 1
	cp "$here/package.json" "$here/package-lock.json" "$here"/*.mjs "$oracle/" || exit 1
	if [ ! -d "$oracle/node_modules/@noble/curves" ]; then
		echo "npm ci in $oracle"
		(cd "$oracle" && npm ci --no-audit --no-fund) || { echo "FAIL: npm ci"; exit 1; }
	fi
fi
bin=$oracle/node_modules/.bin
noble() { node "$oracle/verify_noble.mjs" "$@"; }

. "$srcdir/tests/testlib.sh"

# public.json with its first value plus one.
wrong_public() {
	node -e 'const a = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		a[0] = (BigInt(a[0]) + 1n).toString(); console.log(JSON.stringify(a));' "$1"
}

rm -rf "$work"
mkdir -p "$work" || exit 1

echo "== the oracle on a proof snarkjs made"
fx=$here/fixtures/snarkjs-x5rounds
expect 0 "snarkjs accepts its own proof" \
	node "$bin/snarkjs" groth16 verify "$fx/verification_key.json" "$fx/public.json" "$fx/proof.json"
expect 0 "noble accepts snarkjs's proof (JSON)" \
	noble --snarkjs-vk "$fx/verification_key.json" --snarkjs-proof "$fx/proof.json" --public "$fx/public.json"
wrong_public "$fx/public.json" >"$work/fx-wrong.json"
expect nonzero "noble rejects snarkjs's proof with a wrong input" \
	noble --snarkjs-vk "$fx/verification_key.json" --snarkjs-proof "$fx/proof.json" --public "$work/fx-wrong.json"
expect 0 "snarkjs key and proof rewritten in bellperson's binary layouts" \
	node "$oracle/snarkjs_to_bin.mjs" "$fx/verification_key.json" "$fx/proof.json" "$work/fx.vk" "$work/fx.proof"
expect 0 "noble accepts snarkjs's proof (binary)" \
	noble --vk "$work/fx.vk" --proof "$work/fx.proof" --public "$fx/public.json"
flip_byte "$work/fx.proof" 0 32
expect nonzero "noble rejects snarkjs's proof with A negated (binary)" \
	noble --vk "$work/fx.vk" --proof "$work/fx.proof" --public "$fx/public.json"

for src in "$here"/circuits/*.circom; do
	name=$(basename "$src" .circom)
	w=$work/$name
	mkdir -p "$w"
	echo "== $name"
	expect 0 "$name: circom2 compiles it for bls12381" \
		node "$bin/circom2" "$src" --r1cs --wasm --prime bls12381 -o "$w"
	expect 0 "$name: circom's wasm computes the witness" \
		node "$bin/snarkjs" wtns calculate "$w/${name}_js/$name.wasm" "$here/circuits/$name.input.json" "$w/c.wtns"
	expect 0 "$name: cuzk setup" "$cuzk" setup --r1cs "$w/$name.r1cs" --params "$w/c.params" --vk "$w/c.vk" --seed 7
	expect 0 "$name: cuzk synth" "$cuzk" synth --r1cs "$w/$name.r1cs" --wtns "$w/c.wtns" --out "$w/c.witness"
	expect 0 "$name: cuzk prove" "$cuzk" prove --params "$w/c.params" --witness "$w/c.witness" --out "$w/c.proof"
	expect 0 "$name: cuzk verify (vk, witness)" \
		"$cuzk" verify --vk "$w/c.vk" --proof "$w/c.proof" --witness "$w/c.witness"
	expect 0 "$name: noble verify (params, witness)" \
		noble --params "$w/c.params" --proof "$w/c.proof" --witness "$w/c.witness"
	expect 0 "$name: noble verify (vk, witness)" noble --vk "$w/c.vk" --proof "$w/c.proof" --witness "$w/c.witness"
	d=$w/snarkjs
	expect 0 "$name: cuzk export-snarkjs" \
		"$cuzk" export-snarkjs --params "$w/c.params" --proof "$w/c.proof" --witness "$w/c.witness" --dir "$d"
	expect 0 "$name: snarkjs verify accepts cuzk's proof" \
		node "$bin/snarkjs" groth16 verify "$d/verification_key.json" "$d/public.json" "$d/proof.json"
	expect 0 "$name: noble accepts the exported JSON" \
		noble --snarkjs-vk "$d/verification_key.json" --snarkjs-proof "$d/proof.json" --public "$d/public.json"
	expect 0 "$name: cuzk verify (params, public.json)" \
		"$cuzk" verify --params "$w/c.params" --proof "$w/c.proof" --public "$d/public.json"

	# A wrong public input, for each verifier.
	wrong_public "$d/public.json" >"$w/wrong.json"
	expect nonzero "$name: cuzk verify rejects a wrong public input" \
		"$cuzk" verify --vk "$w/c.vk" --proof "$w/c.proof" --public "$w/wrong.json"
	expect nonzero "$name: noble rejects a wrong public input" \
		noble --vk "$w/c.vk" --proof "$w/c.proof" --public "$w/wrong.json"
	expect nonzero "$name: snarkjs rejects a wrong public input" \
		node "$bin/snarkjs" groth16 verify "$d/verification_key.json" "$w/wrong.json" "$d/proof.json"

	# A tampered proof (A negated: still a valid point), for each verifier.
	cp "$w/c.proof" "$w/bad.proof"
	flip_byte "$w/bad.proof" 0 32
	expect nonzero "$name: cuzk verify rejects a tampered proof" \
		"$cuzk" verify --vk "$w/c.vk" --proof "$w/bad.proof" --witness "$w/c.witness"
	expect nonzero "$name: noble rejects a tampered proof" \
		noble --vk "$w/c.vk" --proof "$w/bad.proof" --witness "$w/c.witness"
	expect 0 "$name: export of the tampered proof" \
		"$cuzk" export-snarkjs --params "$w/c.params" --proof "$w/bad.proof" --witness "$w/c.witness" --dir "$w/bad"
	expect nonzero "$name: snarkjs rejects a tampered proof" \
		node "$bin/snarkjs" groth16 verify "$w/bad/verification_key.json" "$w/bad/public.json" "$w/bad/proof.json"
done

echo "== two partitions: two witnesses of mulchain in one file"
w=$work/mulchain
join=${JOIN_WITNESS:-./tests/cli/join_witness}
expect 0 "a second witness" \
	node "$bin/snarkjs" wtns calculate "$w/mulchain_js/mulchain.wasm" "$here/circuits/mulchain.input2.json" "$w/c2.wtns"
expect 0 "cuzk synth" "$cuzk" synth --r1cs "$w/mulchain.r1cs" --wtns "$w/c2.wtns" --out "$w/c2.witness"
expect 0 "joined into one witness file" "$join" "$w/p2.witness" "$w/c.witness" "$w/c2.witness"
expect 0 "cuzk prove: two proofs" "$cuzk" prove --params "$w/c.params" --witness "$w/p2.witness" --out "$w/p2.proof"
expect 0 "cuzk verify, each against its inputs" \
	"$cuzk" verify --vk "$w/c.vk" --proof "$w/p2.proof" --witness "$w/p2.witness"
expect 0 "noble verify, each against its inputs" \
	noble --params "$w/c.params" --proof "$w/p2.proof" --witness "$w/p2.witness"
expect nonzero "noble rejects partition 1 against partition 0's inputs" \
	noble --vk "$w/c.vk" --proof "$w/p2.proof" --public "$w/snarkjs/public.json"
expect nonzero "cuzk verify does too" \
	"$cuzk" verify --vk "$w/c.vk" --proof "$w/p2.proof" --public "$w/snarkjs/public.json"
expect 0 "cuzk export-snarkjs --partition 1" "$cuzk" export-snarkjs --params "$w/c.params" --proof "$w/p2.proof" \
	--witness "$w/p2.witness" --partition 1 --dir "$w/p1"
expect 0 "snarkjs accepts partition 1" \
	node "$bin/snarkjs" groth16 verify "$w/p1/verification_key.json" "$w/p1/public.json" "$w/p1/proof.json"
cmp -s "$w/p1/public.json" "$w/snarkjs/public.json" && fail "partition 1 has partition 0's public inputs" ||
	pass "partition 1 has its own public inputs"

test_result
