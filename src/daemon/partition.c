// SPDX-License-Identifier: Apache-2.0 OR MIT
/* One partition on a worker: its SRS, the witness registered for DMA, r and
 * s, the proof through the backend, its verification, and its log
 * records. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "daemon/engine.h"
#include "daemon/trace.h"
#include "prover/prover.h"
#include "prover/verifier.h"

static uint64_t ms_to_ns(double ms)
{
	return ms > 0 ? (uint64_t)(ms * 1e6) : 0;
}

static void log_mem(struct cuzkd_worker *w, struct cuzkd_log_fields *f)
{
	const struct groth16_backend *be = w->engine->be;
	struct groth16_mem m;

	if (!be->mem || be->mem(w->dev->dev, &m) < 0)
		return;
	f->vram_reserved_mb = (int64_t)(m.reserved >> 20);
	f->vram_free_mb = (int64_t)(m.free >> 20);
}

/* The journal gets one structured record per phase (CUZK_PHASE, CUZK_MS);
 * stderr gets only the summary line, to stay readable. */
static void log_phases(struct cuzkd_engine *e, const struct cuzkd_log_fields *base, const struct cuzkd_job *job,
		       unsigned part, const groth16_timings *t, double verify_ms)
{
	const struct { const char *name; double ms; } ph[] = {
		{ "check", t->check_ms }, { "upload", t->upload_ms }, { "ntt", t->ntt_ms }, { "msm_h", t->msm_h_ms },
		{ "msm_l", t->msm_l_ms }, { "msm_a", t->msm_a_ms }, { "msm_b_g1", t->msm_b_g1_ms },
		{ "msm_b_g2", t->msm_b_g2_ms }, { "assemble", t->assemble_ms }, { "verify", verify_ms },
	};
	struct cuzkd_log_fields f = *base;

	for (size_t i = 0; i < sizeof(ph) / sizeof(ph[0]); i++) {
		if (ph[i].ms <= 0)
			continue;
		f.phase = ph[i].name;
		f.ms = ph[i].ms;
		cuzkd_log(e->log, CUZKD_LOG_INFO, &f, "job %" PRIu64 " partition %u: %s %.1f ms", job->id, part,
			  ph[i].name, ph[i].ms);
	}
}

/* Registers the witness for DMA once (the registration cache keeps it so).
 * Unregistered memory still works, the backend stages it, only slower. */
static int register_witness(struct cuzkd_worker *w, struct cuzkd_job *job, uint64_t *ret_ns)
{
	cuzk_error err;

	*ret_ns = 0;
	if (!w->engine->be->register_host)
		return 0;
	if (cuzkd_buf_pin(job->buf, w->engine->be, ret_ns, &err) == 0)
		return 1;
	cuzkd_log_client(w->engine->log, CUZKD_LOG_WARNING, NULL,
			 "job %" PRIu64 ": witness not registered, proving from pageable memory: %s", job->id, err.msg);
	return 0;
}

static int prove_with_rs(struct cuzkd_worker *w, struct cuzkd_job *job, const groth16_witness_view *view,
			 unsigned part, const groth16_params *p, int registered, groth16_proof *out, groth16_timings *t,
			 cuzk_error *err)
{
	fr_t r, s;
	int ret;

	if (job->fixed_rs) {
		groth16_seeded_rs(&r, &s, job->seed, part);
	} else {
		ret = groth16_random_rs(&r, &s, err);
		if (ret)
			return ret;
	}
	ret = w->engine->be->prove(w->dev->dev, p, view, registered, &r, &s, out, t, err);
	/* r and s are secrets: do not leave them on the stack. */
	explicit_bzero(&r, sizeof(r));
	explicit_bzero(&s, sizeof(s));
	return ret;
}

/* The public inputs, which lie in the client's memfd, copied before the
 * proof so that it is verified against the inputs it was made with.
 * *ret_copy: free() it. */
