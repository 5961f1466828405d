// SPDX-License-Identifier: Apache-2.0 OR MIT
#include "devtools/synth.h"

#include <stdlib.h>
#include <string.h>

#include "common/first_fail.h"
#include "common/parallel.h"
#include "formats/witness_file.h"

#define ROWS_PER_CHUNK 4096

static size_t words_for(size_t bits)
{
	return bits / 64 + (bits % 64 != 0);
}

size_t groth16_density_popcount(const uint64_t *bits, size_t n)
{
	size_t count = 0;
	for (size_t w = 0; w < n / 64; w++)
		count += (size_t)__builtin_popcountll(bits[w]);
	if (n % 64)
		count += (size_t)__builtin_popcountll(bits[n / 64] & ((UINT64_C(1) << (n % 64)) - 1));
	return count;
}

/* Threads set bits of shared bitmaps; the plain read first keeps the
 * common case (already set) free of atomic traffic. */
static void density_set(uint64_t *bits, uint64_t i)
{
	uint64_t mask = UINT64_C(1) << (i % 64);
	if (!(__atomic_load_n(&bits[i / 64], __ATOMIC_RELAXED) & mask))
		__atomic_fetch_or(&bits[i / 64], mask, __ATOMIC_RELAXED);
}

struct synth_ctx {
	groth16_synth *out;
	const groth16_row_source *src;
	const fr_t *z;
	size_t z_len;
	first_fail *bad;       /* rows with a variable out of range */
};

/* <lc, z>; 0 with *ok = 0 when a variable is out of range. */
static void eval_lc(fr_t *r, const r1cs_term *t, size_t n, const fr_t *z, size_t z_len, int *ok)
{
	fr_t acc = FR_ZERO, prod;
	for (size_t i = 0; i < n; i++) {
		if (t[i].var >= z_len) {
			*ok = 0;
			break;
		}
		if (fr_is_one(&t[i].coeff)) {
			fr_add(&acc, &acc, &z[t[i].var]);
		} else {
			fr_mul(&prod, &t[i].coeff, &z[t[i].var]);
			fr_add(&acc, &acc, &prod);
		}
	}
	*r = acc;
}

static void mark_density(const groth16_synth *out, const r1cs_term *t, size_t n, int which)
{
	size_t ni = out->num_inputs;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = t[i].var;
		if (which == 0) {
			if (v >= ni)
				density_set(out->a_aux_density, v - ni);
		} else if (which == 1) {
			if (v >= ni)
				density_set(out->b_aux_density, v - ni);
			else
				density_set(out->b_input_density, v);
		}
	}
}

static void synth_range(void *arg, size_t begin, size_t end, unsigned thread)
{
	struct synth_ctx *c = arg;
	fr_t *dst[3] = { c->out->a, c->out->b, c->out->c };
	r1cs_term scratch[GROTH16_ROW_SCRATCH];
	for (size_t k = begin; k < end; k++) {
		groth16_row row;
		int ok = 1;
		c->src->row(c->src->ctx, k, &row, scratch);
		for (int m = 0; m < 3; m++)
			eval_lc(&dst[m][k], row.terms[m], row.n[m], c->z, c->z_len, &ok);
		if (!ok) {
			c->bad->at[thread] = k;
			return;
		}
		mark_density(c->out, row.terms[0], row.n[0], 0);
		mark_density(c->out, row.terms[1], row.n[1], 1);
	}
}

int groth16_synthesize_into(groth16_synth *out, const groth16_row_source *src, const fr_t *z,
			    size_t z_len, cuzk_error *err)
{
	size_t ni = src->num_inputs;
	if (ni == 0 || z_len != ni + src->num_aux)
		return err_fail(err, CUZK_E_MISMATCH,
				"assignment: %zu values, the circuit has %zu inputs and %zu aux variables",
				z_len, ni, src->num_aux);
	if (!fr_is_one(&z[0]))
		return err_fail(err, CUZK_E_MISMATCH, "assignment: value 0 must be the constant 1");
	out->num_constraints = src->num_rows + ni;
	out->num_inputs = ni;
	out->num_aux = src->num_aux;

	first_fail ff;
	if (first_fail_init(&ff) < 0)
		return err_fail(err, CUZK_E_NOMEM, "synthesis: out of memory");
	struct synth_ctx ctx = { out, src, z, z_len, &ff };
	parallel_for(src->num_rows, ROWS_PER_CHUNK, ff.nthreads, synth_range, &ctx);
	size_t bad = first_fail_finish(&ff);
	if (bad != FIRST_FAIL_NONE)
		return err_fail(err, CUZK_E_FORMAT,
				"constraint %zu: a variable index is >= the %zu variables of the assignment",
				bad, z_len);
	/* bellperson's appended input constraints: input_i · 0 = 0. */
	for (size_t i = 0; i < ni; i++) {
		out->a[src->num_rows + i] = z[i];
		out->b[src->num_rows + i] = FR_ZERO;
		out->c[src->num_rows + i] = FR_ZERO;
	}
	return 0;
}

