// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Generated circuits: exactly 2^k prover constraints, satisfied, about a
 * quarter of the aux variables in B, mostly 0/1 aux values, deterministic,
 * and the streamed witness file equal to the materialised synthesis. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtools/gencircuit.h"
#include "devtools/synth.h"
#include "formats/witness_file.h"
#include "prover/prover.h"
#include "tests/test_files.h"

static void check_shape_of(unsigned k, size_t ni, uint64_t seed, enum gencircuit_shape shape)
{
	gencircuit_spec spec = { k, ni, seed, shape };
	r1cs cs;
	fr_t *z;
	cuzk_error err;
	REQUIRE(gencircuit_build(&spec, &cs, &z, &err) == 0);
	if (shape == GENCIRCUIT_SHAPE_BASIC)
		CHECK(cs.num_constraints + ni == (size_t)1 << k);
	else   /* the real partition's 130,278,869 of 2^27, scaled */
		CHECK(cs.num_constraints + ni == (size_t)((UINT64_C(130278869) << k) >> 27));
	CHECK(groth16_domain_size(cs.num_constraints + ni, NULL) == (size_t)1 << k);
	CHECK(cs.num_inputs == ni);

	groth16_synth s;
	REQUIRE(groth16_synthesize(&s, &cs, z, cs.num_inputs + cs.num_aux, &err) == 0);
	CHECK(s.num_constraints == cs.num_constraints + ni);
	CHECK_MSG(groth16_synth_check(&s, &err) == 0, "k=%u: %s", k, err.msg);

	size_t na = cs.num_aux, zeros = 0, ones = 0;
	for (size_t j = 0; j < na; j++) {
		zeros += fr_is_zero(&z[ni + j]);
		ones += fr_is_one(&z[ni + j]);
	}
	double b_frac = (double)groth16_density_popcount(s.b_aux_density, na) / (double)na;
	double a_frac = (double)groth16_density_popcount(s.a_aux_density, na) / (double)na;
	double zero_frac = (double)zeros / (double)na, one_frac = (double)ones / (double)na;
	double bit_frac = zero_frac + one_frac;
	printf("%s k=%u inputs=%zu: B %.3f, A %.3f of aux; zeros %.3f, ones %.3f, dense %.3f\n",
	       gencircuit_shape_name(shape), k, ni, b_frac, a_frac, zero_frac, one_frac, 1 - bit_frac);
	if (na >= 1000) {
		CHECK_MSG(b_frac > 0.2 && b_frac < 0.3, "B density %.3f", b_frac);
		CHECK_MSG(bit_frac > 0.8 && bit_frac < 0.99, "0/1 fraction %.3f", bit_frac);
		CHECK_MSG(a_frac > 0.6, "A density %.3f", a_frac);
	}
	if (shape == GENCIRCUIT_SHAPE_POREP && na >= 50000) {
		/* the documented split: 45% zeros, 45% ones, 10% dense */
		CHECK_MSG(zero_frac > 0.42 && zero_frac < 0.48, "zeros %.3f", zero_frac);
		CHECK_MSG(one_frac > 0.42 && one_frac < 0.48, "ones %.3f", one_frac);
		CHECK_MSG(1 - bit_frac > 0.09 && 1 - bit_frac < 0.11, "dense %.3f", 1 - bit_frac);
		CHECK_MSG(b_frac > 0.245 && b_frac < 0.255, "B density %.3f", b_frac);
	}
	if (ni > 1 && k >= 10) {  /* dense pivots read public inputs in B */
		size_t want = cs.num_constraints / 4 / 20;   /* half the dense groups or more */
		want = want > 50 ? 50 : want;
		CHECK(!groth16_density_get(s.b_input_density, 0));
		CHECK(groth16_density_popcount(s.b_input_density, ni) >= (ni - 1 < want ? ni - 1 : want));
	}

	/* Same seed, same circuit; another seed, another witness. */
	fr_t *z2;
	REQUIRE(gencircuit_assignment(&spec, &z2, &err) == 0);
	CHECK(memcmp(z, z2, (ni + na) * sizeof(fr_t)) == 0);
	free(z2);
	gencircuit_spec other = { k, ni, seed + 1, shape };
	REQUIRE(gencircuit_assignment(&other, &z2, &err) == 0);
	CHECK(memcmp(z, z2, (ni + na) * sizeof(fr_t)) != 0);
	free(z2);

	/* Tampering with one aux value breaks a constraint that uses it. */
	fr_add(&z[ni + na / 2], &z[ni + na / 2], &FR_ONE);
	groth16_synth_free(&s);
	REQUIRE(groth16_synthesize(&s, &cs, z, ni + na, &err) == 0);
	CHECK(groth16_synth_check(&s, &err) == -CUZK_E_UNSAT);
	groth16_synth_free(&s);
	r1cs_free(&cs);
	free(z);
}

