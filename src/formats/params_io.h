// SPDX-License-Identifier: Apache-2.0 OR MIT
/* bellperson's file formats: Parameters (VK + five queries), VerifyingKey
 * and proofs (docs/GROTH16.md, "Compatibility").
 *
 * Parameters file, no padding, integers big-endian:
 *   vk:   alpha_g1 (G1, 96 B), beta_g1 (G1), beta_g2 (G2, 192 B), gamma_g2 (G2),
 *         delta_g1 (G1), delta_g2 (G2), u32 n_ic, n_ic × G1
 *   then h, l, a, b_g1 (G1) and b_g2 (G2): each a u32 count and that many
 *   uncompressed points.
 * A VerifyingKey file is the vk part alone.
 *
 * Every reader validates every count against the bytes left before it
 * allocates anything; errors name the file (or buffer name), the section
 * and the byte offset.  Identity points (infinity) are accepted in the
 * queries: our own setup writes them only where a query is really zero. */
#ifndef CUZK_FORMATS_PARAMS_IO_H
#define CUZK_FORMATS_PARAMS_IO_H

#include <stddef.h>
#include <stdint.h>

#include "bls12_381/encoding.h"
#include "common/error.h"
#include "formats/async_writer.h"
#include "formats/byte_io.h"
#include "prover/types.h"

/* Checks on the query points (enum bls_check).  The VK is always fully
 * checked (on the curve and in the subgroup): it is small and a bad VK
 * would make every verification meaningless.  Filecoin's 47 GB files come
 * from a trusted ceremony; BLS_CHECK_NONE skips the subgroup checks that
 * would otherwise cost minutes (coordinates are still range-checked). */
#define GROTH16_PARAMS_CHECK_DEFAULT BLS_CHECK_ALL

/* Parses a parameters file held in memory (len bytes); name is used in
 * messages.  Points are decoded in parallel into one storage block owned by
 * *ret.  0, or -CUZK_E_FORMAT (count past the end, trailing bytes),
 * -CUZK_E_NOMEM, or a point decoding error (-CUZK_E_FLAGS,
 * -CUZK_E_NONCANONICAL, -CUZK_E_NOT_ON_CURVE, -CUZK_E_NOT_IN_SUBGROUP).
 * On failure *ret is untouched. */
int groth16_params_parse_mem(groth16_params *ret, const uint8_t *buf, size_t len, const char *name,
			     unsigned checks, cuzk_error *err);
/* Reads path (never into malloc'd memory: the points are decoded from
 * small per-thread buffers) and parses it.  Also -CUZK_E_IO for
 * open/fstat/mmap/read failures. */
int groth16_params_read(groth16_params *ret, const char *path, unsigned checks, cuzk_error *err);

/* Another decoder of the query points than the CPU's point by point (a
 * GPU's: prover/backend.h offers one, prover/params_upload.c passes it).
 * It exists because the CPU's work on a point (big-endian parsing, the
 * conversion to Montgomery form, the curve equation: ~440-500 ns on the
 * H200 host) made a PoRep-32G file's 427 million points ~15 s of
 * decoding on 16 cores; with it a loading thread only reads the bytes and
 * copies the points.  This file keeps all the rest: the blocks in file
 * order, the callbacks, and every error message, which stays the CPU's.
 *
 * It is used only where the checks are BLS_CHECK_NONE or BLS_CHECK_CURVE
 * (subgroup checks stay on the CPU), and never for ic, the VK's points,
 * always fully checked on the CPU.  Each decoding thread calls:
 *   begin(ctx, bytes, &buf) before its first block: its state, and in
 *     *buf a buffer of `bytes` bytes (a block of G2 points) into which the
 *     thread reads its blocks (pinned memory for a GPU); NULL when the
 *     decoder cannot be set up (no device, no memory): that thread then
 *     decodes on the CPU, nothing is reported.
 *   decode(ctx, t, dst, src, n, g2, checks, &bad, err) for each run of a
 *     block within one section: n points (96 bytes each, 192 when g2) at
 *     src (the thread's buffer, or the caller's memory when parsing from
 *     memory) into dst (the host layout), accepting and rejecting what
 *     g1_decode / g2_decode do with these checks; 0 and *bad the lowest
 *     index of a point it rejected (its slot and those after it may hold
 *     anything), or SIZE_MAX.  The CPU then decodes the run again from
 *     that point on, so that the error (code, message, point, offset) is
 *     the CPU path's, byte for byte, and a point the decoder refused but
 *     the CPU accepts is kept.  < 0 (err filled): the decoder failed (a
 *     device error); the load fails, naming the file, the section, the
 *     run's first point and its offset.
 *   end(ctx, t) after its last block.
 * The callbacks run on many threads at once with the same ctx.
 * block_points: the points a thread takes at a time on this path (0: the
 * CPU's 2^14), larger for a device, whose round trip has a fixed cost. */
