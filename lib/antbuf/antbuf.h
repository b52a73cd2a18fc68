/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-antenna time-ordered frame buffer in shared memory: the shared layout,
 * the producer (places frame descriptors from lib/acct, keeps no timeline of
 * its own) and consumers (any process, each with its own cursor). */

#ifndef ANTBUF_H
#define ANTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct.h"
#include "codif.h"

#define ANTBUF_MAGIC 0x41564249u /* "IBVA" */
#define ANTBUF_VERSION 7
#define ANTBUF_MAX_SLOTS 64
#define ANTBUF_NAME_LEN 32
#define ANTBUF_L2_MAX 64
#define ANTBUF_RUNS 64
#define ANTBUF_PAGE 4096

/** Slot flags (struct antbuf_meta.flags). */
#define ANTBUF_F_VALID 0x01   /**< the frame arrived and was placed */
#define ANTBUF_F_INVALID 0x02 /**< ... with the CODIF invalid bit set */
#define ANTBUF_F_LATE 0x04    /**< ... after a newer row was opened */
#define ANTBUF_F_GAP 0x08     /**< final and never arrived: payload zeroed */
#define ANTBUF_F_L2_LONG 0x10 /**< its L2-L4 headers were too long to keep */

/** Shape of one antenna's buffer. */
struct antbuf_geom {
	uint32_t nslots;     /**< streams per row (slots, assigned to streams by
				  their identity as they come), <= 64 */
	uint32_t nrows;      /**< ring size in frames (rows), power of two */
	uint32_t window;     /**< rows kept open for late frames, < nrows */
	uint32_t data_bytes; /**< payload bytes a slot holds, multiple of 8: a
				  frame may be smaller (its header says its size) */
};

/** Bytes of a frame's packet headers a record keeps: two VLAN tags, IPv4
 * without options, UDP (54 bytes of L2-L4 at most) and the CODIF header. */
#define ANTBUF_HDR_MAX 116
/** L2-L4 header bytes a record keeps whole (ANTBUF_HDR_MAX - 64). */
#define ANTBUF_L2_KEPT (ANTBUF_HDR_MAX - CODIF_HDR_LEN)

/**
 * Per frame metadata, beside the payload: one record of two whole cache
 * lines, written once by the producer (a single copy of the packet's
 * headers, stored whole lines at a time, past the cache: a reader on
 * another core takes it from memory). Its flags are valid when its row is
 * final. hdr holds the packet from its Ethernet header through its CODIF
 * header (l2len + 64 bytes); when its L2-L4 headers are longer than
 * ANTBUF_L2_KEPT (IP options, three VLAN tags) only the CODIF header is
 * kept, at hdr + ANTBUF_L2_KEPT, with ANTBUF_F_L2_LONG set.
 */
struct antbuf_meta {
	int64_t arrival_ns;          /**< Unix ns (NIC time where offered) */
	uint16_t wirelen;            /**< packet length on the wire */
	uint8_t flags;               /**< ANTBUF_F_* */
	uint8_t l2len;               /**< L2-L4 header bytes in hdr (0: long) */
	uint8_t hdr[ANTBUF_HDR_MAX];
} __attribute__((aligned(64)));

/** The frame's CODIF header as received. */
static inline const uint8_t *
antbuf_meta_codif(const struct antbuf_meta *m)
{
	return m->hdr + (m->flags & ANTBUF_F_L2_LONG ? ANTBUF_L2_KEPT : m->l2len);
}

/** Its Ethernet .. UDP headers as received (l2len bytes), or NULL when they
 * were too long to keep (then its stream's first frame's: struct antbuf_slot). */
static inline const uint8_t *
antbuf_meta_l2(const struct antbuf_meta *m)
{
	return m->flags & ANTBUF_F_L2_LONG ? NULL : m->hdr;
}

/**
 * Per row state (one per ring position). Rows are numbered 0, 1, 2, ... in
 * the order the producer opens them (row r at ring position r mod nrows);
 * which frame a row holds is its run's business (struct antbuf_run).
 */
