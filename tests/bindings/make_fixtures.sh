#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR MIT
# Regenerates fixtures/: circuits compiled by circom (npm circom2, BLS12-381)
# and their witnesses computed by circom's wasm (snarkjs wtns calculate),
# from tests/oracle/circuits.  The Rust and Go bindings' tests synthesize
# them with their own constraint writers and compare with `cuzk synth`.  Not
# run by make check: CI has node, but the bindings' tests must not depend on
# it.  usage: tests/bindings/make_fixtures.sh   (needs tests/oracle/node_modules)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
circuits=$here/../oracle/circuits
bin=$here/../oracle/node_modules/.bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in mulchain bits; do
	"$bin/circom2" "$circuits/$c.circom" --r1cs --wasm --prime bls12381 -o "$tmp" >/dev/null
	"$bin/snarkjs" wtns calculate "$tmp/${c}_js/$c.wasm" "$circuits/$c.input.json" "$here/fixtures/$c.wtns"
	cp "$tmp/$c.r1cs" "$here/fixtures/$c.r1cs"
done
