/* SPDX-License-Identifier: BSD-3-Clause */
/* Aligned, O_DIRECT-capable file output with whole-record guarantees. */

#define _GNU_SOURCE /* O_DIRECT, renameat2 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fio.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

int
fio_open(struct fio_file *f, const char *path, size_t bufsize, unsigned int flags,
	 char *err, size_t errlen)
{
	int oflags = O_WRONLY | O_CREAT | O_CLOEXEC;
	struct stat st;
	void *mem;
	int e;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->replace = (flags & FIO_REPLACE) != 0;
	oflags |= f->replace ? O_TRUNC : O_EXCL;
	if ((size_t)snprintf(f->path, sizeof(f->path), "%s", path) >= sizeof(f->path) ||
	    (size_t)snprintf(f->part, sizeof(f->part), "%s.part", path) >= sizeof(f->part)) {
		snprintf(err, errlen, "%s: name too long (at most %zu bytes)", path,
			 sizeof(f->path) - 1);
		return -ENAMETOOLONG;
	}
	if (!f->replace && lstat(f->path, &st) == 0) {
		snprintf(err, errlen, "%s: exists", f->path);
		return -EEXIST;
	}
	f->cap = ALIGN_UP(bufsize < 2 * FIO_ALIGN ? 2 * FIO_ALIGN : bufsize, FIO_ALIGN);
	f->capends = 64;
	f->ends = malloc(f->capends * sizeof(*f->ends));
	if (f->ends == NULL || posix_memalign(&mem, FIO_ALIGN, f->cap) != 0) {
		free(f->ends);
		f->ends = NULL;
		snprintf(err, errlen, "%s: no memory for a %zu-byte staging buffer", f->part,
			 f->cap);
		return -ENOMEM;
	}
	f->buf = mem;
	if (flags & FIO_DIRECT) {
		f->fd = open(f->part, oflags | O_DIRECT, 0644);
		if (f->fd >= 0)
			f->direct = true;
		else if (errno != EINVAL)
			goto fail;
	}
	if (f->fd < 0)
		f->fd = open(f->part, oflags, 0644);
	if (f->fd < 0)
		goto fail;
	f->open = true;
	return 0;
fail:
	e = errno;
	if (e == EEXIST)
		snprintf(err, errlen, "%s: exists: another writer, or a cut run", f->part);
	else
		snprintf(err, errlen, "%s: %s", f->part, strerror(e));
	free(f->buf);
	free(f->ends);
	f->buf = NULL;
	f->ends = NULL;
	return -e;
}

/* Leave O_DIRECT: a write the filesystem refused that way, a short write
 * (the offset is no longer aligned), or the unaligned tail of the file. */
static void
go_buffered(struct fio_file *f)
{
	fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_DIRECT);
	f->direct = false;
}

/* pwrite all of n bytes at the file's end; EINTR and short writes retried.
 * The only place the file is written (an io_uring backend replaces it). */
static int
write_out(struct fio_file *f, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = pwrite(f->fd, p, n, (off_t)f->on_disk);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EINVAL && f->direct) {
				/* the filesystem took O_DIRECT at open, not for
				 * this write: go on buffered */
				go_buffered(f);
				continue;
			}
			return -errno;
		}
		if (w == 0)
			return -ENOSPC;
		p += w;
		n -= (size_t)w;
		f->on_disk += (uint64_t)w;
		if (f->direct && (w % FIO_ALIGN) != 0 && n > 0)
			go_buffered(f);
	}
	return 0;
}

