/* SPDX-License-Identifier: BSD-3-Clause */
/* What lib/antbuf's files share and no caller sees. */
#ifndef ANTBUF_INT_H
#define ANTBUF_INT_H

#include <stdint.h>

#include "antbuf.h"

/* Row r's position in the ring (nrows is a power of two). */
static inline uint32_t
rpos(const struct antbuf *b, int64_t r)
{
	return (uint32_t)((uint64_t)r & (b->g.nrows - 1));
}

#endif