struct antbuf_row {
	int64_t seq;          /**< row number held, -1 never used (acq/rel) */
	uint64_t cum_before;  /**< valid frames in every final row before it */
	uint32_t nvalid;      /**< valid frames in this row (when final) */
	uint32_t reserved;
	/** The producer's: the slots placed in this row since it opened (bit
	 * per slot). The records of slots not placed are written when the row
	 * becomes final, so opening a row touches no record. */
	uint64_t placed;
};

/** A stream's place in the rows: who it is, fixed when the slot is assigned
 * (antbuf_slot_assign: by the stream's full identity, first come first
 * served); every frame placed in it is that stream's. */
struct antbuf_slot {
	uint32_t assigned;    /**< 0 until assigned (acq/rel) */
	uint32_t dst_ip;
	uint16_t dport, stationid, groupid, secondaryid, threadid, reserved;
	uint8_t l2[ANTBUF_L2_MAX];  /**< its first frame's L2-L4 headers */
	uint8_t l2len, pad[7];
};

/** Why a run of rows began (struct antbuf_run.kind). */
enum antbuf_run_kind {
	ANTBUF_RUN_START = 0, /**< the first frame */
	ANTBUF_RUN_RESYNC,    /**< the antenna's timeline resynced: another time
				   (and maybe clock); files start anew */
	ANTBUF_RUN_PARAMS,    /**< a stream's parameters changed, same clock:
				   files start anew */
	ANTBUF_RUN_GAP,       /**< the timeline goes on after `vgap` frames the
				   capture confirmed lost, more than the ring */
};

/**
 * A run of rows on one clock: row r holds frame index r - delta. A run
 * begins at row seq0; the next run's seq0 ends it. The producer never
 * computes an index itself: it places each descriptor at index + delta of
 * the segment the descriptor says, and starts a run when that changes.
 */
struct antbuf_run {
	int64_t seq0;         /**< its first row */
	int64_t delta;        /**< row of frame index n: n + delta */
	int64_t vgap;         /**< GAP: frames lost just before seq0 (never in
				   the ring; consumers write them as gaps) */
	uint32_t tseg;        /**< the antenna timeline's segment */
	uint32_t kind;        /**< enum antbuf_run_kind */
	struct codif_clock clk;
	/** each slot's first row in the run, INT64_MAX before its first frame
	 * (acq/rel): rows before it hold nothing of that slot, rows after it
	 * hold the frame or a gap */
	int64_t first[ANTBUF_MAX_SLOTS];
	/** each slot's first CODIF header in the run (placeholders for its gaps) */
	uint8_t ref[ANTBUF_MAX_SLOTS][CODIF_HDR_LEN];
};

/** Why a frame was not placed (counters in struct antbuf). */
enum antbuf_result {
	ANTBUF_PLACED = 0,
	ANTBUF_DUPLICATE,   /**< slot already holds that frame */
	ANTBUF_TOO_LATE,    /**< its row is final (the window passed it), or
				 its segment is over */
	ANTBUF_NO_SLOT,     /**< slot index beyond the buffer's slots (its
				 stream got none: every slot is another's) */
	ANTBUF_BAD_SIZE,    /**< data bytes more than a slot holds */
	ANTBUF_BAD_TIME,    /**< another clock within one segment */
	ANTBUF__RESULTS
};

/**
 * The shared header at the start of the buffer's memory. Offsets are from
 * this header (the memory may map at another address in another process);
 * nothing in it is a pointer or means something in one process only.
 */
struct antbuf {
	uint32_t magic, version, hdr_size, index;
	struct antbuf_geom g;
	uint64_t total_size;
	uint64_t rows_off, meta_off, payload_off; /**< payload_off 0: external */
	uint64_t ext_off_off;       /**< indexed mode: each slot's payload offset
					 in the external region (uint64_t[]) */
	uint64_t payload_size;
	uint32_t payload_external;  /**< 1: payload in other memory (GPU) */
	uint32_t payload_indexed;   /**< 1: each slot's payload is wherever the
					 NIC put it (ext_off), not in ring order */
	uint64_t zero_off;          /**< indexed: offset of a zeroed frame (gaps) */
	uint32_t src_ip;
	char name[ANTBUF_NAME_LEN];

