// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The GPU backend's C boundary.  Everything behind it is CUDA C++ under
 * cuda/; nothing else in cuzk includes a CUDA header.
 *
 * The error convention is the rest of cuzk's (include/cuzk.h): every
 * function that can fail returns 0 or -CUZK_E_* and fills *err (may be
 * NULL) with the same code and a one-line message.  No C++ exception
 * crosses this header.
 *
 * Data layouts are the host's (src/bls12_381): scalars 4 LE u64 (Montgomery
 * x·2^256 mod r unless a flag says canonical), Fp 6 LE u64 Montgomery, affine
 * G1 x‖y (96 B), affine G2 x.c0‖x.c1‖y.c0‖y.c1 (192 B), infinity all zero;
 * Jacobian results X‖Y‖Z in the same field layout. */
#ifndef CUZK_CUDA_CUZK_GPU_H
#define CUZK_CUDA_CUZK_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"   /* enum cuzk_status, cuzk_error */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_dev cuzk_gpu_dev;

/* Number of CUDA devices (0 when there is none or no driver). */
int cuzk_gpu_device_count(void);

/* Opens a device with a VRAM budget in bytes (0: $CUZK_GPU_VRAM_BUDGET_MB
 * MiB if set, else the free memory less 1 GiB).  Builds the NTT tables.
 * For tests, $CUZK_GPU_STREAM_BATCH=N makes every SRS streamed (never
 * resident) in batches of N points.  $CUZK_GPU_MSM_STREAMS: how many of a
 * proof's five MSMs run at once, each on its own stream with its own
 * scratch (resident SRS only; a streamed one keeps them in a row): 1..5
 * exactly, or auto (as many as the VRAM budget leaves room for); unset,
 * auto for domains up to 2^20 and 1 above (where one MSM fills the GPU).  Returns 0, -CUZK_E_INVAL (no
 * such device, or a bad $CUZK_GPU_MSM_STREAMS, checked first), -CUZK_E_VRAM
 * or -CUZK_E_GPU. */
int cuzk_gpu_open(cuzk_gpu_dev **ret, int device, size_t vram_budget, cuzk_error *err);
void cuzk_gpu_close(cuzk_gpu_dev *dev);

/* A device's memory as its budget counts it and as the device reports it. */
typedef struct cuzk_gpu_vram_info {
	size_t reserved;              /* bytes reserved in the budget now */
	size_t budget;
	size_t free;                  /* free on the device now (cudaMemGetInfo) */
	size_t peak_reserved;         /* the most reserved at once since open or the last reset */
	/* The most the device reported in use (total - free: the CUDA context,
	 * memory outside the budget and other processes included), read after
	 * every allocation from the budget and at every cuzk_gpu_vram, since
	 * open or the last reset. */
	size_t peak_device_used;
} cuzk_gpu_vram_info;

/* Returns 0 and fills *ret, or -CUZK_E_GPU. */
int cuzk_gpu_vram(cuzk_gpu_dev *dev, cuzk_gpu_vram_info *ret);
/* Starts both peaks again from what is reserved and in use now.  Returns 0,
 * or -CUZK_E_GPU with err filled. */
int cuzk_gpu_vram_reset_peaks(cuzk_gpu_dev *dev, cuzk_error *err);

/* A circuit's proving parameters in host memory (affine points). */
typedef struct cuzk_gpu_srs {
	const void *key;              /* identity of the parameter set (its host object) */
	size_t num_inputs;            /* public inputs including the constant 1 (= n_ic) */
	const void *h, *l, *a, *b_g1; /* G1 arrays */
	const void *b_g2;             /* G2 array */
	size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
} cuzk_gpu_srs;

/* Uploads the SRS once if it fits the budget together with one proof's
 * working memory (through pinned staging buffers); *ret_resident says
 * whether it did.  Otherwise proofs stream the points in double-buffered
 * batches, and the host arrays are page-locked here (until unload or close)
 * so that those batches are asynchronous copies beside the MSMs: the caller
 * must unload before it frees them.  Idempotent per key.  Returns 0, or a
 * negative code when the device fails. */
