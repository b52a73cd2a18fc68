/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tconv.h - the one owner of host time: the host clocks read in ns (every
 * tool, library and bench reads them here) and durations to clock cycles
 * without overflow.
 */

#ifndef UTIL_TCONV_H
#define UTIL_TCONV_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TCONV_HAVE_TSC 1
#else
#define TCONV_HAVE_TSC 0
#endif

/** The clock id (CLOCK_REALTIME, CLOCK_MONOTONIC) in ns since its origin. */
static inline int64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/** CLOCK_MONOTONIC in ns: for durations. */
static inline int64_t
mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/** CLOCK_REALTIME in ns since 1970 (UTC): for times written out. */
static inline int64_t
real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

/** The TSC (x86), for benches' cycles per item; 0 where there is none
 * (TCONV_HAVE_TSC says which). Not serialising: over many items only. */
static inline uint64_t
tsc_cycles(void)
{
#if TCONV_HAVE_TSC
	return __rdtsc();
#else
	return 0;
#endif
}

/** CLOCK_MONOTONIC in seconds, for benches' rates. */
static inline double
mono_s(void)
{
	return (double)mono_ns() / 1e9;
}

/**
 * ns nanoseconds in cycles of an hz clock (TSC, timer), exact to the cycle
 * for any ns and hz (ns * hz would overflow 64 bits past about 1.7 hours
 * at 3 GHz); saturates at UINT64_MAX.
 */
static inline uint64_t
ns_to_cycles(uint64_t ns, uint64_t hz)
{
	unsigned __int128 c = (unsigned __int128)ns * hz / 1000000000u;

	return c > UINT64_MAX ? UINT64_MAX : (uint64_t)c;
}

#endif
