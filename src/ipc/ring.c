// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The completion ring: single producer (the daemon), single consumer (the
 * client), in two memfds so that each side can write only its own counter.
 * Memory order: the producer's release store of tail publishes the slot it
 * wrote; the consumer's release store of head says it finished copying the
 * slot out, so the producer (acquire load of head) may overwrite it. */
#include "ipc/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010  /* Linux 5.1; older glibc lacks the name */
#endif

uint32_t ring_slot_size(uint32_t max_partitions)
{
	return (uint32_t)sizeof(struct ring_rec) + max_partitions * CUZK_PROOF_BYTES;
}

uint64_t ring_memfd_bytes(uint32_t ring_slots, uint32_t slot_size)
{
	return CUZK_RING_SLOTS_OFFSET + (uint64_t)ring_slots * slot_size;
}

uint32_t ring_pick_slots(uint32_t wish, uint32_t min_slots)
{
	uint32_t want = wish > min_slots ? wish : min_slots;
	uint32_t slots = 1;
	while (slots < want && slots < CUZK_RING_MAX_SLOTS)
		slots <<= 1;
	return slots;
}

static const struct ring_ctrl *ctrl_of(const uint8_t *ring)
{
	return (const struct ring_ctrl *)ring;
}

int ring_producer_create(struct ring_producer *ret, uint32_t ring_slots,
			 uint32_t max_partitions, cuzk_error *err)
{
	struct ring_producer p = { .ring_fd = -1, .head_fd = -1 };
	void *head_map = MAP_FAILED;
	int r;

	if (ring_slots == 0 || ring_slots > CUZK_RING_MAX_SLOTS || (ring_slots & (ring_slots - 1)))
		return err_fail(err, CUZK_E_INVAL, "ring of %u slots: not a power of two in 1..%u", ring_slots,
				CUZK_RING_MAX_SLOTS);
	if (max_partitions == 0 || max_partitions > CUZK_MAX_PARTITIONS)
		return err_fail(err, CUZK_E_INVAL, "ring for %u partitions: not in 1..%u", max_partitions,
				CUZK_MAX_PARTITIONS);
	p.ring_slots = ring_slots;
	p.max_partitions = max_partitions;
	p.slot_size = ring_slot_size(max_partitions);
	p.ring_bytes = ring_memfd_bytes(ring_slots, p.slot_size);

	const unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	if ((r = p.ring_fd = memfd_new("cuzk-ring", flags, p.ring_bytes, err)) < 0 ||
	    (r = p.head_fd = memfd_new("cuzk-ring-head", flags, CUZK_RING_HEAD_BYTES, err)) < 0)
		goto fail;
	void *ring = mmap(NULL, p.ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p.ring_fd, 0);
	if (ring == MAP_FAILED) {
		r = err_fail_errno(err, errno, "mmap of the completion ring (%llu bytes)",
				   (unsigned long long)p.ring_bytes);
		goto fail;
	}
	p.ring = ring;
	head_map = mmap(NULL, CUZK_RING_HEAD_BYTES, PROT_READ, MAP_SHARED, p.head_fd, 0);
	if (head_map == MAP_FAILED) {
		r = err_fail_errno(err, errno, "mmap of the ring head page");
		goto fail;
	}
	p.headp = head_map;

	struct ring_ctrl *ctrl = (struct ring_ctrl *)p.ring;
	ctrl->magic = CUZK_RING_MAGIC;
	ctrl->version = CUZK_PROTOCOL_VERSION;
	ctrl->ring_slots = ring_slots;
	ctrl->slot_size = p.slot_size;
	ctrl->max_partitions = max_partitions;

	/* FUTURE_WRITE keeps our writable mapping but refuses the client one;
	 * kernels before 5.1 lack it, and then a client can only corrupt its
	 * own ring, which we never read back. */
	int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE;
	if (fcntl(p.ring_fd, F_ADD_SEALS, seals) < 0 &&
	    (errno != EINVAL || fcntl(p.ring_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)) {
		r = err_fail_errno(err, errno, "sealing the completion ring");
		goto fail;
	}
	if (fcntl(p.ring_fd, F_ADD_SEALS, F_SEAL_SEAL) < 0 ||
	    fcntl(p.head_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		r = err_fail_errno(err, errno, "sealing the ring memfds");
		goto fail;
	}
	*ret = p;
	return 0;

fail:
	ring_producer_destroy(&p);
	return r;
}

void ring_producer_destroy(struct ring_producer *p)
{
	if (p->ring)
		munmap(p->ring, p->ring_bytes);
	if (p->headp)
		munmap((void *)p->headp, CUZK_RING_HEAD_BYTES);
	if (p->ring_fd >= 0)
		close(p->ring_fd);
	if (p->head_fd >= 0)
		close(p->head_fd);
	p->ring = NULL;
	p->headp = NULL;
	p->ring_fd = p->head_fd = -1;
}

int64_t ring_unread(const struct ring_producer *p, cuzk_error *err)
{
	uint64_t head = __atomic_load_n(&p->headp->head, __ATOMIC_ACQUIRE);
	if (head > p->tail || p->tail - head > p->ring_slots)
		return err_fail(err, CUZK_E_PROTOCOL, "ring head %llu out of range (tail %llu, %u slots)",
				(unsigned long long)head, (unsigned long long)p->tail, p->ring_slots);
	return (int64_t)(p->tail - head);
}

int ring_push(struct ring_producer *p, const struct ring_rec *rec,
	      const uint8_t *proofs, cuzk_error *err)
{
	if (rec->num_partitions > p->max_partitions)
		return err_fail(err, CUZK_E_INVAL, "completion with %u partitions, ring holds %u",
				rec->num_partitions, p->max_partitions);
	int64_t unread = ring_unread(p, err);
	if (unread < 0)
		return (int)unread;
	if ((uint64_t)unread == p->ring_slots)
		return err_fail(err, CUZK_E_BUSY, "completion ring full (%u unread)", p->ring_slots);

	uint8_t *slot = p->ring + CUZK_RING_SLOTS_OFFSET + (p->tail & (p->ring_slots - 1)) * (uint64_t)p->slot_size;
	struct ring_rec r = *rec;
	memset(r.reserved, 0, sizeof(r.reserved));
	r.message[sizeof(r.message) - 1] = '\0';
	memcpy(slot, &r, sizeof(r));
	if (r.num_partitions)
		memcpy(slot + sizeof(r), proofs, (size_t)r.num_partitions * CUZK_PROOF_BYTES);
	p->tail++;
	struct ring_ctrl *ctrl = (struct ring_ctrl *)p->ring;
	__atomic_store_n(&ctrl->tail, p->tail, __ATOMIC_RELEASE);
	return 0;
}

int ring_consumer_open(struct ring_consumer *ret, int ring_fd, int head_fd,
		       const struct msg_hello_reply *hello, cuzk_error *err)
{
	struct stat st;
	struct ring_consumer c = {
		.ring_bytes = hello->ring_bytes,
		.ring_slots = hello->ring_slots,
		.slot_size = hello->slot_size,
		.max_partitions = hello->max_partitions,
	};

	/* Sizes first: a mapping past the end of a file would SIGBUS. */
	if (fstat(ring_fd, &st) < 0)
		return err_fail_errno(err, errno, "fstat of the completion ring");
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < c.ring_bytes)
		return err_fail(err, CUZK_E_PROTOCOL, "completion ring fd: %lld bytes, hello says %llu",
				(long long)st.st_size, (unsigned long long)c.ring_bytes);
	if (fstat(head_fd, &st) < 0)
		return err_fail_errno(err, errno, "fstat of the ring head page");
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < CUZK_RING_HEAD_BYTES)
		return err_fail(err, CUZK_E_PROTOCOL, "ring head fd: %lld bytes, need %u",
				(long long)st.st_size, CUZK_RING_HEAD_BYTES);

	void *ring = mmap(NULL, c.ring_bytes, PROT_READ, MAP_SHARED, ring_fd, 0);
	if (ring == MAP_FAILED)
		return err_fail_errno(err, errno, "mmap of the completion ring");
	void *head = mmap(NULL, CUZK_RING_HEAD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, head_fd, 0);
	if (head == MAP_FAILED) {
		int e = errno;
		munmap(ring, c.ring_bytes);
		return err_fail_errno(err, e, "mmap of the ring head page");
	}
	c.ring = ring;
	c.headp = head;

	struct ring_ctrl ctrl;
	memcpy(&ctrl, ring, sizeof(ctrl));
	if (ctrl.magic != CUZK_RING_MAGIC || ctrl.version != CUZK_PROTOCOL_VERSION ||
	    ctrl.ring_slots != c.ring_slots || ctrl.slot_size != c.slot_size ||
	    ctrl.max_partitions != c.max_partitions) {
		ring_consumer_close(&c);
		return err_fail(err, CUZK_E_PROTOCOL,
				"completion ring control block (magic 0x%08x, %u slots of %u bytes, %u partitions) "
				"disagrees with the hello reply",
				ctrl.magic, ctrl.ring_slots, ctrl.slot_size, ctrl.max_partitions);
	}
	c.head = __atomic_load_n(&c.headp->head, __ATOMIC_ACQUIRE);
	*ret = c;
	return 0;
}