int cuzk_gpu_load_srs(cuzk_gpu_dev *dev, const cuzk_gpu_srs *srs, int *ret_resident, cuzk_error *err);
void cuzk_gpu_unload_srs(cuzk_gpu_dev *dev, const void *key);

/* An SRS made resident while the host is still decoding it, so that the
 * upload ends with the decoding instead of starting after it.  begin takes
 * srs with its key, counts and host arrays (no point need be valid yet) and
 * reserves what cuzk_gpu_load_srs would (the points, and the h permutation's
 * buffer, when they fit beside one proof's working memory); *ret is NULL
 * when the SRS will not be resident this way (already resident, too large
 * for the budget, or $CUZK_GPU_STREAM_BATCH): cuzk_gpu_load_srs after the
 * decoding then does what it always did.  part copies points [begin, end)
 * of one array (enum cuzk_gpu_srs_array) through pinned staging buffers;
 * each array's parts come in order, and the host points may be reused once
 * part returns.  end waits for every copy and makes the SRS resident under
 * its key (cuzk_gpu_load_srs then finds it); abort drops it.  end and abort
 * free u whatever happens.  One thread drives an upload from begin to end;
 * nobody may prove with the key before end returns.  0, or -CUZK_E_INVAL
 * (a part out of order, end before every point), -CUZK_E_VRAM, -CUZK_E_GPU. */
typedef struct cuzk_gpu_srs_upload cuzk_gpu_srs_upload;
enum cuzk_gpu_srs_array { CUZK_GPU_SRS_H, CUZK_GPU_SRS_L, CUZK_GPU_SRS_A, CUZK_GPU_SRS_B_G1, CUZK_GPU_SRS_B_G2 };
int cuzk_gpu_srs_upload_begin(cuzk_gpu_dev *dev, const cuzk_gpu_srs *srs, cuzk_gpu_srs_upload **ret,
			      cuzk_error *err);
int cuzk_gpu_srs_upload_part(cuzk_gpu_srs_upload *u, int array, size_t begin, size_t end, cuzk_error *err);
int cuzk_gpu_srs_upload_end(cuzk_gpu_srs_upload *u, cuzk_error *err);
void cuzk_gpu_srs_upload_abort(cuzk_gpu_srs_upload *u);

/* One partition's witness (pointers into host memory).  The density bitmaps
 * may lie in memory another process still writes (a client's memfd): they
 * are read once, into device memory, and counted and checked there. */
typedef struct cuzk_gpu_witness {
	size_t num_constraints, num_inputs, num_aux;
	int montgomery;               /* scalars in Montgomery form, else canonical */
	int pinned;                   /* a..aux and the bitmaps are cudaHostRegister'ed: DMA straight from them */
	const void *a, *b, *c;        /* num_constraints scalars each */
	const void *input, *aux;
	const uint64_t *a_aux_density, *b_input_density, *b_aux_density;
} cuzk_gpu_witness;

/* The five query sums of one proof, Jacobian, before r and s are mixed in. */
typedef struct cuzk_gpu_sums {
	uint64_t h[18], l[18], a[18], b_g1[18];   /* G1: X, Y, Z of 6 limbs */
	uint64_t b_g2[36];                        /* G2: X, Y, Z of 12 limbs */
} cuzk_gpu_sums;

/* One phase on one stream, timed by CUDA events and placed on the host's
 * CLOCK_MONOTONIC (milliseconds): the proof's first event is recorded on
 * an idle stream right after the host reads the clock, and every other
 * event is measured from it.  name is a static string. */
