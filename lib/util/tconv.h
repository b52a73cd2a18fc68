/* SPDX-License-Identifier: BSD-3-Clause */
/* Durations to clock cycles without overflow. */

#ifndef UTIL_TCONV_H
#define UTIL_TCONV_H

#include <stdint.h>

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
