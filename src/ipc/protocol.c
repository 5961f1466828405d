// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Building and checking protocol messages.  Every parser copies the packet
 * into a private, aligned struct first and validates the copy, so the caller
 * never looks at bytes that were not checked. */
#include "ipc/protocol.h"

#include <string.h>

void msg_init(struct msg_header *hdr, enum msg_type type, uint32_t length,
	      uint64_t request_id)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = CUZK_MSG_MAGIC;
	hdr->type = (uint16_t)type;
	hdr->version = CUZK_PROTOCOL_VERSION;
	hdr->length = length;
	hdr->request_id = request_id;
}

static const char *type_name(unsigned type)
{
	static const char *const names[CUZK_MSG__END] = {
		[CUZK_MSG_HELLO] = "hello",
		[CUZK_MSG_HELLO_REPLY] = "hello reply",
		[CUZK_MSG_PROVE] = "prove",
		[CUZK_MSG_CANCEL] = "cancel",
		[CUZK_MSG_STATUS] = "status",
		[CUZK_MSG_METRICS] = "metrics",
		[CUZK_MSG_REPLY] = "reply",
		[CUZK_MSG_TEXT] = "text",
	};
	return type < CUZK_MSG__END && names[type] ? names[type] : "unknown";
}

int msg_parse_header(struct msg_header *ret, const void *buf, size_t len, cuzk_error *err)
{
	struct msg_header h;

	if (len < sizeof(h))
		return err_fail(err, CUZK_E_PROTOCOL, "message of %zu bytes is shorter than the %zu-byte header",
				len, sizeof(h));
	memcpy(&h, buf, sizeof(h));
	if (h.magic != CUZK_MSG_MAGIC)
		return err_fail(err, CUZK_E_PROTOCOL, "message header: magic 0x%08x is not 0x%08x",
				h.magic, CUZK_MSG_MAGIC);
	if (h.version != CUZK_PROTOCOL_VERSION)
		return err_fail(err, CUZK_E_VERSION, "message header: protocol version %u, this side speaks %u",
				h.version, CUZK_PROTOCOL_VERSION);
	if (h.length != len)
		return err_fail(err, CUZK_E_PROTOCOL, "message header: length %u but the packet has %zu bytes",
				h.length, len);
	if (h.reserved != 0)
		return err_fail(err, CUZK_E_PROTOCOL, "message header: reserved field is 0x%x, not 0",
				h.reserved);
	if (h.type == 0 || h.type >= CUZK_MSG__END)
		return err_fail(err, CUZK_E_PROTOCOL, "message header: unknown type %u", h.type);
	*ret = h;
	return 0;
}

/* Header of a message whose type and size are known; copies it to dst. */
static int parse_fixed(void *dst, size_t size, enum msg_type type, const void *buf, size_t len,
		       cuzk_error *err)
{
	struct msg_header h;
	int r = msg_parse_header(&h, buf, len, err);
	if (r < 0)
		return r;
	if (h.type != type)
		return err_fail(err, CUZK_E_PROTOCOL, "expected a %s message, got %s", type_name(type),
				type_name(h.type));
	if (len != size)
		return err_fail(err, CUZK_E_PROTOCOL, "%s message: %zu bytes, must be %zu", type_name(type),
				len, size);
	memcpy(dst, buf, size);
	return 0;
}

static int check_zero(const void *p, size_t n, const char *what, const char *field, cuzk_error *err)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return err_fail(err, CUZK_E_PROTOCOL, "%s message: %s is not zero", what, field);
	return 0;
}

/* A NUL-terminated string in a fixed field, zero after the NUL so that no
 * stale bytes travel; empty allowed only when allow_empty. */
static int check_string(const char *s, size_t field, int allow_empty, const char *what,
			const char *name, cuzk_error *err)
{
	size_t n = strnlen(s, field);
	if (n == field)
		return err_fail(err, CUZK_E_PROTOCOL, "%s message: %s is not NUL-terminated within %zu bytes",
				what, name, field);
	if (n == 0 && !allow_empty)
		return err_fail(err, CUZK_E_PROTOCOL, "%s message: %s is empty", what, name);
	return check_zero(s + n, field - n, what, name, err);
}

int msg_parse_hello(struct msg_hello *ret, const void *buf, size_t len, cuzk_error *err)
{
	struct msg_hello m;
	int r = parse_fixed(&m, sizeof(m), CUZK_MSG_HELLO, buf, len, err);
	if (r < 0)
		return r;
	if (m.flags & ~CUZK_HELLO_KNOWN)
		return err_fail(err, CUZK_E_PROTOCOL, "hello message: unknown flags 0x%x", m.flags & ~CUZK_HELLO_KNOWN);
	if ((r = check_zero(&m.reserved0, sizeof(m.reserved0), "hello", "reserved0", err)) < 0 ||
	    (r = check_zero(m.reserved, sizeof(m.reserved), "hello", "reserved", err)) < 0)
		return r;
	*ret = m;
	return 0;
}