static void
settle_ends(struct fio_file *f)
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
flush(struct fio_file *f, bool all)
{
	size_t n = f->fill;
	int rc;

	if (f->err != 0)
		return -f->err;
	if (f->direct && !all)
		n = n / FIO_ALIGN * FIO_ALIGN;
	if (f->direct && all && n % FIO_ALIGN != 0) {
		size_t head = n / FIO_ALIGN * FIO_ALIGN;

		rc = head ? write_out(f, f->buf, head) : 0;
		if (rc == 0 && f->direct)
			go_buffered(f); /* the unaligned tail: page cache */
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
fio_ensure(struct fio_file *f, size_t n)
{
	if (f->err != 0)
		return -f->err;
	if (n > f->cap - FIO_ALIGN)
		return -E2BIG;
	if (f->fill + n > f->cap)
		return flush(f, false);
	return 0;
}

uint8_t *
fio_reserve(struct fio_file *f, size_t n)
{
	uint8_t *p;

	if (f->err != 0 || n > f->cap - FIO_ALIGN)
		return NULL;
	if (f->fill + n > f->cap && flush(f, false) != 0)
		return NULL;
	p = f->buf + f->fill;
	f->fill += n;
	return p;
}

int
fio_append(struct fio_file *f, const void *p, size_t n)
{
	const uint8_t *s = p;

	while (n > 0) {
		size_t k = n < f->cap / 2 ? n : f->cap / 2;
		uint8_t *d = fio_reserve(f, k);

		if (d == NULL)
			return f->err ? -f->err : -EINVAL;
		memcpy(d, s, k);
		s += k;
		n -= k;
	}
	return 0;
}

int
fio_rollback(struct fio_file *f, uint64_t mark)
{
	if (mark < f->base || mark > fio_size(f))
		return -EINVAL;
	f->fill = (size_t)(mark - f->base);
	while (f->nends > 0 && f->ends[f->nends - 1] > mark)
		f->nends--;
	return 0;
}

void
fio_record_end(struct fio_file *f)
{
	uint64_t e = fio_size(f);

	if (e <= f->on_disk) {
		f->safe_end = e;
		return;
	}
	if (f->nends > 0 && f->ends[f->nends - 1] == e)
		return; /* no byte since the last record */
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
fio_maybe_flush(struct fio_file *f)
{
	if (f->fill < f->cap / 2)
		return f->err ? -f->err : 0;
	return flush(f, false);
}

/* Rename without replacing, in one step that cannot race with a file of
 * that name appearing (no check before it): renameat2(RENAME_NOREPLACE), or
 * link + unlink where the filesystem or kernel lacks it (link fails with
 * EEXIST just the same). */
static int
rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (link(from, to) != 0)
		return -errno;
	unlink(from);
	return 0;
}

int
fio_close(struct fio_file *f, bool keep, uint64_t *kept, char *err, size_t errlen)
{
	int rc = 0, first = f->err;
	uint64_t size;

	if (kept != NULL)
		*kept = 0;
	if (!f->open)
		return 0;
	if (first == 0 && flush(f, true) != 0)
		first = f->err;
	size = f->on_disk;
	if (first != 0) {
		/* cut to the last whole record: every kept file is valid */
		settle_ends(f);
		size = f->safe_end;
		if (ftruncate(f->fd, (off_t)size) != 0 || size == 0)
			keep = false;
		snprintf(err, errlen, "%s: %s (kept the first %llu bytes, whole records)",
			 f->part, strerror(first), (unsigned long long)size);
		rc = -first;
	}
	if (close(f->fd) != 0 && rc == 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: close: %s", f->part, strerror(errno));
	}
	if (keep) {
		int r = f->replace ? (rename(f->part, f->path) == 0 ? 0 : -errno) :
				     rename_noreplace(f->part, f->path);

		if (r != 0) {
			if (rc == 0) {
				rc = r;
				if (r == -EEXIST)
					snprintf(err, errlen, "%s: not renamed: %s appeared meanwhile "
						 "(another writer?) and is left as it is; this file stays "
						 "NAME.part", f->part, f->path);
				else
					snprintf(err, errlen, "%s: rename to %s: %s", f->part, f->path,
						 strerror(-r));
			}
			keep = false; /* left as NAME.part: its bytes are not thrown away */
		}
	} else {
		unlink(f->part);
	}
	if (kept != NULL)
		*kept = keep ? size : 0;
	free(f->buf);
	free(f->ends);
	f->buf = NULL;
	f->ends = NULL;
	f->open = false;
	f->fd = -1;
	return rc;
}

int
fio_cut(const char *path, uint64_t size, char *err, size_t errlen)
{
	int rc = size == 0 ? unlink(path) : truncate(path, (off_t)size);

	if (rc != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s to %llu bytes: %s", path,
			 size == 0 ? "removing instead of cutting" : "cutting",
			 (unsigned long long)size, strerror(-rc));
	}
	return rc;
}
