// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Micro-benchmarks of the CPU arithmetic: ns per operation, one thread;
 * last, a proof's assembly from its query sums (src/prover/assemble.h).
 * Usage: bench_bls [scale]   (scale multiplies the iteration counts) */
#include <stdio.h>
#include <stdlib.h>

#include "bls12_381/pairing.h"
#include "common/clock.h"
#include "common/rand.h"
#include "prover/assemble.h"

/* Runs stmt iters times, three rounds, and prints the best round's ns per
 * call: other load on the machine only ever makes a round slower. */
#define BENCH(what, iters, stmt)                                               \
	do {                                                                   \
		double best_ = 0;                                              \
		for (int round_ = 0; round_ < 3; round_++) {                   \
			double t0_ = monotonic_ms();                           \
			for (long i_ = 0; i_ < (iters); i_++)                  \
				stmt;                                          \
			double ns_ = (monotonic_ms() - t0_) * 1e6 / (double)(iters); \
			if (round_ == 0 || ns_ < best_)                        \
				best_ = ns_;                                   \
		}                                                              \
		printf("%-28s %12.1f ns\n", what, best_);                      \
	} while (0)

int main(int argc, char **argv)
{
	long scale = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	if (scale < 1)
		scale = 1;
	rng_t rng;
	rng_seed(&rng, 1);
	fp_t a, b;
	fr_t fa, fb;
	fp_from_u64(&a, rng_next(&rng));
	fp_from_u64(&b, rng_next(&rng));
	fp_inv(&b, &b);
	fr_from_u64(&fa, rng_next(&rng));
	fr_from_u64(&fb, rng_next(&rng));
	fr_inv(&fb, &fb);

	long n = 2000000 * scale;
	BENCH("fp_mul", n, fp_mul(&a, &a, &b));
	BENCH("fp_sqr", n, fp_sqr(&a, &a));
	BENCH("fp_mul_ref", n, fp_mul_ref(&a, &a, &b));
	BENCH("fr_mul", n, fr_mul(&fa, &fa, &fb));
	BENCH("fp_add", n, fp_add(&a, &a, &b));
	long ni = 2000 * scale;
	BENCH("fp_inv", ni, fp_inv(&a, &a));
	BENCH("fp_inv_vartime", ni, fp_inv_vartime(&a, &a));
	BENCH("fp_mul_portable", n, fp_mul_portable(&a, &a, &b));
	BENCH("fr_mul_portable", n, fr_mul_portable(&fa, &fa, &fb));

	g1_jac_t j1;
	g2_jac_t j2;
	g1_aff_t p1;
	g2_aff_t p2;
	uint64_t k[4] = { rng_next(&rng), rng_next(&rng), rng_next(&rng), rng_next(&rng) >> 2 };
	g1_from_affine(&j1, &G1_GENERATOR);
	g1_mul(&j1, &j1, k);
	g1_to_affine(&p1, &j1);
	g2_from_affine(&j2, &G2_GENERATOR);
	g2_mul(&j2, &j2, k);
	g2_to_affine(&p2, &j2);

	long ne = 200000 * scale;
	g1_from_affine(&j1, &G1_GENERATOR);
	BENCH("g1_add_affine (mixed)", ne, g1_add_affine(&j1, &j1, &p1));
	BENCH("g1_dbl", ne, g1_dbl(&j1, &j1));
	g1_jac_t j1b = j1;
	BENCH("g1_add (jacobian)", ne, g1_add(&j1, &j1, &j1b));
	g2_from_affine(&j2, &G2_GENERATOR);
	BENCH("g2_add_affine (mixed)", ne, g2_add_affine(&j2, &j2, &p2));
	BENCH("g2_dbl", ne, g2_dbl(&j2, &j2));

	long nm = 200 * scale;
	BENCH("g1_mul (256-bit)", nm, g1_mul(&j1, &j1, k));
	BENCH("g2_mul (256-bit)", nm, g2_mul(&j2, &j2, k));
	g1_jac_t j1c = j1;
	BENCH("g1_mul2 (two 256-bit)", nm, g1_mul2(&j1, &j1, k, &j1c, k));
	g1_to_affine(&p1, &j1);
	g2_to_affine(&p2, &j2);
	int in = 0;
	BENCH("g1_aff_in_subgroup", nm, in += g1_aff_in_subgroup(&p1));
	BENCH("g2_aff_in_subgroup", nm, in += g2_aff_in_subgroup(&p2));

	long np = 50 * scale;
	fp12_t f, e;
	BENCH("miller_loop (1 pair)", np, bls_miller_loop(&f, &p1, &p2, 1));
	BENCH("final_exp", np, bls_final_exp(&e, &f));
	BENCH("pairing", np, bls_pairing(&e, &p1, &p2));

	/* The assembly, on points that stand for a key and the sums: the
	 * whole of it (what the CPU prover runs after its MSMs), and its two
	 * halves (the GPU backend runs the precompute during the device's). */
	groth16_vk vk = { .alpha_g1 = p1, .beta_g1 = p1, .delta_g1 = p1, .beta_g2 = p2, .delta_g2 = p2 };
	groth16_query_sums q = { .h = j1, .l = j1, .a = j1, .b_g1 = j1, .b_g2 = j2 };
	groth16_assembly_pre pre, pre0;
	groth16_proof pf;
	BENCH("groth16_assemble", nm, groth16_assemble(&pf, &vk, &q, &fa, &fb));
	BENCH("  its precompute", nm, groth16_assemble_precompute(&pre0, &vk, &fa, &fb));
	/* the finish scrubs pre: each call gets a fresh copy */
	BENCH("  its finish", nm, (pre = pre0, groth16_assemble_finish(&pf, &pre, &q)));

	/* keep the results alive */
	printf("(checksum %llx %llx %d %d)\n", (unsigned long long)a.l[0], (unsigned long long)fa.l[0], in,
	       fp12_is_one(&e));
	return 0;
}
