/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-antenna time-ordered frame buffer in shared memory: the layout, the
 * producer (placement by CODIF frame index) and consumers (own cursors). */

#ifndef ANTBUF_H
#define ANTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"

#define ANTBUF_MAGIC 0x41564249u /* "IBVA" */
#define ANTBUF_VERSION 2
#define ANTBUF_MAX_SLOTS 64
#define ANTBUF_NAME_LEN 32
#define ANTBUF_L2_MAX 64
#define ANTBUF_JUMPS 8
#define ANTBUF_PAGE 4096

/** Slot flags (struct antbuf_meta.flags). */
#define ANTBUF_F_VALID 0x01   /**< the frame arrived and was placed */
#define ANTBUF_F_INVALID 0x02 /**< ... with the CODIF invalid bit set */
#define ANTBUF_F_LATE 0x04    /**< ... after a newer row was opened */
#define ANTBUF_F_GAP 0x08     /**< final and never arrived: payload zeroed */

/** Shape of one antenna's buffer. */
struct antbuf_geom {
	uint32_t nslots;     /**< streams per row (groups x threads), <= 64 */
	uint32_t nrows;      /**< ring size in frames (rows), power of two */
	uint32_t window;     /**< rows kept open for late frames, < nrows */
	uint32_t data_bytes; /**< payload bytes per frame, multiple of 8 */
};

/** Per frame metadata, beside the payload. */
struct antbuf_meta {
	uint8_t flags;
	uint8_t l2len;               /**< bytes of l2[] in use */
	uint16_t wirelen;            /**< packet length on the wire */
	uint32_t reserved;
	int64_t arrival_ns;          /**< Unix ns (NIC time where offered) */
	uint64_t ext_off;            /**< indexed mode: payload offset in the
					  external region (GPU mbuf pool) */
	uint8_t codif[CODIF_HDR_LEN];/**< the frame's CODIF header as received */
	uint8_t l2[ANTBUF_L2_MAX];   /**< Ethernet/VLAN/IPv4/UDP as received */
};

/** Per row state (one per ring position). */
struct antbuf_row {
	int64_t seq;          /**< frame index held, -1 never used (acq/rel) */
	uint64_t cum_before;  /**< valid frames in every final row before it */
	uint32_t nvalid;      /**< valid frames in this row (when final) */
	uint32_t reserved;
};

/** A stream's place in the rows. */
struct antbuf_slot {
	uint32_t assigned;    /**< 0 until its first frame */
	uint32_t dst_ip;
	uint16_t dport, stationid, groupid, secondaryid, threadid, reserved;
	uint8_t ref[CODIF_HDR_LEN]; /**< its first CODIF header */
	uint8_t l2[ANTBUF_L2_MAX];  /**< its first frame's L2-L4 headers */
	uint8_t l2len, pad[7];
};

/** Why a frame was not placed (counters in struct antbuf). */
enum antbuf_result {
	ANTBUF_PLACED = 0,
	ANTBUF_DUPLICATE,   /**< slot already holds that frame */
	ANTBUF_TOO_LATE,    /**< its row is final (the window passed it) */
	ANTBUF_TOO_FAR,     /**< more than a ring ahead of the newest row */
	ANTBUF_NO_SLOT,     /**< slot index beyond the buffer's slots */
	ANTBUF_BAD_SIZE,    /**< data bytes differ from the buffer's */
	ANTBUF_BAD_TIME,    /**< period/FPP/epoch differ, or seconds off the grid */
	ANTBUF__RESULTS
};

/**
 * A jump of the producer past rows never opened (a resync). Rows from `to`
 * on continue the ring where the old rows stopped (ring offset `off`), so
 * the rows before the jump stay readable as long as any others.
 */
struct antbuf_jump {
	int64_t from;  /**< first row skipped */
	int64_t to;    /**< first row after the jump */
	int64_t off;   /**< ring position of row r >= to: (r + off) mod nrows */
};

/**
 * The shared header at the start of the buffer's memory. Offsets are from
 * this header (the memory may map at another address in another process).
 */
struct antbuf {
	uint32_t magic, version, hdr_size, index;
	struct antbuf_geom g;
	uint64_t total_size;
	uint64_t rows_off, meta_off, payload_off; /**< payload_off 0: external */
	uint64_t payload_size;
	uint32_t payload_external;  /**< 1: payload in other memory (GPU) */
	uint32_t payload_indexed;   /**< 1: each slot's payload is wherever the
					 NIC put it (ext_off), not in ring order */
	uint64_t zero_off;          /**< indexed: offset of a zeroed frame (gaps) */
	uint32_t src_ip;
	char name[ANTBUF_NAME_LEN];

	/* timing of the antenna, from its first placed frame */
	uint32_t origin_set;
	uint32_t seconds0;
	uint16_t period;
	uint8_t epoch;
	uint8_t pad0;
	uint32_t pad1;
	uint64_t fpp;

	struct antbuf_slot slot[ANTBUF_MAX_SLOTS];

	/* producer state: only the producer writes these */
	uint32_t lock;           /**< producers of one antenna serialise here */
	uint32_t state;          /**< 0 new, 1 running, 2 stopped */
	int64_t first_row;       /**< first row ever opened, -1 none */
	int64_t newest;          /**< newest row opened */
	int64_t final_row;       /**< rows < final_row are final (acq/rel) */
	uint64_t cum_valid;      /**< valid frames in all final rows */
	uint32_t far_run;        /**< consecutive too-far frames */
	uint32_t njumps;         /**< jumps so far (history of the last 8) */
	int64_t ring_off;        /**< ring offset of rows since the last jump */
	struct antbuf_jump jump[ANTBUF_JUMPS];

