// SPDX-License-Identifier: Apache-2.0 OR MIT
/* libcuzk: the client library of cuzkd, the Groth16 proving service.
 *
 * A client connects to the daemon's socket, allocates witness buffers (memfds
 * it maps and writes in place: no serialisation, no copy), submits them and
 * reads completions from a ring of shared memory.  docs/PROTOCOL.md describes
 * the wire format underneath.
 *
 *   cuzk_client *c;  cuzk_buffer *w;  struct cuzk_completion *done;
 *   cuzk_connect(&c, "/run/cuzk/cuzkd.sock", NULL, &err);
 *   cuzk_buffer_alloc(c, &w, &dims, &err);          once; keep it in a pool
 *   cuzk_buffer_partition(w, 0, &p);  ... write p.a, p.b, p.c, p.aux ...
 *   cuzk_submit(c, w, &req, &id, NULL, &err);
 *   cuzk_wait(c, done, -1, &err);                    done->proof[i]: 192 bytes
 *
 * A request's timeline (Chrome trace-event JSON): connect with
 * CUZK_CONNECT_TRACE, submit with cuzk_submit_ex and CUZK_SUBMIT_TRACE and a
 * memfd; it holds the timeline when the completion arrives.
 *
 * RETURN VALUES.  Every function that can fail returns 0 on success or a
 * negative cuzk status, -CUZK_E_* (the same codes the daemon puts in its
 * replies and completions), and, when err is not NULL, fills it with the code
 * and a one-line message naming what failed.  No function returns a negative
 * errno: a failed system call is -CUZK_E_IO with strerror in the message
 * (-CUZK_E_NOTFOUND for ENOENT, -CUZK_E_PERM for EACCES/EPERM, -CUZK_E_NOMEM
 * for ENOMEM).  cuzk_poll and cuzk_wait also return 1 for "got one".
 *
 * THREADS.  A cuzk_client may be used from several threads: each call takes
 * the client's mutex.  cuzk_wait sleeps without holding it.  cuzk_disconnect
 * must be the last call, made when no other call on that client is running.  A cuzk_buffer
 * belongs to one thread at a time (the caller's), and must not be written
 * while a proof of it runs: the daemon reads it in place.
 *
 * ABI.  Structs the caller fills have reserved fields that must be zero (the
 * library rejects non-zero ones, so they can gain meaning later); sizes are
 * fixed for soname libcuzk.so.1. */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes: the values are part of the protocol (docs/PROTOCOL.md,
 * "Errors").  This is their one definition; the cuzk sources get it through
 * src/common/error.h. */
enum cuzk_status {
	CUZK_OK = 0,
	CUZK_E_INVAL = 1,        /* bad argument, bad SRS name, bad option */
	CUZK_E_IO = 2,           /* a system call failed; the message has strerror */
	CUZK_E_NOMEM = 3,        /* allocation failed or a size does not fit */
	CUZK_E_FORMAT = 4,       /* malformed witness header: field and offset named */
	CUZK_E_VERSION = 5,      /* unknown protocol or witness version */
	CUZK_E_LENGTH = 6,       /* wrong length of an encoded value or section */
	CUZK_E_FLAGS = 7,        /* wrong flag bits in a point encoding */
	CUZK_E_NONCANONICAL = 8, /* a field element >= its modulus */
	CUZK_E_NOT_ON_CURVE = 9,
	CUZK_E_NOT_IN_SUBGROUP = 10,
	CUZK_E_UNSAT = 11,       /* a constraint is not satisfied */
	CUZK_E_MISMATCH = 12,    /* witness shape or scalar form disagrees with the SRS/request */
	CUZK_E_VERIFY = 13,      /* a proof did not verify */
	CUZK_E_UNSUPPORTED = 14, /* a feature not built in (GPU backend, ...) */
	CUZK_E_GPU = 15,         /* a CUDA call failed */
	CUZK_E_CANCELLED = 16,
	CUZK_E_BUSY = 17,        /* a limit was reached (in flight, bytes, size) */
	CUZK_E_NOTFOUND = 18,    /* unknown SRS, unknown request id */
	CUZK_E_PERM = 19,
	CUZK_E_VRAM = 20,        /* the device budget cannot hold the job */
	CUZK_E_PROTOCOL = 21,    /* malformed message: magic, type, length, reserved field */
	CUZK_E_FD = 22,          /* no fd, two fds, truncated control data, not a tmpfs/hugetlbfs file */
	CUZK_E_SEALS = 23,       /* the witness memfd lacks F_SEAL_SHRINK or F_SEAL_GROW */
	CUZK_E_SHUTDOWN = 24,    /* the daemon is draining and takes no new work */
	CUZK_E_INTERNAL = 25,    /* a bug or an unexpected failure inside the daemon */
	CUZK_E__MAX
};

