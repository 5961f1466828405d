// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "prover/gpu_host_ops.h"

#include <string.h>

#include "bls12_381/g1.h"
#include "bls12_381/g2.h"

_Static_assert(sizeof(g1_jac_t) == 18 * sizeof(uint64_t) && sizeof(g2_jac_t) == 36 * sizeof(uint64_t),
	       "Jacobian points cross the GPU boundary as limb arrays");

/* memcpy in and out: the limb arrays need not be aligned like the structs. */
static void g1_acc(uint64_t acc[18], const uint64_t part[18])
{
	g1_jac_t a, b, r;
	memcpy(&a, acc, sizeof(a));
	memcpy(&b, part, sizeof(b));
	g1_add(&r, &a, &b);
	memcpy(acc, &r, sizeof(r));
}

static void g2_acc(uint64_t acc[36], const uint64_t part[36])
{
	g2_jac_t a, b, r;
	memcpy(&a, acc, sizeof(a));
	memcpy(&b, part, sizeof(b));
	g2_add(&r, &a, &b);
	memcpy(acc, &r, sizeof(r));
}

static void g1_dbl_limbs(uint64_t acc[18])
{
	g1_jac_t a, r;
	memcpy(&a, acc, sizeof(a));
	g1_dbl(&r, &a);
	memcpy(acc, &r, sizeof(r));
}

static void g2_dbl_limbs(uint64_t acc[36])
{
	g2_jac_t a, r;
	memcpy(&a, acc, sizeof(a));
	g2_dbl(&r, &a);
	memcpy(acc, &r, sizeof(r));
}

static const cuzk_gpu_host_ops HOST_OPS = {
	.g1_acc = g1_acc,
	.g2_acc = g2_acc,
	.g1_dbl = g1_dbl_limbs,
	.g2_dbl = g2_dbl_limbs,
};

const cuzk_gpu_host_ops *groth16_gpu_host_ops(void)
{
	return &HOST_OPS;
}
