// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Reassembly of a TEXT answer (status, metrics) from its chunks: libcuzk and
 * the daemon tests' raw client both receive them this way. */
#include <stdlib.h>
#include <string.h>

#include "ipc/protocol.h"

void text_init(struct text_answer *t, uint64_t request_id)
{
	memset(t, 0, sizeof(*t));
	t->request_id = request_id;
}

void text_free(struct text_answer *t)
{
	free(t->text);
	t->text = NULL;
	t->len = 0;
}

int text_add(struct text_answer *t, const void *buf, size_t len, cuzk_error *err)
{
	struct msg_text m;
	const void *data;
	int r = msg_parse_text(&m, &data, buf, len, err);
	if (r < 0)
		return r;
	if (m.hdr.request_id != t->request_id || m.seq != t->next_seq)
		return err_fail(err, CUZK_E_PROTOCOL, "text chunk %u of request %llu, expected chunk %u of %llu",
				m.seq, (unsigned long long)m.hdr.request_id, t->next_seq,
				(unsigned long long)t->request_id);
	if (t->len + m.data_len > CUZK_TEXT_MAX)
		return err_fail(err, CUZK_E_PROTOCOL, "text answer longer than %u bytes", CUZK_TEXT_MAX);
	char *grown = realloc(t->text, t->len + m.data_len + 1);
	if (!grown)
		return err_fail(err, CUZK_E_NOMEM, "text answer: out of memory");
	t->text = grown;
	memcpy(t->text + t->len, data, m.data_len);
	t->len += m.data_len;
	t->text[t->len] = '\0';
	t->next_seq++;
	return (m.flags & CUZK_TEXT_LAST) ? 1 : 0;
}
