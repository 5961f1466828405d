// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Mixing r and s into the five query sums (docs/GROTH16.md, "The math"):
 *
 *   A = α₁ + ΣA + r·δ₁
 *   B = β₂ + ΣB_G2 + s·δ₂
 *   C = s·A + r·B₁ − r·s·δ₁ + ΣH + ΣL,   B₁ = β₁ + ΣB_G1 + s·δ₁
 *
 * With s·A = s·α₁ + s·ΣA + r·s·δ₁ and r·B₁ = r·β₁ + r·ΣB_G1 + r·s·δ₁,
 *
 *   C = (s·α₁ + r·β₁ + r·s·δ₁) + s·ΣA + r·ΣB_G1 + ΣH + ΣL,
 *
 * and the bracket, α₁ + r·δ₁ and β₂ + s·δ₂ depend on the verifying key, r
 * and s alone.  So the assembly is two steps: the precompute, which can run
 * while the query sums are still being computed (the GPU backend runs it on
 * a host thread during the device's MSMs), and the finish, which needs the
 * sums: one double-scalar multiplication (s·ΣA + r·ΣB_G1), additions and
 * the affine conversions.  The group elements are the same as the formula's
 * above and the affine form is canonical, so the proof's bytes are too. */
#ifndef CUZK_PROVER_ASSEMBLE_H
#define CUZK_PROVER_ASSEMBLE_H

#include "prover/types.h"

/* The five query sums of a proof, before r and s are mixed in.  Both
 * backends compute them and share the assembly, so a GPU proof is the
 * CPU proof byte for byte. */
typedef struct groth16_query_sums {
	g1_jac_t h, l, a, b_g1;
	g2_jac_t b_g2;
} groth16_query_sums;

/* What the finish needs of the key, r and s.  Secret: r and s can be
 * recovered from it. */
typedef struct groth16_assembly_pre {
	g1_jac_t a;                /* α₁ + r·δ₁ */
	g2_jac_t b;                /* β₂ + s·δ₂ */
	g1_jac_t c;                /* s·α₁ + r·β₁ + r·s·δ₁ */
	uint64_t r[4], s[4];       /* canonical limbs, for s·ΣA + r·ΣB_G1 */
} groth16_assembly_pre;

/* pre from vk and r, s (Montgomery form).  Reads nothing else, so it may
 * run on another thread while the sums are computed; the caller keeps r, s
 * and vk alive meanwhile. */
void groth16_assemble_precompute(groth16_assembly_pre *pre, const groth16_vk *vk, const fr_t *r, const fr_t *s);

/* The proof from pre and the sums; then scrubs *pre (explicit_bzero), which
 * is good for one proof.  A caller that does not finish a precomputed pre
 * scrubs it itself. */
void groth16_assemble_finish(groth16_proof *out, groth16_assembly_pre *pre, const groth16_query_sums *q);

/* Precompute and finish in one: the CPU prover's assembly. */
void groth16_assemble(groth16_proof *out, const groth16_vk *vk, const groth16_query_sums *q,
		      const fr_t *r, const fr_t *s);

#endif