static int private_inputs(groth16_witness_view *v, fr_t **ret_copy, cuzk_error *err)
{
	fr_t *copy = malloc(v->num_inputs * sizeof(fr_t));

	*ret_copy = NULL;
	if (!copy)
		return err_fail(err, CUZK_E_NOMEM, "out of memory copying %zu public inputs", v->num_inputs);
	memcpy(copy, v->input, v->num_inputs * sizeof(fr_t));
	v->input = copy;
	*ret_copy = copy;
	return 0;
}

/* The pairing check of docs/GROTH16.md on the CPU, against the SRS's verifying
 * key: a proof that does not verify (a witness rewritten during its proof,
 * a fault on the device) must not be delivered as a success.  Inputs in
 * the witness's form; the verifier takes Montgomery form. */
static int verify_partition(const groth16_vk *vk, const groth16_witness_view *v, unsigned part,
			    const groth16_proof *proof, cuzk_error *err)
{
	size_t n = v->num_inputs - 1, bad = 0;
	fr_t *mont = v->montgomery ? NULL : malloc((n ? n : 1) * sizeof(fr_t));
	cuzk_error why;
	int r;

	if (!v->montgomery && !mont)
		return err_fail(err, CUZK_E_NOMEM, "out of memory verifying partition %u", part);
	for (size_t i = 0; mont && i < n && !bad; i++)
		if (!fr_from_canonical(&mont[i], v->input[1 + i].l))
			bad = i + 1;
	r = bad ? 0 : groth16_verify(vk, mont ? mont : v->input + 1, n, proof, &why);
	free(mont);
	if (bad)
		return err_fail(err, CUZK_E_NONCANONICAL, "partition %u: public input %zu is not below r", part, bad);
	if (r == -CUZK_E_NOMEM || r == -CUZK_E_NONCANONICAL)
		return err_fail(err, -r, "partition %u: %s", part, why.msg);
	if (r)
		return err_fail(err, CUZK_E_VERIFY,
				"partition %u: the proof does not verify (%s); was the witness written during its proof?",
				part, why.msg);
	return 0;
}

/* The daemon's own spans of one partition, for a traced job. */
struct own_spans {
	groth16_span s[CUZKD_TRACE_OWN_SPANS];
	unsigned n;
};

/* lane NULL: the worker's track. */
static void own_span(struct own_spans *o, const char *name, const char *lane, uint64_t from_ns, uint64_t to_ns)
{
	if (o->n < CUZKD_TRACE_OWN_SPANS)
		o->s[o->n++] = (groth16_span){ name, lane, -1, (double)from_ns / 1e6, (double)to_ns / 1e6 };
}

/* One partition is over.  A traced job gets its spans first: once the
 * engine has the partition back, the loop may free the job. */
static void finish(struct cuzkd_worker *w, struct cuzkd_job *job, unsigned part, int status, const char *msg,
		   const groth16_proof *proof, const uint64_t *ph, const struct own_spans *own,
		   const groth16_timings *t)
{
	if (job->trace)
		cuzkd_trace_record(job->trace, &w->engine->trace_bytes, part, w->index, own->s, own->n, t);
	cuzkd_engine_finish_part(w->engine, job, part, status, msg, proof, ph);
}

