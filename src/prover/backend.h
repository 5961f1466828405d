// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The proving backends (CPU, GPU) behind one interface, below both the CLI
 * and the daemon: they pick a backend once (groth16_backend_find) and call
 * only through it, never asking "is this the GPU?" again.
 *
 * A backend proves on devices it opens by number: the CPU backend has one
 * (all cores), the GPU backend one per CUDA device.  An operation a backend
 * does not offer is NULL (the CPU needs no host-memory registration and has
 * no device memory; the benchmark kernels are optional).
 *
 * Every function that can fail returns 0 or a negative cuzk status with a
 * message in err naming the device. */
#ifndef CUZK_PROVER_BACKEND_H
#define CUZK_PROVER_BACKEND_H

#include <stddef.h>

#include "common/error.h"
#include "prover/setup_engine.h"
#include "prover/types.h"

typedef struct groth16_device groth16_device;   /* a GPU with its VRAM budget, or the CPU */
struct groth16_point_decoder;                    /* formats/params_io.h */
typedef struct groth16_upload groth16_upload;   /* params on their way to a device (upload_begin) */

/* The query arrays of groth16_params in file order, as upload_part names them. */
enum groth16_query { GROTH16_Q_H, GROTH16_Q_L, GROTH16_Q_A, GROTH16_Q_B_G1, GROTH16_Q_B_G2, GROTH16_Q__COUNT };

enum groth16_ntt_kind { GROTH16_NTT_FORWARD, GROTH16_NTT_COSET_FORWARD };

/* One msm_bench run. */
struct groth16_msm_bench {
	double best_ms, median_ms;   /* one call, host clock */
	double phase_ms[7];          /* device time: split, ones, digits, sort, accumulate, windows, finish */
	unsigned window_bits;
	size_t scratch_bytes;
};

/* A device's memory: what its budget has reserved now, the budget, and what
 * the device reports free now; since open (or mem_reset_peaks) the most
 * reserved at once, and the most the device reported in use (total less
 * free, so the CUDA context, memory outside the budget and other processes
 * count too), read after each allocation from the budget and at each mem
 * call. */
struct groth16_mem {
	size_t reserved, budget, free;
	size_t peak_reserved, peak_device_used;
};

struct groth16_backend {
	const char *name;                 /* "cpu", "gpu" */
	/* Devices that can be opened now: 1 for the CPU; the usable CUDA
	 * devices (0 when there is none or the GPU backend is not built). */
	int (*device_count)(void);
	/* Opens device `index` with a memory budget in bytes (0: what it has
	 * free, less a margin; ignored by the CPU).  -CUZK_E_UNSUPPORTED when
	 * the backend is not built or has no such device. */
	int (*open)(groth16_device **ret, int index, size_t mem_budget, cuzk_error *err);
	void (*close)(groth16_device *dev);
	/* Makes params resident on the device when they fit (otherwise proofs
	 * stream them, and their host memory stays page-locked until
	 * unload_params or close: unload before freeing params).  Idempotent
	 * per params object; proving calls it too.  NULL: nothing to load (the
	 * CPU reads them in place). */
	int (*load_params)(groth16_device *dev, const groth16_params *p, cuzk_error *err);
	void (*unload_params)(groth16_device *dev, const groth16_params *p);
	/* Params made resident while they are being decoded, so that they are
	 * ready when the decoding ends (src/prover/params_upload.h drives
	 * these): upload_begin once the arrays are allocated (arrays: their
	 * pointers and counts, no point valid yet), with key the params object
	 * that proofs and load_params will be given; *ret NULL when they will
	 * not be resident this way (already resident, or too large for the
	 * device's budget: load_params then does what it always did).
	 * upload_part copies points [begin, end) of one query, each query's
	 * parts in order, from points that stay as they are; upload_end makes
	 * the params resident under key, as load_params would have; upload_abort
	 * drops them.  end and abort free u, whatever happens.  One thread
	 * drives an upload from begin to end, and no proof may use key before
	 * upload_end has returned.  NULL: the backend has no device memory to
	 * fill (the CPU). */
	int (*upload_begin)(groth16_device *dev, const groth16_params *key, const groth16_params *arrays,
			    groth16_upload **ret, cuzk_error *err);
	int (*upload_part)(groth16_upload *u, enum groth16_query q, size_t begin, size_t end, cuzk_error *err);
	int (*upload_end)(groth16_upload *u, cuzk_error *err);
	void (*upload_abort)(groth16_upload *u);
	/* The parameter file's query points decoded on a device instead of
	 * the CPU (params_io.h's hook, whose ctx is a groth16_device of this
	 * backend): the loads that fill a device (params_upload.h) pass it.
	 * NULL: the CPU decodes them. */
	const struct groth16_point_decoder *point_decoder;
	/* Page-locks host memory that proofs will read, for every device of the
	 * backend at once (DMA straight from it), read-only.  NULL: the backend
	 * reads host memory directly. */
	int (*register_host)(void *ptr, size_t len, cuzk_error *err);
	void (*unregister_host)(void *ptr);
	/* Proves one partition with the given r and s (Montgomery form); the
	 * same bytes on every backend for the same r and s.  registered: the
	 * witness memory went through register_host.  A view whose density
	 * bitmaps are shared (density_shared) is read so that its shape is
	 * checked on the copy the proof then uses.  Thread-safe: several
	 * workers may prove on one device at once.  t may be NULL. */
	int (*prove)(groth16_device *dev, const groth16_params *p, const groth16_witness_view *w, int registered,
		     const fr_t *r, const fr_t *s, groth16_proof *out, groth16_timings *t, cuzk_error *err);
	/* Device memory (struct groth16_mem).  NULL: the backend has none of
	 * its own. */
	int (*mem)(groth16_device *dev, struct groth16_mem *ret);
	/* Starts the peaks of groth16_mem again from now (a benchmark, after
	 * its setup).  NULL where mem is. */
	int (*mem_reset_peaks)(groth16_device *dev, cuzk_error *err);

