// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Status (text and JSON), Prometheus metrics and systemd's STATUS= line,
 * all built from one snapshot of the daemon's counters. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "daemon/daemon.h"

static const char *const prio_names[CUZKD_PRIORITIES] = { "critical", "high", "normal", "low" };
static const char *const phase_names[CUZKD_PHASES] = {
	"check", "queue", "srs", "register", "upload", "ntt", "msm", "assemble", "total"
};

struct snapshot {
	struct cuzkd_engine_stats eng;
	struct cuzkd_srs_stats srs;
	struct cuzkd_counters cnt;
	unsigned queued_total;
};

static void take_snapshot(struct cuzkd *d, struct snapshot *s)
{
	cuzkd_engine_stats(&d->engine, &s->eng);
	cuzkd_srs_cache_stats(&d->srs, &s->srs);
	pthread_mutex_lock(&d->engine.lock);
	s->cnt = d->engine.counters;
	pthread_mutex_unlock(&d->engine.lock);
	s->queued_total = 0;
	for (int p = 0; p < CUZKD_PRIORITIES; p++)
		s->queued_total += s->eng.queued[p];
}

struct vram {
	int ok;
	struct groth16_mem m;
};

static struct vram device_vram(const struct cuzkd_engine *e, const struct cuzkd_device *dev)
{
	struct vram v = { 0 };

	if (e->be->mem)
		v.ok = e->be->mem(dev->dev, &v.m) == 0;
	return v;
}

void cuzkd_status_line(struct cuzkd *d, char *buf, size_t len)
{
	struct snapshot s;
	size_t at;

	take_snapshot(d, &s);
	at = (size_t)snprintf(buf, len, "%s%u queued, %u running on %u workers, %u clients",
			      d->draining ? "draining: " : "", s.queued_total, s.eng.running, s.eng.workers,
			      d->n_sessions);
	if (s.srs.loading && at < len)
		at += (size_t)snprintf(buf + at, len - at, "; loading %s: %u%%", s.srs.loading_name,
				       s.srs.loading_percent);
	for (unsigned i = 0; i < d->engine.n_devices && at < len; i++) {
		struct vram v = device_vram(&d->engine, &d->engine.devices[i]);
		if (v.ok)
			at += (size_t)snprintf(buf + at, len - at, "; GPU %u VRAM %zu/%zu MiB reserved",
					       d->engine.devices[i].number, v.m.reserved >> 20, v.m.budget >> 20);
	}
}

/* A byte count for people: exact in the configuration's units when it is one
 * ("128G", as cuzkd.conf writes it), else to a tenth of the largest unit it
 * reaches ("21.3K"). */
static const char *size_text(char buf[CUZKD_FORMAT_MAX], uint64_t v)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && v >= UINT64_C(1) << (10 * (u + 2)))
		u++;
	if (u < 0 || v % (UINT64_C(1) << (10 * (u + 1))) == 0)
		return cuzkd_format_size(buf, v);
	snprintf(buf, CUZKD_FORMAT_MAX, "%.1f%c", (double)v / (double)(UINT64_C(1) << (10 * (u + 1))), units[u]);
	return buf;
}

static void status_text(struct cuzkd *d, const struct snapshot *s, FILE *f)
{
	char b1[CUZKD_FORMAT_MAX], b2[CUZKD_FORMAT_MAX], b3[CUZKD_FORMAT_MAX], b4[CUZKD_FORMAT_MAX];

	fprintf(f, "cuzkd %s, backend %s%s\n", PACKAGE_VERSION, d->be->name,
		d->draining ? ", draining" : "");
	fprintf(f, "clients: %u (max %u), requests in flight: %u (max %u)\n", d->n_sessions,
		d->cfg.max_clients, d->inflight_total, d->cfg.max_inflight_total);
	fprintf(f, "queue:");
	for (int p = 0; p < CUZKD_PRIORITIES; p++)
		fprintf(f, " %s %u", prio_names[p], s->eng.queued[p]);
	fprintf(f, "\nworkers: %u, running %u, idle %u\n", s->eng.workers, s->eng.running, s->eng.idle);
	for (unsigned i = 0; i < d->engine.n_devices; i++) {
		const struct cuzkd_device *dev = &d->engine.devices[i];
		struct vram v = device_vram(&d->engine, dev);
		struct cuzkd_device_stats ds;
		cuzkd_engine_device_stats(&d->engine, i, &ds);
		fprintf(f, "device %s %u: %u workers, %u running, %" PRIu64 " partitions done", d->be->name,
			dev->number, ds.workers, ds.running, ds.partitions);
		if (v.ok)
			fprintf(f, ", VRAM reserved %s (peak %s), free %s, budget %s", size_text(b1, v.m.reserved),
				size_text(b4, v.m.peak_reserved), size_text(b2, v.m.free), size_text(b3, v.m.budget));
		fputc('\n', f);
	}
	fprintf(f, "srs cache: %u entries (%u loading), %s of %s, hits %" PRIu64 ", misses %" PRIu64
		   ", failed loads %" PRIu64 "\n",
		s->srs.entries, s->srs.loading, size_text(b1, s->srs.bytes), size_text(b2, s->srs.budget),
		s->srs.hits, s->srs.misses, s->srs.loads_failed);
	fprintf(f, "registration cache: %u buffers, %s (%s in use, %s pinned), hits %" PRIu64 ", misses %" PRIu64
		   ", %" PRIu64 " dropped buffers being unpinned\n",
		d->reg.entries, size_text(b1, d->reg.bytes), size_text(b2, d->reg.bytes_in_use),
		size_text(b3, (uint64_t)atomic_load(&d->reg.bytes_pinned)), d->reg.hits, d->reg.misses,
		(uint64_t)atomic_load(&d->reg.releasing));
	fprintf(f, "proofs: %" PRIu64 " ok, %" PRIu64 " failed\n", s->cnt.proofs_ok, s->cnt.proofs_failed);
}