#define CUZK_ERRMSG_MAX 512

typedef struct cuzk_error {
	int code;                   /* enum cuzk_status, positive */
	char msg[CUZK_ERRMSG_MAX];  /* one line, no trailing newline */
} cuzk_error;

/* A short stable name for a status, e.g. "format" or "seals". */
const char *cuzk_status_name(int code);

#define CUZK_PROOF_BYTES 192          /* A ‖ B ‖ C compressed, bellperson's encoding */
#define CUZK_MAX_PARTITIONS 64        /* per request (witness format limit) */
#define CUZK_SRS_NAME_MAX 255         /* bytes, without the NUL */
#define CUZK_MESSAGE_MAX 256          /* daemon messages, with the NUL */
/* Where the packaged cuzkd.socket listens; the cuzk command uses it when
 * neither --socket nor $CUZK_SOCKET says otherwise. */
#define CUZK_DEFAULT_SOCKET "/run/cuzk/cuzkd.sock"

/* Queue order; FIFO within one priority. */
enum cuzk_priority {
	CUZK_PRIORITY_CRITICAL = 0,   /* WinningPoSt: seconds to land on chain */
	CUZK_PRIORITY_HIGH = 1,
	CUZK_PRIORITY_NORMAL = 2,
	CUZK_PRIORITY_LOW = 3,
	CUZK_PRIORITY__COUNT
};

/* Phases of one proof, indexes of cuzk_completion.phase_ns.  0 when the
 * phase did not run separately (e.g. UPLOAD on the CPU backend). */
enum cuzk_phase {
	CUZK_PHASE_CHECK = 0,     /* fd checks, mapping, header copy; the workers' density copies */
	CUZK_PHASE_QUEUE = 1,     /* waiting for a worker */
	CUZK_PHASE_SRS = 2,       /* waiting for the parameters to load */
	CUZK_PHASE_REGISTER = 3,  /* pinning the witness (0 cost on a cache hit) */
	CUZK_PHASE_UPLOAD = 4,    /* host to device copies */
	CUZK_PHASE_NTT = 5,       /* the h polynomial */
	CUZK_PHASE_MSM = 6,       /* all multi-scalar multiplications */
	CUZK_PHASE_ASSEMBLE = 7,  /* A, B, C from the MSM results, encoding */
	CUZK_PHASE_TOTAL = 8,     /* request received to completion written */
	CUZK_PHASE__COUNT = 9
};
#define CUZK_PHASE_SLOTS 12       /* room in the completion; the rest read 0 */

/* Request flags (cuzk_request.flags). */
#define CUZK_REQ_MONTGOMERY 0x1u  /* scalars are Montgomery form: must match the witness header */
#define CUZK_REQ_CANONICAL  0x2u  /* scalars are canonical: must match the witness header */
#define CUZK_REQ_FIXED_RS   0x4u  /* r, s derived from seed: for tests only (proofs comparable) */

/* Witness flags (cuzk_dims.flags): what the witness header records. */
#define CUZK_WITNESS_FLAG_MONTGOMERY 0x1u

/* A finished (or failed, or cancelled) request.  About 12.7 KiB (room for 64
 * proofs): keep it off small stacks. */
struct cuzk_completion {
	uint64_t request_id;
	int32_t status;                  /* 0 or a positive CUZK_E_* */
	uint32_t num_partitions;         /* proofs below (0 unless status == 0) */
	uint64_t phase_ns[CUZK_PHASE_SLOTS];
	char message[CUZK_MESSAGE_MAX];  /* the daemon's one-line error, "" on success */
	uint8_t proof[CUZK_MAX_PARTITIONS][CUZK_PROOF_BYTES];
};

/* Log lines from the library (e.g. why a buffer did not get huge pages: a
 * warning from 256 MiB on, an info line below).
 * level: 3 error, 4 warning, 6 info (syslog numbers).  Called with the
 * client's mutex held: it must not call back into the same client. */
typedef void (*cuzk_log_fn)(void *opaque, int level, const char *line);

