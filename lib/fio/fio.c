/* SPDX-License-Identifier: BSD-3-Clause */
/* Aligned, O_DIRECT-capable file output with whole-record guarantees. */

#define _GNU_SOURCE /* O_DIRECT, renameat2 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#ifdef FIO_HAVE_URING
#include <liburing.h>
#endif

#include "err.h"
#include "fio.h"
#include "fsprobe.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
/* pieces of one write by reference (writev's IOV_MAX) */
#define FIO_IOV 1024

#ifdef FIO_HAVE_URING
/* One write in flight: its staging buffer (or, by reference, its
 * pieces), where it goes, how it ended. */
struct fio_slot {
	uint8_t *buf;
	struct iovec *iov; /* by reference: buf NULL */
	unsigned int niov;
	uint64_t off;
	size_t len;
	size_t written; /* bytes of it in the file (all, unless err) */
	int err;        /* its errno, 0 none */
	bool done;
};

/* A file's io_uring: the writes in flight in file order (a FIFO from
 * head), and the staging buffers not in use. */
struct fio_aio {
	struct io_uring ring;
	struct fio_slot slot[FIO_INFLIGHT];
	unsigned int head, n;
	uint8_t *spare[FIO_INFLIGHT];
	unsigned int nspare;
	/* by reference (fio_ref): the pieces gathered for the next write, the
	 * piece arrays not in flight, the zeroed block gaps are written from */
	struct iovec *biov;
	unsigned int bn;
	size_t blen, batch;
	struct iovec *iovspare[FIO_INFLIGHT];
	unsigned int niovspare;
	uint8_t *zero;
};

static char sync_reason_buf[160];
static const char *sync_reason;
static int sync_reason_claimed;
#else
static const char *sync_reason = "built without liburing";
#endif

static void aio_open(struct fio_file *f, bool spares);
static void aio_free(struct fio_file *f);

const char *
fio_sync_reason(void)
{
	return __atomic_load_n(&sync_reason, __ATOMIC_ACQUIRE);
}

const char *
fio_sync_why(const struct fio_file *f)
{
	if (fio_uring(f))
		return NULL;
	if (f->sync)
		return "io=sync";
	if (!f->direct_asked)
		return "direct=no";
	if (!f->direct)
		return "its filesystem refuses O_DIRECT";
	if (fio_sync_reason() != NULL)
		return fio_sync_reason();
	return "io_uring could not be set up (out of memory)";
}

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
	f->keep_max = UINT64_MAX;
	f->replace = (flags & FIO_REPLACE) != 0;
	f->direct_asked = (flags & FIO_DIRECT) != 0;
	f->sync = (flags & FIO_SYNC) != 0;
	oflags |= f->replace ? O_TRUNC : O_EXCL;
	if ((size_t)snprintf(f->path, sizeof(f->path), "%s", path) >= sizeof(f->path) ||
	    (size_t)snprintf(f->part, sizeof(f->part), "%s.part", path) >= sizeof(f->part)) {
		return err_set(err, errlen, -ENAMETOOLONG, "%s: name too long (at most %zu bytes)",
			       path, sizeof(f->path) - 1);
	}
	if (!f->replace && lstat(f->path, &st) == 0) {
		return err_set(err, errlen, -EEXIST, "%s: exists", f->path);
	}
	/* replacing: only a regular file (or a link) is renamed over; never a
	 * device, a FIFO or a directory (codifgen --pcap /dev/null run as root
	 * renamed a pcap over /dev/null) */
	if (f->replace && lstat(f->path, &st) == 0 && (e = fs_out_file_ok(f->path, err, errlen)) != 0)
		return e;
	f->cap = ALIGN_UP(bufsize < 2 * FIO_ALIGN ? 2 * FIO_ALIGN : bufsize, FIO_ALIGN);
	f->capends = 64;
	f->ends = malloc(f->capends * sizeof(*f->ends));
	if (f->ends == NULL || posix_memalign(&mem, FIO_ALIGN, f->cap) != 0) {
		free(f->ends);
		f->ends = NULL;
		return err_set(err, errlen, -ENOMEM, "%s: no memory for a %zu-byte staging buffer",
			       f->part, f->cap);
	}
	f->buf = mem;
	if (flags & FIO_DIRECT) {
		f->fd = open(f->part, oflags | O_DIRECT, 0644);
		if (f->fd >= 0)
			f->direct = true;
		else if (errno != EINVAL)
			goto fail;
		else if (!f->replace)
			/* a filesystem that refuses O_DIRECT (ramfs; tmpfs before
			 * Linux 6.6) says so after creating the file: O_EXCL made
			 * it ours, and the buffered open would find it there */
			unlink(f->part);
	}
	if (f->fd < 0)
		f->fd = open(f->part, oflags, 0644);
	if (f->fd < 0)
		goto fail;
	f->open = true;
	f->want_aio = !f->sync;
	return 0;
