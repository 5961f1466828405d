// SPDX-License-Identifier: Apache-2.0 OR MIT
// The radix-2 NTT kernel, the table set-up and the entry points (layout,
// orders and the two kernels: ntt.cuh).
#include "ntt/ntt.cuh"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ntt/chain.cuh"

namespace cuzk {

namespace {

// Shared memory holds elements word-major (word w of element e at w·E + e)
// so that a warp touching 32 consecutive elements hits 32 banks.
__device__ __forceinline__ fr_t sm_get(const uint32_t *sm, unsigned E, unsigned e)
{
	fr_t v;
#pragma unroll
	for (int w = 0; w < 8; w++)
		v.v[w] = sm[w * E + e];
	return v;
}

__device__ __forceinline__ void sm_put(uint32_t *sm, unsigned E, unsigned e, const fr_t &v)
{
#pragma unroll
	for (int w = 0; w < 8; w++)
		sm[w * E + e] = v.v[w];
}

// Stages [b0, b0+R) of a tile for each of its 2^R-element groups (elements
// whose index p differs only in those bits), in registers.  DIF runs the
// stages top-down, DIT (its transpose) bottom-up; stage t pairs bit t and
// uses ω_K^(j·2^(k-1-t)), j = p mod 2^t.
template <bool DIT, int R>
__device__ __forceinline__ void ntt_round(uint32_t *sm, const uint32_t *roots, unsigned E, unsigned k,
					  unsigned cols_log, unsigned b0)
{
	constexpr unsigned N = 1u << R;
	const unsigned half_k = 1u << (k - 1), cols = 1u << cols_log;
	for (unsigned u = threadIdx.x; u < (E >> R); u += blockDim.x) {
		const unsigned c = u & (cols - 1), v = u >> cols_log;
		const unsigned base_p = ((v >> b0) << (b0 + R)) | (v & ((1u << b0) - 1));
		fr_t x[N];
#pragma unroll
		for (unsigned i = 0; i < N; i++)
			x[i] = sm_get(sm, E, ((base_p | (i << b0)) << cols_log) | c);
#pragma unroll
		for (unsigned s = 0; s < (unsigned)R; s++) {
			const unsigned ls = DIT ? s : R - 1 - s;   // local bit of this stage
			const unsigned t = b0 + ls;
#pragma unroll
			for (unsigned i = 0; i < N; i++) {
				if (i & (1u << ls))
					continue;
				const unsigned i2 = i | (1u << ls);
				const unsigned j = (base_p | (i << b0)) & ((1u << t) - 1);
				if (DIT) {
					fr_t y = x[i2];
					if (t)
						y = fr_mul(y, sm_get(roots, half_k, j << (k - 1 - t)));
					x[i2] = fr_sub(x[i], y);
					x[i] = fr_add(x[i], y);
				} else {
					fr_t d = fr_sub(x[i], x[i2]);
					x[i] = fr_add(x[i], x[i2]);
					x[i2] = t ? fr_mul(d, sm_get(roots, half_k, j << (k - 1 - t))) : d;
				}
			}
		}
#pragma unroll
		for (unsigned i = 0; i < N; i++)
			sm_put(sm, E, ((base_p | (i << b0)) << cols_log) | c, x[i]);
	}
}

struct pass_args {
	fr_t *out;
	const fr_t *in;
	unsigned log_n, lo, k, cols_log;
	bool gather;                 // element at position pos comes from in[bitrev(pos)]
	const fr_t *w_lo, *w_hi;     // ω_{2^28}^(±·) tables of the direction
	const fr_t *w_direct;        // ω_{2^18}^(±j) of the direction
	ntt_scale pro, epi;
};

// One pass over index bits [lo, lo+k).  DIT (bit-reversed -> natural) is the
// exact transpose of DIF: boundary twiddle first, then the stages bottom-up
// with x ± w·y butterflies.
// RB: stages per register round.  Eight Fr in registers (RB = 3) need ~200
// registers unbounded; capped at 128 (two blocks per SM) it spills 128 bytes.
template <bool DIT, unsigned RB>
__global__ void __launch_bounds__(NTT_THREADS, RB == 3 ? 2 : 3) ntt_pass(pass_args a)
{
	extern __shared__ uint32_t sm[];
	const unsigned K = 1u << a.k, COLS = 1u << a.cols_log, E = K << a.cols_log;
	uint32_t *roots = sm + 8 * E;                  // ω_K^j, j < K/2, word-major too
	const unsigned half_k = K >> 1;
	const unsigned rs = NTT_LOG_MAX - a.k;         // ω_K = ω_{2^28}^(2^rs)

	for (unsigned j = threadIdx.x; j < half_k; j += blockDim.x)
		sm_put(roots, half_k, j, pow_from_tables(a.w_lo, a.w_hi, j << rs));

	const unsigned S_log = a.lo + a.k;             // sub-transform size 2^S_log
	const uint32_t tiles_per_outer = 1u << (a.lo - a.cols_log);
	const uint32_t tiles = 1u << (a.log_n - a.k - a.cols_log);

	for (uint32_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
		const uint32_t ilo0 = (tile & (tiles_per_outer - 1)) << a.cols_log;
		const uint32_t base = (tile >> (a.lo - a.cols_log)) << S_log;
		__syncthreads();   // roots written / previous tile's stores done
		for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
			const unsigned c = e & (COLS - 1), p = e >> a.cols_log;
			const uint32_t pos = base | (p << a.lo) | (ilo0 + c);
			fr_t x = ntt_load(a.in + (a.gather ? ntt_bitrev(pos, a.log_n) : pos));
			x = apply_scale(a.pro, pos, a.log_n, x);
			if (DIT && a.lo)
				x = fr_mul(x, boundary_twiddle(a.w_lo, a.w_hi, a.w_direct, S_log,
							       (ilo0 + c) * ntt_bitrev(p, a.k)));
			sm_put(sm, E, e, x);
		}
		__syncthreads();
		// Stages in rounds of up to NTT_ROUND_BITS, each round's 2^R-point
		// butterfly groups held in registers: one shared-memory exchange
		// and one barrier per round instead of per stage.
		const unsigned rounds = (a.k + RB - 1) / RB;
		for (unsigned rd = 0; rd < rounds; rd++) {
			const unsigned g = DIT ? rd : rounds - 1 - rd;   // group of bits [b0, b0+R)
			const unsigned b0 = g * RB;
			const unsigned R = a.k - b0 < RB ? a.k - b0 : RB;
			if (RB >= 3 && R == 3)
				ntt_round<DIT, (RB >= 3 ? 3 : 1)>(sm, roots, E, a.k, a.cols_log, b0);
			else if (RB >= 2 && R == 2)
				ntt_round<DIT, (RB >= 2 ? 2 : 1)>(sm, roots, E, a.k, a.cols_log, b0);
			else
				ntt_round<DIT, 1>(sm, roots, E, a.k, a.cols_log, b0);
			__syncthreads();
		}
		for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
			const unsigned c = e & (COLS - 1), p = e >> a.cols_log;
			const uint32_t pos = base | (p << a.lo) | (ilo0 + c);
			fr_t x = sm_get(sm, E, e);
			if (!DIT && a.lo)
				x = fr_mul(x, boundary_twiddle(a.w_lo, a.w_hi, a.w_direct, S_log,
							       (ilo0 + c) * ntt_bitrev(p, a.k)));
			x = apply_scale(a.epi, pos, a.log_n, x);
			ntt_store(a.out + pos, x);
		}
	}
}