int msg_parse_hello_reply(struct msg_hello_reply *ret, const void *buf, size_t len,
			  cuzk_error *err)
{
	struct msg_hello_reply m;
	int r = parse_fixed(&m, sizeof(m), CUZK_MSG_HELLO_REPLY, buf, len, err);
	if (r < 0)
		return r;
	if (m.flags & ~CUZK_HELLO_KNOWN)
		return err_fail(err, CUZK_E_PROTOCOL, "hello reply: unknown flags 0x%x", m.flags & ~CUZK_HELLO_KNOWN);
	if ((r = check_zero(m.reserved, sizeof(m.reserved), "hello reply", "reserved", err)) < 0)
		return r;
	if (m.max_partitions == 0 || m.max_partitions > CUZK_MAX_PARTITIONS)
		return err_fail(err, CUZK_E_PROTOCOL, "hello reply: max_partitions %u not in 1..%u",
				m.max_partitions, CUZK_MAX_PARTITIONS);
	if (m.ring_slots == 0 || m.ring_slots > CUZK_RING_MAX_SLOTS || (m.ring_slots & (m.ring_slots - 1)))
		return err_fail(err, CUZK_E_PROTOCOL, "hello reply: ring_slots %u is not a power of two in 1..%u",
				m.ring_slots, CUZK_RING_MAX_SLOTS);
	if (m.max_inflight == 0 || m.max_inflight > m.ring_slots)
		return err_fail(err, CUZK_E_PROTOCOL, "hello reply: max_inflight %u not in 1..ring_slots (%u)",
				m.max_inflight, m.ring_slots);
	if (m.slot_size != ring_slot_size(m.max_partitions))
		return err_fail(err, CUZK_E_PROTOCOL, "hello reply: slot_size %u, expected %u for %u partitions",
				m.slot_size, ring_slot_size(m.max_partitions), m.max_partitions);
	if (m.ring_bytes != ring_memfd_bytes(m.ring_slots, m.slot_size))
		return err_fail(err, CUZK_E_PROTOCOL, "hello reply: ring_bytes %llu, expected %llu",
				(unsigned long long)m.ring_bytes,
				(unsigned long long)ring_memfd_bytes(m.ring_slots, m.slot_size));
	if (m.head_bytes != CUZK_RING_HEAD_BYTES)
		return err_fail(err, CUZK_E_PROTOCOL, "hello reply: head_bytes %u, expected %u", m.head_bytes,
				CUZK_RING_HEAD_BYTES);
	*ret = m;
	return 0;
}

int msg_parse_prove(struct msg_prove *ret, const void *buf, size_t len, cuzk_error *err)
{
	const uint32_t known = CUZK_REQ_MONTGOMERY | CUZK_REQ_CANONICAL | CUZK_REQ_FIXED_RS | CUZK_PROVE_FLAG_TRACE;
	struct msg_prove m;
	int r = parse_fixed(&m, sizeof(m), CUZK_MSG_PROVE, buf, len, err);
	if (r < 0)
		return r;
	if (m.priority >= CUZK_PRIORITY__COUNT)
		return err_fail(err, CUZK_E_PROTOCOL, "prove message: priority %u not in 0..%u", m.priority,
				CUZK_PRIORITY__COUNT - 1);
	if (m.flags & ~known)
		return err_fail(err, CUZK_E_PROTOCOL, "prove message: unknown flags 0x%x", m.flags & ~known);
	if ((m.flags & CUZK_REQ_MONTGOMERY) && (m.flags & CUZK_REQ_CANONICAL))
		return err_fail(err, CUZK_E_PROTOCOL, "prove message: both MONTGOMERY and CANONICAL flags set");
	if (!(m.flags & CUZK_REQ_FIXED_RS) && m.seed)
		return err_fail(err, CUZK_E_PROTOCOL, "prove message: seed without the FIXED_RS flag");
	if ((r = check_zero(m.reserved, sizeof(m.reserved), "prove", "reserved", err)) < 0 ||
	    (r = check_string(m.srs, sizeof(m.srs), 0, "prove", "srs", err)) < 0)
		return r;
	*ret = m;
	return 0;
}

int msg_parse_cancel(struct msg_cancel *ret, const void *buf, size_t len, cuzk_error *err)
{
	struct msg_cancel m;
	int r = parse_fixed(&m, sizeof(m), CUZK_MSG_CANCEL, buf, len, err);
	if (r < 0)
		return r;
	if (m.scope >= CUZK_CANCEL__COUNT)
		return err_fail(err, CUZK_E_PROTOCOL, "cancel message: unknown scope %u", m.scope);
	if ((r = check_zero(&m.reserved0, sizeof(m.reserved0), "cancel", "reserved0", err)) < 0 ||
	    (r = check_zero(&m.reserved, sizeof(m.reserved), "cancel", "reserved", err)) < 0)
		return r;
	*ret = m;
	return 0;
}

