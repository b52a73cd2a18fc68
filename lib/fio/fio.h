/* SPDX-License-Identifier: BSD-3-Clause */
/* The file layer under every format: a file written through an aligned
 * staging buffer (formats encode into it; only this layer does I/O),
 * O_DIRECT where the filesystem takes it, with io_uring (liburing) keeping
 * FIO_INFLIGHT staged writes in flight while the format fills the next
 * buffer (synchronous pwrite where io_uring is not built in, not allowed,
 * or the file is not O_DIRECT), NAME.part renamed to NAME when complete,
 * and a file cut back to its last whole record after an error (ENOSPC), so
 * every kept file is valid. An O_DIRECT file with io_uring can also take
 * bytes by reference (fio_ref): written from where they are, no copy. */

#ifndef FIO_H
#define FIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Alignment of the staging buffer and of O_DIRECT writes. */
#define FIO_ALIGN 4096

/** fio_open flags. */
#define FIO_DIRECT 0x1  /**< O_DIRECT where the filesystem takes it (else
			     buffered, silently: tmpfs) */
#define FIO_REPLACE 0x2 /**< replace an existing NAME, and reuse a leftover
			     NAME.part (else both are refused: -EEXIST) */
#define FIO_SYNC 0x4    /**< synchronous pwrite even where io_uring could
			     keep writes in flight */

/** Staged writes in flight at once per O_DIRECT file (io_uring); each
 * holds a staging buffer of its own (bufsize bytes). */
#define FIO_INFLIGHT 2

struct fio_aio;

/**
 * Writes in flight through io_uring, counted for whoever owns the files (a
 * writer: its queue depth, summed over its files). Changed by the thread
 * that writes the files (fio_track), read by it.
 */
struct fio_depth {
	unsigned int now;  /**< writes submitted and not yet reaped */
	unsigned int peak; /**< the most at once since it was zeroed */
};

/**
 * One file being written. The fields are this layer's: formats use the
 * functions below only, so that the I/O under them (pwrite at the file's
 * end from the staging buffer, or io_uring with FIO_INFLIGHT staging
 * buffers in flight) is the same to every format.
 */
struct fio_file {
	int fd;
	bool open;
	bool direct;             /**< O_DIRECT in use */
	bool replace;            /**< FIO_REPLACE */
	bool direct_asked;       /**< FIO_DIRECT */
	bool sync;               /**< FIO_SYNC */
	char path[PATH_MAX];     /**< final name */
	char part[PATH_MAX + 8]; /**< NAME.part while written */
	uint8_t *buf;            /**< staging, FIO_ALIGN aligned */
	size_t cap, fill;
	uint64_t base;           /**< logical offset of buf[0] */
	uint64_t on_disk;        /**< bytes written to the file */
	uint64_t safe_end;       /**< greatest record end <= on_disk */
	uint64_t *ends;          /**< record ends not yet on disk */
	size_t nends, capends;
	int err;                 /**< first I/O errno (then writes are refused) */
	struct fio_aio *aio;     /**< io_uring state; NULL: synchronous pwrite */
	bool want_aio;           /**< io_uring to be set up at the first flush */
	bool ref;                /**< by reference (fio_ref_begin): nothing staged */
	uint64_t keep_max;       /**< a cut at close keeps at most this many bytes
				      (a rewrite failed there) */
	struct fio_depth *depth; /**< counts its writes in flight (fio_track), NULL */
};

/**
 * Create NAME.part for writing, with a staging buffer of bufsize bytes
 * (rounded up to FIO_ALIGN, at least 2 * FIO_ALIGN).
 * @param flags FIO_DIRECT, FIO_REPLACE
 * @return 0; -EEXIST (NAME, or NAME.part, exists and FIO_REPLACE is not
 *   given), -ENAMETOOLONG, -ENOMEM, or the negative errno of open(2); the
 *   reason, naming the file, in err.
 */
int fio_open(struct fio_file *f, const char *path, size_t bufsize, unsigned int flags,
	     char *err, size_t errlen);

/** Logical size so far (bytes handed to the file, staged or written). */
static inline uint64_t
fio_size(const struct fio_file *f)
{
	return f->base + f->fill;
}

/** The final name, and the name while written (NAME.part). */
static inline const char *
fio_path(const struct fio_file *f)
{
	return f->path;
}

static inline const char *
fio_part(const struct fio_file *f)
{
	return f->part;
}

/** Bytes written out to the file so far (a record ending at or before
 * this is in the file; a cut after an error keeps every such record). */
static inline uint64_t
fio_on_disk(const struct fio_file *f)
{
	return f->on_disk;
}

/**
 * Take the io_uring writes that have completed (never waits), so that
 * fio_on_disk counts them: what a disk budget reads before it compares
 * with statvfs. An error among them is the file's (fio_error).
 */
void fio_settle(struct fio_file *f);

/**
 * Why O_DIRECT files of this process write synchronously: NULL while
 * io_uring works (or has not been tried), else the reason (not built with
 * liburing, or io_uring_queue_init's error, e.g. a seccomp filter or
 * kernel.io_uring_disabled), for the writer to report once.
 */
const char *fio_sync_reason(void);

/** Whether this file's writes go through io_uring (several in flight). */
static inline bool
fio_async(const struct fio_file *f)
{
	return f->aio != NULL;
}

/** Count this file's writes in flight in d (shared by several files of one
 * thread; NULL: not counted). */
static inline void
fio_track(struct fio_file *f, struct fio_depth *d)
{
	f->depth = d;
}

/**
 * Whether this file writes (or, before its first flush, will write) through
 * io_uring: O_DIRECT taken by its filesystem, io_uring not refused to the
 * process (fio_sync_reason), no FIO_SYNC. Its writes in flight are then at
 * most FIO_INFLIGHT; otherwise one synchronous pwrite at a time.
 */
