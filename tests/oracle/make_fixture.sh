#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Regenerates fixtures/snarkjs-x5rounds/: a proof made by snarkjs itself
# (its own throwaway powers of tau, setup and prover), on which run.sh shows
# that verify_noble.mjs accepts what snarkjs accepts before trusting it with
# cuzk's proofs.  Not run by make check (the tau ceremony takes ~15 s).
# usage: tests/oracle/make_fixture.sh   (from anywhere; needs node_modules)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/node_modules/.bin
out=$here/fixtures/snarkjs-x5rounds
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/circom2" "$here/circuits/x5rounds.circom" --r1cs --wasm --prime bls12381 -o "$tmp" >/dev/null
echo '{"start":"3","key":"12345","salt":"99"}' >"$tmp/in.json"
"$bin/snarkjs" wtns calculate "$tmp/x5rounds_js/x5rounds.wasm" "$tmp/in.json" "$tmp/w.wtns"
"$bin/snarkjs" powersoftau new bls12381 9 "$tmp/p0.ptau" >/dev/null
"$bin/snarkjs" powersoftau contribute "$tmp/p0.ptau" "$tmp/p1.ptau" -e=fixture >/dev/null
"$bin/snarkjs" powersoftau prepare phase2 "$tmp/p1.ptau" "$tmp/p.ptau" >/dev/null
"$bin/snarkjs" groth16 setup "$tmp/x5rounds.r1cs" "$tmp/p.ptau" "$tmp/c.zkey" >/dev/null
mkdir -p "$out"
"$bin/snarkjs" zkey export verificationkey "$tmp/c.zkey" "$out/verification_key.json" >/dev/null
"$bin/snarkjs" groth16 prove "$tmp/c.zkey" "$tmp/w.wtns" "$out/proof.json" "$out/public.json"
"$bin/snarkjs" groth16 verify "$out/verification_key.json" "$out/public.json" "$out/proof.json"
