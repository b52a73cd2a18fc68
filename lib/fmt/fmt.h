/* SPDX-License-Identifier: BSD-3-Clause */
/* File formats as sinks over lib/fio: a struct fmt_sink takes rows of
 * frames and writes them as raw (+ JSON index), codif, pcap or pcapng. Each
 * format's bytes are written and read in its own file (fmt_raw.c,
 * fmt_codif.c, fmt_pcap.c, fmt_pcapng.c; docs/formats.md); this one
 * dispatches. */

#ifndef FMT_H
#define FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"
#include "fio.h"
#include "json.h"

enum fmt_kind {
	FMT_RAW = 0,  /**< data rows + NAME.raw.json (fmt_raw.h) */
	FMT_CODIF,    /**< whole CODIF frames (fmt_codif.h) */
	FMT_PCAP,     /**< nanosecond pcap of Ethernet packets (fmt_pcap.h) */
	FMT_PCAPNG,   /**< pcapng: the same packets, an interface per antenna
			   (fmt_pcapng.h) */
};

/** Is k a format of packets (pcap, pcapng): gaps write nothing. */
static inline int
fmt_is_packets(int k)
{
	return k == FMT_PCAP || k == FMT_PCAPNG;
}

/** struct fmt_frame.flags */
#define FMT_F_INVALID 0x1 /**< arrived with the CODIF invalid bit set (data kept) */
#define FMT_F_GAP 0x2     /**< never arrived: codif writes its header (the
			       placeholder's, fmt_codif_placeholder) with zero
			       data, raw zeros listed in "gaps", pcap nothing */
#define FMT_F_OVERRUN 0x4 /**< the capture had it, the writer lost it (fell
			       behind): as a gap, but a raw row of nothing else
			       is listed in "overrun" */

/** One frame handed to a sink: its parts need not be contiguous. */
struct fmt_frame {
	const uint8_t *hdr;      /**< its CODIF header, CODIF_HDR_LEN bytes */
	const uint8_t *data;     /**< data_bytes of data; NULL: zeros (a gap) */
	uint32_t data_bytes;
	const uint8_t *l2;       /**< pcap: the packet's bytes before the CODIF
				      header (Ethernet .. UDP), l2len of them */
	uint32_t l2len;
	int64_t t_ns;            /**< pcap: the record's time (Unix ns) */
	uint32_t flags;          /**< FMT_F_* */
	uint32_t iface;          /**< pcapng: its interface, an index into
				      fmt_opts.ifaces (0 with one) */
};

/** A pcapng interface: one antenna (its description block). */
struct fmt_iface {
	char name[64];           /**< if_name: the antenna's name ("" none) */
	uint32_t ipv4;           /**< if_IPv4addr: its source address (host
				      order; 0: none) */
};

/** Most interfaces in one pcapng file (antennas of an all=yes writer). */
#define FMT_MAX_IFACES 64

struct fmt_raw_index;
struct fmt_raw_out;

struct fmt_opts {
	size_t bufsize;          /**< staging (lib/fio) */
	unsigned int fio_flags;  /**< FIO_DIRECT, FIO_REPLACE */
	uint32_t snaplen;        /**< pcap: bytes kept of a packet (0: 65535) */
	/* pcapng: */
	const struct fmt_iface *ifaces; /**< one interface description block
					     each, in order (NULL, 0: one
					     without a name) */
	unsigned int nifaces;
	const char *app;         /**< shb_userappl: program and version */
	const char *comment;     /**< the section's opt_comment (NULL: none);
				      lines apart by '\n' */
};

/**
 * What records of a file hold: its frames by kind, and bytes. A sink keeps
 * three: the records written out to the file so far (fmt_disk), and after
 * fmt_close those in the file kept and those an error cut off.
 */
struct fmt_tally {
	uint64_t frames;   /**< frames as received (invalid-flagged ones too);
			        pcap: packets */
	uint64_t gaps;     /**< FMT_F_GAP frames written (codif placeholders,
			        raw zeros listed in "gaps"; pcap writes none) */
	uint64_t overrun;  /**< FMT_F_OVERRUN frames written (as gaps) */
	uint64_t bytes;    /**< bytes of the file (raw: of the data, not the
			        index) */
};