void ring_consumer_close(struct ring_consumer *c)
{
	if (c->ring)
		munmap((void *)c->ring, c->ring_bytes);
	if (c->headp)
		munmap(c->headp, CUZK_RING_HEAD_BYTES);
	c->ring = NULL;
	c->headp = NULL;
}

int ring_pop(struct ring_consumer *c, struct ring_rec *ret_rec, uint8_t *proofs,
	     cuzk_error *err)
{
	uint64_t tail = __atomic_load_n(&ctrl_of(c->ring)->tail, __ATOMIC_ACQUIRE);
	if (tail == c->head)
		return 0;
	if (tail < c->head || tail - c->head > c->ring_slots)
		return err_fail(err, CUZK_E_PROTOCOL, "ring tail %llu out of range (head %llu, %u slots)",
				(unsigned long long)tail, (unsigned long long)c->head, c->ring_slots);

	const uint8_t *slot = c->ring + CUZK_RING_SLOTS_OFFSET +
			      (c->head & (c->ring_slots - 1)) * (uint64_t)c->slot_size;
	struct ring_rec rec;
	memcpy(&rec, slot, sizeof(rec));
	if (rec.num_partitions > c->max_partitions)
		return err_fail(err, CUZK_E_PROTOCOL, "completion %llu: %u partitions, ring holds %u",
				(unsigned long long)c->head, rec.num_partitions, c->max_partitions);
	if (rec.status >= CUZK_E__MAX || (rec.status != 0 && rec.num_partitions != 0))
		return err_fail(err, CUZK_E_PROTOCOL, "completion %llu: status %u with %u proofs",
				(unsigned long long)c->head, rec.status, rec.num_partitions);
	if (!memchr(rec.message, 0, sizeof(rec.message)))
		return err_fail(err, CUZK_E_PROTOCOL, "completion %llu: message not NUL-terminated",
				(unsigned long long)c->head);
	if (rec.num_partitions)
		memcpy(proofs, slot + sizeof(rec), (size_t)rec.num_partitions * CUZK_PROOF_BYTES);
	c->head++;
	__atomic_store_n(&c->headp->head, c->head, __ATOMIC_RELEASE);
	*ret_rec = rec;
	return 1;
}