static void status_json(struct cuzkd *d, const struct snapshot *s, FILE *f)
{
	fprintf(f, "{\"version\":\"%s\",\"backend\":\"%s\",\"draining\":%s,", PACKAGE_VERSION,
		d->be->name, d->draining ? "true" : "false");
	fprintf(f, "\"clients\":%u,\"max_clients\":%u,\"inflight\":%u,\"max_inflight_total\":%u,", d->n_sessions,
		d->cfg.max_clients, d->inflight_total, d->cfg.max_inflight_total);
	fprintf(f, "\"queue\":{");
	for (int p = 0; p < CUZKD_PRIORITIES; p++)
		fprintf(f, "%s\"%s\":%u", p ? "," : "", prio_names[p], s->eng.queued[p]);
	fprintf(f, "},\"workers\":%u,\"running\":%u,\"idle\":%u,\"devices\":[", s->eng.workers, s->eng.running,
		s->eng.idle);
	for (unsigned i = 0; i < d->engine.n_devices; i++) {
		const struct cuzkd_device *dev = &d->engine.devices[i];
		struct vram v = device_vram(&d->engine, dev);
		struct cuzkd_device_stats ds;
		cuzkd_engine_device_stats(&d->engine, i, &ds);
		fprintf(f, "%s{\"kind\":\"%s\",\"index\":%u,\"workers\":%u,\"running\":%u,\"partitions\":%" PRIu64,
			i ? "," : "", d->be->name, dev->number, ds.workers, ds.running, ds.partitions);
		if (v.ok)
			fprintf(f, ",\"vram_reserved\":%zu,\"vram_free\":%zu,\"vram_budget\":%zu,\"vram_peak\":%zu",
				v.m.reserved, v.m.free, v.m.budget, v.m.peak_reserved);
		fputc('}', f);
	}
	fprintf(f, "],\"srs_cache\":{\"entries\":%u,\"loading\":%u,\"bytes\":%" PRIu64 ",\"budget\":%" PRIu64
		   ",\"hits\":%" PRIu64 ",\"misses\":%" PRIu64 ",\"failed_loads\":%" PRIu64 "},",
		s->srs.entries, s->srs.loading, s->srs.bytes, s->srs.budget, s->srs.hits, s->srs.misses,
		s->srs.loads_failed);
	fprintf(f, "\"registration_cache\":{\"buffers\":%u,\"bytes\":%" PRIu64 ",\"bytes_in_use\":%" PRIu64
		   ",\"bytes_pinned\":%" PRIu64 ",\"hits\":%" PRIu64 ",\"misses\":%" PRIu64 ",\"releasing\":%" PRIu64
		   "},",
		d->reg.entries, d->reg.bytes, d->reg.bytes_in_use, (uint64_t)atomic_load(&d->reg.bytes_pinned),
		d->reg.hits, d->reg.misses, (uint64_t)atomic_load(&d->reg.releasing));
	fprintf(f, "\"proofs_ok\":%" PRIu64 ",\"proofs_failed\":%" PRIu64 "}\n", s->cnt.proofs_ok,
		s->cnt.proofs_failed);
}

