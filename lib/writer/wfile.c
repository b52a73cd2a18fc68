/* SPDX-License-Identifier: BSD-3-Clause */
/* Aligned, O_DIRECT-capable file output with whole-record guarantees. */

#define _GNU_SOURCE /* O_DIRECT */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wfile.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

int
wfile_open(struct wfile *f, const char *path, size_t bufsize, bool direct,
	   char *err, size_t len)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
	void *mem;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (strlen(path) >= sizeof(f->path)) {
		snprintf(err, len, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(f->path, sizeof(f->path), "%s", path);
	snprintf(f->part, sizeof(f->part), "%s.part", path);
	if (access(f->path, F_OK) == 0) {
		snprintf(err, len, "%s: exists (a file is never overwritten)", f->path);
		return -EEXIST;
	}
	f->cap = ALIGN_UP(bufsize < 2 * WFILE_ALIGN ? 2 * WFILE_ALIGN : bufsize, WFILE_ALIGN);
	if (posix_memalign(&mem, WFILE_ALIGN, f->cap) != 0) {
		snprintf(err, len, "%s: no memory for a %zu-byte buffer", path, f->cap);
		return -ENOMEM;
	}
	f->buf = mem;
	if (direct) {
		f->fd = open(f->part, flags | O_DIRECT, 0644);
		if (f->fd >= 0)
			f->direct = true;
		else if (errno != EINVAL)
			goto fail;
	}
	if (f->fd < 0)
		f->fd = open(f->part, flags, 0644);
	if (f->fd < 0)
		goto fail;
	f->open = true;
	f->capends = 64;
	f->ends = malloc(f->capends * sizeof(*f->ends));
	if (f->ends == NULL) {
		close(f->fd);
		unlink(f->part);
		free(f->buf);
		snprintf(err, len, "%s: out of memory", path);
		return -ENOMEM;
	}
	return 0;
fail:
	snprintf(err, len, "%s: %s", f->part, strerror(errno));
	free(f->buf);
	f->buf = NULL;
	return -errno;
}

/* pwrite all of n bytes at the file's end; EINTR and short writes retried. */
static int
write_out(struct wfile *f, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = pwrite(f->fd, p, n, (off_t)f->on_disk);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EINVAL && f->direct) {
				/* the filesystem took O_DIRECT at open, not for
				 * this write: go on buffered */
				fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_DIRECT);
				f->direct = false;
				continue;
			}
			return -errno;
		}
		if (w == 0)
			return -ENOSPC;
		p += w;
		n -= (size_t)w;
		f->on_disk += (uint64_t)w;
		if (f->direct && (w % WFILE_ALIGN) != 0 && n > 0) {
			/* a short O_DIRECT write leaves an unaligned offset */
			fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_DIRECT);
			f->direct = false;
		}
	}
	return 0;
}

static void
settle_ends(struct wfile *f)
{
	size_t i, k = 0;

	for (i = 0; i < f->nends; i++) {
		if (f->ends[i] <= f->on_disk)
			f->safe_end = f->ends[i];
		else
			f->ends[k++] = f->ends[i];
	}
	f->nends = k;
}

/* Write the staged bytes: all of them, or (O_DIRECT) the aligned part. */
static int
flush(struct wfile *f, bool all)
{
	size_t n = f->fill;
	int rc;

	if (f->err != 0)
		return -f->err;
	if (f->direct && !all)
		n = n / WFILE_ALIGN * WFILE_ALIGN;
	if (f->direct && all && n % WFILE_ALIGN != 0) {
		size_t head = n / WFILE_ALIGN * WFILE_ALIGN;

		rc = head ? write_out(f, f->buf, head) : 0;
		if (rc == 0 && f->direct) {
			/* the unaligned tail goes through the page cache */
			fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_DIRECT);
			f->direct = false;
		}
		if (rc == 0)
			rc = write_out(f, f->buf + head, n - head);
	} else {
		rc = n ? write_out(f, f->buf, n) : 0;
	}
	settle_ends(f);
	if (rc != 0) {
		f->err = -rc;
		return rc;
	}
	memmove(f->buf, f->buf + n, f->fill - n);
	f->fill -= n;
	f->base += n;
	return 0;
}