typedef struct groth16_point_decoder {
	size_t block_points;
	void *(*begin)(void *ctx, size_t bytes, uint8_t **ret_buf);
	int (*decode)(void *ctx, void *thread, void *dst, const uint8_t *src, size_t n, int g2, unsigned checks,
		      size_t *ret_bad, cuzk_error *err);
	void (*end)(void *ctx, void *thread);
} groth16_point_decoder;

/* Loading with progress: progress(ctx, done, total) counts the points
 * decoded (ic included); it is called from the decoding threads, one call
 * at a time, after each block of points (2^14, the decoder's block_points
 * with a decoder, 256 with subgroup checks), the last time with done ==
 * total.
 *
 * decoded(ctx, p, done), when set, is for a consumer that copies the points
 * while the rest are decoded (an upload to a GPU): the first `done` points
 * in file order (ic, h, l, a, b_g1, b_g2, counted as one sequence) are
 * decoded and stay as they are.  It is called once with 0 before any point
 * is decoded, when p's arrays and counts are set (p itself is valid only
 * during the call; its arrays become *ret's), then each time that run
 * grows, from the decoding threads, one call at a time (progress and
 * decoded never run at once) and in increasing order; no longer once a
 * point has failed.  It should return quickly (the decoding thread waits).
 * When decoding fails, it is called once more with p = NULL before the
 * arrays are freed: the consumer must have stopped reading them when that
 * call returns.  (A load that fails before any point, on the header, makes
 * no call at all.) */
typedef struct groth16_params_load_opts {
	unsigned checks;           /* enum bls_check for the query points */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	void (*decoded)(void *ctx, const groth16_params *p, uint64_t done);
	void *decoded_ctx;
	const groth16_point_decoder *decoder;   /* NULL: the CPU decodes every point */
	void *decoder_ctx;
} groth16_params_load_opts;
int groth16_params_parse_mem_opts(groth16_params *ret, const uint8_t *buf, size_t len, const char *name,
				  const groth16_params_load_opts *opts, cuzk_error *err);
int groth16_params_read_opts(groth16_params *ret, const char *path, const groth16_params_load_opts *opts,
			     cuzk_error *err);
/* The same from an open file (name only names it in messages; fd stays
 * open): the header is read through a mapping, the points with pread, each
 * decoding thread into a small buffer of its own.  -CUZK_E_IO also when the
 * file is cut while it is read. */
int groth16_params_read_fd_opts(groth16_params *ret, int fd, const char *name,
				const groth16_params_load_opts *opts, cuzk_error *err);
int groth16_params_write(const groth16_params *p, const char *path, cuzk_error *err);

/* A parameters file written section by section, for writers that never hold
 * all the points (the development setup at 2^27: ~45 GB of points).  Open
 * writes the VK and takes every section's count; then the points of h, l,
 * a, b_g1 and b_g2 are appended in that order, in runs of any length
 * (G1 points for the first four, G2 for b_g2), each count header written
 * when its section begins.  Encoding is multi-threaded, into a ring of
 * buffers that a thread of the writer's own writes out meanwhile
 * (async_writer.h): put returns once its points are encoded (the caller
 * may reuse their memory then), with their bytes still on their way to
 * the file.  A write that fails stops the writing; its error (naming the
 * path and the offset) is returned by the next put and by close.  Close
 * waits for every write, and fails unless every section got exactly its
 * count.  Errors name the path.  The async writer's measures (the time put
 * waited for a free buffer, the bytes, close's parts) are there for a
 * caller's timings, while it is open and after it is closed. */