/* Connection flags (cuzk_connect_opts.flags). */
#define CUZK_CONNECT_TRACE 0x1u   /* this connection will ask for timelines (cuzk_submit_ex).  A cuzkd
				   * older than traces refuses such a connection (-CUZK_E_PROTOCOL,
				   * "unknown flags"): ask only when a timeline is wanted. */

struct cuzk_connect_opts {
	uint32_t max_inflight;    /* wish; 0: the daemon's limit */
	uint32_t ring_slots;      /* wish; 0: the daemon's default */
	cuzk_log_fn log;          /* NULL: warnings and errors go to stderr, info is dropped */
	void *log_opaque;
	uint32_t flags;           /* CUZK_CONNECT_* (libcuzk 0.3; zero before: the same layout) */
	uint32_t reserved0;       /* zero */
	uint64_t reserved[3];     /* zero */
};

typedef struct cuzk_client cuzk_client;
typedef struct cuzk_buffer cuzk_buffer;

/* Connects to socket_path and says hello (docs/PROTOCOL.md).  opts may be NULL.
 * RETURN VALUE: 0 and *ret set; -CUZK_E_NOTFOUND (no such socket), -CUZK_E_PERM,
 * -CUZK_E_IO (connect failed otherwise; ECONNREFUSED: a socket file nobody
 * listens on; both messages say how to start cuzkd), -CUZK_E_VERSION,
 * -CUZK_E_PROTOCOL (the daemon answered nonsense), -CUZK_E_BUSY (too many
 * clients), -CUZK_E_SHUTDOWN, -CUZK_E_NOMEM. */
int cuzk_connect(cuzk_client **ret, const char *socket_path, const struct cuzk_connect_opts *opts,
		 cuzk_error *err) __attribute__((cold));

/* Closes the connection; the daemon cancels what is still in flight.  Buffers
 * stay valid (they belong to the caller) and may be used with another client. */
void cuzk_disconnect(cuzk_client *c);

/* The daemon's limits, from its hello (cannot fail). */
struct cuzk_limits {
	uint32_t max_inflight;       /* requests in flight, unread completions included */
	uint32_t max_partitions;
	uint64_t max_witness_bytes;
	uint32_t ring_slots;
	uint32_t reserved0;
	uint64_t reserved[2];
};
void cuzk_client_limits(const cuzk_client *c, struct cuzk_limits *ret);

/* Dimensions of a witness buffer: every partition has the same shape. */
struct cuzk_dims {
	uint64_t num_constraints;    /* a, b, c length: constraints + one per public input */
	uint64_t num_inputs;         /* including the constant 1 */
	uint64_t num_aux;
	uint32_t num_partitions;     /* 1 .. CUZK_MAX_PARTITIONS */
	uint32_t flags;              /* CUZK_WITNESS_FLAG_* */
	uint64_t reserved[2];        /* zero */
};

enum cuzk_page_kind {
	CUZK_PAGES_HUGETLB = 0,      /* MFD_HUGETLB from the hugetlb pool */
	CUZK_PAGES_THP = 1,          /* shmem with madvise(MADV_HUGEPAGE) */
	CUZK_PAGES_SMALL = 2,        /* 4 KiB pages */
};

/* Allocates a witness buffer: a memfd named "cuzk-witness-<parts>x<constraints>",
 * sized and mapped read-write, its header and partition table written.  Page
 * choice: MFD_HUGETLB when the hugetlb pool has enough free pages, otherwise
 * shmem with MADV_HUGEPAGE when transparent huge pages are allowed for shmem,
 * otherwise 4 KiB pages; the reason for a fallback is logged once per client
 * (a warning when a buffer of 256 MiB or more gets 4 KiB pages, else info).
 * c may be NULL (no logging).
 * RETURN VALUE: 0 and *ret set; -CUZK_E_INVAL (bad dims), -CUZK_E_NOMEM (too
 * large), -CUZK_E_IO (memfd_create, ftruncate, mmap). */
int cuzk_buffer_alloc(cuzk_client *c, cuzk_buffer **ret, const struct cuzk_dims *dims,
		      cuzk_error *err) __attribute__((cold));

/* Unmaps and closes the buffer.  Safe while a proof of it runs: the daemon
 * holds its own reference to the memfd (the proof is then simply read from
 * memory nobody writes any more). */
void cuzk_buffer_free(cuzk_buffer *b);

