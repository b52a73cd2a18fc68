/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libibvcap: read a running dpdk-ibvcap's antenna rings from another
 * process, as time-aligned blocks of frames, without copying.
 *
 * A consumer opens a capture by its instance (the capture's EAL
 * --file-prefix) under a name of its own, chooses antennas and a block
 * length of T frames, then takes blocks: for frame indexes [n, n + T) of the
 * antennas' common clock, per antenna and stream a pointer to each frame's
 * data in the ring and a bit per frame saying whether it arrived. The
 * capture never waits for a consumer: frames the ring overwrote before the
 * consumer took them are counted (its overrun), exactly, and a block the
 * ring overwrote while the consumer held it is found when it is released.
 *
 * Functions returning int return 0 (or a count) on success and a negative
 * errno on failure; those taking (char *err, size_t len) write why there.
 * One handle per process (DPDK's EAL runs once per process); one thread at
 * a time per handle. docs/consumer.md has the semantics and a worked
 * example; ibvcap(3) the reference.
 */
#ifndef IBVCAP_H
#define IBVCAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI this header describes (the library's soname is libibvcap.so.1). */
#define IBVCAP_ABI 1

/** ibvcap_open flags. */
#define IBVCAP_OPEN_OLDEST 0x1  /**< start at the oldest frames the rings still
				     hold (default: at the newest, live) */
#define IBVCAP_OPEN_NO_EAL 0x2  /**< the caller already ran rte_eal_init as a
				     secondary of this instance */
#define IBVCAP_OPEN_SCANS 0x4   /**< follow the capture's scans, as a dump
				     writer does: only frames whose data time is
				     in a scan of this consumer (by its name, or
				     "all") are valid; blocks with none are not
				     handed out */

struct ibvcap;

/** An antenna of the capture. */
struct ibvcap_antenna {
	char name[32];          /**< its name in the capture's configuration */
	uint32_t src_ip;        /**< its source IPv4 address (host order) */
	uint32_t max_streams;   /**< streams its ring holds (its slots) */
	uint32_t streams;       /**< streams seen so far (slots assigned) */
	uint32_t slot_bytes;    /**< data bytes a frame's place holds (the most a
				     frame may have) */
	uint32_t ring_frames;   /**< frames of each stream the ring holds */
	uint32_t window;        /**< frames kept open for late frames */
};

/** A stream (a slot of an antenna's ring), from its newest run's first
 * CODIF header. */
struct ibvcap_stream {
	uint32_t dst_ip;        /**< destination IPv4 address (host order) */
	uint16_t dport, stationid, groupid, secondaryid, threadid;
	uint16_t nchan;         /**< channels */
	uint8_t nbits;          /**< bits per sample component */
	uint8_t complex;        /**< 1: complex samples */
	uint8_t started;        /**< 0: no frame of it in the newest run yet (the
				     parameters below are then 0) */
	uint8_t pad;
	uint32_t data_bytes;    /**< data bytes per frame */
	uint64_t samples;       /**< samples per channel in a frame */
	uint64_t frame_ns_num;  /**< a frame lasts frame_ns_num / frame_ns_den ns */
	uint64_t frame_ns_den;
};

/** One antenna's stream in a block: T frames. */
struct ibvcap_view {
	const uint8_t *const *frame; /**< frame[i]: frame i's data (data_bytes);
					  an invalid frame's bytes are
					  unspecified (zeros where the capture
					  filled a gap) */
	const uint8_t *data;         /**< when stride != 0: frame i at
					  data + i * stride */
	size_t stride;
	const uint64_t *valid;       /**< bit i % 64 of valid[i / 64]: frame i
					  arrived (its bytes are as sent) */
	const uint64_t *flagged;     /**< ... and its CODIF invalid bit was set */
	uint32_t data_bytes;         /**< data bytes per frame (0: no frame) */
	uint32_t nvalid;             /**< bits set in valid */
	/* the stream's parameters in this block (its run's first header) */
	uint32_t samples;            /**< time samples per frame */
	uint16_t nchan;              /**< channels */
	uint8_t nbits;               /**< bits per component */
	uint8_t complex;             /**< 1: I and Q per channel */
	const int64_t *arrival_ns;   /**< arrival_ns[i]: when valid frame i
					  arrived (Unix ns: the NIC's clock where
					  the port gives rx timestamps, else the
					  host's, read once per rx burst); 0 for
					  frames not valid */
};

/** ibvcap_block flags. */
#define IBVCAP_BLOCK_OVERRUN 0x1  /**< frames before or in it were overwritten
				       before the consumer took them */
#define IBVCAP_BLOCK_PARTIAL 0x2  /**< delivered before every antenna reached
				       its end (an antenna silent or far behind,
				       or the capture stopped): frames not yet
				       there are invalid */
#define IBVCAP_BLOCK_FIRST 0x4    /**< the first block, or the first after a
				       jump (overrun, a new clock) */

/** A time-aligned block: frame indexes [index, index + frames) of one clock
 * for every antenna chosen. */
struct ibvcap_block {
	int64_t index;             /**< its first frame's index on the clock */
	int64_t time_ns;           /**< its first frame's start, Unix ns (UTC) */
	uint32_t frames;           /**< T */
	uint32_t nants;            /**< antennas, as chosen (ascending) */
	uint32_t flags;            /**< IBVCAP_BLOCK_* */
	uint32_t scan;             /**< IBVCAP_OPEN_SCANS: the id of the scan of its
				        first frame in one (0: none, or not
				        following scans) */
	uint64_t seq;              /**< blocks delivered before it */
	uint64_t overrun;          /**< frames lost to overrun since the
				        previous block (all its antennas) */
	const uint32_t *ant;       /**< ant[k]: the capture's antenna number */
	const uint32_t *nstreams;  /**< nstreams[k]: views of antenna k */
	const struct ibvcap_view *const *view; /**< view[k][s]: antenna k, stream s */
};

/** A consumer's figures (also in the capture's writer registry). */
struct ibvcap_stats {
	uint64_t blocks;           /**< blocks released */
	uint64_t frames;           /**< valid frames in them, intact */
	uint64_t invalid;          /**< frames in them not valid */
	uint64_t overrun;          /**< valid frames lost: overwritten before taken,
				        or while held (torn) */
	uint64_t torn;             /**< of those, frames of blocks held too long */
	uint64_t torn_blocks;      /**< blocks found overwritten at release */
	uint64_t skipped;          /**< valid frames passed over: older than the
				        block being read (an antenna far behind),
				        or on another clock */
	uint64_t bytes;            /**< data bytes of the valid frames delivered */
	uint64_t outside;          /**< IBVCAP_OPEN_SCANS: valid frames taken
				        outside this consumer's scans (not handed
				        out as valid) */
};

/**
 * Open the capture of instance `instance` (its EAL --file-prefix) under
 * consumer name `name` (its entry in the capture's registry, shown in its
 * status, telemetry and summary; one living consumer or writer per name).
 * Runs rte_eal_init as a DPDK secondary process (unless IBVCAP_OPEN_NO_EAL)
 * with --no-pci, no telemetry and this thread's CPUs.
 * @return the handle, or NULL with errno set and err said: ENOENT (no
 * such capture, or it has no antenna buffers), EPROTO (another build),
 * ENOTSUP (its payload is in GPU memory), EEXIST (name in use), EALREADY
 * (a handle is open in this process), EINVAL (a bad argument, or another
 * instance than the one this process's EAL attached to).
 */
struct ibvcap *ibvcap_open(const char *instance, const char *name, unsigned int flags,
			   char *err, size_t len);

/** Release the registry entry and free the handle (EAL stays: it cannot be
 * run twice in one process). A block still held is released. */
void ibvcap_close(struct ibvcap *c);

/** The capture's antennas. */
unsigned int ibvcap_antennas(const struct ibvcap *c);

/** Antenna a's description. @return 0, -EINVAL (no such antenna). */
int ibvcap_antenna_info(const struct ibvcap *c, unsigned int a, struct ibvcap_antenna *out);

/** Stream s of antenna a. @return 0, -EINVAL (no such antenna or stream). */
int ibvcap_stream_info(const struct ibvcap *c, unsigned int a, unsigned int s,
		       struct ibvcap_stream *out);

/**
 * Choose the antennas (bit a of ants: antenna a) and the block length T
 * (1..65536 frames, at most a quarter of the ring). Before the first
 * ibvcap_acquire, once.
 * @return 0, -EINVAL (err says which and why), -EBUSY (already chosen).
 */
int ibvcap_select(struct ibvcap *c, uint64_t ants, uint32_t frames, char *err, size_t len);

/**
 * The next block. Waits up to timeout_ms (0: poll, -1: for ever) for every
 * chosen antenna to have the block's frames final. Views stay valid until
 * ibvcap_release; one block is held at a time.
 * @return 0 (*blk set), -EAGAIN (none yet), -ENODATA (the capture stopped
 * and every frame was delivered), -EPIPE (the capture's process is gone),
 * -EBUSY (a block is held), -EINVAL (ibvcap_select not called).
 */
int ibvcap_acquire(struct ibvcap *c, const struct ibvcap_block **blk, int timeout_ms);

/**
 * After reading (or copying) the held block: whether the ring overwrote
 * any of it meanwhile (as the capture's writers check their rows). The
 * frames of rows it did are cleared from the views' valid and flagged
 * bits (and nvalid) and counted as overrun and torn: what the bits still
 * say valid was read intact. A block checked is not checked again at
 * release.
 * @return 0 intact, a positive count of valid frames overwritten, -EINVAL
 * (not the held block).
 */
int ibvcap_check(struct ibvcap *c, const struct ibvcap_block *blk);

/**
 * Give the block back. Unless ibvcap_check was called for it, checks it
 * as ibvcap_check does (its result then says whether what was read from it
 * may be wrong).
 * @return 0 intact, a positive count of valid frames overwritten while
 * held, -EINVAL (not the held block).
 */
int ibvcap_release(struct ibvcap *c, const struct ibvcap_block *blk);

/** The consumer's figures so far. */
void ibvcap_get_stats(const struct ibvcap *c, struct ibvcap_stats *st);

/** Start time (Unix ns) of frame i of block b. */
int64_t ibvcap_frame_time_ns(const struct ibvcap *c, const struct ibvcap_block *b, uint32_t i);

/**
 * Decode frame i of view (k, s) of block b (held) into out: float32 values
 * in steps of the stream's encoding, as lib/codif's codif_signal defines
 * them (two's complement or offset binary of 1, 2, 4, 8, 16 or 32 bits, or
 * binary32; 1- and 2-bit levels +-1/2, +-3/2), time sample by time sample,
 * channel 0 first, a complex channel I then Q:
 * out[(t * nchan + ch) * (complex ? 2 : 1) + part].
 * @return the values written (samples x nchan x (complex ? 2 : 1)),
 * -ENOSPC (n is less), -ENOTSUP (an encoding not decoded; err-free: see
 * docs/consumer.md), -EINVAL (no such view or frame, or no block held).
 */
int ibvcap_decode(struct ibvcap *c, const struct ibvcap_block *b, uint32_t k, uint32_t s,
		  uint32_t i, float *out, size_t n);

/** The library's version, "MAJOR.MINOR.PATCH". */
const char *ibvcap_version(void);

#ifdef __cplusplus
}
#endif

#endif /* IBVCAP_H */