static inline bool
fio_uring(const struct fio_file *f)
{
	return f->open && f->direct && (f->aio != NULL || (f->want_aio && fio_sync_reason() == NULL));
}

/** Why this file writes synchronously (NULL: it does not, fio_uring): FIO_SYNC
 * ("io=sync"), O_DIRECT not asked ("direct=no") or refused by its filesystem
 * (ramfs; tmpfs before Linux 6.6), or fio_sync_reason. */
const char *fio_sync_why(const struct fio_file *f);

/** The first I/O error (a positive errno), 0 none. */
static inline int
fio_error(const struct fio_file *f)
{
	return f->err;
}

/**
 * Space for n bytes at the end of the file, in the staging buffer
 * (flushing first when needed): the caller fills all of it.
 * @return where the bytes go, or NULL after an I/O error (fio_error) or
 *   when n exceeds the buffer.
 */
uint8_t *fio_reserve(struct fio_file *f, size_t n);

/**
 * Room for n more bytes without a flush: flushes now if needed, so that
 * what is appended next (a row) can still be taken back (fio_rollback).
 * @return 0, -E2BIG when n exceeds the buffer, or the negative errno of an
 *   I/O error.
 */
int fio_ensure(struct fio_file *f, size_t n);

/** Append n bytes. @return 0, or the negative errno of an I/O error. */
int fio_append(struct fio_file *f, const void *p, size_t n);

/**
 * Take appends back to logical size mark (still staged after fio_ensure).
 * @return 0, or -EINVAL when mark is not within the staged bytes.
 */
int fio_rollback(struct fio_file *f, uint64_t mark);

/** The bytes so far end a record: a cut after an error keeps them. */
void fio_record_end(struct fio_file *f);

/**
 * Write out the staged bytes once half the buffer is used.
 * @return 0, or the negative errno of an I/O error.
 */
int fio_maybe_flush(struct fio_file *f);

/**
 * Write everything, cut back to the last whole record if an error cut it,
 * close, and rename NAME.part to NAME (keep) or remove it (!keep, or when
 * nothing at all was kept). The rename never replaces a NAME that appeared
 * while the file was written (renameat2 RENAME_NOREPLACE, else link and
 * unlink; FIO_REPLACE files excepted): that NAME is left as it is and this
 * file stays NAME.part. kept (may be NULL): the bytes the file NAME holds
 * (0 when it was removed or left as NAME.part).
 * @return 0, or the negative errno of the first error (-EEXIST: NAME
 *   appeared; the file, when kept, is still valid; err says what, naming
 *   the file).
 */
int fio_close(struct fio_file *f, bool keep, uint64_t *kept, char *err, size_t errlen);

/* ---- by reference: no staging copy ---------------------------------------- */

/** Zeros one iovec of fio_ref_zero covers at most (a block per file). */
#define FIO_ZERO_BLOCK (1u << 20)

/**
 * Write this file by reference from here on: the bytes fio_ref is given
 * are written from where they lie (io_uring writev, no copy into the
 * staging buffer), in writes of about batch bytes, FIO_INFLIGHT in flight.
 * Until a write completes (fio_on_disk passes it) its bytes must stay
 * where they are; a caller whose memory may change meanwhile checks it
 * after, and rewrites what changed (fio_rewrite_zero). fio_reserve and
 * fio_append are then refused (the staging buffer is given back).
 * @return 0, or -EOPNOTSUPP (not O_DIRECT, FIO_SYNC, no io_uring, bytes
 *   already staged or an unaligned size) with why (may be NULL) saying
 *   which in words, or -ENOMEM.
 */
int fio_ref_begin(struct fio_file *f, size_t batch, const char **why);

/**
 * Append n bytes at p by reference (p and n multiples of FIO_ALIGN);
 * coalesced with the bytes before when they follow them in memory.
 * @return 0, -EINVAL (unaligned), -E2BIG (no iovec left: fio_ref_room
 *   first), or the negative errno of an I/O error.
 */
int fio_ref(struct fio_file *f, const void *p, size_t n);

/** Append n zero bytes (a multiple of FIO_ALIGN) by reference, from the
 * file's zeroed block. Returns as fio_ref. */
int fio_ref_zero(struct fio_file *f, size_t n);

/**
 * Room for k more pieces (fio_ref) without a write: submits what is
 * gathered now if needed, so that what is appended next can still be taken
 * back (fio_rollback). @return 0 or the negative errno of an I/O error.
 */
int fio_ref_room(struct fio_file *f, unsigned int k);

/**
 * Overwrite n bytes at off, within what is on disk (fio_on_disk), with
 * zeros (bytes that changed while their write was in flight). Bytes not on
 * disk are not written (a cut after an error removes them). A failure
 * fails the file, and its cut at close keeps nothing from off on.
 * @return 0 or the negative errno of pwrite(2).
 */
int fio_rewrite_zero(struct fio_file *f, uint64_t off, uint64_t n);

/**
 * Write out what is gathered and wait for every write in flight (so that
 * fio_on_disk says all that will reach the file). @return 0 or the
 * negative errno of the first I/O error.
 */
int fio_wait(struct fio_file *f);

/**
 * Cut a finished file (closed, renamed) back to size bytes, whole records
 * as the caller knows them, or remove it when size is 0: how a format
 * makes room on a full disk for what must go beside the file (the raw
 * index).
 * @return 0, or the negative errno of truncate(2) / unlink(2), with the
 *   reason, naming the file, in err.
 */
int fio_cut(const char *path, uint64_t size, char *err, size_t errlen);

#endif /* FIO_H */