/* Allocates a buffer shaped like the witness file at path (the layout of
 * docs/PROTOCOL.md, as `cuzk synth` writes it) and copies the file in.  For
 * tools and tests: this is one copy of every byte, which a client writing in
 * place never pays.
 * RETURN VALUE: 0 and *ret set; -CUZK_E_NOTFOUND, -CUZK_E_IO, -CUZK_E_FORMAT
 * (the file's header is invalid: field named), -CUZK_E_NOMEM. */
int cuzk_buffer_load_file(cuzk_client *c, cuzk_buffer **ret, const char *path, cuzk_error *err)
	__attribute__((cold));

/* Where one partition's sections live in the mapping: the caller writes
 * scalars (32 bytes: 4 little-endian u64 limbs) and density words there. */
struct cuzk_partition {
	void *a, *b, *c;             /* num_constraints scalars each */
	void *input;                 /* num_inputs scalars, input[0] = 1 */
	void *aux;                   /* num_aux scalars */
	uint64_t *a_aux_density;     /* ceil(num_aux/64) words: bit i of word i/64 */
	uint64_t *b_input_density;   /* ceil(num_inputs/64) words */
	uint64_t *b_aux_density;     /* ceil(num_aux/64) words */
	uint64_t reserved[4];
};

/* RETURN VALUE: 0 and *ret filled; -CUZK_E_INVAL when index is out of range. */
int cuzk_buffer_partition(cuzk_buffer *b, uint32_t index, struct cuzk_partition *ret);

/* Accessors (they cannot fail): the mapping (the whole witness file, header
 * first), its size in bytes (whole huge pages: may exceed the layout), the
 * memfd (owned by the buffer), and the kind of pages it got. */
void *cuzk_buffer_data(cuzk_buffer *b);
uint64_t cuzk_buffer_size(const cuzk_buffer *b);
int cuzk_buffer_fd(const cuzk_buffer *b);
enum cuzk_page_kind cuzk_buffer_pages(const cuzk_buffer *b);

/* Named proof kinds (Filecoin's circuits) for cuzk_request.srs:
 * "porep-32g", "porep-64g", "window-post-32g", "window-post-64g",
 * "winning-post-32g", "winning-post-64g", "snap-32g", "snap-64g".  The daemon
 * resolves a kind to Filecoin's v28 parameter file name; this returns that
 * name (a static string), or NULL when kind is not one of these. */
const char *cuzk_kind_params(const char *kind);

struct cuzk_request {
	const char *srs;             /* a parameter file name in the daemon's srs_dir, or a kind */
	uint32_t priority;           /* enum cuzk_priority */
	uint32_t flags;              /* CUZK_REQ_* */
	uint64_t seed;               /* with CUZK_REQ_FIXED_RS */
	uint64_t reserved[2];        /* zero */
};

/* Seals the buffer (SHRINK, GROW, SEAL; not WRITE, so it can be written again
 * for the next proof) and sends it.  The daemon checks it before answering, so
 * a rejected request fails here and produces no completion; an accepted one
 * produces exactly one completion (cuzk_poll/cuzk_wait) with *ret_id.
 * Do not write the buffer until that completion arrived.  ret_job_id (may be
 * NULL) receives the daemon-wide job id, the one its logs and status show and
 * cuzk_cancel_job takes.
 * RETURN VALUE: 0 and *ret_id set; -CUZK_E_INVAL (bad request, name too long),
 * or the daemon's rejection: -CUZK_E_BUSY, -CUZK_E_FD, -CUZK_E_SEALS,
 * -CUZK_E_FORMAT, -CUZK_E_NOTFOUND, -CUZK_E_MISMATCH, -CUZK_E_SHUTDOWN, ...;
 * -CUZK_E_IO when the connection failed. */
int cuzk_submit(cuzk_client *c, cuzk_buffer *b, const struct cuzk_request *req, uint64_t *ret_id,
		uint64_t *ret_job_id, cuzk_error *err);

/* Options of cuzk_submit_ex: zero it, then set what you need. */
#define CUZK_SUBMIT_TRACE 0x1u    /* write the request's timeline into trace_fd */
struct cuzk_submit_opts {
	uint32_t flags;              /* CUZK_SUBMIT_* */
	/* With CUZK_SUBMIT_TRACE: a regular file on tmpfs (a memfd, a file in
	 * /dev/shm) open for writing and not sealed against writing or
	 * growing.  The daemon writes the timeline (Chrome trace-event JSON:
	 * docs/PROTOCOL.md, PROVE) at its file offset before it posts the
	 * completion, whatever the request's outcome; read it back from where
	 * the offset was.  The caller keeps the fd (the library does not close
	 * it).  If the daemon could not write it, the completion's status is
	 * unchanged and its message says "trace not written: ...". */
	int32_t trace_fd;
	uint64_t reserved[3];        /* zero */
};