enum cuzk_gpu_lane {
	CUZK_GPU_LANE_COPY,
	CUZK_GPU_LANE_COMPUTE,
	CUZK_GPU_LANE_HOST,
	/* The MSM streams of a proof whose MSMs run side by side
	 * ($CUZK_GPU_MSM_STREAMS above 1): "compute 2" .. "compute 6", one per
	 * stream, beside the compute stream's NTTs and compaction.  New lanes go
	 * after these: the values above are what older callers know. */
	CUZK_GPU_LANE_COMPUTE_2,
	CUZK_GPU_LANE_COMPUTE_3,
	CUZK_GPU_LANE_COMPUTE_4,
	CUZK_GPU_LANE_COMPUTE_5,
	CUZK_GPU_LANE_COMPUTE_6,
	CUZK_GPU_LANE_COUNT
};
typedef struct cuzk_gpu_span {
	const char *name;
	int lane;                     /* enum cuzk_gpu_lane */
	double start_ms, end_ms;
} cuzk_gpu_span;
/* Below GROTH16_MAX_SPANS: the backend adds the host's spans to these. */
#define CUZK_GPU_MAX_SPANS 4080

typedef struct cuzk_gpu_timings {
	double upload_ms, ntt_ms, msm_h_ms, msm_l_ms, msm_a_ms, msm_b_g1_ms, msm_b_g2_ms, total_ms;
	unsigned workspace;           /* which working memory (and streams) the proof had */
	unsigned n_spans, spans_dropped;
	cuzk_gpu_span span[CUZK_GPU_MAX_SPANS];
} cuzk_gpu_timings;

/* H by NTTs and the five MSMs for one partition.  The caller has checked the
 * counts (constraints, inputs, aux) against the SRS; the density bitmaps'
 * popcounts are checked here, on the device's copy of them, before it is
 * used.  Thread-safe: each call takes its own working memory (reserved in
 * the budget, waiting while other proofs hold it) and its own streams;
 * with MSMs side by side ($CUZK_GPU_MSM_STREAMS above 1) it runs them from
 * threads of its own, all joined before it returns, error or not.
 * Returns 0, -CUZK_E_MISMATCH (the witness does not fit the SRS),
 * -CUZK_E_VRAM when one proof can never fit the budget, -CUZK_E_GPU,
 * -CUZK_E_INVAL. */
/* The caller's curve code (cuda/ has no fast host curve code), Jacobian, host
 * layout: acc += part, acc = 2·acc.  Each MSM ends with one window sum per
 * c-bit window, to be combined by ~255 doublings in a row: a single GPU
 * thread needs ~8 ms for that, the host's curve code ~0.1 ms, so the MSMs
 * hand the window sums to these.  When the SRS is streamed, each MSM keeps
 * its buckets on the device from batch to batch and ends the same way. */
typedef struct cuzk_gpu_host_ops {
	void (*g1_acc)(uint64_t acc[18], const uint64_t part[18]);
	void (*g2_acc)(uint64_t acc[36], const uint64_t part[36]);
	void (*g1_dbl)(uint64_t acc[18]);
	void (*g2_dbl)(uint64_t acc[36]);
} cuzk_gpu_host_ops;

int cuzk_gpu_prove_sums(cuzk_gpu_dev *dev, const cuzk_gpu_srs *srs, const cuzk_gpu_witness *w,
			const cuzk_gpu_host_ops *ops, cuzk_gpu_sums *out, cuzk_gpu_timings *t,
			cuzk_error *err);

/* NTTs on host data for tests and benchmarks, natural order in and out, with
 * the conventions of src/prover/ntt.h.  reps > 1 repeats the transform on
 * device-resident data; *ret_ms (may be NULL) is the median device time of
 * one transform. */
enum cuzk_gpu_ntt_kind {
	CUZK_GPU_NTT_FORWARD,
	CUZK_GPU_NTT_INVERSE,
	CUZK_GPU_NTT_COSET_FORWARD,
	CUZK_GPU_NTT_COSET_INVERSE
};
int cuzk_gpu_ntt(cuzk_gpu_dev *dev, void *data, unsigned log_n, int kind, int reps, double *ret_ms,
		 cuzk_error *err);

/* groth16_compute_h on the device: h_out gets m-1 coefficients (Montgomery,
 * natural order) for a, b, c of n scalars, m = 2^ceil(log2 n).  *ret_ms: the
 * device time of the NTT part. */