static void check_shape(unsigned k, size_t ni, uint64_t seed)
{
	check_shape_of(k, ni, seed, GENCIRCUIT_SHAPE_BASIC);
}

static void check_streamed(unsigned k, size_t ni, enum gencircuit_shape shape)
{
	gencircuit_spec spec = { k, ni, 7, shape };
	r1cs cs;
	fr_t *z;
	cuzk_error err;
	char path[256];
	test_temp_file(path, sizeof(path), "gen");
	REQUIRE(gencircuit_write_witness(&spec, path, &err) == 0);
	REQUIRE(gencircuit_build(&spec, &cs, &z, &err) == 0);
	groth16_synth s;
	REQUIRE(groth16_synthesize(&s, &cs, z, cs.num_inputs + cs.num_aux, &err) == 0);
	groth16_witness_map m;
	groth16_witness_view v;
	REQUIRE(groth16_witness_file_open(&m, path, &err) == 0);
	REQUIRE(groth16_witness_file_view(&v, &m, 0, &err) == 0);
	size_t n = s.num_constraints, words = (cs.num_aux + 63) / 64;
	CHECK(v.num_constraints == n && v.num_inputs == ni && v.num_aux == cs.num_aux);
	CHECK(memcmp(v.a, s.a, n * sizeof(fr_t)) == 0);
	CHECK(memcmp(v.b, s.b, n * sizeof(fr_t)) == 0);
	CHECK(memcmp(v.c, s.c, n * sizeof(fr_t)) == 0);
	CHECK(memcmp(v.input, z, ni * sizeof(fr_t)) == 0);
	CHECK(memcmp(v.aux, z + ni, cs.num_aux * sizeof(fr_t)) == 0);
	CHECK(memcmp(v.a_aux_density, s.a_aux_density, words * 8) == 0);
	CHECK(memcmp(v.b_aux_density, s.b_aux_density, words * 8) == 0);
	CHECK(memcmp(v.b_input_density, s.b_input_density, ((ni + 63) / 64) * 8) == 0);
	CHECK(groth16_witness_file_close(&m, &err) == 0);
	unlink(path);
	groth16_synth_free(&s);
	r1cs_free(&cs);
	free(z);
}

int main(void)
{
	cuzk_error err;
	gencircuit_spec bad = { 4, 16, 1, GENCIRCUIT_SHAPE_BASIC };
	CHECK(gencircuit_check_spec(&bad, &err) == -CUZK_E_INVAL);
	bad.num_inputs = 0;
	CHECK(gencircuit_check_spec(&bad, &err) == -CUZK_E_INVAL);
	bad = (gencircuit_spec){ 40, 2, 1, GENCIRCUIT_SHAPE_BASIC };
	CHECK(gencircuit_check_spec(&bad, &err) == -CUZK_E_INVAL);

	check_shape(2, 1, 1);
	check_shape(4, 2, 1);
	check_shape(10, 2, 3);
	check_shape(12, 328, 5);
	check_shape(16, GENCIRCUIT_DEFAULT_INPUTS, 9);
	check_streamed(8, 1, GENCIRCUIT_SHAPE_BASIC);
	check_streamed(12, 40, GENCIRCUIT_SHAPE_BASIC);

	/* PoRep-shaped: 328 inputs, the partition's fill of the domain, the
	 * 45/45/10 split of aux values */
	check_shape_of(10, GENCIRCUIT_POREP_INPUTS, 3, GENCIRCUIT_SHAPE_POREP);
	check_shape_of(17, GENCIRCUIT_POREP_INPUTS, 11, GENCIRCUIT_SHAPE_POREP);
	check_shape_of(6, 2, 1, GENCIRCUIT_SHAPE_POREP);
	check_streamed(12, GENCIRCUIT_POREP_INPUTS, GENCIRCUIT_SHAPE_POREP);
	enum gencircuit_shape sh;
	CHECK(gencircuit_shape_parse(&sh, "porep", &err) == 0 && sh == GENCIRCUIT_SHAPE_POREP);
	CHECK(gencircuit_shape_parse(&sh, "winning", &err) == -CUZK_E_INVAL);
	gencircuit_spec small = { 8, GENCIRCUIT_POREP_INPUTS, 1, GENCIRCUIT_SHAPE_POREP };
	CHECK(gencircuit_check_spec(&small, &err) == -CUZK_E_INVAL);   /* 248 constraints < 328 inputs */
	CHECK_DONE();
}
