#include "groth16/prover.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "groth16/fr_sample.h"
#include "groth16/msm.h"
#include "groth16/ntt.h"

size_t groth16_domain_size(size_t n, unsigned *ret_log2)
{
	unsigned log2 = ntt_log2_ceil(n);
	if (ret_log2)
		*ret_log2 = log2;
	return (size_t)1 << log2;
}

int groth16_check_shape(const groth16_params *p, const groth16_witness_view *w, cuzk_error *err)
{
	if (w->num_constraints == 0 || w->num_inputs == 0)
		return cuzk_fail(err, CUZK_E_MISMATCH,
				 "witness: %zu constraints and %zu inputs (the constant 1 is missing)",
				 w->num_constraints, w->num_inputs);
	size_t m = groth16_domain_size(w->num_constraints, NULL);
	size_t a_aux = msm_density_count(w->a_aux_density, w->num_aux);
	size_t b_in = msm_density_count(w->b_input_density, w->num_inputs);
	size_t b_aux = msm_density_count(w->b_aux_density, w->num_aux);
	struct {
		const char *field;
		size_t params, witness;
	} rows[] = {
		{ "ic (public inputs)", p->vk.n_ic, w->num_inputs },
		{ "l (aux variables)", p->n_l, w->num_aux },
		{ "h (domain size - 1)", p->n_h, m - 1 },
		{ "a (inputs + a_aux_density)", p->n_a, w->num_inputs + a_aux },
		{ "b_g1 (b densities)", p->n_b_g1, b_in + b_aux },
		{ "b_g2 (b densities)", p->n_b_g2, b_in + b_aux },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].params != rows[i].witness)
			return cuzk_fail(err, CUZK_E_MISMATCH,
					 "params %s: %zu points, but the witness needs %zu",
					 rows[i].field, rows[i].params, rows[i].witness);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}


static void g1_acc(g1_jac_t *acc, const g1_jac_t *p)
{
	g1_jac_t t;
	g1_add(&t, acc, p);
	*acc = t;
}

static void g2_acc(g2_jac_t *acc, const g2_jac_t *p)
{
	g2_jac_t t;
	g2_add(&t, acc, p);
	*acc = t;
}

/* Adds which query failed to a lower layer's message, keeping its code. */
static int in_query(int rc, cuzk_error *err, const char *query)
{
	if (err)
		cuzk_error_prefix(err, "query %s", query);
	return rc;
}

static int query_msms(groth16_query_sums *q, const groth16_params *p, const groth16_witness_view *w,
		      const fr_t *h, groth16_timings *t, cuzk_error *err)
{
	int mont = w->montgomery, rc;
	size_t ni = w->num_inputs, na = w->num_aux;
	g1_jac_t part1;
	g2_jac_t part2;
	double t0 = now_ms();
	if ((rc = msm_g1(&q->h, p->h, h, p->n_h, 1, err)))
		return in_query(rc, err, "h");
	double t1 = now_ms();
	if ((rc = msm_g1(&q->l, p->l, w->aux, na, mont, err)))
		return in_query(rc, err, "l");
	double t2 = now_ms();
	/* a: every input (the appended input constraints put each one in A), then
	 * the aux variables that occur in A. */
	if ((rc = msm_g1(&q->a, p->a, w->input, ni, mont, err)) ||
	    (rc = msm_g1_filtered(&part1, p->a + ni, p->n_a - ni, w->aux, na, w->a_aux_density, mont,
				  err)))
		return in_query(rc, err, "a");
	g1_acc(&q->a, &part1);
	double t3 = now_ms();
	size_t b_in = msm_density_count(w->b_input_density, ni);
	if ((rc = msm_g1_filtered(&q->b_g1, p->b_g1, b_in, w->input, ni, w->b_input_density, mont,
				  err)) ||
	    (rc = msm_g1_filtered(&part1, p->b_g1 + b_in, p->n_b_g1 - b_in, w->aux, na,
				  w->b_aux_density, mont, err)))
		return in_query(rc, err, "b_g1");
	g1_acc(&q->b_g1, &part1);
	double t4 = now_ms();
	if ((rc = msm_g2_filtered(&q->b_g2, p->b_g2, b_in, w->input, ni, w->b_input_density, mont,
				  err)) ||
	    (rc = msm_g2_filtered(&part2, p->b_g2 + b_in, p->n_b_g2 - b_in, w->aux, na,
				  w->b_aux_density, mont, err)))
		return in_query(rc, err, "b_g2");
	g2_acc(&q->b_g2, &part2);
	double t5 = now_ms();
	t->msm_h_ms = t1 - t0;
	t->msm_l_ms = t2 - t1;
	t->msm_a_ms = t3 - t2;
	t->msm_b_g1_ms = t4 - t3;
	t->msm_b_g2_ms = t5 - t4;
	return 0;
}