/* cuzk_submit with options (opts may be NULL: then it is cuzk_submit).
 * RETURN VALUE: as cuzk_submit; also -CUZK_E_UNSUPPORTED for
 * CUZK_SUBMIT_TRACE on a connection made without CUZK_CONNECT_TRACE,
 * -CUZK_E_INVAL for unknown flags, a negative trace_fd or non-zero reserved
 * fields, and the daemon's -CUZK_E_FD or -CUZK_E_SEALS for a trace fd it
 * refuses (the message names the trace fd). */
int cuzk_submit_ex(cuzk_client *c, cuzk_buffer *b, const struct cuzk_request *req,
		   const struct cuzk_submit_opts *opts, uint64_t *ret_id, uint64_t *ret_job_id, cuzk_error *err);

/* Takes one completion from the ring without sleeping.
 * RETURN VALUE: 1 and *ret filled; 0 when there is none; -CUZK_E_PROTOCOL when
 * the ring is corrupt. */
int cuzk_poll(cuzk_client *c, struct cuzk_completion *ret, cuzk_error *err);

/* Like cuzk_poll, sleeping on the daemon's eventfd and the socket until a
 * completion arrives or timeout_ms passes (-1: no timeout).
 * Several threads may wait on one client; each completion goes to one of them.
 * RETURN VALUE: 1 and *ret filled; 0 on timeout; -CUZK_E_IO when the daemon
 * closed the connection (its last message, if any, in err); -CUZK_E_PROTOCOL
 * when the ring is corrupt. */
int cuzk_wait(cuzk_client *c, struct cuzk_completion *ret, int timeout_ms, cuzk_error *err);

/* Like cuzk_wait, and also wakes up when wake_fd becomes readable (a pipe or
 * an eventfd the caller writes to cancel the wait, e.g. from a Go context or
 * an async runtime).  wake_fd is only polled, never read.
 * RETURN VALUE: as cuzk_wait, and -CUZK_E_CANCELLED when wake_fd is readable
 * and no completion was waiting. */
int cuzk_wait_fd(cuzk_client *c, struct cuzk_completion *ret, int timeout_ms, int wake_fd, cuzk_error *err);

/* The eventfd the daemon signals after writing completions, for callers with
 * their own poll loop: when it is readable, call cuzk_poll until it returns 0. */
int cuzk_client_eventfd(const cuzk_client *c);

/* Cancels an accepted request.  Its completion (CUZK_E_CANCELLED, or its
 * result if it finished first) still arrives.
 * RETURN VALUE: 0; -CUZK_E_NOTFOUND when the daemon does not know the id (it
 * already completed); -CUZK_E_IO. */
int cuzk_cancel(cuzk_client *c, uint64_t request_id, cuzk_error *err);

/* Cancels a daemon job by its job id, possibly another connection's (an
 * operator's `cuzk cancel`).  The daemon allows it to the job owner's uid and
 * to root.
 * RETURN VALUE: 0; -CUZK_E_NOTFOUND; -CUZK_E_PERM; -CUZK_E_IO. */
int cuzk_cancel_job(cuzk_client *c, uint64_t job_id, cuzk_error *err);

enum cuzk_status_format {
	CUZK_STATUS_TEXT = 0,
	CUZK_STATUS_JSON = 1,
	CUZK_STATUS_PARAMS = 2,      /* the parameter files the daemon serves, one tab-separated line
				      * each (docs/PROTOCOL.md, STATUS) */
};

/* Daemon status (queues, workers, devices, caches), its parameter files, or
 * Prometheus metrics, as text.  *ret is malloc'd, NUL-terminated, *ret_len
 * without the NUL; free it.
 * RETURN VALUE: 0; -CUZK_E_INVAL (unknown format), -CUZK_E_PROTOCOL (also a
 * daemon older than the format), -CUZK_E_IO, -CUZK_E_NOMEM. */
int cuzk_daemon_status(cuzk_client *c, enum cuzk_status_format format, char **ret, size_t *ret_len,
		cuzk_error *err);
int cuzk_daemon_metrics(cuzk_client *c, char **ret, size_t *ret_len, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