	/* Kernels alone, for `cuzk bench` (NULL when not offered). */
	/* The MSM with points made and kept on the device, reps calls (a
	 * device's own benchmark: no host time in it); scalars uniform, or with
	 * porep nonzero shaped like a PoRep witness (45% zeros, 45% ones, 10%
	 * uniform, in Montgomery form). */
	int (*msm_bench)(groth16_device *dev, int g2, unsigned log_size, unsigned reps, int porep,
			 struct groth16_msm_bench *ret, cuzk_error *err);
	int (*msm_g1)(groth16_device *dev, g1_jac_t *ret, const g1_aff_t *bases, const fr_t *scalars, size_t n,
		      cuzk_error *err);
	int (*msm_g2)(groth16_device *dev, g2_jac_t *ret, const g2_aff_t *bases, const fr_t *scalars, size_t n,
		      cuzk_error *err);
	/* Forward NTT of 2^log_m Montgomery scalars, natural order, in place. */
	int (*ntt)(groth16_device *dev, fr_t *v, unsigned log_m, cuzk_error *err);
	/* The NTT of kind repeated reps times on
	 * device-resident data; *ret_ms (may be NULL) the median device time. */
	int (*ntt_device)(groth16_device *dev, fr_t *v, unsigned log_m, enum groth16_ntt_kind kind, int reps,
			  double *ret_ms, cuzk_error *err);

	/* The development setup's fixed-base products on this device
	 * (setup_engine.h), made on first use and kept until close; one caller
	 * at a time.  NULL: the CPU's engine (groth16_setup_opts.engine = NULL). */
	int (*setup_engine)(groth16_device *dev, const groth16_setup_engine **ret, cuzk_error *err);
};

extern const struct groth16_backend groth16_backend_cpu;
extern const struct groth16_backend groth16_backend_gpu;   /* device_count 0 when built without CUDA */

/* "cpu", "gpu", or "auto" (the GPU when a device is usable, else the CPU);
 * NULL means "cpu".  -CUZK_E_INVAL naming the unknown name. */
int groth16_backend_find(const struct groth16_backend **ret, const char *name, cuzk_error *err);

/* Process-wide settings the backends want, for a program's main() to call
 * first, before it starts a thread or touches a device: the CUDA runtime
 * loads every kernel when it creates a context (CUDA_MODULE_LOADING=EAGER)
 * unless the environment already chooses.  Loaded lazily (the runtime's
 * default since CUDA 12.2), a kernel's first launch waits for the whole
 * device, so the first proof's first kernel waited for its witness upload
 * on the copy stream (~0.23 s at 2^27; docs/BENCHMARKS.md).  Nothing to do
 * without CUDA; never fails. */
void groth16_backend_process_init(void);

#endif
