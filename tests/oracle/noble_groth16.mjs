// SPDX-License-Identifier: Apache-2.0 OR MIT
// Groth16 over BLS12-381 on @noble/curves, for the oracle: readers for
// cuzk's files (bellperson VK / params prefix, 192-byte proofs, the witness
// file's public inputs), for snarkjs's JSON, and the pairing check.  Shares
// no code with cuzk, so a proof both accept is right by two unrelated
// implementations.  Malformed input throws InputError naming file and field.

import { readFileSync } from 'node:fs';
import { bls12_381 as bls } from '@noble/curves/bls12-381';

export const G1 = bls.G1.ProjectivePoint;
export const G2 = bls.G2.ProjectivePoint;
export const { Fp2, Fp12 } = bls.fields;
export const R = bls.params.r;

export const G1_UNCOMPRESSED = 96;
export const G2_UNCOMPRESSED = 192;
export const PROOF_SIZE = 192;

export class InputError extends Error {}

export function fail(what) {
	throw new InputError(what);
}

function readFile(path) {
	try {
		return readFileSync(path);
	} catch (e) {
		fail(`${path}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
	}
}

function readJson(path) {
	try {
		return JSON.parse(readFile(path).toString('utf8'));
	} catch (e) {
		if (e instanceof InputError) throw e;
		fail(`${path}: not JSON: ${e.message}`);
	}
}

// noble decodes the zcash encodings itself and checks curve and subgroup
// membership, so a malformed point fails here with its offset.
function point(curve, buf, off, len, path, what) {
	if (off + len > buf.length) fail(`${path}: ${what} at offset ${off}: file ends at ${buf.length}`);
	try {
		return curve.fromHex(buf.subarray(off, off + len));
	} catch (e) {
		fail(`${path}: ${what} at offset ${off}: ${e.message}`);
	}
}

// bellperson's VerifyingKey, which is also the start of a Parameters file.
export function parseVk(path) {
	const buf = readFile(path);
	let off = 0;
	const g1 = (what) => { const p = point(G1, buf, off, G1_UNCOMPRESSED, path, what); off += G1_UNCOMPRESSED; return p; };
	const g2 = (what) => { const p = point(G2, buf, off, G2_UNCOMPRESSED, path, what); off += G2_UNCOMPRESSED; return p; };
	const vk = {};
	vk.alpha1 = g1('alpha_g1');
	vk.beta1 = g1('beta_g1');
	vk.beta2 = g2('beta_g2');
	vk.gamma2 = g2('gamma_g2');
	vk.delta1 = g1('delta_g1');
	vk.delta2 = g2('delta_g2');
	if (off + 4 > buf.length) fail(`${path}: ic count at offset ${off}: file ends at ${buf.length}`);
	const n = buf.readUInt32BE(off);
	off += 4;
	if (n < 1 || off + n * G1_UNCOMPRESSED > buf.length)
		fail(`${path}: ic count ${n} at offset ${off - 4} does not fit the file (${buf.length} bytes)`);
	vk.ic = [];
	for (let i = 0; i < n; i++) vk.ic.push(g1(`ic[${i}]`));
	return vk;
}

export function parseProofs(path) {
	const buf = readFile(path);
	if (buf.length === 0 || buf.length % PROOF_SIZE !== 0)
		fail(`${path}: ${buf.length} bytes is not a whole number of ${PROOF_SIZE}-byte proofs`);
	const proofs = [];
	for (let off = 0; off < buf.length; off += PROOF_SIZE) {
		proofs.push({
			a: point(G1, buf, off, 48, path, 'proof A'),
			b: point(G2, buf, off + 48, 96, path, 'proof B'),
			c: point(G1, buf, off + 144, 48, path, 'proof C'),
		});
	}
	return proofs;
}

function decimal(s, path, what) {
	if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) fail(`${path}: ${what} is not a decimal string`);
	return BigInt(s);
}

// snarkjs writes projective coordinates with z = 1 (or 0 for infinity), and
// Fp2 elements as [c0, c1].
function snarkG1(v, path, what) {
	if (!Array.isArray(v) || v.length !== 3) fail(`${path}: ${what} is not a G1 point`);
	const [x, y, z] = v.map((s, i) => decimal(s, path, `${what}[${i}]`));
	if (z === 0n) return G1.ZERO;
	if (z !== 1n) fail(`${path}: ${what} is not normalised (z != 1)`);
	return checked(() => G1.fromAffine({ x, y }), path, what);
}

function snarkFp2(v, path, what) {
	if (!Array.isArray(v) || v.length !== 2) fail(`${path}: ${what} is not an Fp2 element`);
	return Fp2.fromBigTuple(v.map((s, i) => decimal(s, path, `${what}[${i}]`)));
}

function snarkG2(v, path, what) {
	if (!Array.isArray(v) || v.length !== 3) fail(`${path}: ${what} is not a G2 point`);
	const x = snarkFp2(v[0], path, `${what}.x`);
	const y = snarkFp2(v[1], path, `${what}.y`);
	const z = snarkFp2(v[2], path, `${what}.z`);
	if (Fp2.is0(z)) return G2.ZERO;
	if (!Fp2.eql(z, Fp2.ONE)) fail(`${path}: ${what} is not normalised (z != 1)`);
	return checked(() => G2.fromAffine({ x, y }), path, what);
}

function checked(make, path, what) {
	try {
		const p = make();
		p.assertValidity();
		return p;
	} catch (e) {
		fail(`${path}: ${what}: ${e.message}`);
	}
}

export function parseSnarkjsVk(path) {
	const j = readJson(path);
	if (j.protocol !== 'groth16' || j.curve !== 'bls12381')
		fail(`${path}: protocol/curve is ${j.protocol}/${j.curve}, expected groth16/bls12381`);
	if (!Array.isArray(j.IC) || j.IC.length !== j.nPublic + 1)
		fail(`${path}: IC has ${j.IC && j.IC.length} points for nPublic ${j.nPublic}`);
	return {
		alpha1: snarkG1(j.vk_alpha_1, path, 'vk_alpha_1'),
		beta2: snarkG2(j.vk_beta_2, path, 'vk_beta_2'),
		gamma2: snarkG2(j.vk_gamma_2, path, 'vk_gamma_2'),
		delta2: snarkG2(j.vk_delta_2, path, 'vk_delta_2'),
		ic: j.IC.map((p, i) => snarkG1(p, path, `IC[${i}]`)),
	};
}

export function parseSnarkjsProof(path) {
	const j = readJson(path);
	return [{
		a: snarkG1(j.pi_a, path, 'pi_a'),
		b: snarkG2(j.pi_b, path, 'pi_b'),
		c: snarkG1(j.pi_c, path, 'pi_c'),
	}];
}

// public.json: snarkjs's array of decimal strings (one statement for every
// proof), or an array of such arrays (one per partition).
export function parsePublicJson(path) {
	const j = readJson(path);
	if (!Array.isArray(j)) fail(`${path}: not a JSON array`);
	const one = (arr, what) => arr.map((s, i) => decimal(s, path, `${what}[${i}]`));
	if (j.length > 0 && Array.isArray(j[0])) return j.map((arr, p) => one(arr, `partition ${p}`));
	return one(j, 'input');
}

// The input section of each partition of a cuzk witness file
// (src/abi/witness_format.h); input 0 is the constant 1 and is dropped.
export function parseWitnessInputs(path) {
	const buf = readFile(path);
	if (buf.length < 64) fail(`${path}: ${buf.length} bytes is shorter than the 64-byte header`);
	if (buf.subarray(0, 8).toString('latin1') !== 'CUZKWTNS') fail(`${path}: bad magic`);
	const version = buf.readUInt32LE(8);
	if (version !== 1) fail(`${path}: version ${version}, expected 1`);
	const montgomery = (buf.readUInt32LE(12) & 1) !== 0;
	const parts = buf.readUInt32LE(16);
	const numInputs = Number(buf.readBigUInt64LE(32));
	if (parts < 1 || parts > 64 || 64 + 64 * parts > buf.length)
		fail(`${path}: partition count ${parts} does not fit the file`);
	// R^-1 mod r for R = 2^256: undoes Montgomery form.
	const rInv = modPow(2n ** 256n % R, R - 2n, R);
	const out = [];
	for (let p = 0; p < parts; p++) {
		const inputOff = Number(buf.readBigUInt64LE(64 + 64 * p + 3 * 8));
		if (!Number.isSafeInteger(numInputs) || inputOff + numInputs * 32 > buf.length)
			fail(`${path}: partition ${p} input section at ${inputOff} (${numInputs} scalars) exceeds the file`);
		const vals = [];
		for (let i = 1; i < numInputs; i++) {
			let v = 0n;
			for (let l = 3; l >= 0; l--) v = (v << 64n) | buf.readBigUInt64LE(inputOff + 32 * i + 8 * l);
			if (v >= R) fail(`${path}: partition ${p} input ${i} is not below r`);
			vals.push(montgomery ? (v * rInv) % R : v);
		}
		out.push(vals);
	}
	return out;
}

function modPow(b, e, m) {
	let r = 1n;
	b %= m;
	while (e > 0n) {
		if (e & 1n) r = (r * b) % m;
		b = (b * b) % m;
		e >>= 1n;
	}
	return r;
}

// e(A, B) = e(alpha, beta) · e(sum x_i ic_i, gamma) · e(C, delta), x_0 = 1,
// checked as one product of four pairings against 1.  Identity points
// contribute a factor 1 (noble refuses to pair them).
export function verify(vk, proof, inputs) {
	if (inputs.length !== vk.ic.length - 1)
		return `${inputs.length} public inputs for a key with ${vk.ic.length - 1}`;
	let acc = vk.ic[0];
	for (let i = 0; i < inputs.length; i++) {
		if (inputs[i] >= R) return `public input ${i} is not below r`;
		acc = acc.add(vk.ic[i + 1].multiplyUnsafe(inputs[i]));
	}
	const pairs = [
		{ g1: proof.a.negate(), g2: proof.b },
		{ g1: vk.alpha1, g2: vk.beta2 },
		{ g1: acc, g2: vk.gamma2 },
		{ g1: proof.c, g2: vk.delta2 },
	].filter((pr) => !pr.g1.is0() && !pr.g2.is0());
	const f = pairs.length ? bls.pairingBatch(pairs) : Fp12.ONE;
	return Fp12.eql(f, Fp12.ONE) ? null : 'pairing check failed';
}