/** A record not yet written out, and what it holds (lib/fmt inside). */
struct fmt_pending {
	uint64_t end;            /**< its end: logical offset in the file */
	uint32_t frames, gaps, overrun;
};

/** One output file of one format. */
struct fmt_sink {
	enum fmt_kind kind;
	struct fio_file f;
	uint32_t snaplen;
	uint32_t nifaces;        /**< pcapng: interfaces described */
	unsigned int replace;    /**< FIO_REPLACE given: for the raw index too */
	uint64_t rows;           /**< rows completed (fmt_row_end) */
	uint64_t mark;           /**< size at fmt_row_begin */
	unsigned int nput;       /**< frames in the row in progress */
	struct fmt_raw_out *raw; /**< raw: the index being built */
	/* what reached the file: the record in progress, records staged, and
	 * records written out (fmt_disk); after fmt_close, kept and cut */
	struct fmt_tally cur, disk, cut;
	struct fmt_pending *pend;     /**< records: [0, hpend) the newest in the
					   file, [hpend, npend) staged */
	size_t npend, hpend, cappend;
	uint64_t floor;               /**< end of the newest record in the file
					   no longer in pend: a cut at or after
					   it is counted exactly */
	bool ref;                     /**< raw rows by reference (fmt_by_ref) */
	uint64_t confirmed;           /**< by reference: end of the newest row
					   confirmed (fmt_row_confirm); rows after
					   it are not counted in the file yet */
};

/** "raw", "codif", "pcap", "pcapng": the name of a format and its file
 * extension. */
const char *fmt_name(enum fmt_kind k);

/** The formats' names (fmt_name) by name, as the tools list them ("codif,
 * pcap, pcapng or raw"), NULL-terminated; fmt_kinds[i] is fmt_names[i]'s. */
extern const char *const fmt_names[];
extern const enum fmt_kind fmt_kinds[];

/**
 * The format named name (a file's extension, a --write or trigger format).
 * @return 0 (k set), or -EINVAL when it names none.
 */
int fmt_parse(const char *name, enum fmt_kind *k);

/**
 * A stream's CODIF parameters as object key of o, the one form of them
 * (the raw index's and codifcheck's "params"): nchan, nbits, complex,
 * representation, period, totalsamples, frames_per_period, frame_ns,
 * data_bytes, data_rate_bps, epoch.
 */
void fmt_params_json(json_t *o, const char *key, const struct codif_hdr *h);

/**
 * Bytes one row of nslots frames of data_bytes can take in any format: a
 * CODIF frame each, or a pcap record (16; pcapng: an enhanced packet block,
 * 32 and up to 3 of padding) with Ethernet, VLAN, IPv4 and UDP headers (46)
 * before it.
 */
size_t fmt_row_bytes_max(unsigned int nslots, uint32_t data_bytes);

/**
 * Start a file of kind k at path (written as path.part, lib/fio): the pcap
 * file header; pcapng's section header and interface blocks; for raw, idx describes the file (antenna, streams in slot
 * order, clock, first index; copied) and its index is written by fmt_close.
 * @return 0, -EINVAL (an unknown kind; raw without 1..FMT_RAW_MAX_STREAMS
 *   streams, a data size and a clock in idx; pcapng with more than
 *   FMT_MAX_IFACES interfaces), -ENOMEM, or fio_open's errors
 *   (-EEXIST, -ENAMETOOLONG, an errno of open(2)), with the reason, naming
 *   the file, in err.
 */
int fmt_open(struct fmt_sink *s, enum fmt_kind k, const char *path, const struct fmt_opts *o,
	     const struct fmt_raw_index *idx, char *err, size_t errlen);

/**
 * Begin a row of at most max_bytes (fmt_row_bytes_max): it fits the
 * staging buffer from here, so it can be taken back (fmt_row_abort).
 * @return 0, -E2BIG (larger than the staging buffer), or the negative
 *   errno of an I/O error.
 */
int fmt_row_begin(struct fmt_sink *s, size_t max_bytes);

/**
 * Add one frame to the row. raw takes the file's streams in slot order,
 * one each per row; codif and pcap any number.
 * @return 1 written, 0 nothing to write (pcap: a gap), -EINVAL (raw: more
 *   frames than streams, or another data size; pcapng: an interface not
 *   described), -E2BIG (larger than the
 *   staging buffer), or the negative errno of an I/O error.
 */