	struct antbuf_slot slot[ANTBUF_MAX_SLOTS];

	/* written by the producer, read by consumers */
	uint32_t state;          /**< 0 new, 1 running, 2 stopped */
	uint32_t nruns;          /**< runs so far (acq/rel); run k is run[k % ANTBUF_RUNS] */
	int64_t first_row;       /**< first row ever opened (0), -1 none */
	int64_t newest;          /**< newest row opened */
	int64_t final_row;       /**< rows < final_row are final (acq/rel) */
	uint64_t cum_valid;      /**< valid frames in all final rows */
	struct antbuf_run run[ANTBUF_RUNS];

	/* counters */
	uint64_t placed, late_placed, zero_filled;
	uint64_t gap_frames;     /**< frames of GAP runs' vgap rows (not in the ring) */
	uint64_t result[ANTBUF__RESULTS];
};

/**
 * The producer's side of one buffer: what only the process that places
 * frames knows (its view of the payload, references held, a lock when
 * several lcores place into one antenna). Never in shared memory.
 */
struct antbuf_prod {
	struct antbuf *b;
	uint8_t *payload;        /**< CPU view of external payload (NULL: inline) */
	bool shared;             /**< several producers: serialise on lock */
	uint32_t lock;
	struct antbuf_run *cur;  /**< the current run (in b), NULL before */
	/* indexed mode: per (pos, slot) what holds a payload placed by
	 * reference (0: nothing), and the function that gives it back */
	uintptr_t *refs;
	void (*release)(void *ctx, uintptr_t ref);
	void *release_ctx;
	/** the payload copy: non-temporal (AVX2) where the CPU has it */
	void (*copy)(uint8_t *dst, const uint8_t *src, size_t n);
};

/** Bytes of header + rows + metadata (+ payload when inline), page aligned. */
size_t antbuf_size(const struct antbuf_geom *g, bool payload_inline);
/** Payload bytes: nrows * nslots * data_bytes. */
size_t antbuf_payload_size(const struct antbuf_geom *g);

/**
 * Check a geometry: nslots 1..64, nrows a power of two >= 2 * window,
 * window >= 1, data_bytes 8..65536 multiple of 8.
 * @return 0 or -EINVAL with the reason in err.
 */
int antbuf_geom_check(const struct antbuf_geom *g, char *err, size_t len);

/**
 * Lay out a buffer in mem (antbuf_size bytes). With payload_inline false
 * the payload lives elsewhere (GPU) and each process passes its own
 * CPU-visible pointer to the payload functions.
 * @return 0, -EINVAL (geometry) or -ENOSPC (size too small).
 */
int antbuf_init(void *mem, size_t size, const struct antbuf_geom *g,
		bool payload_inline, unsigned int index, const char *name,
		uint32_t src_ip);

/**
 * Check a buffer found in shared memory (magic, version, header size,
 * geometry, offsets within size).
 * @return 0 or -EPROTO / -EINVAL with the reason in err.
 */
int antbuf_check(const struct antbuf *b, size_t size, char *err, size_t len);

/* ---- addressing: by ring position (struct antbuf_view.pos) --------------- */

static inline struct antbuf_row *
antbuf_rowp(const struct antbuf *b, uint32_t pos)
{
	return (struct antbuf_row *)((uintptr_t)b + b->rows_off) + pos;
}

static inline struct antbuf_meta *
antbuf_metap(const struct antbuf *b, uint32_t pos, unsigned int s)
{
	return (struct antbuf_meta *)((uintptr_t)b + b->meta_off) +
	       (uint64_t)pos * b->g.nslots + s;
}

/** Payload of (position, slot); base is the payload (NULL = inline). */
static inline uint8_t *
antbuf_payload(const struct antbuf *b, uint8_t *base, uint32_t pos, unsigned int s)
{
	if (base == NULL)
		base = (uint8_t *)((uintptr_t)b + b->payload_off);
	return base + ((uint64_t)pos * b->g.nslots + s) * (uint64_t)b->g.data_bytes;
}