// out = a·b, A·B on the coset (radix2 path; the radix8 kernel takes it in
// with its first loads).
__global__ void __launch_bounds__(NTT_THREADS) h_quotient(fr_t *out, const fr_t *a, const fr_t *b, uint32_t n)
{
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		ntt_store(out + i, fr_mul(ntt_load(a + i), ntt_load(b + i)));
}

__global__ void __launch_bounds__(NTT_THREADS) bit_reverse(fr_t *out, const fr_t *in, unsigned log_n)
{
	const uint32_t n = 1u << log_n;
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		ntt_store(out + ntt_bitrev(i, log_n), ntt_load(in + i));
}

// Table set-up: thread j computes base^j and base^(j·2^14) by square-and-multiply.
__global__ void __launch_bounds__(NTT_THREADS) fill_pow_tables(fr_t *lo, fr_t *hi, fr_t base)
{
	const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= (1u << NTT_TW_BITS))
		return;
	pow_table_entry(lo, hi, base, j);
}

__global__ void __launch_bounds__(NTT_THREADS) fill_direct(fr_t *out, const fr_t *lo, const fr_t *hi)
{
	const uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < (1u << NTT_DIRECT_LOG))
		out[j] = pow_from_tables(lo, hi, j << (NTT_LOG_MAX - NTT_DIRECT_LOG));
}