int fmt_put(struct fmt_sink *s, const struct fmt_frame *fr);

/**
 * End the row: it is whole (a cut after an error keeps whole rows; pcap:
 * whole packets) and, for raw, its gaps, invalid and overrun runs go to the
 * index. Writes out the staged bytes when half the buffer is used.
 * @return 0, -EINVAL (raw: fewer frames than streams), or the negative
 *   errno of an I/O error.
 */
int fmt_row_end(struct fmt_sink *s);

/** Take back the row in progress (its frames were overwritten while copied). */
void fmt_row_abort(struct fmt_sink *s);

/* ---- raw rows by reference (no staging copy) ------------------------------ */

/**
 * Write this raw file's rows by reference from here on (lib/fio's
 * fio_ref): fmt_put's data is written from where it lies, gaps from a
 * zeroed block, so it must stay there until the row's write completed.
 * Every such row then waits for fmt_row_confirm, oldest first: intact, or
 * overwritten meanwhile (then it is rewritten as zeros and listed as
 * overrun, as a row taken back and written as placeholders would be). Its
 * frames count in fmt_disk once confirmed. Data and sizes must be
 * multiples of FIO_ALIGN.
 * @return 0, or -EOPNOTSUPP (not raw, or what lib/fio says: not O_DIRECT,
 *   io=sync, no io_uring) with why (may be NULL) in words, or -ENOMEM.
 */
int fmt_by_ref(struct fmt_sink *s, size_t batch, const char **why);

/**
 * The oldest row written by reference not yet confirmed: its row number in
 * the file (0 first) and whether its write is over (written: it reached
 * the file, or never will after an error). @return false: none.
 */
bool fmt_ref_oldest(const struct fmt_sink *s, uint64_t *row, bool *written);

/**
 * Confirm the oldest row written by reference (fmt_ref_oldest): intact, or
 * overwritten while written (zeros and an overrun row in its place, its
 * frames counted as overrun).
 * @return 0, -ENOENT (none), -ENOMEM (the index), or the negative errno of
 *   rewriting it (the file is then cut before it).
 */
int fmt_row_confirm(struct fmt_sink *s, bool intact);

/** Write out what is gathered and wait for every write in flight (then
 * every row written by reference is written: fmt_ref_oldest). @return 0 or
 * the negative errno of the first I/O error. */
int fmt_wait(struct fmt_sink *s);

/** Logical size of the file so far. */
static inline uint64_t
fmt_size(const struct fmt_sink *s)
{
	return fio_size(&s->f);
}

/**
 * Bytes closing the file may still take on its disk beyond fmt_size, high:
 * its last filesystem block, and raw's index (its size and block) as the
 * file stands now. What a disk budget (lib/writer's min-free) keeps for it.
 */
uint64_t fmt_close_bytes_max(const struct fmt_sink *s);

/**
 * What the file holds so far: the records (rows; pcap packets) written out
 * to it, not those still staged. After fmt_close: what the file kept holds
 * (nothing when it was not kept); fmt_cut says what was lost.
 */
static inline const struct fmt_tally *
fmt_disk(const struct fmt_sink *s)
{
	return &s->disk;
}

/** After fmt_close: the records (whole rows; pcap packets) handed to the
 * file that are not in it: cut off by an error such as ENOSPC, or the whole
 * file when it was not kept. A row left half-way by an error is in neither. */
static inline const struct fmt_tally *
fmt_cut(const struct fmt_sink *s)
{
	return &s->cut;
}

/**
 * Finish the file: written out, cut to its last whole row after an error,
 * renamed from .part (keep) or removed; raw: its index (the rows kept)
 * written beside it, as NAME.raw.json.part renamed (on a full disk, whole
 * rows are cut off the data until the index fits; a raw file is never left
 * without its index). kept (may be NULL): whether a valid file is left.
 * fmt_disk and fmt_cut then say what it holds and what was lost.
 * @return 0, or the negative errno of the first error: the data's (the
 *   file then holds its whole rows), else the index's (-ENOMEM, fio_open's
 *   errors, an I/O error); err names the file.
 */
int fmt_close(struct fmt_sink *s, bool keep, bool *kept, char *err, size_t errlen);

#endif /* FMT_H */