/** Indexed mode: where each slot's payload is, from the external base. */
static inline uint64_t *
antbuf_extp(const struct antbuf *b, uint32_t pos, unsigned int s)
{
	return (uint64_t *)((uintptr_t)b + b->ext_off_off) + (uint64_t)pos * b->g.nslots + s;
}

/** Payload of (position, slot) in either mode (base: CPU view of the
 * external region, NULL = inline; in indexed mode over host memory base is
 * 0 and the offsets are addresses, the same in every DPDK process). */
static inline uint8_t *
antbuf_payload_of(const struct antbuf *b, uint8_t *base, uint32_t pos, unsigned int s)
{
	if (b->payload_indexed)
		return (uint8_t *)((uintptr_t)base + *antbuf_extp(b, pos, s));
	return antbuf_payload(b, base, pos, s);
}

/* ---- producer (the primary's rx lcores) -------------------------------- */

/**
 * Start producing into b (initialised). payload: CPU view of an external
 * payload (NULL: inline); shared: more than one thread places frames of
 * this antenna (they then serialise on a lock; else no atomic per frame).
 */
void antbuf_prod_init(struct antbuf_prod *p, struct antbuf *b, uint8_t *payload,
		      bool shared);

/**
 * Switch a freshly initialised external-payload buffer to indexed mode:
 * frames are placed by reference (antbuf_place_ref) where the NIC wrote
 * them; gaps point at the zeroed frame at zero_off. refs is the producer's
 * table of nrows x nslots zeroed entries; release(ctx, ref) is called when a
 * slot holding ref is recycled (or by antbuf_release_all).
 */
void antbuf_set_indexed(struct antbuf_prod *p, uint64_t zero_off, uintptr_t *refs,
			void (*release)(void *ctx, uintptr_t ref), void *ctx);

/** Indexed mode, at the end (no consumer left): release every reference
 * still held. Returns how many. */
unsigned int antbuf_release_all(struct antbuf_prod *p);

/**
 * Place one frame as accounting described it (acct_placeable(fd->cls)):
 * in row fd->index + delta of its segment's run, slot fd->slot. The payload
 * (fd->pkt + codif_off + 64) is copied once into its slot; header, L2-L4
 * headers and arrival time go beside it. A descriptor of a newer timeline
 * segment starts a run (RESYNC), one far ahead in the same segment a GAP
 * run, one with CODIF_OUT_NEW_PARAMS a PARAMS run. Opening newer rows
 * finalises the rows the window passes: their missing frames (of slots
 * started in their run) are zero-filled and flagged, and final_row is
 * published (release) for consumers. Never waits for a consumer.
 */
enum antbuf_result antbuf_place(struct antbuf_prod *p, const struct acct_fd *fd);

/**
 * antbuf_place for an indexed buffer: the payload is not copied; ext_off
 * says where it is in the external region (data_len bytes of it whole),
 * ref (non-zero) what holds it. On ANTBUF_PLACED the buffer keeps ref until
 * it calls release(ctx, ref); on any other result the caller still owns it.
 */
enum antbuf_result antbuf_place_ref(struct antbuf_prod *p, const struct acct_fd *fd,
				    uint64_t ext_off, uintptr_t ref, uint32_t data_len);

/**
 * The slot of fd's stream: the one assigned to its identity (destination
 * group and port, CODIF stationid, groupid, secondaryid, threadid, from the
 * frame's header; the buffer is its source's), else a free one, assigned
 * to it now with that identity and the frame's L2-L4 headers: slot `home`
 * when free (acct_home_slot: declared streams keep one order), else the
 * first free one. Called once per stream (the caller caches the answer:
 * acct_set_slot).
 * @return the slot, or ACCT_NO_SLOT when every slot is another stream's.
 */
uint16_t antbuf_slot_assign(struct antbuf_prod *p, const struct acct_fd *fd, uint16_t home);

/**
 * fd's slot, from its stream (fd->slot), or on the stream's first frame
 * placed here (ACCT_SLOT_NEW) assigned by the buffer (antbuf_slot_assign,
 * its home slot from lib/acct) and cached in the stream of instance a.
 * What every placer does before antbuf_place / antbuf_place_ref.
 */