__global__ void fill_domain_consts(fr_t *inv_m, fr_t *z_inv_m, fr_t *r2_inv_m, fr_t *r2_z_inv_m)
{
	const unsigned lg = threadIdx.x;
	if (lg > NTT_LOG_MAX)
		return;
	domain_consts_entry(inv_m, z_inv_m, r2_inv_m, r2_z_inv_m, lg);
}

// Bits per pass, top pass first, as even as possible.
unsigned plan_passes(unsigned log_n, unsigned bits[8])
{
	unsigned P = (log_n + NTT_PASS_BITS - 1) / NTT_PASS_BITS;
	for (unsigned i = 0; i < P; i++)
		bits[i] = log_n / P + (i < log_n % P ? 1 : 0);
	return P;
}

size_t pass_smem(unsigned k, unsigned cols_log)
{
	return sizeof(fr_t) * (((size_t)1 << (k + cols_log)) + ((size_t)1 << k) / 2);
}

void set_smem_limits()
{
	// Attributes are per device; setting them again is cheap and idempotent.
	const int max = (int)pass_smem(NTT_PASS_BITS, NTT_TILE_LOG - NTT_PASS_BITS);
	const int big = (int)pass_smem(NTT_TILE_LOG, 0) > max ? (int)pass_smem(NTT_TILE_LOG, 0) : max;
	const void *kernels[] = {(const void *)ntt_pass<true, 1>,  (const void *)ntt_pass<false, 1>,
				 (const void *)ntt_pass<true, 2>,  (const void *)ntt_pass<false, 2>,
				 (const void *)ntt_pass<true, 3>,  (const void *)ntt_pass<false, 3>};
	for (const void *k : kernels)
		CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
}

// A two-way choice read from the environment at open: false when $name is
// unset or off, true when it is on, anything else an error.
bool env_choice(const char *name, const char *off, const char *on)
{
	const char *env = getenv(name);
	if (!env || !strcmp(env, off))
		return false;
	if (!strcmp(env, on))
		return true;
	gpu_fail(CUZK_E_INVAL, "%s is \"%s\": it must be %s or %s", name, env, off, on);
}

// $CUZK_NTT8_SHAPE: one of NTT8_SHAPES by name, the first if unset.
ntt8_shape ntt8_shape_from_env()
{
	const char *env = getenv("CUZK_NTT8_SHAPE");
	if (!env || !*env)
		return NTT8_SHAPES[0];
	char names[64] = "";
	for (const ntt8_shape &sh : NTT8_SHAPES) {
		if (!strcmp(env, sh.name))
			return sh;
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", *names ? ", " : "", sh.name);
	}
	gpu_fail(CUZK_E_INVAL, "CUZK_NTT8_SHAPE is \"%s\": it must be one of %s", env, names);
}

// $CUZK_NTT8_GRID: the radix-8 kernel's blocks per launch, for tests (0 or
// unset: as many as the device keeps resident).  A few blocks give every
// block many tiles even at small sizes, so that the prefetch of a next tile
// (ntt/radix8.cuh) runs under compute-sanitizer's racecheck at sizes it
// finishes in seconds.
unsigned ntt8_grid_from_env()
{
	const char *env = getenv("CUZK_NTT8_GRID");
	if (!env || !*env)
		return 0;
	char *end;
	errno = 0;
	const unsigned long v = strtoul(env, &end, 10);
	if (errno || *end || v > 65535 || env[0] == '-')
		gpu_fail(CUZK_E_INVAL, "CUZK_NTT8_GRID is \"%s\": it must be a block count 0..65535", env);
	return (unsigned)v;
}

// A launch grid of at most cap blocks per SM for `work` blocks of work.
unsigned grid_for(uint32_t work, unsigned cap)
{
	const uint32_t most = (uint32_t)ntt_sm_count() * cap;
	return work < most ? (work ? work : 1) : most;
}