int
wfile_ensure(struct wfile *f, size_t n)
{
	if (f->err != 0)
		return -f->err;
	if (n > f->cap - WFILE_ALIGN)
		return -E2BIG;
	if (f->fill + n > f->cap)
		return flush(f, false);
	return 0;
}

uint8_t *
wfile_reserve(struct wfile *f, size_t n)
{
	uint8_t *p;

	if (f->err != 0 || n > f->cap - WFILE_ALIGN)
		return NULL;
	if (f->fill + n > f->cap && flush(f, false) != 0)
		return NULL;
	p = f->buf + f->fill;
	f->fill += n;
	return p;
}

int
wfile_pcap_header(struct wfile *f, uint32_t snaplen)
{
	/* magic (ns resolution), version 2.4, zone, sigfigs, snaplen, Ethernet */
	const uint32_t hdr[6] = { 0xA1B23C4Du, 2 | 4u << 16, 0, 0, snaplen, 1 };
	int rc = wfile_append(f, hdr, sizeof(hdr));

	wfile_record_end(f);
	return rc;
}

uint8_t *
wfile_pcap_record(struct wfile *f, int64_t t_ns, uint32_t caplen, uint32_t len)
{
	const uint32_t rec[4] = { (uint32_t)(t_ns / 1000000000LL),
				  (uint32_t)(t_ns % 1000000000LL), caplen, len };
	uint8_t *p = wfile_reserve(f, sizeof(rec) + caplen);

	if (p == NULL)
		return NULL;
	memcpy(p, rec, sizeof(rec));
	return p + sizeof(rec);
}

int
wfile_append(struct wfile *f, const void *p, size_t n)
{
	const uint8_t *s = p;

	while (n > 0) {
		size_t k = n < f->cap / 2 ? n : f->cap / 2;
		uint8_t *d = wfile_reserve(f, k);

		if (d == NULL)
			return f->err ? -f->err : -EINVAL;
		memcpy(d, s, k);
		s += k;
		n -= k;
	}
	return 0;
}

int
wfile_rollback(struct wfile *f, uint64_t mark)
{
	if (mark < f->base || mark > wfile_size(f))
		return -EINVAL;
	f->fill = (size_t)(mark - f->base);
	while (f->nends > 0 && f->ends[f->nends - 1] > mark)
		f->nends--;
	return 0;
}

void
wfile_record_end(struct wfile *f)
{
	uint64_t e = wfile_size(f);

	if (e <= f->on_disk) {
		f->safe_end = e;
		return;
	}
	if (f->nends == f->capends) {
		uint64_t *n = realloc(f->ends, f->capends * 2 * sizeof(*n));

		if (n == NULL) {
			/* keep the newest: older ends only matter on ENOSPC */
			memmove(f->ends, f->ends + 1, (f->nends - 1) * sizeof(*f->ends));
			f->nends--;
		} else {
			f->ends = n;
			f->capends *= 2;
		}
	}
	f->ends[f->nends++] = e;
}

int
wfile_maybe_flush(struct wfile *f)
{
	if (f->fill < f->cap / 2)
		return f->err ? -f->err : 0;
	return flush(f, false);
}

int
wfile_close(struct wfile *f, bool keep, char *err, size_t len)
{
	int rc = 0, first = f->err;

	if (!f->open)
		return 0;
	if (first == 0 && flush(f, true) != 0)
		first = f->err;
	if (first != 0) {
		/* cut to the last whole record: every kept file is valid */
		settle_ends(f);
		if (ftruncate(f->fd, (off_t)f->safe_end) != 0)
			keep = false;
		if (f->safe_end == 0)
			keep = false;
		snprintf(err, len, "%s: %s (kept the first %llu bytes, whole records)",
			 f->part, strerror(first), (unsigned long long)f->safe_end);
		rc = -first;
	}
	if (close(f->fd) != 0 && rc == 0) {
		rc = -errno;
		snprintf(err, len, "%s: close: %s", f->part, strerror(errno));
	}
	if (keep) {
		if (rename(f->part, f->path) != 0 && rc == 0) {
			rc = -errno;
			snprintf(err, len, "rename %s: %s", f->part, strerror(errno));
		}
	} else {
		unlink(f->part);
	}
	free(f->buf);
	free(f->ends);
	f->buf = NULL;
	f->ends = NULL;
	f->open = false;
	f->fd = -1;
	return rc;
}
