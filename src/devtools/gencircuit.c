// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The synthetic storage-proof-like circuit (gencircuit.h describes it).
 *
 * Rows are pure functions of (spec, j); values are found by solving each
 * row for its new variable, whose coefficient in C is ±1 (or, for a
 * boolean pivot p·p = p, drawn as a random bit), so the row layout lives
 * in one place: gencircuit_row_at. */
#include "devtools/gencircuit.h"

#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "formats/witness_file.h"

enum { SALT_KIND = 1, SALT_BIT, SALT_OP, SALT_CONST, SALT_INPUT };

static uint64_t mix64(uint64_t x)
{
	/* splitmix64's finaliser */
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

static uint64_t hash3(uint64_t seed, uint64_t j, uint64_t salt)
{
	return mix64(seed ^ mix64(j * 8 + salt + UINT64_C(0x9e3779b97f4a7c15)));
}

/* A dense field element below 2^254 < r, derived from the hash. */
static void dense_fr(fr_t *r, uint64_t seed, uint64_t j, uint64_t salt)
{
	uint64_t canon[4];
	for (int i = 0; i < 4; i++)
		canon[i] = hash3(seed, j * 4 + (uint64_t)i, salt);
	canon[3] >>= 2;
	fr_to_mont(r, canon);
}

int gencircuit_shape_parse(enum gencircuit_shape *ret, const char *name, cuzk_error *err)
{
	if (!name || strcmp(name, "basic") == 0)
		*ret = GENCIRCUIT_SHAPE_BASIC;
	else if (strcmp(name, "porep") == 0)
		*ret = GENCIRCUIT_SHAPE_POREP;
	else
		return err_fail(err, CUZK_E_INVAL, "--shape '%s': expected basic or porep", name);
	return 0;
}

const char *gencircuit_shape_name(enum gencircuit_shape shape)
{
	return shape == GENCIRCUIT_SHAPE_POREP ? "porep" : "basic";
}

size_t gencircuit_default_inputs(enum gencircuit_shape shape)
{
	return shape == GENCIRCUIT_SHAPE_POREP ? GENCIRCUIT_POREP_INPUTS : GENCIRCUIT_DEFAULT_INPUTS;
}

size_t gencircuit_num_constraints(const gencircuit_spec *spec)
{
	if (spec->shape != GENCIRCUIT_SHAPE_POREP)
		return (size_t)1 << spec->log_constraints;
	/* The real partition's fill of its 2^27 domain at every size; below 2^59
	 * for k <= 32, so the product does not overflow. */
	return (size_t)((GENCIRCUIT_POREP_CONSTRAINTS << spec->log_constraints) >> GENCIRCUIT_POREP_LOG);
}

int gencircuit_check_spec(const gencircuit_spec *spec, cuzk_error *err)
{
	if (spec->shape != GENCIRCUIT_SHAPE_BASIC && spec->shape != GENCIRCUIT_SHAPE_POREP)
		return err_fail(err, CUZK_E_INVAL, "gen-circuit: unknown shape %d", (int)spec->shape);
	if (spec->log_constraints < 2 || spec->log_constraints > GENCIRCUIT_MAX_LOG)
		return err_fail(err, CUZK_E_INVAL, "gen-circuit: log constraints %u is not in 2..%u",
				spec->log_constraints, GENCIRCUIT_MAX_LOG);
	size_t total = gencircuit_num_constraints(spec);
	if (spec->num_inputs < 1 || spec->num_inputs >= total)
		return err_fail(err, CUZK_E_INVAL,
				"gen-circuit: %zu inputs (with the constant 1) must be in 1..%zu for the %zu "
				"constraints of a %s circuit of 2^%u",
				spec->num_inputs, total - 1, total, gencircuit_shape_name(spec->shape),
				spec->log_constraints);
	return 0;
}

size_t gencircuit_num_circuit_constraints(const gencircuit_spec *spec)
{
	return gencircuit_num_constraints(spec) - spec->num_inputs;
}

size_t gencircuit_num_aux(const gencircuit_spec *spec)
{
	return gencircuit_num_circuit_constraints(spec);
}

/* basic: one group in 8; porep: one in 10, so that a tenth of aux is dense. */
static int group_is_dense(const gencircuit_spec *spec, size_t g)
{
	uint64_t h = hash3(spec->seed, g, SALT_KIND);
	return spec->shape == GENCIRCUIT_SHAPE_POREP ? h % 10 == 0 : (h & 7) == 0;
}

static void term(r1cs_term *t, unsigned *n, uint64_t var, const fr_t *coeff)
{
	t[*n].var = var;
	t[*n].coeff = *coeff;
	(*n)++;
}

void gencircuit_row_at(const gencircuit_spec *spec, size_t j, gencircuit_row *ret)
{
	fr_t one = FR_ONE, two, minus_one;
	fr_dbl(&two, &one);
	fr_neg(&minus_one, &one);
	size_t ni = spec->num_inputs;
	size_t g = j / 4, pos = j % 4;
	uint64_t v = ni + j, p = ni + 4 * g;
	gencircuit_row r;
	memset(&r, 0, sizeof(r));

	if (pos == 0 && !group_is_dense(spec, g)) {
		/* boolean pivot: p·p = p */
		term(r.a, &r.n_a, p, &one);
		term(r.b, &r.n_b, p, &one);
		term(r.c, &r.n_c, p, &one);
	} else if (pos == 0) {
		/* dense pivot: (p_prev + c)·x = p, x a public input (or a dense constant) */
		fr_t c;
		fr_from_u64(&c, 1 + hash3(spec->seed, j, SALT_CONST) % 1000);
		if (g > 0)
			term(r.a, &r.n_a, p - 4, &one);
		term(r.a, &r.n_a, 0, &c);
		if (ni > 1) {
			term(r.b, &r.n_b, 1 + g % (ni - 1), &one);
		} else {
			fr_t d;
			dense_fr(&d, spec->seed, j, SALT_CONST);
			term(r.b, &r.n_b, 0, &d);
		}
		term(r.c, &r.n_c, v, &one);
	} else if (spec->shape == GENCIRCUIT_SHAPE_POREP && group_is_dense(spec, g)) {
		/* dense rows: v = x·p, x the pivot itself, then the previous row's */
		term(r.a, &r.n_a, pos > 1 ? v - 1 : p, &one);
		term(r.b, &r.n_b, p, &one);
		term(r.c, &r.n_c, v, &one);
	} else {
		/* x is the previous pivot for the first row of a group, then the
		 * previous row's variable: chains stay inside one group.  PoRep's
		 * boolean groups read a previous pivot only when it is a bit. */
		int prev_ok = g > 0 && (spec->shape != GENCIRCUIT_SHAPE_POREP || !group_is_dense(spec, g - 1));
		uint64_t x = pos > 1 ? v - 1 : prev_ok ? p - 4 : 0;
		uint64_t ho = hash3(spec->seed, j, SALT_OP);
		unsigned op = group_is_dense(spec, g) ? 0 : (unsigned)(ho % 3);
		/* PoRep: AND 2/8, XOR 3/8, OR 3/8, so that as many bits are 1 as 0
		 * (uniform ops leave 47% ones: AND chains on one pivot keep zeros). */
		if (spec->shape == GENCIRCUIT_SHAPE_POREP)
			op = (unsigned)(ho & 7) < 2 ? 0 : (unsigned)(ho & 7) < 5 ? 1 : 2;
		term(r.b, &r.n_b, p, &one);
		switch (op) {
		case 0: /* AND, or a plain product in dense groups: x·p = v */
			term(r.a, &r.n_a, x, &one);
			term(r.c, &r.n_c, v, &one);
			break;
		case 1: /* XOR: 2x·p = x + p − v */
			term(r.a, &r.n_a, x, &two);
			term(r.c, &r.n_c, x, &one);
			term(r.c, &r.n_c, p, &one);
			term(r.c, &r.n_c, v, &minus_one);
			break;
		default: /* OR: x·p = x + p − v */
			term(r.a, &r.n_a, x, &one);
			term(r.c, &r.n_c, x, &one);
			term(r.c, &r.n_c, p, &one);
			term(r.c, &r.n_c, v, &minus_one);
			break;
		}
	}
	*ret = r;
}

static void eval(fr_t *r, const r1cs_term *t, unsigned n, const fr_t *z, uint64_t skip)
{
	fr_t acc = FR_ZERO, prod;
	for (unsigned i = 0; i < n; i++) {
		if (t[i].var == skip)
			continue;
		fr_mul(&prod, &t[i].coeff, &z[t[i].var]);
		fr_add(&acc, &acc, &prod);
	}
	*r = acc;
}

/* Sets z[v] for row j's new variable v, all earlier variables it reads
 * being set. */
static void solve_row(const gencircuit_spec *spec, size_t j, fr_t *z)
{
	gencircuit_row row;
	uint64_t v = spec->num_inputs + j;
	gencircuit_row_at(spec, j, &row);
	if (row.n_a == 1 && row.a[0].var == v) {
		/* boolean pivot */
		z[v] = (hash3(spec->seed, j, SALT_BIT) & 1) ? FR_ONE : FR_ZERO;
		return;
	}
	fr_t a, b, rest, ab;
	eval(&a, row.a, row.n_a, z, UINT64_MAX);
	eval(&b, row.b, row.n_b, z, UINT64_MAX);
	eval(&rest, row.c, row.n_c, z, v);
	fr_mul(&ab, &a, &b);
	/* C = rest + coeff·v with coeff = ±1 (the last term of C) */
	fr_sub(&ab, &ab, &rest);
	if (fr_is_one(&row.c[row.n_c - 1].coeff))
		z[v] = ab;
	else
		fr_neg(&z[v], &ab);
}

struct assign_ctx {
	const gencircuit_spec *spec;
	fr_t *z;
	size_t rows;
};

static void boolean_pivots(void *arg, size_t begin, size_t end, unsigned thread)
{
	struct assign_ctx *c = arg;
	for (size_t g = begin; g < end; g++)
		if (!group_is_dense(c->spec, g))
			solve_row(c->spec, 4 * g, c->z);
}

static void group_rows(void *arg, size_t begin, size_t end, unsigned thread)
{
	struct assign_ctx *c = arg;
	for (size_t g = begin; g < end; g++)
		for (size_t j = 4 * g + 1; j < 4 * g + 4 && j < c->rows; j++)
			solve_row(c->spec, j, c->z);
}

/* Fills z (num_inputs + num_aux values).  Only dense pivots depend on the
 * group before (a chain through consecutive dense groups), so they are
 * solved in one cheap sequential pass; boolean pivots and the other rows
 * of each group are independent across groups and run in parallel. */
static void fill_assignment(const gencircuit_spec *spec, fr_t *z)
{
	size_t ni = spec->num_inputs, rows = gencircuit_num_circuit_constraints(spec);
	size_t groups = (rows + 3) / 4;
	z[0] = FR_ONE;
	for (size_t i = 1; i < ni; i++)
		dense_fr(&z[i], spec->seed, i, SALT_INPUT);
	struct assign_ctx ctx = { spec, z, rows };
	parallel_for(groups, 1u << 14, 0, boolean_pivots, &ctx);
	for (size_t g = 0; g < groups; g++)
		if (group_is_dense(spec, g))
			solve_row(spec, 4 * g, z);
	parallel_for(groups, 1u << 12, 0, group_rows, &ctx);
}

int gencircuit_assignment(const gencircuit_spec *spec, fr_t **ret_z, cuzk_error *err)
{
	int rc = gencircuit_check_spec(spec, err);
	if (rc < 0)
		return rc;
	size_t n = spec->num_inputs + gencircuit_num_aux(spec);
	fr_t *z = malloc(n * sizeof(*z));
	if (!z)
		return err_fail(err, CUZK_E_NOMEM, "gen-circuit: out of memory for %zu values", n);
	fill_assignment(spec, z);
	*ret_z = z;
	return 0;
}

static void gen_row(const void *ctx, size_t k, groth16_row *ret, r1cs_term *scratch)
{
	gencircuit_row row;
	gencircuit_row_at(ctx, k, &row);
	memcpy(scratch, row.a, row.n_a * sizeof(r1cs_term));
	memcpy(scratch + GENCIRCUIT_MAX_TERMS, row.b, row.n_b * sizeof(r1cs_term));
	memcpy(scratch + 2 * GENCIRCUIT_MAX_TERMS, row.c, row.n_c * sizeof(r1cs_term));
	for (int m = 0; m < 3; m++)
		ret->terms[m] = scratch + m * GENCIRCUIT_MAX_TERMS;
	ret->n[0] = row.n_a;
	ret->n[1] = row.n_b;
	ret->n[2] = row.n_c;
}

_Static_assert(3 * GENCIRCUIT_MAX_TERMS <= GROTH16_ROW_SCRATCH, "a row fits the scratch terms");

void gencircuit_rows(const gencircuit_spec *spec, groth16_row_source *ret)
{
	*ret = (groth16_row_source){ gencircuit_num_circuit_constraints(spec), spec->num_inputs,
				     gencircuit_num_aux(spec), gen_row, spec };
}

/* Two passes over the rows (count, then copy), all three matrices at once. */
static int build_matrices(r1cs *cs, const gencircuit_spec *spec)
{
	size_t rows = cs->num_constraints;
	r1cs_matrix *m[3] = { &cs->a, &cs->b, &cs->c };
	size_t total[3] = { 0, 0, 0 };
	for (int i = 0; i < 3; i++)
		if (!(m[i]->off = malloc((rows + 1) * sizeof(size_t))))
			return -1;
	for (size_t j = 0; j < rows; j++) {
		gencircuit_row row;
		gencircuit_row_at(spec, j, &row);
		unsigned n[3] = { row.n_a, row.n_b, row.n_c };
		for (int i = 0; i < 3; i++) {
			m[i]->off[j] = total[i];
			total[i] += n[i];
		}
	}
	for (int i = 0; i < 3; i++) {
		m[i]->off[rows] = total[i];
		if (!(m[i]->terms = malloc((total[i] ? total[i] : 1) * sizeof(r1cs_term))))
			return -1;
	}
	for (size_t j = 0; j < rows; j++) {
		gencircuit_row row;
		gencircuit_row_at(spec, j, &row);
		const r1cs_term *src[3] = { row.a, row.b, row.c };
		for (int i = 0; i < 3; i++)
			memcpy(m[i]->terms + m[i]->off[j], src[i],
			       (m[i]->off[j + 1] - m[i]->off[j]) * sizeof(r1cs_term));
	}
	return 0;
}

int gencircuit_build(const gencircuit_spec *spec, r1cs *ret_cs, fr_t **ret_z, cuzk_error *err)
{
	fr_t *z;
	int rc = gencircuit_assignment(spec, &z, err);
	if (rc < 0)
		return rc;
	r1cs cs;
	memset(&cs, 0, sizeof(cs));
	cs.num_inputs = spec->num_inputs;
	cs.num_aux = gencircuit_num_aux(spec);
	cs.num_constraints = gencircuit_num_circuit_constraints(spec);
	if (build_matrices(&cs, spec) < 0) {
		r1cs_free(&cs);
		free(z);
		return err_fail(err, CUZK_E_NOMEM, "gen-circuit: out of memory for the R1CS of 2^%u constraints",
				spec->log_constraints);
	}
	*ret_cs = cs;
	*ret_z = z;
	return 0;
}

int gencircuit_write_witness(const gencircuit_spec *spec, const char *path, cuzk_error *err)
{
	int rc = gencircuit_check_spec(spec, err);
	if (rc < 0)
		return rc;
	size_t ni = spec->num_inputs, na = gencircuit_num_aux(spec);
	size_t rows = gencircuit_num_circuit_constraints(spec);
	groth16_witness_map m;
	rc = groth16_witness_file_create(&m, path, rows + ni, ni, na, CUZK_WITNESS_MONTGOMERY, err);
	if (rc < 0)
		return rc;
	/* With an even number of inputs the input section fills whole 64-byte
	 * blocks and aux follows it directly: z is then the file itself and
	 * nothing but the file's pages is needed (2^27 constraints: 4 GiB saved). */
	fr_t *in_file = groth16_witness_file_section(&m, 0, CUZK_SEC_INPUT);
	int contiguous = (void *)(in_file + ni) == groth16_witness_file_section(&m, 0, CUZK_SEC_AUX);
	fr_t *z = contiguous ? in_file : malloc((ni + na) * sizeof(*z));
	if (!z) {
		groth16_witness_file_close(&m, NULL);
		return err_fail(err, CUZK_E_NOMEM, "gen-circuit: out of memory for %zu values", ni + na);
	}
	fill_assignment(spec, z);
	/* The new file is zero-filled, as the bitmaps must start. */
	groth16_synth s = {
		.a = groth16_witness_file_section(&m, 0, CUZK_SEC_A),
		.b = groth16_witness_file_section(&m, 0, CUZK_SEC_B),
		.c = groth16_witness_file_section(&m, 0, CUZK_SEC_C),
		.a_aux_density = groth16_witness_file_section(&m, 0, CUZK_SEC_A_AUX_DENSITY),
		.b_input_density = groth16_witness_file_section(&m, 0, CUZK_SEC_B_INPUT_DENSITY),
		.b_aux_density = groth16_witness_file_section(&m, 0, CUZK_SEC_B_AUX_DENSITY),
	};
	groth16_row_source src;
	gencircuit_rows(spec, &src);
	rc = groth16_synthesize_into(&s, &src, z, ni + na, err);
	if (!contiguous) {
		if (rc == 0) {
			memcpy(in_file, z, ni * sizeof(fr_t));
			memcpy(groth16_witness_file_section(&m, 0, CUZK_SEC_AUX), z + ni, na * sizeof(fr_t));
		}
		free(z);
	}
	int rc2 = groth16_witness_file_close(&m, rc < 0 ? NULL : err);
	return rc < 0 ? rc : rc2;
}