// The radix-2 kernel's passes.
void ntt_run_radix2(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_dir dir,
		    ntt_order order, const ntt_scale &pro, const ntt_scale &epi, cudaStream_t s)
{
	unsigned bits[8];
	const unsigned P = plan_passes(log_n, bits);
	const bool dit = order != ntt_order::natural_to_bitrev;
	const int d = (int)dir;
	const unsigned rb = t.round_bits >= 1 && t.round_bits <= 3 ? t.round_bits : NTT_ROUND_BITS;
	// DIF passes go top-down (lo decreasing); DIT passes are their reverse.
	unsigned lo_of[8];
	unsigned lo = log_n;
	for (unsigned i = 0; i < P; i++) {
		lo -= bits[i];
		lo_of[i] = lo;
	}
	for (unsigned i = 0; i < P; i++) {
		const unsigned pi = dit ? P - 1 - i : i;
		pass_args a{};
		a.k = bits[pi];
		a.lo = lo_of[pi];
		a.log_n = log_n;
		a.cols_log = a.lo < NTT_TILE_LOG - a.k ? a.lo : NTT_TILE_LOG - a.k;
		a.w_lo = t.w_lo[d];
		a.w_hi = t.w_hi[d];
		a.w_direct = t.w_direct[d];
		a.gather = order == ntt_order::natural_to_natural && i == 0;
		a.in = i == 0 ? in : out;
		a.out = out;
		if (i == 0)
			a.pro = pro;
		if (i == P - 1)
			a.epi = epi;
		// three 64 KiB-tile blocks fit one SM
		const unsigned grid = grid_for(1u << (log_n - a.k - a.cols_log), 3);
		const size_t smem = pass_smem(a.k, a.cols_log);
		switch (rb * 2 + (dit ? 1 : 0)) {
		case 2: ntt_pass<false, 1><<<grid, NTT_THREADS, smem, s>>>(a); break;
		case 3: ntt_pass<true, 1><<<grid, NTT_THREADS, smem, s>>>(a); break;
		case 4: ntt_pass<false, 2><<<grid, NTT_THREADS, smem, s>>>(a); break;
		case 5: ntt_pass<true, 2><<<grid, NTT_THREADS, smem, s>>>(a); break;
		case 6: ntt_pass<false, 3><<<grid, NTT_THREADS, smem, s>>>(a); break;
		default: ntt_pass<true, 3><<<grid, NTT_THREADS, smem, s>>>(a); break;
		}
		CUDA_LAUNCHED("ntt_pass");
	}
}

} // namespace

int ntt_sm_count()
{
	int dev = 0, sms = 0;
	CUDA_OK(cudaGetDevice(&dev));
	CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	return sms;
}

void ntt_tables::build(vram_budget &budget, cudaStream_t s)
{
	const size_t T = (size_t)1 << NTT_TW_BITS;
	const size_t D = (size_t)1 << NTT_DIRECT_LOG;
	const size_t count = 8 * T + 4 * (NTT_LOG_MAX + 1) + 2 * D;
	const size_t bytes = count * sizeof(fr_t);
	if (!budget.try_reserve(bytes))
		gpu_fail(CUZK_E_VRAM, "NTT tables need %zu KiB but the VRAM budget is %zu MiB",
			 bytes >> 10, budget.budget() >> 20);
	mem_ = budgeted_mem(budget, bytes, "NTT tables");
	fr_t *p = mem_.as<fr_t>();
	fr_t *tab[8];
	for (int i = 0; i < 8; i++)
		tab[i] = p + i * T;
	const fr_t bases[4] = {fr_omega_2_28(false), fr_omega_2_28(true), fr_coset_gen(false),
			       fr_coset_gen(true)};
	for (int i = 0; i < 4; i++) {
		fill_pow_tables<<<(unsigned)(T / NTT_THREADS), NTT_THREADS, 0, s>>>(tab[2 * i], tab[2 * i + 1],
										  bases[i]);
		CUDA_LAUNCHED("fill_pow_tables");
	}
	fr_t *inv_m = p + 8 * T, *z_inv_m = inv_m + NTT_LOG_MAX + 1, *r2_inv_m = z_inv_m + NTT_LOG_MAX + 1,
	     *r2_z_inv_m = r2_inv_m + NTT_LOG_MAX + 1;
	fill_domain_consts<<<1, 32, 0, s>>>(inv_m, z_inv_m, r2_inv_m, r2_z_inv_m);
	CUDA_LAUNCHED("fill_domain_consts");
	fr_t *direct = r2_z_inv_m + NTT_LOG_MAX + 1;
	for (int d = 0; d < 2; d++) {
		fill_direct<<<(unsigned)(D / NTT_THREADS), NTT_THREADS, 0, s>>>(direct + d * D, tab[2 * d],
										 tab[2 * d + 1]);
		CUDA_LAUNCHED("fill_direct");
		view_.w_direct[d] = direct + d * D;
	}
	for (int d = 0; d < 2; d++) {
		view_.w_lo[d] = tab[2 * d];
		view_.w_hi[d] = tab[2 * d + 1];
		view_.g_lo[d] = tab[4 + 2 * d];
		view_.g_hi[d] = tab[4 + 2 * d + 1];
	}
	view_.round_bits = NTT_ROUND_BITS;
	if (const char *env = getenv("CUZK_NTT_ROUND_BITS"))
		if (env[0] >= '1' && env[0] <= '3' && !env[1])
			view_.round_bits = (unsigned)(env[0] - '0');
	view_.impl = env_choice("CUZK_NTT_IMPL", "radix8", "radix2") ? ntt_impl::radix2 : ntt_impl::radix8;
	view_.ntt8 = ntt8_shape_from_env();
	view_.ntt8_grid = ntt8_grid_from_env();
	view_.inv_m = inv_m;
	view_.z_inv_m = z_inv_m;
	view_.r2_inv_m = r2_inv_m;
	view_.r2_z_inv_m = r2_z_inv_m;
	set_smem_limits();
	ntt8_set_smem_limits(view_.ntt8);
}

