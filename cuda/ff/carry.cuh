// SPDX-License-Identifier: Apache-2.0 OR MIT
// One carry chain of 32-bit limb arithmetic.  On the device each method is a
// single PTX instruction and the carry lives in the hardware CC flag between
// them (the statements are volatile so nothing is scheduled in between that
// could clobber it).  On the host the flag is the member cf, so the very same
// field code runs on the CPU, where tests compare it with a plain reference.
//
// Names follow PTX: "_cc" sets the carry, "c" in front consumes it.
#ifndef CUZK_CUDA_FF_CARRY_CUH
#define CUZK_CUDA_FF_CARRY_CUH

#include <cstdint>

namespace cuzk {

struct carry_chain {
	uint32_t cf = 0;   // host only; unused (and removed by the compiler) on the device

#ifdef __CUDA_ARCH__
#define CUZK_CC_OP2(name, op)                                                           \
	__device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b)                \
	{                                                                               \
		uint32_t d;                                                             \
		asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));             \
		return d;                                                               \
	}
#define CUZK_CC_OP3(name, op)                                                           \
	__device__ __forceinline__ uint32_t name(uint32_t a, uint32_t b, uint32_t c)    \
	{                                                                               \
		uint32_t d;                                                             \
		asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); \
		return d;                                                               \
	}
	CUZK_CC_OP2(add_cc, "add.cc.u32")
	CUZK_CC_OP2(addc_cc, "addc.cc.u32")
	CUZK_CC_OP2(addc, "addc.u32")
	CUZK_CC_OP2(sub_cc, "sub.cc.u32")
	CUZK_CC_OP2(subc_cc, "subc.cc.u32")
	CUZK_CC_OP2(subc, "subc.u32")
	CUZK_CC_OP3(mad_lo_cc, "mad.lo.cc.u32")
	CUZK_CC_OP3(madc_lo_cc, "madc.lo.cc.u32")
	CUZK_CC_OP3(mad_hi_cc, "mad.hi.cc.u32")
	CUZK_CC_OP3(madc_hi_cc, "madc.hi.cc.u32")
	CUZK_CC_OP3(madc_hi, "madc.hi.u32")
#undef CUZK_CC_OP2
#undef CUZK_CC_OP3
#else
	uint32_t add_cc(uint32_t a, uint32_t b) { return put((uint64_t)a + b); }
	uint32_t addc_cc(uint32_t a, uint32_t b) { return put((uint64_t)a + b + cf); }
	uint32_t addc(uint32_t a, uint32_t b) { return a + b + cf; }
	uint32_t sub_cc(uint32_t a, uint32_t b) { return borrow(a, b); }
	uint32_t subc_cc(uint32_t a, uint32_t b) { return borrow(a, (uint64_t)b + cf); }
	uint32_t subc(uint32_t a, uint32_t b) { return a - b - cf; }
	uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put((uint64_t)(a * b) + c); }
	uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put((uint64_t)(a * b) + c + cf); }
	uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put(hi(a, b) + c); }
	uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put(hi(a, b) + c + cf); }
	uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)(hi(a, b) + c + cf); }

private:
	static uint64_t hi(uint32_t a, uint32_t b) { return ((uint64_t)a * b) >> 32; }
	uint32_t put(uint64_t s)
	{
		cf = (uint32_t)(s >> 32);
		return (uint32_t)s;
	}
	uint32_t borrow(uint32_t a, uint64_t b)
	{
		cf = (uint64_t)a < b;
		return (uint32_t)(a - b);
	}
#endif
};

} // namespace cuzk

#endif