static void metric(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A metric with one unlabelled sample. */
static void metric_u64(FILE *f, const char *name, const char *type, const char *help, uint64_t value)
{
	metric(f, name, type, help);
	fprintf(f, "%s %" PRIu64 "\n", name, value);
}

static void metrics_text(struct cuzkd *d, const struct snapshot *sn, FILE *f)
{
	const struct snapshot s = *sn;

	metric(f, "cuzk_proofs_total", "counter", "Proof requests completed, by result.");
	fprintf(f, "cuzk_proofs_total{result=\"ok\"} %" PRIu64 "\n", s.cnt.proofs_ok);
	fprintf(f, "cuzk_proofs_total{result=\"failed\"} %" PRIu64 "\n", s.cnt.proofs_failed);
	metric(f, "cuzk_completions_total", "counter", "Completions written, by status.");
	for (int c = 0; c < 32; c++)
		if (s.cnt.by_status[c])
			fprintf(f, "cuzk_completions_total{status=\"%s\"} %" PRIu64 "\n",
				c ? cuzk_status_name(c) : "ok", s.cnt.by_status[c]);
	metric_u64(f, "cuzk_partitions_proved_total", "counter", "Partitions of successful requests.",
		   s.cnt.partitions);
	metric(f, "cuzk_phase_seconds", "summary", "Time per request in each phase.");
	for (int p = 0; p < CUZKD_PHASES; p++) {
		fprintf(f, "cuzk_phase_seconds_sum{phase=\"%s\"} %.6f\n", phase_names[p],
			s.cnt.phase_ms_sum[p] / 1e3);
		fprintf(f, "cuzk_phase_seconds_count{phase=\"%s\"} %" PRIu64 "\n", phase_names[p],
			s.cnt.phase_count[p]);
	}
	metric(f, "cuzk_request_duration_seconds", "histogram", "Request received to completion written.");
	for (int b = 0; b < 12; b++)
		fprintf(f, "cuzk_request_duration_seconds_bucket{le=\"%g\"} %" PRIu64 "\n", cuzkd_total_bucket_le[b],
			s.cnt.total_bucket[b]);
	fprintf(f, "cuzk_request_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
		s.cnt.proofs_ok + s.cnt.proofs_failed);
	fprintf(f, "cuzk_request_duration_seconds_sum %.6f\n", s.cnt.phase_ms_sum[CUZKD_PH_TOTAL] / 1e3);
	fprintf(f, "cuzk_request_duration_seconds_count %" PRIu64 "\n", s.cnt.proofs_ok + s.cnt.proofs_failed);
	metric(f, "cuzk_verify_seconds", "summary", "Time checking proofs before delivery (verify = yes), per partition.");
	fprintf(f, "cuzk_verify_seconds_sum %.6f\ncuzk_verify_seconds_count %" PRIu64 "\n", s.cnt.verify_ms_sum / 1e3,
		s.cnt.verified);
	metric_u64(f, "cuzk_verify_failures_total", "counter", "Partitions whose proof did not verify.",
		   s.cnt.verify_failed);
	metric_u64(f, "cuzk_requests_total", "counter", "PROVE requests received.", d->stats.requests);
	metric(f, "cuzk_requests_rejected_total", "counter", "Requests answered with an error, by status.");
	for (int c = 1; c < 32; c++)
		if (d->stats.rejected[c])
			fprintf(f, "cuzk_requests_rejected_total{status=\"%s\"} %" PRIu64 "\n", cuzk_status_name(c),
				d->stats.rejected[c]);
	metric_u64(f, "cuzk_connections_total", "counter", "Connections accepted.", d->stats.connections);
	metric_u64(f, "cuzk_connections_refused_total", "counter",
		   "Connections refused (max_clients, max_clients_per_uid, draining).",
		   d->stats.rejected_connections);
	metric_u64(f, "cuzk_clients_disconnected_total", "counter", "Clients disconnected for misbehaving.",
		   d->stats.disconnects_misbehaving);
	metric_u64(f, "cuzk_clients_timed_out_total", "counter",
		   "Connections closed for no HELLO (hello_timeout) or idleness (idle_timeout).", d->stats.timeouts);
	metric_u64(f, "cuzk_clients", "gauge", "Connected clients.", d->n_sessions);
	metric_u64(f, "cuzk_inflight_requests", "gauge", "Requests accepted and not completed.",
		   d->inflight_total);
	metric(f, "cuzk_queue_depth", "gauge", "Partitions waiting for a worker, by priority.");
	for (int p = 0; p < CUZKD_PRIORITIES; p++)
		fprintf(f, "cuzk_queue_depth{priority=\"%s\"} %u\n", prio_names[p], s.eng.queued[p]);
	metric(f, "cuzk_workers", "gauge", "Workers, and how many are proving.");
	fprintf(f, "cuzk_workers{state=\"all\"} %u\ncuzk_workers{state=\"busy\"} %u\n", s.eng.workers,
		s.eng.running);
	metric_u64(f, "cuzk_witness_bytes_mapped", "gauge", "Witness bytes held by the registration cache.",
		   d->reg.bytes);
	metric_u64(f, "cuzk_witness_bytes_pinned", "gauge", "Witness bytes page-locked for the GPU.",
		   (uint64_t)atomic_load(&d->reg.bytes_pinned));
	metric_u64(f, "cuzk_registration_cache_hits_total", "counter", "Witness buffers found already mapped/pinned.",
		   d->reg.hits);
	metric_u64(f, "cuzk_registration_cache_misses_total", "counter", "Witness buffers mapped (and pinned) anew.",
		   d->reg.misses);
	metric_u64(f, "cuzk_registration_cache_evictions_total", "counter", "Buffers dropped to stay in budget.",
		   d->reg.evictions);
	metric(f, "cuzk_registration_seconds_total", "counter", "Time spent in cudaHostRegister.");
	fprintf(f, "cuzk_registration_seconds_total %.6f\n", (double)atomic_load(&d->reg.register_ns_total) / 1e9);
	metric_u64(f, "cuzk_registrations_total", "counter", "cudaHostRegister calls.",
		   (uint64_t)atomic_load(&d->reg.registrations));
	metric_u64(f, "cuzk_registration_releases_pending", "gauge",
		   "Dropped pinned buffers not yet unregistered and unmapped.", (uint64_t)atomic_load(&d->reg.releasing));
	metric_u64(f, "cuzk_registration_release_waits_total", "counter",
		   "Pins that waited for dropped buffers to be unpinned first (max_pinned_bytes_total).",
		   (uint64_t)atomic_load(&d->reg.release_waits));
	metric_u64(f, "cuzk_srs_cache_bytes", "gauge", "Parameter bytes loaded.", s.srs.bytes);
	metric_u64(f, "cuzk_srs_cache_budget_bytes", "gauge", "cache_budget.", s.srs.budget);
	metric_u64(f, "cuzk_srs_cache_hits_total", "counter", "Requests whose SRS was loaded already.",
		   s.srs.hits);
	metric_u64(f, "cuzk_srs_cache_misses_total", "counter", "SRS loads.", s.srs.misses);
	metric_u64(f, "cuzk_srs_load_failures_total", "counter", "SRS loads that failed.",
		   s.srs.loads_failed);
	metric_u64(f, "cuzk_srs_cache_evictions_total", "counter", "SRS entries evicted.", s.srs.evictions);
	metric(f, "cuzk_traces_total", "counter", "Timelines of traced requests written into the client's file, or not.");
	fprintf(f, "cuzk_traces_total{result=\"written\"} %" PRIu64 "\ncuzk_traces_total{result=\"failed\"} %" PRIu64 "\n",
		d->stats.traces_written, d->stats.traces_failed);
	metric_u64(f, "cuzk_trace_bytes", "gauge", "Memory held by the timelines of traced requests in flight.",
		   (uint64_t)atomic_load(&d->engine.trace_bytes));
	metric(f, "cuzk_gpu_vram_bytes", "gauge",
	       "Per-GPU VRAM: reserved, free, budget, and the most reserved at once since start (peak).");
	for (unsigned i = 0; i < d->engine.n_devices; i++) {
		struct vram v = device_vram(&d->engine, &d->engine.devices[i]);
		unsigned g = d->engine.devices[i].number;
		if (!v.ok)
			continue;
		fprintf(f, "cuzk_gpu_vram_bytes{gpu=\"%u\",kind=\"reserved\"} %zu\n", g, v.m.reserved);
		fprintf(f, "cuzk_gpu_vram_bytes{gpu=\"%u\",kind=\"free\"} %zu\n", g, v.m.free);
		fprintf(f, "cuzk_gpu_vram_bytes{gpu=\"%u\",kind=\"budget\"} %zu\n", g, v.m.budget);
		fprintf(f, "cuzk_gpu_vram_bytes{gpu=\"%u\",kind=\"peak\"} %zu\n", g, v.m.peak_reserved);
	}
}

/* Runs one of the writers above over a fresh snapshot into a malloc'd string. */
static char *build(struct cuzkd *d, void (*write)(struct cuzkd *, const struct snapshot *, FILE *))
{
	struct snapshot s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	take_snapshot(d, &s);
	write(d, &s, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *cuzkd_status_text(struct cuzkd *d, int json)
{
	return build(d, json ? status_json : status_text);
}

char *cuzkd_metrics_text(struct cuzkd *d)
{
	return build(d, metrics_text);
}