void ntt_run(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_dir dir,
	     ntt_order order, const ntt_scale &pro, const ntt_scale &epi, cudaStream_t s,
	     const ntt_quotient &quot)
{
	if (log_n < 1 || log_n > NTT_LOG_MAX)
		gpu_fail(CUZK_E_INVAL, "NTT size 2^%u is outside 2^1..2^%u", log_n, NTT_LOG_MAX);
	if ((order == ntt_order::natural_to_natural) == (in == out))
		gpu_fail(CUZK_E_INVAL, "NTT: natural-to-natural runs out of place, the others in place");
	if (quot.b && order != ntt_order::natural_to_bitrev)
		gpu_fail(CUZK_E_INVAL, "NTT: the quotient is taken in by in-place natural-order transforms only");
	if (t.impl == ntt_impl::radix8 && log_n >= NTT8_MIN_LOG) {
		ntt8_run(t, out, in, log_n, dir, order, pro, epi, quot, s);
		return;
	}
	if (quot.b) {
		const uint32_t n = 1u << log_n;
		h_quotient<<<grid_for(n / NTT_THREADS, 8), NTT_THREADS, 0, s>>>(out, in, quot.b, n);
		CUDA_LAUNCHED("h_quotient");
		in = out;
	}
	ntt_run_radix2(t, out, in, log_n, dir, order, pro, epi, s);
}

namespace {

// ntt_run as the run function of the transforms in ntt/chain.cuh.
struct device_run {
	const ntt_tables_view &t;
	cudaStream_t s;
	void operator()(fr_t *out, const fr_t *in, unsigned log_n, ntt_dir dir, ntt_order order,
			const ntt_scale &pro, const ntt_scale &epi, const ntt_quotient &quot) const
	{
		ntt_run(t, out, in, log_n, dir, order, pro, epi, s, quot);
	}
};

} // namespace

void ntt_natural(const ntt_tables_view &t, fr_t *out, const fr_t *in, unsigned log_n, ntt_kind kind,
		 cudaStream_t s)
{
	ntt_natural_with(device_run{t, s}, t, out, in, log_n, kind);
}

void ntt_compute_h(const ntt_tables_view &t, fr_t *a, fr_t *b, fr_t *c, unsigned log_n, bool canonical,
		   cudaStream_t s, const cudaEvent_t *ready)
{
	ntt_compute_h_with(device_run{t, s}, t, a, b, c, log_n, canonical, [&](int i) {
		if (ready)
			CUDA_OK(cudaStreamWaitEvent(s, ready[i], 0));
	});
}

void ntt_bit_reverse(fr_t *out, const fr_t *in, unsigned log_n, cudaStream_t s)
{
	bit_reverse<<<grid_for((1u << log_n) / NTT_THREADS, 8), NTT_THREADS, 0, s>>>(out, in, log_n);
	CUDA_LAUNCHED("bit_reverse");
}

} // namespace cuzk
