/* SPDX-License-Identifier: BSD-3-Clause */
/* Sequential reader: one buffer, compacted and refilled with large reads. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rd.h"

static int
rd_init(struct cc_rd *r, size_t cap, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->size = UINT64_MAX;
	if (cap == 0)
		cap = CC_RD_BUF;
	if (max < cap)
		max = cap;
	r->buf = malloc(cap);
	if (r->buf == NULL)
		return -ENOMEM;
	r->cap = cap;
	r->max = max;
	return 0;
}

int
cc_rd_open_fd(struct cc_rd *r, int fd, size_t cap, size_t max)
{
	struct stat st;
	int rc = rd_init(r, cap, max);

	if (rc != 0)
		return rc;
	r->fd = fd;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		r->size = (uint64_t)st.st_size;
	/* read-ahead helps; the pages need not stay cached for us */
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

int
cc_rd_open_mem(struct cc_rd *r, const void *data, size_t len, size_t cap,
	       size_t max)
{
	int rc = rd_init(r, cap, max);

	if (rc != 0)
		return rc;
	r->mem = data;
	r->memlen = len;
	r->size = len;
	return 0;
}

void
cc_rd_close(struct cc_rd *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = r->lo = r->hi = 0;
}

static ssize_t
source_read(struct cc_rd *r, uint8_t *dst, size_t n)
{
	ssize_t k;

	if (r->fd < 0) {
		size_t left = r->memlen - r->mempos;

		if (n > left)
			n = left;
		if (n > 0)
			memcpy(dst, r->mem + r->mempos, n);
		r->mempos += n;
		return (ssize_t)n;
	}
	do {
		k = read(r->fd, dst, n);
	} while (k < 0 && errno == EINTR);
	return k < 0 ? -errno : k;
}

/* Room for n bytes from lo: compact, and grow when n is larger. */
static void
make_room(struct cc_rd *r, size_t n)
{
	if (r->lo > 0 && r->cap - r->lo < n) {
		memmove(r->buf, r->buf + r->lo, r->hi - r->lo);
		r->hi -= r->lo;
		r->lo = 0;
	}
	if (r->cap < n && n <= r->max) {
		size_t nc = r->cap;
		uint8_t *b;

		while (nc < n)
			nc = nc * 2 < r->max ? nc * 2 : r->max;
		b = realloc(r->buf, nc);
		if (b != NULL) {
			r->buf = b;
			r->cap = nc;
		}
	}
}

size_t
cc_rd_fill(struct cc_rd *r, size_t n)
{
	uint64_t left;

	if (r->hi - r->lo >= n)
		return r->hi - r->lo;
	/* a header may claim more than the file holds: grow no further */
	if (r->size != UINT64_MAX) {
		left = r->size > r->off ? r->size - r->off : 0;
		if (n > left)
			n = left > r->hi - r->lo ? (size_t)left : r->hi - r->lo;
		if (n <= r->hi - r->lo)
			return r->hi - r->lo;
	}
	make_room(r, n);
	while (r->hi - r->lo < n && !r->eof && r->err == 0 && r->hi < r->cap) {
		ssize_t k = source_read(r, r->buf + r->hi, r->cap - r->hi);

		if (k < 0)
			r->err = (int)k;
		else if (k == 0)
			r->eof = true;
		else
			r->hi += (size_t)k;
	}
	return r->hi - r->lo;
}

void
cc_rd_consume(struct cc_rd *r, size_t n)
{
	if (n > r->hi - r->lo)
		n = r->hi - r->lo;
	r->lo += n;
	r->off += n;
	if (r->lo == r->hi)
		r->lo = r->hi = 0;
}