int msg_parse_status(struct msg_status *ret, const void *buf, size_t len, cuzk_error *err)
{
	struct msg_status m;
	int r = parse_fixed(&m, sizeof(m), CUZK_MSG_STATUS, buf, len, err);
	if (r < 0)
		return r;
	if (m.format != CUZK_STATUS_TEXT && m.format != CUZK_STATUS_JSON && m.format != CUZK_STATUS_PARAMS)
		return err_fail(err, CUZK_E_PROTOCOL, "status message: unknown format %u", m.format);
	if ((r = check_zero(&m.reserved0, sizeof(m.reserved0), "status", "reserved0", err)) < 0 ||
	    (r = check_zero(m.reserved, sizeof(m.reserved), "status", "reserved", err)) < 0)
		return r;
	*ret = m;
	return 0;
}

int msg_parse_metrics(struct msg_metrics *ret, const void *buf, size_t len,
		      cuzk_error *err)
{
	struct msg_metrics m;
	int r = parse_fixed(&m, sizeof(m), CUZK_MSG_METRICS, buf, len, err);
	if (r < 0 || (r = check_zero(m.reserved, sizeof(m.reserved), "metrics", "reserved", err)) < 0)
		return r;
	*ret = m;
	return 0;
}

int msg_parse_reply(struct msg_reply *ret, const void *buf, size_t len, cuzk_error *err)
{
	struct msg_reply m;
	int r = parse_fixed(&m, sizeof(m), CUZK_MSG_REPLY, buf, len, err);
	if (r < 0)
		return r;
	if (m.status >= CUZK_E__MAX)
		return err_fail(err, CUZK_E_PROTOCOL, "reply message: unknown status %u", m.status);
	if ((r = check_zero(&m.reserved0, sizeof(m.reserved0), "reply", "reserved0", err)) < 0 ||
	    (r = check_string(m.message, sizeof(m.message), 1, "reply", "message", err)) < 0)
		return r;
	if (m.status != 0 && m.message[0] == '\0')
		return err_fail(err, CUZK_E_PROTOCOL, "reply message: status %u without a message", m.status);
	if (m.status != 0 && m.job_id != 0)
		return err_fail(err, CUZK_E_PROTOCOL, "reply message: status %u with a job id", m.status);
	*ret = m;
	return 0;
}

int msg_parse_text(struct msg_text *ret, const void **ret_data, const void *buf,
		   size_t len, cuzk_error *err)
{
	struct msg_header h;
	struct msg_text m;
	int r = msg_parse_header(&h, buf, len, err);
	if (r < 0)
		return r;
	if (h.type != CUZK_MSG_TEXT)
		return err_fail(err, CUZK_E_PROTOCOL, "expected a text message, got %s", type_name(h.type));
	if (len < sizeof(m))
		return err_fail(err, CUZK_E_PROTOCOL, "text message: %zu bytes, shorter than its %zu-byte head",
				len, sizeof(m));
	memcpy(&m, buf, sizeof(m));
	if (m.data_len != len - sizeof(m))
		return err_fail(err, CUZK_E_PROTOCOL, "text message: data_len %u but %zu bytes follow",
				m.data_len, len - sizeof(m));
	if (m.flags & ~CUZK_TEXT_LAST)
		return err_fail(err, CUZK_E_PROTOCOL, "text message: unknown flags 0x%x", m.flags);
	if (m.reserved0)
		return err_fail(err, CUZK_E_PROTOCOL, "text message: reserved0 is not zero");
	if (memchr((const uint8_t *)buf + sizeof(m), 0, m.data_len))
		return err_fail(err, CUZK_E_PROTOCOL, "text message: chunk %u contains a NUL byte", m.seq);
	*ret = m;
	*ret_data = (const uint8_t *)buf + sizeof(m);
	return 0;
}

void msg_reply_init(struct msg_reply *msg, uint64_t request_id, int status,
		    const char *message)
{
	memset(msg, 0, sizeof(*msg));
	msg_init(&msg->hdr, CUZK_MSG_REPLY, sizeof(*msg), request_id);
	msg->status = (uint32_t)(status < 0 ? -status : status);
	if (!message)
		message = "";
	size_t n = strnlen(message, sizeof(msg->message) - 1);
	for (size_t i = 0; i < n; i++)
		msg->message[i] = message[i] == '\n' || message[i] == '\r' ? ' ' : message[i];
	if (msg->status != 0 && n == 0)
		strcpy(msg->message, cuzk_status_name((int)msg->status));
}

int msg_prove_scalar_form(const struct msg_prove *req, uint32_t witness_flags,
			  cuzk_error *err)
{
	int montgomery = (witness_flags & CUZK_WITNESS_MONTGOMERY) != 0;
	if ((req->flags & CUZK_REQ_MONTGOMERY) && !montgomery)
		return err_fail(err, CUZK_E_MISMATCH,
				"request says Montgomery scalars but the witness header says canonical");
	if ((req->flags & CUZK_REQ_CANONICAL) && montgomery)
		return err_fail(err, CUZK_E_MISMATCH,
				"request says canonical scalars but the witness header says Montgomery");
	return montgomery;
}
