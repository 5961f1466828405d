#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0 OR MIT
// The oracle's verifier: checks cuzk's proofs with @noble/curves
// (noble_groth16.mjs), independently of cuzk's own code.
//
//   node verify_noble.mjs (--params P.params | --vk V.vk) --proof P.proof
//                         (--public public.json | --witness W.witness)
//   node verify_noble.mjs --snarkjs-vk verification_key.json
//                         --snarkjs-proof proof.json --public public.json
//
// The second form reads snarkjs's own JSON; run.sh uses it to show that the
// oracle accepts proofs snarkjs made (and rejects tampered ones) before it is
// trusted with ours.  A proof file with several partitions is checked
// partition by partition, each against its own inputs (witness file) or
// against public.json (one array for all, or an array of arrays).
//
// Exit status: 0 every proof valid, 1 some proof invalid, 2 bad usage or an
// unreadable / malformed file (one line on stderr naming the file).

import {
	InputError, fail, parseVk, parseProofs, parseSnarkjsVk, parseSnarkjsProof, parsePublicJson,
	parseWitnessInputs, verify,
} from './noble_groth16.mjs';

function parseArgs(argv) {
	const known = ['--params', '--vk', '--proof', '--public', '--witness', '--snarkjs-vk', '--snarkjs-proof'];
	const opt = {};
	for (let i = 0; i < argv.length; i++) {
		const k = argv[i];
		if (k === '--help' || k === '-h') {
			opt.help = true;
			continue;
		}
		if (!known.includes(k)) fail(`unknown option ${k}`);
		if (i + 1 >= argv.length) fail(`${k} needs a file`);
		opt[k.slice(2)] = argv[++i];
	}
	return opt;
}

const USAGE = `usage: verify_noble.mjs (--params P | --vk V) --proof PROOF (--public public.json | --witness W)
       verify_noble.mjs --snarkjs-vk verification_key.json --snarkjs-proof proof.json --public public.json`;

function main(argv) {
	const opt = parseArgs(argv);
	if (opt.help) {
		console.log(USAGE);
		return 0;
	}
	let vk, proofs;
	if (opt['snarkjs-vk'] || opt['snarkjs-proof']) {
		if (!opt['snarkjs-vk'] || !opt['snarkjs-proof']) fail('--snarkjs-vk and --snarkjs-proof go together');
		vk = parseSnarkjsVk(opt['snarkjs-vk']);
		proofs = parseSnarkjsProof(opt['snarkjs-proof']);
	} else {
		const key = opt.vk || opt.params;
		if (!key || (opt.vk && opt.params)) fail('give one of --vk or --params');
		if (!opt.proof) fail('--proof is required');
		vk = parseVk(key);
		proofs = parseProofs(opt.proof);
	}
	if (!!opt.public === !!opt.witness) fail('give one of --public or --witness');
	let inputs = opt.public ? parsePublicJson(opt.public) : parseWitnessInputs(opt.witness);
	const perPartition = inputs.length > 0 && Array.isArray(inputs[0]);
	if (!perPartition) inputs = proofs.map(() => inputs);
	if (inputs.length !== proofs.length)
		fail(`${opt.public || opt.witness}: ${inputs.length} partitions for ${proofs.length} proofs`);
	let bad = 0;
	proofs.forEach((pr, p) => {
		const why = verify(vk, pr, inputs[p]);
		console.log(`partition ${p}: ${why ? 'INVALID: ' + why : 'valid'}`);
		if (why) bad++;
	});
	return bad ? 1 : 0;
}

try {
	process.exitCode = main(process.argv.slice(2));
} catch (e) {
	if (!(e instanceof InputError)) throw e;
	console.error(`verify_noble: ${e.message}`);
	process.exitCode = 2;
}