	/* counters */
	uint64_t placed, late_placed, zero_filled;
	uint64_t result[ANTBUF__RESULTS];

	/* producer-local (meaningful in the primary only): per (pos, slot) what
	 * holds a payload placed by reference (0: nothing), and the function
	 * that gives it back when the slot is recycled */
	uintptr_t *refs;
	void (*release)(void *ctx, uintptr_t ref);
	void *release_ctx;
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

/**
 * Switch a freshly initialised external-payload buffer to indexed mode:
 * frames are placed by reference (antbuf_place_ref) where the NIC wrote
 * them; gaps point at the zeroed frame at zero_off. refs is the producer's
 * table of nrows x nslots zeroed entries; release(ctx, ref) is called, under
 * the buffer's lock, when a slot holding ref is recycled (or by
 * antbuf_release_all).
 */
void antbuf_set_indexed(struct antbuf *b, uint64_t zero_off, uintptr_t *refs,
			void (*release)(void *ctx, uintptr_t ref), void *ctx);

/** Indexed mode, at the end (no consumer left): release every reference
 * still held. Returns how many. */
unsigned int antbuf_release_all(struct antbuf *b);

/** Payload of (position, slot); base is the payload (NULL = inline). */
static inline uint8_t *
antbuf_payload(const struct antbuf *b, uint8_t *base, uint32_t pos, unsigned int s)
{
	if (base == NULL)
		base = (uint8_t *)((uintptr_t)b + b->payload_off);
	return base + ((uint64_t)pos * b->g.nslots + s) * (uint64_t)b->g.data_bytes;
}

/* ---- producer (the primary's rx lcores) -------------------------------- */

/**
 * Place one validated CODIF frame of stream slot `slot`. The payload is
 * copied once into its slot; header, L2-L4 headers and arrival time go
 * beside it. Opening newer rows finalises the rows the window passes:
 * their missing frames are zero-filled and flagged, and final_row is
 * published (release) for consumers. Never waits for a consumer.
 *
 * @param payload  base of the payload array (NULL = inline)
 */
enum antbuf_result antbuf_place(struct antbuf *b, uint8_t *payload,
				unsigned int slot, const struct codif_hdr *h,
				const uint8_t *codif, const uint8_t *data,
				uint32_t data_len, const uint8_t *l2,
				uint32_t l2len, uint32_t wirelen,
				int64_t arrival_ns, uint32_t dst_ip,
				uint16_t dport);

/**
 * antbuf_place for an indexed buffer: the payload is not copied; ext_off
 * says where it is in the external region, ref (non-zero) what holds it.
 * On ANTBUF_PLACED the buffer keeps ref until it calls release(ctx, ref);
 * on any other result the caller still owns it and frees it at once.
 */
enum antbuf_result antbuf_place_ref(struct antbuf *b, unsigned int slot,
				    const struct codif_hdr *h, const uint8_t *codif,
				    uint64_t ext_off, uintptr_t ref, uint32_t data_len,
				    const uint8_t *l2, uint32_t l2len,
				    uint32_t wirelen, int64_t arrival_ns,
				    uint32_t dst_ip, uint16_t dport);

/** Payload of (position, slot) in either mode (base: CPU view of the
 * external region, NULL = inline). */
static inline uint8_t *
antbuf_payload_of(const struct antbuf *b, uint8_t *base, uint32_t pos, unsigned int s)
{
	if (b->payload_indexed)
		return base + antbuf_metap(b, pos, s)->ext_off;
	return antbuf_payload(b, base, pos, s);
}

/** Finalise every open row (at stop), so consumers can take everything. */
void antbuf_flush(struct antbuf *b, uint8_t *payload);

/** Name of a placement result, e.g. "too-late". */
const char *antbuf_result_name(enum antbuf_result r);

/* ---- consumers (writers; any process, many at once) --------------------- */

struct antbuf_cursor {
	int64_t next;            /**< next row to read */
	uint64_t cum_next;       /**< cum_before of row `next` */
	bool started;
	bool from_first;         /**< attached before the first frame */
	uint64_t rows;           /**< rows taken */
	uint64_t frames;         /**< valid frames taken */
	uint64_t lost_rows;      /**< rows overwritten before they were taken */
	uint64_t lost_frames;    /**< valid frames in them (exact) */
	uint64_t jumped_rows;    /**< rows the producer never opened (resync) */
};

/** What antbuf_next hands out. */
struct antbuf_view {
	int64_t row;
	uint32_t pos;                     /**< its ring position */
	uint32_t nvalid;
	uint64_t lost_rows, lost_frames;  /**< overrun just before this row */
	bool discontinuity;               /**< rows skipped (overrun or jump) */
	bool jumped;                      /**< ... because the producer jumped */
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
 * After the producer stopped (antbuf_flush) and the cursor took every
 * final row: count the frames of rows it skipped at the very end (their
 * count is otherwise settled at the next row taken, which never comes).
 */
void antbuf_settle(const struct antbuf *b, struct antbuf_cursor *c);

/** Rows final but not yet taken by c (its backlog). */
int64_t antbuf_backlog(const struct antbuf *b, const struct antbuf_cursor *c);

/** Frame start time (Unix ns) of row r (antenna timing; INT64_MIN if none). */
int64_t antbuf_row_time_ns(const struct antbuf *b, int64_t r);

/** (seconds, frame) of row r. */
void antbuf_row_hdr_time(const struct antbuf *b, int64_t r, uint32_t *seconds,
			 uint32_t *frame);

#endif /* ANTBUF_H */