int cuzk_gpu_compute_h(cuzk_gpu_dev *dev, void *h_out, const void *a, const void *b, const void *c,
		       size_t n, int montgomery, double *ret_ms, cuzk_error *err);

/* The development setup's fixed-base products k_i·G on the device.
 *
 * table: the host's fixed-base table for G (src/prover/fixed_base.h) with
 * windows of c bits: entry w·2^(c-1) + d - 1 is d·2^(w·c)·G, affine, for
 * w < floor(255/c) + 1 and 1 <= d <= 2^(c-1); the device cuts scalars into
 * signed digits the same way (src/prover/scalar_digits.h).  g2 selects G2
 * points (192 B) instead of G1 (96 B).  Open returns 0, -CUZK_E_INVAL
 * (c outside 2..20), -CUZK_E_VRAM, -CUZK_E_GPU. */
typedef struct cuzk_gpu_fixed_base cuzk_gpu_fixed_base;
int cuzk_gpu_fixed_base_open(cuzk_gpu_dev *dev, cuzk_gpu_fixed_base **ret, int g2, const void *table, unsigned c,
			     cuzk_error *err);
void cuzk_gpu_fixed_base_close(cuzk_gpu_fixed_base *fb);

/* Hands a run of finished points over (pinned memory, reused after the
 * call); returns 0, or a negative code that stops the products. */
typedef int (*cuzk_gpu_points_fn)(void *ctx, const void *points, size_t n);

/* k[i]·G for i < n (host scalars, Montgomery form unless montgomery = 0),
 * affine in the host layout (infinity all-zero), into out (n points) when
 * out != NULL, otherwise to emit in order, in runs, while the device goes
 * on with the next run.  Device memory comes from the budget (two runs of
 * scalars, XYZZ sums and affine points).  Returns 0, emit's code, or
 * -CUZK_E_VRAM / -CUZK_E_GPU. */
int cuzk_gpu_fixed_base_mul(cuzk_gpu_fixed_base *fb, const void *scalars, size_t n, int montgomery, void *out,
			    cuzk_gpu_points_fn emit, void *emit_ctx, cuzk_error *err);

/* The parameter file's points decoded on the device for one loading thread
 * (the GPU's side of the loader's hook, src/formats/params_io.h's
 * groth16_point_decoder): a stream of its own, and input and output buffers
 * of `bytes` bytes each on the device (reserved in the budget) and in pinned
 * host memory.  open: *ret_input is the pinned input buffer, which the
 * thread reads the file into.  run: n points of the file's uncompressed
 * encoding (96 bytes each, 192 when g2) at src (the input buffer, or any
 * host memory) go up, are decoded by prove/srs_decode.cu's kernel (flags,
 * canonical coordinates and, when curve, the curve equation: what
 * g1_decode / g2_decode accept at BLS_CHECK_CURVE or BLS_CHECK_NONE, with
 * their bytes), come down, and are copied to dst (host memory, the host
 * layout) before it returns; *ret_bad is the lowest index of a point that
 * failed (its slot holds infinity), SIZE_MAX if none.  One thread at a time
 * per decoder.  Returns 0, -CUZK_E_INVAL (n points do not fit), -CUZK_E_VRAM
 * (no room in the budget), -CUZK_E_GPU, naming the call that failed. */
typedef struct cuzk_gpu_point_decoder cuzk_gpu_point_decoder;
int cuzk_gpu_point_decoder_open(cuzk_gpu_dev *dev, size_t bytes, cuzk_gpu_point_decoder **ret, void **ret_input,
				cuzk_error *err);
int cuzk_gpu_point_decoder_run(cuzk_gpu_point_decoder *d, void *dst, const void *src, size_t n, int g2, int curve,
			       size_t *ret_bad, cuzk_error *err);
void cuzk_gpu_point_decoder_close(cuzk_gpu_point_decoder *d);

/* Page-locks host memory for DMA (read_only: cudaHostRegisterReadOnly). */
int cuzk_gpu_host_register(void *ptr, size_t len, int read_only, cuzk_error *err);
int cuzk_gpu_host_unregister(void *ptr, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