static inline void
antbuf_fd_slot(struct antbuf_prod *p, struct acct *a, struct acct_fd *fd)
{
	if (__builtin_expect(fd->slot == ACCT_SLOT_NEW, 0)) {
		fd->slot = antbuf_slot_assign(p, fd, acct_home_slot(a, fd));
		acct_set_slot(a, fd, fd->slot);
	}
}

/** Slots assigned so far. */
unsigned int antbuf_slots_used(const struct antbuf *b);

/** A frame's data bytes, from its CODIF header as kept (framelength8 * 8). */
static inline uint32_t
antbuf_hdr_data_bytes(const uint8_t *codif)
{
	/* framelength8: bits 32..63 of the header's little-endian word 3 */
	return ((uint32_t)codif[28] | (uint32_t)codif[29] << 8 | (uint32_t)codif[30] << 16 |
		(uint32_t)codif[31] << 24) * 8u;
}

/** Why a frame the buffer refused (not too late) is not recorded. */
static inline enum acct_nr
antbuf_nr_cause(enum antbuf_result r)
{
	switch (r) {
	case ANTBUF_NO_SLOT: return ACCT_NR_NO_SLOT;
	case ANTBUF_BAD_SIZE: return ACCT_NR_WRONG_SIZE;
	case ANTBUF_BAD_TIME: return ACCT_NR_OTHER_CLOCK;
	default: return ACCT_NR_SLOT_HELD;
	}
}

/** Finalise every open row (at stop), so consumers can take everything. */
void antbuf_flush(struct antbuf_prod *p);

/** Name of a placement result, e.g. "too-late". */
const char *antbuf_result_name(enum antbuf_result r);

/** Name of a run kind, e.g. "resync". */
const char *antbuf_run_kind_name(enum antbuf_run_kind k);

/* ---- consumers (writers; any process, many at once) --------------------- */

struct antbuf_cursor {
	int64_t next;            /**< next row to read */
	uint64_t cum_next;       /**< cum_before of row `next` */
	int64_t vdone;           /**< virtual gap rows of next's run handed out */
	bool started;
	bool from_first;         /**< attached before the first frame */
	uint64_t rows;           /**< rows taken */
	uint64_t frames;         /**< valid frames taken */
	uint64_t lost_rows;      /**< rows overwritten before they were taken */
	uint64_t lost_frames;    /**< valid frames in them (exact) */
};

/** What antbuf_next hands out: a ring row, or a row the capture lost. */
struct antbuf_view {
	int64_t row;                      /**< the ring row (for a virtual row:
					       the row after it) */
	int64_t index;                    /**< its frame index on run->clk */
	uint32_t pos;                     /**< ring position (ring rows) */
	uint32_t nvalid;
	uint32_t runno;                   /**< its run's number */
	const struct antbuf_run *run;     /**< its run (in b) */
	bool virt;                        /**< a row of a GAP run's vgap: every
					       started slot lost, nothing in the ring */
	bool run_start;                   /**< the first row of its run (or its
					       run's first virtual row); a reader that
					       skips rows compares runno instead
					       (antbuf_runs_split) */
	uint64_t lost_rows, lost_frames;  /**< overrun just before this row */
	bool discontinuity;               /**< rows skipped (overrun) */
};

/**
 * Start a cursor: at the oldest row still readable (from_oldest), or at
 * the newest final row (live). A cursor made before the buffer's first
 * frame starts at its first row either way.
 */
void antbuf_cursor_init(const struct antbuf *b, struct antbuf_cursor *c,
			bool from_oldest);

/**
 * The next final row, if any. Rows the producer overwrote before this
 * consumer took them are skipped and counted (rows and valid frames). The
 * caller reads the row, then calls antbuf_commit: when the producer
 * recycled the row meanwhile, commit fails and counts it as lost.
 *
 * @return 1 (v filled), 0 (nothing final yet).
 */
int antbuf_next(const struct antbuf *b, struct antbuf_cursor *c,
		struct antbuf_view *v);

/**
 * Accept the row handed out by antbuf_next. @return true when its data
 * was stable while read, false when it was overwritten (counted lost).
 */
