// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Synthesis of a tiny hand-made circuit: a, b, c values, the appended input
 * constraints, the density bitmaps, the unsatisfied constraint named, and
 * the witness file written and mapped back. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devtools/synth.h"
#include "formats/witness_file.h"
#include "tests/test_files.h"

/* z = (1, out, x, y, t): t = x·y (row 0), out = t + x (row 1: (t + x)·1 = out)
 *     and (y − 2)·(y − 3)... kept simple: row 2: y·y = s with s an aux too.
 * Variables: 0 = one, 1 = out (input), 2 = x, 3 = y, 4 = t, 5 = s. */
static r1cs_term T(uint64_t var, uint64_t coeff)
{
	r1cs_term t;
	t.var = var;
	fr_from_u64(&t.coeff, coeff);
	return t;
}

static size_t off_a[4] = { 0, 1, 3, 4 }, off_b[4] = { 0, 1, 2, 3 }, off_c[4] = { 0, 1, 2, 3 };

static void make_circuit(r1cs *cs, r1cs_term *ta, r1cs_term *tb, r1cs_term *tc)
{
	ta[0] = T(2, 1);                    /* x */
	ta[1] = T(4, 1), ta[2] = T(2, 1);   /* t + x */
	ta[3] = T(3, 1);                    /* y */
	tb[0] = T(3, 1);                    /* y */
	tb[1] = T(0, 1);                    /* 1 */
	tb[2] = T(3, 1);                    /* y */
	tc[0] = T(4, 1);                    /* t */
	tc[1] = T(1, 1);                    /* out */
	tc[2] = T(5, 1);                    /* s */
	cs->num_inputs = 2;
	cs->num_aux = 4;
	cs->num_constraints = 3;
	cs->a = (r1cs_matrix){ off_a, ta };
	cs->b = (r1cs_matrix){ off_b, tb };
	cs->c = (r1cs_matrix){ off_c, tc };
}

static void test_synth_values(void)
{
	r1cs cs;
	r1cs_term ta[4], tb[3], tc[3];
	make_circuit(&cs, ta, tb, tc);
	fr_t z[6];
	uint64_t x = 3, y = 5;
	uint64_t vals[6] = { 1, x * y + x, x, y, x * y, y * y };
	for (int i = 0; i < 6; i++)
		fr_from_u64(&z[i], vals[i]);

	groth16_synth s;
	cuzk_error err;
	REQUIRE(groth16_synthesize(&s, &cs, z, 6, &err) == 0);
	CHECK(s.num_constraints == 5 && s.num_inputs == 2 && s.num_aux == 4);
	uint64_t want_a[5] = { x, x * y + x, y, 1, x * y + x };
	uint64_t want_b[5] = { y, 1, y, 0, 0 };
	uint64_t want_c[5] = { x * y, x * y + x, y * y, 0, 0 };
	for (int k = 0; k < 5; k++) {
		fr_t e;
		fr_from_u64(&e, want_a[k]);
		CHECK_MSG(fr_eq(&s.a[k], &e), "a[%d]", k);
		fr_from_u64(&e, want_b[k]);
		CHECK_MSG(fr_eq(&s.b[k], &e), "b[%d]", k);
		fr_from_u64(&e, want_c[k]);
		CHECK_MSG(fr_eq(&s.c[k], &e), "c[%d]", k);
	}
	/* aux 0 = x (var 2), 1 = y, 2 = t, 3 = s.  A: x, t, y.  B: y; input one. */
	CHECK(s.a_aux_density[0] == 0x7);
	CHECK(s.b_aux_density[0] == 0x2);
	CHECK(s.b_input_density[0] == 0x1);
	CHECK(groth16_density_popcount(s.a_aux_density, 4) == 3);
	CHECK(groth16_synth_check(&s, &err) == 0);

	groth16_witness_view v;
	groth16_synth_view(&v, &s, z);
	CHECK(v.num_constraints == 5 && v.aux == z + 2 && v.montgomery == 1);

	/* The witness file carries exactly the same view. */
	char path[256];
	test_temp_file(path, sizeof(path), "synth");
	REQUIRE(groth16_witness_file_write(path, &s, z, &err) == 0);
	groth16_witness_map m;
	REQUIRE(groth16_witness_file_open(&m, path, &err) == 0);
	groth16_witness_view fv;
	REQUIRE(groth16_witness_file_view(&fv, &m, 0, &err) == 0);
	CHECK(groth16_witness_file_view(&fv, &m, 1, &err) == -CUZK_E_INVAL);
	CHECK(fv.num_constraints == 5 && fv.num_inputs == 2 && fv.num_aux == 4 && fv.montgomery);
	CHECK(memcmp(fv.a, s.a, 5 * sizeof(fr_t)) == 0 && memcmp(fv.c, s.c, 5 * sizeof(fr_t)) == 0);
	CHECK(memcmp(fv.b, s.b, 5 * sizeof(fr_t)) == 0);
	CHECK(memcmp(fv.input, z, 2 * sizeof(fr_t)) == 0 && memcmp(fv.aux, z + 2, 4 * sizeof(fr_t)) == 0);
	CHECK(fv.a_aux_density[0] == 0x7 && fv.b_aux_density[0] == 0x2 && fv.b_input_density[0] == 1);
	CHECK(groth16_witness_file_close(&m, &err) == 0);
	/* A truncated witness file is rejected by name. */
	REQUIRE(truncate(path, 100) == 0);
	CHECK(groth16_witness_file_open(&m, path, &err) == -CUZK_E_FORMAT);
	CHECK(strstr(err.msg, path) != NULL);
	unlink(path);

	/* A wrong value: row 2 (y·y = s) fails and is named. */
	fr_from_u64(&z[5], y * y + 1);
	groth16_synth_free(&s);
	REQUIRE(groth16_synthesize(&s, &cs, z, 6, &err) == 0);
	CHECK(groth16_synth_check(&s, &err) == -CUZK_E_UNSAT);
	CHECK_MSG(strcmp(err.msg, "constraint 2 not satisfied") == 0, "%s", err.msg);
	/* Two failures: the first is named. */
	fr_from_u64(&z[4], x * y + 7);
	groth16_synth_free(&s);
	REQUIRE(groth16_synthesize(&s, &cs, z, 6, &err) == 0);
	CHECK(groth16_synth_check(&s, &err) == -CUZK_E_UNSAT);
	CHECK_MSG(strcmp(err.msg, "constraint 0 not satisfied") == 0, "%s", err.msg);
	groth16_synth_free(&s);

	/* Shape errors. */
	CHECK(groth16_synthesize(&s, &cs, z, 5, &err) == -CUZK_E_MISMATCH);
	fr_t z0 = z[0];
	z[0] = FR_ZERO;
	CHECK(groth16_synthesize(&s, &cs, z, 6, &err) == -CUZK_E_MISMATCH);
	z[0] = z0;
	tc[2].var = 6;
	CHECK(groth16_synthesize(&s, &cs, z, 6, &err) == -CUZK_E_FORMAT);
	CHECK_MSG(strstr(err.msg, "constraint 2") != NULL, "%s", err.msg);
}

int main(void)
{
	test_synth_values();
	CHECK_DONE();
}