static void r1cs_row(const void *ctx, size_t k, groth16_row *ret, r1cs_term *scratch)
{
	(void)scratch;
	const r1cs *cs = ctx;
	const r1cs_matrix *m[3] = { &cs->a, &cs->b, &cs->c };
	for (int i = 0; i < 3; i++) {
		ret->terms[i] = m[i]->terms + m[i]->off[k];
		ret->n[i] = m[i]->off[k + 1] - m[i]->off[k];
	}
}

void groth16_r1cs_rows(groth16_row_source *ret, const r1cs *cs)
{
	*ret = (groth16_row_source){ cs->num_constraints, cs->num_inputs, cs->num_aux, r1cs_row, cs };
}

int groth16_synthesize_rows(groth16_synth *ret, const groth16_row_source *src, const fr_t *z, size_t z_len,
			    cuzk_error *err)
{
	groth16_synth s;
	memset(&s, 0, sizeof(s));
	size_t n = src->num_rows + src->num_inputs;
	s.a = malloc(n * sizeof(fr_t));
	s.b = malloc(n * sizeof(fr_t));
	s.c = malloc(n * sizeof(fr_t));
	s.a_aux_density = calloc(words_for(src->num_aux) + 1, sizeof(uint64_t));
	s.b_input_density = calloc(words_for(src->num_inputs) + 1, sizeof(uint64_t));
	s.b_aux_density = calloc(words_for(src->num_aux) + 1, sizeof(uint64_t));
	if (!s.a || !s.b || !s.c || !s.a_aux_density || !s.b_input_density || !s.b_aux_density) {
		groth16_synth_free(&s);
		return err_fail(err, CUZK_E_NOMEM, "synthesis: out of memory for %zu constraints", n);
	}
	int rc = groth16_synthesize_into(&s, src, z, z_len, err);
	if (rc < 0) {
		groth16_synth_free(&s);
		return rc;
	}
	*ret = s;
	return 0;
}

int groth16_synthesize(groth16_synth *ret, const r1cs *cs, const fr_t *z, size_t z_len,
		       cuzk_error *err)
{
	groth16_row_source src;
	groth16_r1cs_rows(&src, cs);
	return groth16_synthesize_rows(ret, &src, z, z_len, err);
}

void groth16_synth_free(groth16_synth *s)
{
	free(s->a);
	free(s->b);
	free(s->c);
	free(s->a_aux_density);
	free(s->b_input_density);
	free(s->b_aux_density);
	memset(s, 0, sizeof(*s));
}

struct check_ctx {
	const groth16_synth *s;
	first_fail *bad;
};

static void check_range(void *arg, size_t begin, size_t end, unsigned thread)
{
	struct check_ctx *c = arg;
	for (size_t k = begin; k < end; k++) {
		fr_t ab;
		fr_mul(&ab, &c->s->a[k], &c->s->b[k]);
		if (!fr_eq(&ab, &c->s->c[k])) {
			c->bad->at[thread] = k;
			return;
		}
	}
}

int groth16_synth_check(const groth16_synth *s, cuzk_error *err)
{
	first_fail ff;
	if (first_fail_init(&ff) < 0)
		return err_fail(err, CUZK_E_NOMEM, "satisfiability check: out of memory");
	struct check_ctx ctx = { s, &ff };
	parallel_for(s->num_constraints, ROWS_PER_CHUNK, ff.nthreads, check_range, &ctx);
	size_t bad = first_fail_finish(&ff);
	if (bad != FIRST_FAIL_NONE)
		return err_fail(err, CUZK_E_UNSAT, "constraint %zu not satisfied", bad);
	return 0;
}

void groth16_synth_view(groth16_witness_view *ret, const groth16_synth *s, const fr_t *z)
{
	*ret = (groth16_witness_view){
		.num_constraints = s->num_constraints,
		.num_inputs = s->num_inputs,
		.num_aux = s->num_aux,
		.montgomery = 1,
		.a = s->a,
		.b = s->b,
		.c = s->c,
		.input = z,
		.aux = z + s->num_inputs,
		.a_aux_density = s->a_aux_density,
		.b_input_density = s->b_input_density,
		.b_aux_density = s->b_aux_density,
	};
}

int groth16_witness_file_write(const char *path, const struct groth16_synth *s, const fr_t *z,
			       cuzk_error *err)
{
	groth16_witness_map m;
	int rc = groth16_witness_file_create(&m, path, s->num_constraints, s->num_inputs, s->num_aux,
					     CUZK_WITNESS_MONTGOMERY, err);
	if (rc < 0)
		return rc;
	const void *src[CUZK_SEC__COUNT] = {
		[CUZK_SEC_A] = s->a,
		[CUZK_SEC_B] = s->b,
		[CUZK_SEC_C] = s->c,
		[CUZK_SEC_INPUT] = z,
		[CUZK_SEC_AUX] = z + s->num_inputs,
		[CUZK_SEC_A_AUX_DENSITY] = s->a_aux_density,
		[CUZK_SEC_B_INPUT_DENSITY] = s->b_input_density,
		[CUZK_SEC_B_AUX_DENSITY] = s->b_aux_density,
	};
	for (int sec = 0; sec < CUZK_SEC__COUNT; sec++)
		if (m.desc.len[sec])
			memcpy(groth16_witness_file_section(&m, 0, sec), src[sec], m.desc.len[sec]);
	return groth16_witness_file_close(&m, err);
}
