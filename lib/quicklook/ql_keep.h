/* SPDX-License-Identifier: BSD-3-Clause */
/* Kept frames: a stream's sampled frames copied by the rx lcore into a few
 * slots for a reader thread to analyse off the rx path (pure C, no DPDK). */

#ifndef QL_KEEP_H
#define QL_KEEP_H

/*
 * One producer (the rx lcore that samples the stream) and one consumer (the
 * capture's main lcore). The producer copies a sampled frame -- its 64-byte
 * CODIF header and its data -- into the next free slot and publishes it
 * (release); when every slot is taken it counts the frame (full) and copies
 * nothing: it never waits. The consumer reads the oldest slot (acquire) and
 * gives it back. A frame longer than QLK_FRAME_MAX is counted (too_long).
 * That copy is all the rx lcore does for the sampler statistics and the
 * spectra: they run on the consumer's thread.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define QLK_SLOTS 4u            /**< frames kept per stream */
#define QLK_FRAME_MAX 9024u     /**< bytes of a kept frame (header + data) */
#define QLK_HDR 64u

struct ql_keep {
	/* the producer's */
	uint64_t head __attribute__((aligned(64)));
	uint64_t full, too_long;
	/* the consumer's */
	uint64_t tail __attribute__((aligned(64)));
	uint32_t len[QLK_SLOTS];
	uint8_t slot[QLK_SLOTS][QLK_FRAME_MAX] __attribute__((aligned(64)));
};

/** Copy a frame (hdr: its 64-byte header; data: len bytes). Producer. */
static inline bool
qlk_put(struct ql_keep *k, const void *hdr, const void *data, size_t len)
{
	uint64_t h = k->head;
	uint8_t *s;

	if (len > QLK_FRAME_MAX - QLK_HDR) {
		k->too_long++;
		return false;
	}
	if (h - __atomic_load_n(&k->tail, __ATOMIC_ACQUIRE) >= QLK_SLOTS) {
		k->full++;
		return false;
	}
	s = k->slot[h % QLK_SLOTS];
	memcpy(s, hdr, QLK_HDR);
	memcpy(s + QLK_HDR, data, len);
	k->len[h % QLK_SLOTS] = (uint32_t)(QLK_HDR + len);
	__atomic_store_n(&k->head, h + 1, __ATOMIC_RELEASE);
	return true;
}

/** The oldest kept frame (its length in *len), NULL: none. Consumer. */
static inline const uint8_t *
qlk_peek(const struct ql_keep *k, size_t *len)
{
	uint64_t t = k->tail;

	if (t == __atomic_load_n(&k->head, __ATOMIC_ACQUIRE))
		return NULL;
	*len = k->len[t % QLK_SLOTS];
	return k->slot[t % QLK_SLOTS];
}

/** Give the oldest slot back. Consumer. */
static inline void
qlk_done(struct ql_keep *k)
{
	__atomic_store_n(&k->tail, k->tail + 1, __ATOMIC_RELEASE);
}

#endif /* QL_KEEP_H */
