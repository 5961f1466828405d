// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libFuzzer target: the protocol parsers cuzkd runs on every client packet
 * (and libcuzk on the daemon's).  Each input is tried as it is, then with a
 * valid magic, version and length patched in, so that the fuzzer spends its
 * time past the header checks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipc/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a successful parse promises its caller. */
static void check_all(const uint8_t *buf, size_t len)
{
	cuzk_error err;
	struct msg_header h;
	struct msg_hello hello;
	struct msg_hello_reply hr;
	struct msg_prove prove;
	struct msg_cancel cancel;
	struct msg_status status;
	struct msg_metrics metrics;
	struct msg_reply reply;
	struct msg_text text;
	const void *chunk;

	if (msg_parse_header(&h, buf, len, &err) == 0 && (h.length != len || h.type == 0 || h.type >= CUZK_MSG__END))
		abort();
	if (msg_parse_hello(&hello, buf, len, &err) == 0 && ((hello.flags & ~CUZK_HELLO_KNOWN) || len != sizeof(hello)))
		abort();
	if (msg_parse_hello_reply(&hr, buf, len, &err) == 0 &&
	    ((hr.flags & ~CUZK_HELLO_KNOWN) || hr.max_inflight > hr.ring_slots ||
	     hr.ring_bytes != ring_memfd_bytes(hr.ring_slots, hr.slot_size)))
		abort();
	if (msg_parse_prove(&prove, buf, len, &err) == 0) {
		size_t n = strnlen(prove.srs, sizeof(prove.srs));
		if (n == 0 || n >= sizeof(prove.srs) || prove.priority >= CUZK_PRIORITY__COUNT)
			abort();
		if (msg_prove_scalar_form(&prove, 0, &err) < -CUZK_E__MAX)
			abort();
	}
	if (msg_parse_cancel(&cancel, buf, len, &err) == 0 && cancel.scope >= CUZK_CANCEL__COUNT)
		abort();
	if (msg_parse_status(&status, buf, len, &err) == 0 && status.format > CUZK_STATUS_PARAMS)
		abort();
	(void)msg_parse_metrics(&metrics, buf, len, &err);
	if (msg_parse_reply(&reply, buf, len, &err) == 0 &&
	    (reply.status >= CUZK_E__MAX || !memchr(reply.message, 0, sizeof(reply.message))))
		abort();
	if (msg_parse_text(&text, &chunk, buf, len, &err) == 0) {
		/* Touch the whole chunk so that ASan sees a lie about its size. */
		volatile uint8_t sink = 0;
		for (uint32_t i = 0; i < text.data_len; i++)
			sink ^= ((const uint8_t *)chunk)[i];
		(void)sink;
		if (sizeof(text) + text.data_len != len)
			abort();
	}
	/* Error messages are one NUL-terminated line. */
	if (!memchr(err.msg, 0, sizeof(err.msg)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A heap copy of exactly size bytes: ASan catches reads past the packet. */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	check_all(buf, size);
	if (size >= sizeof(struct msg_header) && size <= CUZK_MSG_MAX) {
		struct msg_header h;
		memcpy(&h, buf, sizeof(h));
		h.magic = CUZK_MSG_MAGIC;
		h.version = CUZK_PROTOCOL_VERSION;
		h.length = (uint32_t)size;
		memcpy(buf, &h, sizeof(h));
		check_all(buf, size);
	}
	free(buf);
	return 0;
}