bool antbuf_commit(const struct antbuf *b, struct antbuf_cursor *c,
		   const struct antbuf_view *v);

/**
 * Whether the row of v (committed) is still the one handed out: not
 * recycled since. What a reader that let the row be read later (a write
 * straight from the ring, still in flight at antbuf_commit) checks once
 * that read is over.
 */
bool antbuf_intact(const struct antbuf *b, const struct antbuf_view *v);

/**
 * A row committed (antbuf_commit true) that antbuf_intact later found
 * overwritten: counted lost instead of taken, as antbuf_commit would have.
 */
void antbuf_lose(struct antbuf_cursor *c, const struct antbuf_view *v);

/**
 * Move a started cursor on to row (a consumer that fell behind the ring
 * and resumes nearer the newest row): the rows passed over count lost,
 * their valid frames exactly when the next row is taken (from the
 * producer's running total), as rows the producer overwrote do. Nothing
 * when row is not after the cursor's next row.
 */
void antbuf_skip(struct antbuf_cursor *c, int64_t row);

/**
 * Where a reader the ring overran resumes (lib/writer's writers, libibvcap's
 * consumers): a quarter of the ring past the oldest row still there. From
 * that oldest row it would be overrun again after each row it takes (the
 * producer overwrites the next one), and one that takes longer over a
 * block than the producer takes to write a few rows would find every block
 * overwritten while it held it; a quarter leaves it time to take rows
 * while it loses little more than was overwritten. The caller moves on
 * with antbuf_skip when the row is after the one in hand.
 */
int64_t antbuf_resume_row(const struct antbuf *b);

/**
 * After the producer stopped (antbuf_flush) and the cursor took every
 * final row: count the frames of rows it skipped at the very end (their
 * count is otherwise settled at the next row taken, which never comes).
 */
void antbuf_settle(const struct antbuf *b, struct antbuf_cursor *c);

/** Rows final but not yet taken by c (its backlog). */
int64_t antbuf_backlog(const struct antbuf *b, const struct antbuf_cursor *c);

/**
 * Final rows that c owes and has not taken, whether or not it took one
 * yet: a cursor attached before the first frame owes every row from the
 * first (its backlog before it started); a live one nothing before it
 * starts. Readable from another thread than c's (aligned words).
 */
int64_t antbuf_untaken(const struct antbuf *b, const struct antbuf_cursor *c);

/**
 * How far consumer c is behind the producer, for status screens: rows
 * opened but not yet taken (the newest row + 1 - the cursor's next; 0
 * before c took its first row) and their data time at the newest run's
 * frame duration. Rows still open for late frames (the window) count: a
 * consumer that keeps up lags by about the window.
 */
void antbuf_lag(const struct antbuf *b, const struct antbuf_cursor *c, uint64_t *rows,
		uint64_t *ns);

/** Whether slot s has started in run r at frame index idx (its frames, or
 * its gaps, belong in a row of that index). */
static inline bool
antbuf_slot_started(const struct antbuf_run *r, unsigned int s, int64_t idx)
{
	return __atomic_load_n(&r->first[s], __ATOMIC_ACQUIRE) <= idx + r->delta;
}

/**
 * The run holding row `row` (the latest with seq0 <= row among the last
 * ANTBUF_RUNS), or NULL when it is gone from the history. runno: its number.
 */
const struct antbuf_run *antbuf_run_of(const struct antbuf *b, int64_t row, uint32_t *runno);

/**
 * Whether the runs after run `from` up to run `to` (numbers) include one
 * that starts files anew: a resync or new parameters (or a run already gone
 * from the history). GAP runs go on the same timeline.
 */
bool antbuf_runs_split(const struct antbuf *b, uint32_t from, uint32_t to);

/** Frame start time (Unix ns) of frame index idx of run r. */
static inline int64_t
antbuf_index_time_ns(const struct antbuf_run *r, int64_t idx)
{
	return codif_clock_time_ns(&r->clk, idx);
}

/** Frame start time of row `row` (INT64_MIN when its run is gone). */
int64_t antbuf_row_time_ns(const struct antbuf *b, int64_t row);

#endif /* ANTBUF_H */