/* Shared with the GPU backend (prover.h), so both write the same bytes. */
void groth16_assemble(groth16_proof *out, const groth16_vk *vk, const groth16_query_sums *q,
		      const fr_t *r, const fr_t *s)
{
	g1_jac_t delta1, a, b1, c, t1;
	g2_jac_t delta2, b2, t2;
	fr_t rs;

	g1_from_affine(&delta1, &vk->delta_g1);
	g2_from_affine(&delta2, &vk->delta_g2);

	g1_from_affine(&a, &vk->alpha_g1);
	g1_acc(&a, &q->a);
	g1_mul_fr(&t1, &delta1, r);
	g1_acc(&a, &t1);

	g2_from_affine(&b2, &vk->beta_g2);
	g2_acc(&b2, &q->b_g2);
	g2_mul_fr(&t2, &delta2, s);
	g2_acc(&b2, &t2);

	g1_from_affine(&b1, &vk->beta_g1);
	g1_acc(&b1, &q->b_g1);
	g1_mul_fr(&t1, &delta1, s);
	g1_acc(&b1, &t1);

	g1_mul_fr(&c, &a, s);
	g1_mul_fr(&t1, &b1, r);
	g1_acc(&c, &t1);
	fr_mul(&rs, r, s);
	g1_mul_fr(&t1, &delta1, &rs);
	g1_neg(&t1, &t1);
	g1_acc(&c, &t1);
	g1_acc(&c, &q->h);
	g1_acc(&c, &q->l);

	g1_to_affine(&out->a, &a);
	g2_to_affine(&out->b, &b2);
	g1_to_affine(&out->c, &c);

	/* Anything from which r or s could be recovered. */
	explicit_bzero(&rs, sizeof(rs));
	explicit_bzero(&t1, sizeof(t1));
	explicit_bzero(&t2, sizeof(t2));
	explicit_bzero(&a, sizeof(a));
	explicit_bzero(&b1, sizeof(b1));
	explicit_bzero(&b2, sizeof(b2));
	explicit_bzero(&c, sizeof(c));
}

int groth16_prove_cpu(const groth16_params *p, const groth16_witness_view *w, const fr_t *r,
		      const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err)
{
	groth16_timings local;
	if (!t)
		t = &local;
	memset(t, 0, sizeof(*t));
	int rc = groth16_check_shape(p, w, err);
	if (rc)
		return rc;
	double t0 = now_ms();
	fr_t *h = malloc((p->n_h ? p->n_h : 1) * sizeof(fr_t));
	if (!h)
		return cuzk_fail(err, CUZK_E_NOMEM, "h: no memory for %zu scalars", p->n_h);
	rc = groth16_compute_h(h, w->a, w->b, w->c, w->num_constraints, w->montgomery, err);
	double t1 = now_ms();
	t->ntt_ms = t1 - t0;
	groth16_query_sums q;
	if (!rc)
		rc = query_msms(&q, p, w, h, t, err);
	free(h);
	if (rc)
		return rc;
	double t2 = now_ms();
	groth16_assemble(out, &p->vk, &q, r, s);
	double t3 = now_ms();
	t->assemble_ms = t3 - t2;
	t->total_ms = t3 - t0;
	return 0;
}

int groth16_random_rs(fr_t *r, fr_t *s, cuzk_error *err)
{
	int rc = fr_sample_getrandom(r, err);
	return rc ? rc : fr_sample_getrandom(s, err);
}

void groth16_seeded_rs(fr_t *r, fr_t *s, uint64_t seed, unsigned partition)
{
	cuzk_rng rng;
	cuzk_rng_seed(&rng, seed ^ ((uint64_t)partition + 1) * 0x9e3779b97f4a7c15ull);
	fr_sample_rng(r, &rng);
	fr_sample_rng(s, &rng);
	explicit_bzero(&rng, sizeof(rng));
}
