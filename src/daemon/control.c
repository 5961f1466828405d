// SPDX-License-Identifier: Apache-2.0 OR MIT
/* CANCEL, STATUS and METRICS: the requests that do not prove. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"

/* A job of any connection by its daemon-wide id (CANCEL with scope JOB). */
static struct cuzkd_job *find_daemon_job(struct cuzkd *d, uint64_t job_id)
{
	for (struct cuzkd_session *o = d->sessions; o; o = o->next)
		for (struct cuzkd_job *j = o->jobs; j; j = j->session_next)
			if (j->id == job_id)
				return j;
	return NULL;
}

void cuzkd_on_cancel(struct cuzkd_session *s, const void *buf, size_t len)
{
	struct msg_cancel m;
	struct cuzkd_job *job;
	cuzk_error err;

	if (msg_parse_cancel(&m, buf, len, &err)) {
		cuzkd_session_reject(s, cuzkd_msg_request_id(buf, len), &err);
		return;
	}
	job = m.scope == CUZK_CANCEL_JOB ? find_daemon_job(s->d, m.hdr.request_id) : cuzkd_session_job(s, m.hdr.request_id);
	if (!job) {
		err_fail(&err, CUZK_E_NOTFOUND, "no %s %" PRIu64 " in flight",
			 m.scope == CUZK_CANCEL_JOB ? "job" : "request", m.hdr.request_id);
		cuzkd_session_reply(s, m.hdr.request_id, CUZK_E_NOTFOUND, err.msg);
		return;
	}
	/* Another connection's job: only its owner's uid, or root. */
	if (s->cred.uid != 0 && (int64_t)s->cred.uid != job->client_uid) {
		err_fail(&err, CUZK_E_PERM, "%s: job %" PRIu64 " belongs to uid %lld", s->who, job->id,
			 (long long)job->client_uid);
		cuzkd_session_reply(s, m.hdr.request_id, CUZK_E_PERM, err.msg);
		return;
	}
	cuzkd_engine_cancel(&s->d->engine, job, CUZK_E_CANCELLED, "cancelled by the client");
	cuzkd_session_reply(s, m.hdr.request_id, 0, "");
}

/* Sends text as TEXT chunks. */
static void send_text(struct cuzkd_session *s, uint64_t request_id, const char *text)
{
	size_t len = text ? strlen(text) : 0, off = 0;
	uint8_t *pkt = malloc(CUZK_MSG_MAX);
	uint32_t seq = 0;

	if (!pkt || !text) {
		free(pkt);
		cuzkd_session_reply(s, request_id, CUZK_E_NOMEM, "out of memory building the answer");
		return;
	}
	if (len > CUZK_TEXT_MAX)
		len = CUZK_TEXT_MAX;
	do {
		struct msg_text t;
		size_t n = len - off < CUZK_TEXT_CHUNK_MAX ? len - off : CUZK_TEXT_CHUNK_MAX;
		memset(&t, 0, sizeof(t));
		msg_init(&t.hdr, CUZK_MSG_TEXT, (uint32_t)(sizeof(t) + n), request_id);
		t.seq = seq++;
		t.data_len = (uint32_t)n;
		t.flags = off + n == len ? CUZK_TEXT_LAST : 0;
		memcpy(pkt, &t, sizeof(t));
		memcpy(pkt + sizeof(t), text + off, n);
		off += n;
		if (cuzkd_session_send(s, pkt, sizeof(t) + n, NULL, 0))
			break;
	} while (off < len);
	free(pkt);
}

/* STATUS and METRICS: both answered with TEXT chunks. */
void cuzkd_on_text_request(struct cuzkd_session *s, const struct msg_header *h, const void *buf, size_t len)
{
	struct msg_status st;
	struct msg_metrics m;
	cuzk_error err;
	char *text;
	int r;

	if (h->type == CUZK_MSG_STATUS)
		r = msg_parse_status(&st, buf, len, &err);
	else
		r = msg_parse_metrics(&m, buf, len, &err);
	if (r) {
		cuzkd_session_reject(s, h->request_id, &err);
		return;
	}
	if (h->type == CUZK_MSG_STATUS && st.format == CUZK_STATUS_PARAMS)
		text = cuzkd_srs_list_text(&s->d->srs);
	else if (h->type == CUZK_MSG_STATUS)
		text = cuzkd_status_text(s->d, st.format == CUZK_STATUS_JSON);
	else
		text = cuzkd_metrics_text(s->d);
	send_text(s, h->request_id, text);
	free(text);
}