fail:
	e = errno;
	if (e == EEXIST)
		err_set(err, errlen, -e, "%s: exists: another writer, or a cut run", f->part);
	else
		err_set(err, errlen, -e, "%s: %s", f->part, strerror(e));
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

/* pwrite all of n bytes at off; EINTR and short writes retried; *done:
 * the bytes written. The synchronous path, and io_uring's fallback for a
 * write it returned short or refused. */
static int
pwrite_at(struct fio_file *f, const uint8_t *p, size_t n, uint64_t off, size_t *done)
{
	*done = 0;
	while (n > 0) {
		ssize_t w = pwrite(f->fd, p, n, (off_t)off);

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
		off += (uint64_t)w;
		*done += (size_t)w;
		if (f->direct && (w % FIO_ALIGN) != 0 && n > 0)
			go_buffered(f);
	}
	return 0;
}

/* pwrite all of n bytes at the file's end (no write in flight). */
static int
write_out(struct fio_file *f, const uint8_t *p, size_t n)
{
	size_t done;
	int rc = pwrite_at(f, p, n, f->on_disk, &done);

	f->on_disk += done;
	return rc;
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


#ifdef FIO_HAVE_URING
static void
note_sync_reason(const char *what, int e)
{
	int expected = 0;

	if (__atomic_compare_exchange_n(&sync_reason_claimed, &expected, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		snprintf(sync_reason_buf, sizeof(sync_reason_buf), "%s: %s", what, strerror(e));
		__atomic_store_n(&sync_reason, sync_reason_buf, __ATOMIC_RELEASE);
	}
}

static void
aio_free(struct fio_file *f)
{
	struct fio_aio *a = f->aio;
	unsigned int i;

	if (a == NULL)
		return;
	io_uring_queue_exit(&a->ring);
	for (i = 0; i < a->nspare; i++)
		free(a->spare[i]);
	for (i = 0; i < a->niovspare; i++)
		free(a->iovspare[i]);
	free(a->biov);
	free(a->zero);
	free(a);
	f->aio = NULL;
}

/* io_uring for an O_DIRECT file, with its FIO_INFLIGHT extra staging
 * buffers (spares; a file written by reference has none); anything
 * missing leaves the file synchronous. */
static void
aio_open(struct fio_file *f, bool spares)
{
	struct fio_aio *a;
	unsigned int i;
	int rc;

	f->want_aio = false; /* tried once */
	if (!f->direct || fio_sync_reason() != NULL)
		return;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return;
	rc = io_uring_queue_init(FIO_INFLIGHT, &a->ring, 0);
	if (rc < 0) {
		note_sync_reason("io_uring_queue_init", -rc);
		free(a);
		return;
	}
	f->aio = a;
	for (i = 0; spares && i < FIO_INFLIGHT; i++) {
		void *mem;

		if (posix_memalign(&mem, FIO_ALIGN, f->cap) != 0) {
			aio_free(f);
			return;
		}
		a->spare[a->nspare++] = mem;
	}
}

/* pwrite the pieces iov, but their first skip bytes, at off. */
static int
pwrite_iov_at(struct fio_file *f, const struct iovec *iov, unsigned int niov, size_t skip,
	      uint64_t off, size_t *done)
{
	unsigned int i;

	*done = 0;
	for (i = 0; i < niov; i++) {
		size_t len = iov[i].iov_len, d;
		int rc;

		if (skip >= len) {
			skip -= len;
			continue;
		}
		rc = pwrite_at(f, (const uint8_t *)iov[i].iov_base + skip, len - skip, off, &d);
		*done += d;
		off += d;
		skip = 0;
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* pwrite what of slot s follows its first skip bytes. */
static int
slot_pwrite(struct fio_file *f, const struct fio_slot *s, size_t skip, size_t *done)
{
	if (s->iov != NULL)
		return pwrite_iov_at(f, s->iov, s->niov, skip, s->off + skip, done);
	return pwrite_at(f, s->buf + skip, s->len - skip, s->off + skip, done);
}

/* How one write ended: a short write is finished with pwrite (where the
 * disk is full, that says ENOSPC), EINVAL for O_DIRECT goes on buffered,
 * as the synchronous path does. */
static void
aio_finish(struct fio_file *f, struct fio_slot *s, int res)
{
	size_t done = 0;
	int rc = 0;

	if (res == -EINVAL && f->direct) {
		go_buffered(f);
		rc = slot_pwrite(f, s, 0, &done);
	} else if (res == -EINTR || res == -EAGAIN) {
		rc = slot_pwrite(f, s, 0, &done);
	} else if (res < 0) {
		rc = res;
	} else if ((size_t)res < s->len) {
		done = (size_t)res;
		if (res == 0) {
			rc = -ENOSPC;
		} else {
			size_t more;

			if (f->direct)
				go_buffered(f); /* the rest is not aligned */
			rc = slot_pwrite(f, s, done, &more);
			done += more;
		}
	} else {
		done = s->len;
	}
	s->written = done;
	s->err = -rc;
	s->done = true;
}

/* Take completions: all that are there, or (wait) until the oldest write
 * is done. A failure of io_uring itself fails the file. */
static void
aio_reap(struct fio_file *f, bool wait)
{
	struct fio_aio *a = f->aio;
	struct io_uring_cqe *cqe;

	while (a->n > 0) {
		int rc;

		if (wait && !a->slot[a->head].done)
			rc = io_uring_wait_cqe(&a->ring, &cqe);
		else
			rc = io_uring_peek_cqe(&a->ring, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc == -EAGAIN)
			break;
		if (rc < 0) {
			/* no completion can be had: the writes in flight are
			 * lost to this file */
			unsigned int i;

			for (i = 0; i < a->n; i++) {
				struct fio_slot *s = &a->slot[(a->head + i) % FIO_INFLIGHT];

				if (!s->done) {
					s->written = 0;
					s->err = -rc;
					s->done = true;
				}
			}
			break;
		}
		aio_finish(f, io_uring_cqe_get_data(cqe), cqe->res);
		io_uring_cqe_seen(&a->ring, cqe);
	}
	/* done writes, in file order, move on_disk; the first failed one
	 * stops it there (what follows it is cut at close) */
	while (a->n > 0 && a->slot[a->head].done) {
		struct fio_slot *s = &a->slot[a->head];

		if (f->err == 0) {
			f->on_disk = s->off + s->written;
			if (s->err != 0)
				f->err = s->err;
		}
		if (s->iov != NULL)
			a->iovspare[a->niovspare++] = s->iov;
		else
			a->spare[a->nspare++] = s->buf;
		a->head = (a->head + 1) % FIO_INFLIGHT;
		a->n--;
		if (f->depth != NULL && f->depth->now > 0)
			f->depth->now--;
	}
	settle_ends(f);
}

/* One more write in flight, for fio_track's count. */
static inline void
depth_up(struct fio_file *f)
{
	if (f->depth != NULL && ++f->depth->now > f->depth->peak)
		f->depth->peak = f->depth->now;
}

static void
aio_drain(struct fio_file *f)
{
	while (f->aio != NULL && f->aio->n > 0)
		aio_reap(f, true);
}

/* Hand the aligned staged bytes to io_uring and go on in a fresh buffer
 * (the unaligned tail copied over); waits only when FIO_INFLIGHT writes
 * are already in flight. */
static int
aio_flush(struct fio_file *f)
{
	struct fio_aio *a = f->aio;
	size_t n = f->fill / FIO_ALIGN * FIO_ALIGN;
	struct io_uring_sqe *sqe;
	struct fio_slot *s;
	uint8_t *next;

	if (n == 0)
		return 0;
	while (a->nspare == 0)
		aio_reap(f, true);
	if (f->err != 0)
		return -f->err;
	next = a->spare[--a->nspare];
	memcpy(next, f->buf + n, f->fill - n);
	s = &a->slot[(a->head + a->n) % FIO_INFLIGHT];
	*s = (struct fio_slot){ .buf = f->buf, .off = f->base, .len = n };
	a->n++;
	depth_up(f);
	sqe = io_uring_get_sqe(&a->ring);
	if (sqe != NULL) {
		io_uring_prep_write(sqe, f->fd, s->buf, (unsigned int)n, s->off);
		io_uring_sqe_set_data(sqe, s);
	}
	if (sqe == NULL || io_uring_submit(&a->ring) < 1)
		aio_finish(f, s, -EAGAIN); /* written here instead */
	f->buf = next;
	f->base += n;
	f->fill -= n;
	aio_reap(f, false);
	return f->err ? -f->err : 0;
}

/* ---- by reference --------------------------------------------------------- */

/* Hand the pieces gathered to io_uring as one writev at their offset;
 * waits only when FIO_INFLIGHT writes are already in flight. After an
 * error they are dropped: they lie past what the file keeps. */
static int
ref_submit(struct fio_file *f)
{
	struct fio_aio *a = f->aio;
	struct io_uring_sqe *sqe;
	struct fio_slot *s;

	if (a->bn == 0)
		return f->err ? -f->err : 0;
	while (a->n == FIO_INFLIGHT)
		aio_reap(f, true);
	if (f->err != 0) {
		a->bn = 0;
		a->blen = 0;
		return -f->err;
	}
	s = &a->slot[(a->head + a->n) % FIO_INFLIGHT];
	*s = (struct fio_slot){ .iov = a->biov, .niov = a->bn, .off = f->base - a->blen,
				.len = a->blen };
	a->n++;
	depth_up(f);
	a->biov = a->iovspare[--a->niovspare];
	a->bn = 0;
	a->blen = 0;
	sqe = io_uring_get_sqe(&a->ring);
	if (sqe != NULL) {
		io_uring_prep_writev(sqe, f->fd, s->iov, s->niov, s->off);
		io_uring_sqe_set_data(sqe, s);
	}
	if (sqe == NULL || io_uring_submit(&a->ring) < 1)
		aio_finish(f, s, -EAGAIN); /* written here instead */
	aio_reap(f, false);
	return f->err ? -f->err : 0;
}

int
fio_ref_begin(struct fio_file *f, size_t batch, const char **why)
{
	const char *w = NULL;
	struct fio_aio *a;
	unsigned int i;
	void *mem;

	if (!f->direct)
		w = "the file is not O_DIRECT (direct=no, or its filesystem refused it: tmpfs?)";
	else if (f->sync)
		w = "io=sync";
	else if (f->fill != 0 || f->base % FIO_ALIGN != 0)
		w = "bytes already staged";
	else {
		if (f->want_aio)
			aio_open(f, false);
		if (f->aio == NULL)
			w = fio_sync_reason() != NULL ? fio_sync_reason() : "no io_uring";
	}
	if (why != NULL)
		*why = w;
	if (w != NULL)
		return -EOPNOTSUPP;
	a = f->aio;
	if (a->biov == NULL)
		a->biov = malloc(FIO_IOV * sizeof(*a->biov));
	while (a->biov != NULL && a->niovspare < FIO_INFLIGHT &&
	       (a->iovspare[a->niovspare] = malloc(FIO_IOV * sizeof(struct iovec))) != NULL)
		a->niovspare++;
	if (a->zero == NULL && posix_memalign(&mem, FIO_ALIGN, FIO_ZERO_BLOCK) == 0) {
		memset(mem, 0, FIO_ZERO_BLOCK);
		a->zero = mem;
	}
	if (a->biov == NULL || a->niovspare < FIO_INFLIGHT || a->zero == NULL) {
		if (why != NULL)
			*why = "no memory for its pieces";
		aio_free(f); /* no staging spares either: synchronous from here */
		return -ENOMEM;
	}
	for (i = 0; i < a->nspare; i++) /* staging spares: never used now */
		free(a->spare[i]);
	a->nspare = 0;
	a->batch = batch < FIO_ALIGN ? FIO_ALIGN : batch / FIO_ALIGN * FIO_ALIGN;
	free(f->buf); /* nothing is staged from here on */
	f->buf = NULL;
	f->ref = true;
	return 0;
}

int
fio_ref(struct fio_file *f, const void *p, size_t n)
{
	struct fio_aio *a = f->aio;
	struct iovec *last;

	if (f->err != 0)
		return -f->err;
	if (!f->ref || ((uintptr_t)p | n) % FIO_ALIGN != 0)
		return -EINVAL;
	if (n == 0)
		return 0;
	last = a->bn > 0 ? &a->biov[a->bn - 1] : NULL;
	if (last != NULL && (const uint8_t *)last->iov_base + last->iov_len == (const uint8_t *)p) {
		last->iov_len += n; /* the next bytes in memory: one piece */
	} else {
		if (a->bn == FIO_IOV)
			return -E2BIG;
		a->biov[a->bn++] = (struct iovec){ .iov_base = (void *)(uintptr_t)p, .iov_len = n };
	}
	a->blen += n;
	f->base += n;
	return 0;
}

int
fio_ref_zero(struct fio_file *f, size_t n)
{
	struct fio_aio *a = f->aio;

	if (f->err != 0)
		return -f->err;
	if (!f->ref || n % FIO_ALIGN != 0)
		return -EINVAL;
	while (n > 0) {
		struct iovec *last = a->bn > 0 ? &a->biov[a->bn - 1] : NULL;
		size_t k;

		if (last != NULL && last->iov_base == a->zero && last->iov_len < FIO_ZERO_BLOCK) {
			k = FIO_ZERO_BLOCK - last->iov_len;
			k = n < k ? n : k;
			last->iov_len += k;
		} else {
			if (a->bn == FIO_IOV)
				return -E2BIG;
			k = n < FIO_ZERO_BLOCK ? n : FIO_ZERO_BLOCK;
			a->biov[a->bn++] = (struct iovec){ .iov_base = a->zero, .iov_len = k };
		}
		a->blen += k;
		f->base += k;
		n -= k;
	}
	return 0;
}

int
fio_ref_room(struct fio_file *f, unsigned int k)
{
	if (f->err != 0)
		return -f->err;
	if (f->ref && f->aio->bn + k > FIO_IOV)
		return ref_submit(f);
	return 0;
}

int
fio_rewrite_zero(struct fio_file *f, uint64_t off, uint64_t n)
{
	uint64_t at = off;

	if (!f->ref || off + n > f->on_disk)
		return 0; /* not in the file: a cut at close removes it */
	while (at < off + n) {
		size_t k = off + n - at < FIO_ZERO_BLOCK ? (size_t)(off + n - at) : FIO_ZERO_BLOCK;
		size_t done;
		int rc = pwrite_at(f, f->aio->zero, k, at, &done);

		if (rc != 0) {
			if (f->err == 0)
				f->err = -rc;
			if (f->keep_max > off)
				f->keep_max = off;
			return rc;
		}
		at += k;
	}
	return 0;
}
#else
static void
aio_open(struct fio_file *f, bool spares)
{
	(void)spares;
	f->want_aio = false;
}

int
fio_ref_begin(struct fio_file *f, size_t batch, const char **why)
{
	(void)f;
	(void)batch;
	if (why != NULL)
		*why = sync_reason;
	return -EOPNOTSUPP;
}

int
fio_ref(struct fio_file *f, const void *p, size_t n)
{
	(void)f;
	(void)p;
	(void)n;
	return -EINVAL;
}

int
fio_ref_zero(struct fio_file *f, size_t n)
{
	(void)f;
	(void)n;
	return -EINVAL;
}

int
fio_ref_room(struct fio_file *f, unsigned int k)
{
	(void)k;
	return f->err ? -f->err : 0;
}

int
fio_rewrite_zero(struct fio_file *f, uint64_t off, uint64_t n)
{
	(void)f;
	(void)off;
	(void)n;
	return 0;
}

static int
ref_submit(struct fio_file *f)
{
	return f->err ? -f->err : 0;
}

static void
aio_free(struct fio_file *f)
{
	(void)f;
}

static void
aio_drain(struct fio_file *f)
{
	(void)f;
}

static int
aio_flush(struct fio_file *f)
{
	(void)f;
	return -ENOSYS;
}
#endif

void
fio_settle(struct fio_file *f)
{
#ifdef FIO_HAVE_URING
	if (f->open && f->aio != NULL)
		aio_reap(f, false);
#else
	(void)f;
#endif
}

/* Write the staged bytes: all of them, or (O_DIRECT) the aligned part. */
static int
flush(struct fio_file *f, bool all)
{
	size_t n;
	int rc;

	if (f->err != 0)
		return -f->err;
	if (f->ref) {
		/* by reference: nothing staged, what is gathered goes */
		rc = ref_submit(f);
		if (all)
			aio_drain(f);
		return rc != 0 ? rc : f->err ? -f->err : 0;
	}
	if (f->want_aio && f->direct && !all)
		aio_open(f, true); /* at the first flush: a file written at close only
			      * (smaller than half its buffer) never needs it */
	if (f->aio != NULL && f->direct && !all)
		return aio_flush(f);
	aio_drain(f); /* the synchronous path writes at on_disk */
	if (f->err != 0)
		return -f->err;
	n = f->fill;
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

	if (f->err != 0 || f->ref || n > f->cap - FIO_ALIGN)
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
#ifdef FIO_HAVE_URING
	if (f->ref) {
		/* by reference: the pieces not yet written */
		struct fio_aio *a = f->aio;

		if (mark + a->blen < f->base || mark > f->base)
			return -EINVAL;
		while (f->base > mark) {
			struct iovec *last = &a->biov[a->bn - 1];
			size_t cut = last->iov_len < f->base - mark ? last->iov_len :
				     (size_t)(f->base - mark);

			last->iov_len -= cut;
			a->blen -= cut;
			f->base -= cut;
			if (last->iov_len == 0)
				a->bn--;
		}
		while (f->nends > 0 && f->ends[f->nends - 1] > mark)
			f->nends--;
		return 0;
	}
#endif
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
#ifdef FIO_HAVE_URING
	if (f->ref)
		return f->aio->blen >= f->aio->batch ? ref_submit(f) : f->err ? -f->err : 0;
#endif
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
	aio_drain(f); /* after an error too: nothing may still write the file */
	if (first == 0)
		first = f->err;
	aio_free(f);
	size = f->on_disk;
	if (first != 0) {
		/* cut to the last whole record: every kept file is valid */
		settle_ends(f);
		size = f->safe_end < f->keep_max ? f->safe_end : f->keep_max;
		if (ftruncate(f->fd, (off_t)size) != 0 || size == 0)
			keep = false;
		rc = err_set(err, errlen, -first, "%s: %s (kept the first %llu bytes, whole "
			     "records)", f->part, strerror(first), (unsigned long long)size);
	}
	if (close(f->fd) != 0 && rc == 0) {
		rc = -errno;
		err_set(err, errlen, rc, "%s: close: %s", f->part, strerror(-rc));
	}
	if (keep) {
		int r = f->replace ? (rename(f->part, f->path) == 0 ? 0 : -errno) :
				     rename_noreplace(f->part, f->path);

		if (r != 0) {
			if (rc == 0) {
				rc = r;
				if (r == -EEXIST)
					err_set(err, errlen, r, "%s: not renamed: %s appeared meanwhile "
						"(another writer?) and is left as it is; this file stays "
						"NAME.part", f->part, f->path);
				else
					err_set(err, errlen, r, "%s: rename to %s: %s", f->part, f->path,
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
fio_wait(struct fio_file *f)
{
	if (!f->open)
		return 0;
	if (f->ref)
		ref_submit(f);
	aio_drain(f);
	return f->err ? -f->err : 0;
}

int
fio_cut(const char *path, uint64_t size, char *err, size_t errlen)
{
	int rc = size == 0 ? unlink(path) : truncate(path, (off_t)size);

	if (rc != 0) {
		rc = -errno;
		err_set(err, errlen, rc, "%s: %s to %llu bytes: %s", path,
			size == 0 ? "removing instead of cutting" : "cutting",
			(unsigned long long)size, strerror(-rc));
	}
	return rc;
}
