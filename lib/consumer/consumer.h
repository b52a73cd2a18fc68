/* SPDX-License-Identifier: BSD-3-Clause */
/* libibvcap's inside: the handle (attach and registry: ibvcap.c) and the
 * aligned blocks built from one antbuf cursor per antenna (block.c). */
#ifndef IBVCAP_CONSUMER_H
#define IBVCAP_CONSUMER_H

#include <stdbool.h>
#include <stdint.h>

#include "antbuf.h"
#include "ibvcap.h"
#include "shm_eal.h"
#include "wr_sched.h"

#define IBVCAP_EXPORT __attribute__((visibility("default")))

/* One chosen antenna: its cursor, the rows it took for the block being
 * built, and the block's views of its streams. */
struct cons_ant {
	const struct antbuf *b;
	struct antbuf_cursor cur;
	int64_t reached;             /* index after the newest row it took or saw
					for this block (INT64_MIN: none) */
	int64_t peek;                /* the index of its next row, not taken
					(INT64_MAX: none final yet) */
	bool other;                  /* ... and it is on another clock */
	uint8_t *payload;            /* the ring's payload base (antbuf_payload_of;
					NULL: inline, or addresses; a device address
					for the capture's in-process consumer with
					the payload in GPU memory) */
	struct antbuf_view *held;    /* rows taken for the block (T at most) */
	uint32_t nheld;
	uint32_t nslots;
	struct ibvcap_view *view;    /* nslots views */
	const uint8_t **ptr;         /* nslots x T frame pointers */
	uint64_t *valid, *flagged;   /* nslots x words bitmaps */
	int64_t *arrival;            /* nslots x T arrival times */
	uint64_t lost_seen;          /* cur.lost_frames at the last block */
	uint8_t (*hdr)[CODIF_HDR_LEN]; /* each slot's run's first header in the
					  block (its parameters) */
	struct cons_dec **dec;       /* each slot's decoder, made on first use */
};

/* A stream's decoder (decode.c): its encoding and a table of values. */
struct cons_dec;

struct ibvcap {
	struct shm_view v;
	int reg;                     /* its registry entry, -1 none */
	unsigned int flags;
	/* ibvcap_select */
	bool selected;
	uint32_t T, words;
	uint32_t nants;
	uint64_t ants;
	struct cons_ant *ant;
	uint32_t *antno, *nstr;
	const struct ibvcap_view **vp;
	const uint8_t *zero;         /* a zeroed frame: pointers of frames not there */
	/* the blocks' clock and grid */
	bool started, building, held, jumped, checked;
	uint64_t torn_held;          /* valid frames of the held block found
					overwritten so far */
	int64_t beat_ns;             /* the last liveness look while waiting */
	/* IBVCAP_OPEN_SCANS: the capture's schedule, this consumer's copy of
	 * it and its writer bit (WR_SCHED_DUMP_BASE + its registry entry) */
	const struct wr_sched *sched;
	struct wr_sched *snap;
	uint64_t snap_seen;
	unsigned int sched_bit;
	uint64_t outside_slots;      /* frame positions of started streams of the
					block outside the scans */
	uint64_t carry_overrun;      /* overrun of blocks dropped outside scans */
	struct codif_clock clk;
	int64_t n;                   /* the block being built: [n, n + T) */
	struct ibvcap_block blk;
	struct ibvcap_stats st;
};

/* block.c: build the next block if it can be (0 ready, -EAGAIN not yet,
 * -ENODATA the end), and check a released one. */
int cons_block_try(struct ibvcap *c);
int cons_block_check(struct ibvcap *c);
int cons_block_release(struct ibvcap *c, bool checked);
int cons_select_alloc(struct ibvcap *c, char *err, size_t len);
void cons_select_free(struct ibvcap *c);

/* block.c: IBVCAP_OPEN_SCANS in c->flags: the schedule (c->v.sched, of
 * c->v.sched_len bytes) read as a dump writer's, under writer bit
 * WR_SCHED_DUMP_BASE + its registry entry c->reg (record follow); without
 * it (or without a schedule) every frame, as dpdk-ibvcap-dump --record
 * always (the registry says which). The one place of that rule: the
 * library's handle and the capture's in-process consumer. @return 0, or a
 * negative errno with err said. */
int cons_scans_attach(struct ibvcap *c, char *err, size_t len);

/* payload.c: 0 when this process can read the capture's payload memory,
 * else -ENOTSUP (GPU memory) or -EPROTO (a kind it does not know), err
 * saying so. */
int cons_payload_check(const struct shm_ctl *ctl, const char *instance, char *err, size_t len);

/* decode.c: free the decoders of antenna ca. */
void cons_dec_free(struct cons_ant *ca);

/* block.c: the registry entry's figures and heartbeat, now (the library's
 * handle and the capture's in-process consumer). */
void cons_publish(struct ibvcap *c);
/* block.c: ibvcap_stream_info's answer (also the in-process consumer's). */
int cons_stream_info(const struct ibvcap *c, unsigned int a, unsigned int s,
		     struct ibvcap_stream *out);

#endif
