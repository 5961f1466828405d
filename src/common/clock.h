// SPDX-License-Identifier: Apache-2.0 OR MIT
/* The one clock every timing in cuzk reads: CLOCK_MONOTONIC, so that phase
 * times and timeouts never jump with the wall clock.
 *
 * clock_gettime(CLOCK_MONOTONIC) can fail only for an unknown clock id or a
 * bad pointer (EINVAL, EFAULT), neither of which can happen here: the result
 * is not checked. */
#ifndef CUZK_COMMON_CLOCK_H
#define CUZK_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Milliseconds with a fractional part, for the timings that are printed. */
static inline double monotonic_ms(void)
{
	return (double)monotonic_ns() / 1e6;
}

#endif
