/* SPDX-License-Identifier: BSD-3-Clause */
/* Buffered sequential reader over a file descriptor or a memory block. */

#ifndef CC_RD_H
#define CC_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/** Default buffer: large reads, a constant footprint whatever the file size. */
#define CC_RD_BUF (1u << 20)

struct cc_rd {
	int fd;                 /**< -1 for a memory source */
	const uint8_t *mem;
	size_t memlen, mempos;
	uint8_t *buf;
	size_t cap, max;        /**< buffer size now, and the most it may grow to */
	size_t lo, hi;          /**< unread bytes are buf[lo, hi) */
	uint64_t off;           /**< file offset of buf[lo] */
	uint64_t size;          /**< source size when known (else UINT64_MAX):
				 * the buffer never grows past what is left */
	bool eof;
	int err;                /**< negative errno of a failed read, else 0 */
};

/**
 * Read from fd (not closed by the reader), buffering cap bytes; the buffer
 * grows only when one request needs more, up to max.
 * @return 0 or -ENOMEM.
 */
int cc_rd_open_fd(struct cc_rd *r, int fd, size_t cap, size_t max);
/** Read from len bytes at data (for tests and the fuzz target). */
int cc_rd_open_mem(struct cc_rd *r, const void *data, size_t len, size_t cap,
		   size_t max);
void cc_rd_close(struct cc_rd *r);

/**
 * Make n bytes available at cc_rd_ptr (fewer only at the end of the file,
 * on a read error (r->err), or when n > max).
 * @return bytes available.
 */
size_t cc_rd_fill(struct cc_rd *r, size_t n);

static inline const uint8_t *
cc_rd_ptr(const struct cc_rd *r)
{
	return r->buf + r->lo;
}

static inline uint64_t
cc_rd_off(const struct cc_rd *r)
{
	return r->off;
}

static inline size_t
cc_rd_avail(const struct cc_rd *r)
{
	return r->hi - r->lo;
}

/** Drop n available bytes (n <= cc_rd_avail). */
void cc_rd_consume(struct cc_rd *r, size_t n);

#endif /* CC_RD_H */