typedef struct groth16_params_writer {
	async_writer *out;
	const char *path;
	size_t count[5];           /* h, l, a, b_g1, b_g2 */
	int section;               /* the section being written, 5 after the last */
	size_t left;               /* its points still to come */
	int failed;                /* more points came than the sections hold */
	async_writer_stats stats;  /* set by close: the async writer's last measures */
} groth16_params_writer;
enum { GROTH16_PARAMS_SECTIONS = 5 };
int groth16_params_writer_open(groth16_params_writer *ret, const char *path, const groth16_vk *vk,
			       const size_t count[GROTH16_PARAMS_SECTIONS], cuzk_error *err);
/* -CUZK_E_INVAL when the run overflows what the sections were promised
 * (and at every put after that); a write error of an earlier run. */
int groth16_params_writer_put(groth16_params_writer *w, const void *points, size_t n, cuzk_error *err);
/* Closes (always); the first write error, or -CUZK_E_INVAL for missing points. */
int groth16_params_writer_close(groth16_params_writer *w, cuzk_error *err);
/* The same with async_writer_finish's flags (ASYNC_WRITER_FSYNC: the file
 * fsync(2)ed before it is closed; then also fsync's error). */
int groth16_params_writer_finish(groth16_params_writer *w, unsigned flags, cuzk_error *err);
/* The async writer's measures so far (async_writer_get_stats); after close,
 * its final ones (w->stats). */
void groth16_params_writer_get_stats(groth16_params_writer *w, async_writer_stats *ret);

/* The counts of a parameters file, read from its section headers alone (six
 * small preads, whatever the file's size), for listings.  The points are not
 * looked at: a file whose counts add up to its size is not thereby valid.
 * 0, -CUZK_E_FORMAT (a count past the end, trailing bytes: named), -CUZK_E_IO. */
typedef struct groth16_params_counts {
	uint64_t n_ic, n_h, n_l, n_a, n_b_g1, n_b_g2;
} groth16_params_counts;
int groth16_params_counts_fd(groth16_params_counts *ret, int fd, uint64_t size, const char *name,
			     cuzk_error *err);

/* Allocates one storage block for params with these counts and points every
 * array (vk.ic, h, l, a, b_g1, b_g2) into it, zero-filled; large blocks come
 * from an anonymous mmap.  For writers of params (the dev setup). */
int groth16_params_alloc(groth16_params *ret, size_t n_ic, size_t n_h, size_t n_l, size_t n_a,
			 size_t n_b_g1, size_t n_b_g2, cuzk_error *err);
/* Frees what p owns: the storage block if there is one, else each array
 * separately (malloc'd).  Leaves *p zeroed; safe on a zeroed struct. */
void groth16_params_free(groth16_params *p);

/* A VerifyingKey alone (always fully checked). vk->ic is malloc'd. */
int groth16_vk_parse_mem(groth16_vk *ret, const uint8_t *buf, size_t len, const char *name,
			 cuzk_error *err);
int groth16_vk_read(groth16_vk *ret, const char *path, cuzk_error *err);
int groth16_vk_write(const groth16_vk *vk, const char *path, cuzk_error *err);
void groth16_vk_free(groth16_vk *vk);
/* Deep copy (ic duplicated), e.g. to keep the VK of params that are freed. */
int groth16_vk_copy(groth16_vk *ret, const groth16_vk *src, cuzk_error *err);
/* Size in bytes of a VK's encoding. */
size_t groth16_vk_encoded_size(size_t n_ic);

/* Proofs: 192 bytes each, A ‖ B ‖ C compressed. */
void groth16_proof_encode(uint8_t out[GROTH16_PROOF_SIZE], const groth16_proof *p);
/* Full checks (flags, canonical, curve, subgroup); -CUZK_E_LENGTH if len != 192. */
int groth16_proof_decode(groth16_proof *ret, const uint8_t *in, size_t len, cuzk_error *err);
/* A proofs file is the proofs concatenated (partitions in order).
 * *ret is malloc'd; its length must be a non-zero multiple of 192. */
int groth16_proofs_read(groth16_proof **ret, size_t *ret_n, const char *path, cuzk_error *err);
int groth16_proofs_write(const groth16_proof *proofs, size_t n, const char *path, cuzk_error *err);

#endif