void cuzkd_prove_partition(struct cuzkd_worker *w, struct cuzkd_item *item)
{
	struct cuzkd_engine *e = w->engine;
	struct cuzkd_job *job = item->job;
	unsigned part = item->part;
	uint64_t ph[CUZKD_PHASES] = { 0 };
	uint64_t t0 = monotonic_ns(), t1;
	struct cuzkd_log_fields f = CUZKD_LOG_NO_FIELDS;
	groth16_timings t = { 0 };
	groth16_proof proof;
	struct cuzkd_srs *srs;
	cuzk_error err = { 0 };
	groth16_witness_view view = job->view[part];
	fr_t *inputs = NULL;
	double verify_ms = 0;
	struct own_spans own = { .n = 0 };
	int r, registered;

	ph[CUZKD_PH_QUEUE] = t0 - item->t_queued_ns;
	own_span(&own, "queue wait", CUZKD_TRACE_LANE, item->t_queued_ns, t0);
	free(item);
	if (e->test_gate >= 0) {
		char byte;
		if (read(e->test_gate, &byte, 1) != 1)
			cuzkd_log(e->log, CUZKD_LOG_ERR, NULL, "CUZKD_TEST_GATE: read failed");
	}
	f.job = (int64_t)job->id;
	f.client_pid = job->client_pid;
	f.client_uid = job->client_uid;
	f.worker = (int)w->index;
	f.gpu = w->dev->log_gpu;
	if (atomic_load(&job->cancelled)) {
		finish(w, job, part, CUZK_E_CANCELLED, "cancelled", NULL, ph, &own, NULL);
		return;
	}
	r = cuzkd_srs_acquire(e->srs, job->srs_name, &srs, &err);
	t1 = monotonic_ns();
	ph[CUZKD_PH_SRS] = t1 - t0;
	own_span(&own, "srs wait", NULL, t0, t1);
	if (r) {
		finish(w, job, part, -r, err.msg, NULL, ph, &own, NULL);
		return;
	}
	registered = register_witness(w, job, &ph[CUZKD_PH_REGISTER]);
	if (e->be->register_host)   /* about 0 on a registration-cache hit */
		own_span(&own, "register witness", NULL, t1, monotonic_ns());
	/* The backend checks the shape from the daemon's copy of the header
	 * and from bitmaps nobody else can write (prover/backend.h). */
	r = atomic_load(&job->cancelled) ? err_fail(&err, CUZK_E_CANCELLED, "cancelled")
					 : private_inputs(&view, &inputs, &err);
	if (r == 0)
		r = prove_with_rs(w, job, &view, part, &srs->params, registered, &proof, &t, &err);
	if (r == 0 && e->verify) {
		uint64_t tv = monotonic_ns();
		r = verify_partition(&srs->params.vk, &view, part, &proof, &err);
		uint64_t tv_end = monotonic_ns();
		verify_ms = (double)(tv_end - tv) / 1e6;
		own_span(&own, "verify", NULL, tv, tv_end);
		cuzkd_engine_count_verify(e, verify_ms, r == 0);
	}
	free(inputs);
	cuzkd_srs_release(e->srs, srs);

	ph[CUZKD_PH_CHECK] = ms_to_ns(t.check_ms);
	ph[CUZKD_PH_UPLOAD] = ms_to_ns(t.upload_ms);
	ph[CUZKD_PH_NTT] = ms_to_ns(t.ntt_ms);
	ph[CUZKD_PH_MSM] = ms_to_ns(t.msm_h_ms + t.msm_l_ms + t.msm_a_ms + t.msm_b_g1_ms + t.msm_b_g2_ms);
	ph[CUZKD_PH_ASSEMBLE] = ms_to_ns(t.assemble_ms);
	f.phase = "prove";
	f.ms = (double)(monotonic_ns() - t1) / 1e6;
	log_mem(w, &f);
	if (r == 0 && e->log->journal)
		log_phases(e, &f, job, part, &t, verify_ms);
	if (r)   /* usually the client's doing (shape, cancel): rate-limited */
		cuzkd_log_client(e->log, CUZKD_LOG_WARNING, &f, "job %" PRIu64 " partition %u failed: %s", job->id,
				 part, err.msg);
	else
		cuzkd_log(e->log, CUZKD_LOG_INFO, &f,
			  "job %" PRIu64 " partition %u proved in %.1f ms (ntt %.1f, msm %.1f, verify %.1f)", job->id,
			  part, f.ms, t.ntt_ms, (double)ph[CUZKD_PH_MSM] / 1e6, verify_ms);
	finish(w, job, part, r ? -r : 0, err.msg, r ? NULL : &proof, ph, &own, &t);
}
