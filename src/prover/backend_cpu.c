// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The CPU backend (backend.h): one device, every core; and the registry
 * that finds a backend by name. */
#include "prover/backend.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "prover/msm.h"
#include "prover/ntt.h"
#include "prover/prover.h"
#include "prover/shared_view.h"

struct groth16_device {
	ntt_domain dom;            /* the last NTT domain, kept so repeated runs skip twiddles */
	int have_dom;
};

static int cpu_device_count(void)
{
	return 1;
}

static int cpu_open(groth16_device **ret, int index, size_t mem_budget, cuzk_error *err)
{
	(void)mem_budget;
	if (index != 0)
		return err_fail(err, CUZK_E_UNSUPPORTED, "CPU backend: no device %d (it has one)", index);
	groth16_device *d = calloc(1, sizeof(*d));
	if (!d)
		return err_fail(err, CUZK_E_NOMEM, "CPU backend: out of memory");
	*ret = d;
	return 0;
}

static void cpu_close(groth16_device *d)
{
	if (!d)
		return;
	if (d->have_dom)
		ntt_domain_free(&d->dom);
	free(d);
}

/* A shared view is proved from private copies of its bitmaps, made only
 * after the counts matched (copying a bitmap is work a wrong request must
 * not cost). */
static int cpu_prove(groth16_device *d, const groth16_params *p, const groth16_witness_view *w, int registered,
		     const fr_t *r, const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err)
{
	groth16_witness_view v = *w;
	uint64_t *copy = NULL;
	double t0 = monotonic_ms(), check_ms;
	int rc;

	(void)d;
	(void)registered;
	rc = groth16_check_dims(p, v.num_constraints, v.num_inputs, v.num_aux, err);
	if (rc == 0 && v.density_shared)
		rc = groth16_view_copy_densities(&v, &copy, err);
	check_ms = monotonic_ms() - t0;
	if (rc == 0)
		rc = groth16_prove_cpu(p, &v, r, s, out, t, err);
	free(copy);
	if (t)
		t->check_ms += check_ms;
	return rc;
}

static int cpu_msm_g1(groth16_device *d, g1_jac_t *ret, const g1_aff_t *bases, const fr_t *scalars, size_t n,
		      cuzk_error *err)
{
	(void)d;
	return msm_g1(ret, bases, scalars, n, 1, err);
}

static int cpu_msm_g2(groth16_device *d, g2_jac_t *ret, const g2_aff_t *bases, const fr_t *scalars, size_t n,
		      cuzk_error *err)
{
	(void)d;
	return msm_g2(ret, bases, scalars, n, 1, err);
}

static int cpu_ntt(groth16_device *d, fr_t *v, unsigned log_m, cuzk_error *err)
{
	if (!d->have_dom || d->dom.log_m != log_m) {
		if (d->have_dom)
			ntt_domain_free(&d->dom);
		d->have_dom = 0;
		int r = ntt_domain_init(&d->dom, log_m, err);
		if (r < 0)
			return r;
		d->have_dom = 1;
	}
	ntt_forward(&d->dom, v);
	return 0;
}

const struct groth16_backend groth16_backend_cpu = {
	.name = "cpu",
	.device_count = cpu_device_count,
	.open = cpu_open,
	.close = cpu_close,
	.prove = cpu_prove,
	.msm_g1 = cpu_msm_g1,
	.msm_g2 = cpu_msm_g2,
	.ntt = cpu_ntt,
};

int groth16_backend_find(const struct groth16_backend **ret, const char *name, cuzk_error *err)
{
	if (!name || strcmp(name, "cpu") == 0)
		*ret = &groth16_backend_cpu;
	else if (strcmp(name, "gpu") == 0)
		*ret = &groth16_backend_gpu;
	else if (strcmp(name, "auto") == 0)
		*ret = groth16_backend_gpu.device_count() > 0 ? &groth16_backend_gpu : &groth16_backend_cpu;
	else
		return err_fail(err, CUZK_E_INVAL, "backend '%s': expected cpu, gpu or auto", name);
	return 0;
}
