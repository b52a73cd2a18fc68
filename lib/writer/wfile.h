/* SPDX-License-Identifier: BSD-3-Clause */
/* An output file written through an aligned staging buffer: O_DIRECT where
 * the filesystem allows, written as NAME.part and renamed when complete;
 * short writes, EINTR and ENOSPC handled so that a closed file always ends
 * at a whole record. */

#ifndef WFILE_H
#define WFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WFILE_ALIGN 4096

struct wfile {
	int fd;
	bool open;
	bool direct;           /**< O_DIRECT in use */
	char path[PATH_MAX];   /**< final name */
	char part[PATH_MAX + 8]; /**< NAME.part while written */
	uint8_t *buf;          /**< staging, WFILE_ALIGN aligned */
	size_t cap, fill;
	uint64_t base;         /**< logical offset of buf[0] */
	uint64_t on_disk;      /**< bytes written to the file */
	uint64_t safe_end;     /**< greatest record end <= on_disk */
	uint64_t *ends;        /**< record ends not yet on disk */
	size_t nends, capends;
	int err;               /**< first I/O errno (then writes are refused) */
};

/**
 * Create NAME.part (never overwriting: O_EXCL) for writing; O_DIRECT when
 * asked and the filesystem accepts it (else buffered, silently: tmpfs).
 * @param bufsize staging bytes, rounded up to WFILE_ALIGN (>= 2 records)
 * @return 0, or a negative errno with the reason in err.
 */
int wfile_open(struct wfile *f, const char *path, size_t bufsize, bool direct,
	       char *err, size_t len);

/** Logical size so far. */
static inline uint64_t
wfile_size(const struct wfile *f)
{
	return f->base + f->fill;
}

/**
 * Space for n bytes at the end of the staging buffer (flushing first when
 * needed). @return pointer, or NULL after an I/O error (f->err) or when
 * n exceeds the buffer.
 */
uint8_t *wfile_reserve(struct wfile *f, size_t n);

/**
 * Room for n more bytes without a flush: flushes now if needed, so that
 * what is appended next (a row) can still be rolled back.
 * @return 0, -f->err, or -E2BIG when n exceeds the buffer.
 */
int wfile_ensure(struct wfile *f, size_t n);

/**
 * pcap (nanosecond, Ethernet) file header with snaplen, as the file's first
 * record. @return 0 or -f->err.
 */
int wfile_pcap_header(struct wfile *f, uint32_t snaplen);

/**
 * One pcap record: its header (time t_ns, caplen, wire length len) written,
 * room reserved for its caplen bytes, which the caller fills and closes with
 * wfile_record_end. @return where the bytes go, or NULL (as wfile_reserve).
 */
uint8_t *wfile_pcap_record(struct wfile *f, int64_t t_ns, uint32_t caplen, uint32_t len);

/** Append n bytes. @return 0 or -f->err. */
int wfile_append(struct wfile *f, const void *p, size_t n);

/** Undo appends back to logical size mark, if still staged. @return 0/-EINVAL. */
int wfile_rollback(struct wfile *f, uint64_t mark);

/** The data so far ends a record: a truncation after ENOSPC keeps it. */
void wfile_record_end(struct wfile *f);

/** Write out the staged data when half the buffer is used. @return 0/-err. */
int wfile_maybe_flush(struct wfile *f);

/**
 * Write everything, truncate to the last whole record if an error cut it,
 * close and rename NAME.part to NAME (keep) or remove it (!keep, or when
 * nothing at all was written because of the error).
 * @return 0, or the negative errno of the first error (the file, when kept,
 *   is still valid).
 */
int wfile_close(struct wfile *f, bool keep, char *err, size_t len);

#endif /* WFILE_H */
