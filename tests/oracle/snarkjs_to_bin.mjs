#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0 OR MIT
// Rewrites a snarkjs verification key and proof in cuzk's binary layouts (a
// bellperson VerifyingKey, a 192-byte compressed proof), so that run.sh can
// check verify_noble.mjs's binary readers on a proof snarkjs made before
// they judge cuzk's.  snarkjs keys lack beta_g1 and delta_g1, which no
// verifier reads; the G1 generator stands in for them.
//
//   node snarkjs_to_bin.mjs verification_key.json proof.json OUT.vk OUT.proof

import { writeFileSync } from 'node:fs';
import { G1, InputError, parseSnarkjsVk, parseSnarkjsProof } from './noble_groth16.mjs';

function vkBytes(vk) {
	const count = Buffer.alloc(4);
	count.writeUInt32BE(vk.ic.length);
	const g = G1.BASE;
	return Buffer.concat([
		vk.alpha1.toRawBytes(false), g.toRawBytes(false), vk.beta2.toRawBytes(false),
		vk.gamma2.toRawBytes(false), g.toRawBytes(false), vk.delta2.toRawBytes(false),
		count, ...vk.ic.map((p) => p.toRawBytes(false)),
	]);
}

function proofBytes(pr) {
	return Buffer.concat([pr.a.toRawBytes(true), pr.b.toRawBytes(true), pr.c.toRawBytes(true)]);
}

const [vkJson, proofJson, outVk, outProof] = process.argv.slice(2);
if (!outProof) {
	console.error('usage: snarkjs_to_bin.mjs verification_key.json proof.json OUT.vk OUT.proof');
	process.exit(2);
}
try {
	writeFileSync(outVk, vkBytes(parseSnarkjsVk(vkJson)));
	writeFileSync(outProof, proofBytes(parseSnarkjsProof(proofJson)[0]));
} catch (e) {
	if (!(e instanceof InputError)) throw e;
	console.error(`snarkjs_to_bin: ${e.message}`);
	process.exit(2);
}
