/* SPDX-License-Identifier: BSD-3-Clause */
/* The payload-memory layer: where each frame's payload lives and how it gets there. */

#ifndef IBVCAP_PAYLOAD_H
#define IBVCAP_PAYLOAD_H

/*
 * A mode is one implementation of struct ibv_pl_ops, chosen once at
 * start-up by ibv_pl_plan from the configuration and the ports'
 * capabilities, never changed after. The modes:
 *
 *   copy            payload copied into the antenna memzone (hugepages)
 *   gpu-copy        payload copied into gpudev memory through its CPU mapping
 *   zero-copy       the ring keeps the mbuf the frame arrived in
 *   zero-copy-split buffer split: headers to host mbufs, the payload to a
 *                   host pool of its own, kept by the ring
 *   gpu-split       buffer split with the payload pool in gpudev memory
 *
 * Callers never ask which mode they have. The ports take their rx pools
 * from ibv_pl_port_rx, the rx lcores place frames through the mode's place
 * function (rx.c runs a burst loop built for that function, chosen once
 * per lcore) and read headers in place from the first head_segs
 * segments, the antenna buffers
 * get their payload memory from ibv_pl_ring_attach, and readers in the
 * primary (writers, triggers, the fringe check) ask ibv_pl_slot_bytes or
 * ibv_pl_base for a CPU view of a row's bytes.
 *
 * A reader in another process (dpdk-ibvcap-dump, a consumer library) reads
 * the shared control block's payload_mem, which each mode names: for
 * IBV_PAYLOAD_HOST and IBV_PAYLOAD_MBUF it reads with a NULL base
 * (antbuf_payload_of: inline payload, or offsets that are addresses in
 * hugepage memory); IBV_PAYLOAD_GPU memory has no CPU view outside the
 * primary.
 *
 * The buffer-split and gpudev paths are written against the DPDK 22.11 API
 * and untested on hardware here: no port these machines drive offers
 * buffer split and Debian 12 packages no gpudev driver. What runs here are
 * their capability checks and error messages.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "acct.h"
#include "antbuf.h"
#include "config.h"
#include "gpumem.h"
#include "shm.h"

struct ibv_pl;

/**
 * Place one frame that accounting accepted (acct_placeable, its slot set
 * by antbuf_fd_slot) in ring p. *m is the packet it arrived in, the
 * caller's reference. On ANTBUF_PLACED a mode that keeps the packet sets
 * *m to NULL: the reference is the ring's now and the caller must not free
 * it. A mode that keeps a part of it (the payload segment) detaches that
 * part and leaves *m, which the caller frees as usual. On any other result
 * *m is untouched and still the caller's. Runs on an rx lcore for every
 * frame: it never logs, allocates or blocks.
 */
typedef enum antbuf_result (*ibv_pl_place_fn)(const struct ibv_pl *pl, struct antbuf_prod *p,
					      const struct acct_fd *fd, struct rte_mbuf **m);

/** A port as the layer sees it when it gives the port its rx memory. */
struct ibv_pl_port {
	uint16_t port_id;
	const char *name;
	int socket;                          /**< NUMA socket for its pool */
	const struct rte_eth_dev_info *info;
	uint32_t nb;                         /**< mbufs it needs in flight: its
						  queues, the lcore caches and bursts,
						  the driver's own (port.c) */
};

/** What a port's rx queues take from the layer (ibv_pl_port_rx). */
struct ibv_pl_rx {
	struct rte_mempool *mp;      /**< whole packets from this pool; NULL when split */
	union rte_eth_rxseg seg[2];  /**< buffer split: the header and payload pools */
	uint16_t nseg;               /**< 0, or 2 with buffer split */
	uint64_t offloads;           /**< the rx offloads the mode needs */
	bool scatter;                /**< offloads include scatter */
};

/*
 * The ways of placing a frame (several modes share one). rx.c builds its
 * burst loop once for each, with the place function known at compile
 * time: the per-frame call is a direct one, and the loop an lcore runs is
 * chosen once, by its mode's placer. A new way of placing is one line
 * here and its function.
 */
#define IBV_PL_PLACERS(X) \
	X(IBV_PL_PLACE_COPY, ibv_pl_copy_place) \
	X(IBV_PL_PLACE_MBUF, ibv_pl_mbuf_place) \
	X(IBV_PL_PLACE_SPLIT, ibv_pl_split_place)

enum ibv_pl_placer {
#define IBV_PL_X(id, fn) id,
	IBV_PL_PLACERS(IBV_PL_X)
#undef IBV_PL_X
	IBV_PL_PLACERS_N
};

/* One copy into the producer's payload view (the memzone; gpu-copy: the
 * GPU mapping); the packet stays the caller's. Inline: the copy loop calls
 * antbuf_place itself. */
static inline enum antbuf_result
ibv_pl_copy_place(const struct ibv_pl *pl, struct antbuf_prod *p, const struct acct_fd *fd,
		  struct rte_mbuf **m)
{
	(void)pl;
	(void)m;
	return antbuf_place(p, fd);
}

/* payload_mbuf.c: the ring keeps the packet (zero-copy). */
enum antbuf_result ibv_pl_mbuf_place(const struct ibv_pl *pl, struct antbuf_prod *p,
				     const struct acct_fd *fd, struct rte_mbuf **m);
/* payload_split.c: the ring keeps the payload segment (both split modes). */
enum antbuf_result ibv_pl_split_place(const struct ibv_pl *pl, struct antbuf_prod *p,
				      const struct acct_fd *fd, struct rte_mbuf **m);

/** One payload-memory mode. Every hook returns 0 or -1 with the reason
 * (naming the option, the value and what was expected) in err. */
struct ibv_pl_ops {
	const char *name;            /**< "copy", "zero-copy", ... (the summary) */
	const char *where;           /**< where the payload is, for the start-up
					  line; NULL: the antenna memzone */
	enum ibv_payload_mem mem;    /**< what readers in other processes find */
	bool inline_payload;         /**< the payload lives in the antenna memzone */
	bool cpu_packets;            /**< a received packet is wholly readable by
					  the CPU (quick look, pdump taps) */
	/** Frames of at most this many segments are read in place: their
	 * first segment holds every byte accounting reads (1: whole packets,
	 * longer ones go through a bounce copy; buffer split: any number,
	 * the head segment holds the headers). */
	uint16_t head_segs;
	/** Pools and device memory, sized for the rings (before the ports). */
	int (*create)(struct ibv_pl *pl, char *err, size_t len);
	/** The memory and offloads port pp's rx queues take. */
	int (*port_rx)(struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx,
		       char *err, size_t len);
	/** Antenna a's ring exists: give it its payload memory or its table
	 * of references (NULL: the payload is inline, nothing to do). */
	int (*ring_attach)(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p, char *err,
			   size_t len);
	/** Per frame, on the rx lcores: the mode's place function
	 * (ibv_pl_place_fn), one of IBV_PL_PLACERS. */
	enum ibv_pl_placer placer;
	/** A sampled frame's payload for the CPU (quick look): len bytes at
	 * off of the packet m whose first cap bytes are data; NULL when they
	 * are not there whole. */
	const uint8_t *(*frame_payload)(const struct rte_mbuf *m, const uint8_t *data,
					uint32_t cap, uint32_t off, uint32_t len);
	/** After the rings let go of their references: per-antenna memory
	 * (NULL: none of its own). */
	void (*rings_free)(struct ibv_pl *pl);
	/** After the ports are closed and the pools freed: device memory
	 * (NULL: none). */
	void (*free)(struct ibv_pl *pl);
};

#define IBV_PL_MAX_POOLS (IBV_MAX_PORTS + 2)

/** What the layer needs of the configuration, copied by ibv_pl_plan: the
 * layer keeps no pointer into it. */
struct ibv_pl_conf {
	int gpu;                        /**< --gpu: its gpudev device, -1 host */
	bool zero_copy;                 /**< --zero-copy */
	enum ibv_split_mode gpu_split;  /**< --gpu-split */
	enum ibv_split_mode zc_split;   /**< --zero-copy-split */
	uint32_t mtu;
	uint32_t frame_bytes;           /**< the largest frame (ibv_frame_bytes) */
	uint32_t mbuf_room;             /**< an mbuf's data room (ibv_mbuf_room) */
	uint32_t data_bytes;            /**< payload bytes per frame in the rings */
	uint64_t ring_slots;            /**< antennas x rows x slots: every slot
					     of every ring */
	unsigned int queues;            /**< rx queues of each port */
	uint16_t rx_desc, burst;
};

/** The layer's state: the primary's, one per process. */
struct ibv_pl {
	const struct ibv_pl_ops *ops;   /**< the mode, set by ibv_pl_plan */
	struct ibv_pl_conf conf;        /**< what it needs of the configuration */
	unsigned int nport;
	uint16_t port_id[IBV_MAX_PORTS];
	/* buffer split (payload_split.c decides) */
	bool split;                     /**< every port splits headers from payload */
	char split_why[256];            /**< the capability check's verdict */
	uint16_t hdr_len;               /**< split point: Ethernet+IPv4+UDP+CODIF */
	struct rte_mempool *hdr_mp;     /**< split: headers (host) */
	struct rte_mempool *pay_mp;     /**< split: payload (GPU or host memory) */
	struct gpumem_pool_layout l;    /**< gpu-split: the payload region's layout */
	void *gpu;                      /**< gpu-split: the region's device address;
					     NULL in host memory (references are
					     addresses) */
	uint8_t *cpu;                   /**< gpu-split: its CPU mapping */
	bool registered;                /**< gpu-split: registered for the ports */
	size_t gpu_page;                /**< the GPU's page (gpu modes) */
	void *gpu_ptr[SHM_MAX_ANT];     /**< gpu-copy: each antenna's device memory */
	size_t gpu_size;                /**< gpu-copy: the size of each */
	struct rte_mempool *zc_pool;    /**< zero-copy: one pool for every port */
	uint8_t *zero;                  /**< zero-copy modes: the zeroed frame gaps
					     point at */
	/* every mode */
	struct rte_mempool *pools[IBV_PL_MAX_POOLS]; /**< pools made (freed at the end) */
	unsigned int npools;
	uint8_t *payload[SHM_MAX_ANT];  /**< each antenna's CPU view base
					     (antbuf_payload_of; NULL: inline, or
					     addresses) */
	uintptr_t *refs[SHM_MAX_ANT];   /**< indexed modes: what each slot holds */
};

/**
 * Choose the mode, once: --gpu (gpu-split where every port can split,
 * else gpu-copy; the GPU is checked here), --zero-copy (zero-copy-split
 * where every port can split and --zero-copy-split allows, else
 * zero-copy), else copy. Says the split decision on stdout.
 * @return 0, or -1 with the reason in err (--gpu-split on or
 *   --zero-copy-split on and a port cannot split; no such GPU).
 */
int ibv_pl_plan(struct ibv_pl *pl, const struct ibv_config *c, const uint16_t *port_ids,
		const char *const *port_names, unsigned int nport, char *err, size_t len);

/** The mode's pools and device memory, before any port is set up. */
int ibv_pl_create(struct ibv_pl *pl, char *err, size_t len);

/** What port pp's rx queues take (its pool, or the split pair, and the
 * offloads the mode needs). The layer owns the pools. */
int ibv_pl_port_rx(struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx,
		   char *err, size_t len);

/** Antenna a's ring (initialised, its producer p ready): its payload
 * memory or reference table. */
int ibv_pl_ring_attach(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p, char *err,
		       size_t len);

/** The end, no reader left: every reference the rings hold goes back
 * (prod[a] for a < nant, those attached) and per-antenna memory is freed. */
void ibv_pl_rings_release(struct ibv_pl *pl, struct antbuf_prod *prod, unsigned int nant);

/** After the ports are closed: the pools and device memory (keep_memory:
 * a secondary lingers, everything is left to the process exit). */
void ibv_pl_free(struct ibv_pl *pl, bool keep_memory);

/* ---- readers (any thread of the primary) -------------------------------- */

/** Antenna a's CPU view base, as antbuf_payload_of and lib/writer take it
 * (NULL: inline in the memzone, or offsets that are addresses). */
static inline uint8_t *
ibv_pl_base(const struct ibv_pl *pl, unsigned int a)
{
	return pl->payload[a];
}

/** The data bytes (geometry data_bytes of them) of slot s of the row at
 * ring position pos of antenna a, whatever the mode: a CPU pointer, valid
 * while the row is not reused (a reader checks the row's sequence after
 * reading, as lib/writer does). */
static inline const uint8_t *
ibv_pl_slot_bytes(const struct ibv_pl *pl, const struct antbuf *b, unsigned int a, uint32_t pos,
		  unsigned int s)
{
	return antbuf_payload_of(b, pl->payload[a], pos, s);
}

/** A sampled frame's payload for the CPU (see ibv_pl_ops.frame_payload). */
static inline const uint8_t *
ibv_pl_frame_payload(const struct ibv_pl *pl, const struct rte_mbuf *m, const uint8_t *data,
		     uint32_t cap, uint32_t off, uint32_t len)
{
	return pl->ops->frame_payload(m, data, cap, off, len);
}

/* ---- the modes (one file each; payload.c chooses) ----------------------- */

extern const struct ibv_pl_ops ibv_pl_copy;            /* payload_copy.c */
extern const struct ibv_pl_ops ibv_pl_zero_copy;       /* payload_mbuf.c */
extern const struct ibv_pl_ops ibv_pl_zero_copy_split; /* payload_split.c */
extern const struct ibv_pl_ops ibv_pl_gpu_copy;        /* payload_gpu.c */
extern const struct ibv_pl_ops ibv_pl_gpu_split;       /* payload_gpu.c */

/* ---- helpers the modes share (not for callers of the layer) ------------- */

/* payload_copy.c: whole packets in one pool of the port's own (copy, gpu-copy). */
int ibv_pl_whole_rx(struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx,
		    char *err, size_t len);
/* payload_copy.c: the offloads and checks of whole-packet modes. */
int ibv_pl_whole_conf(const struct ibv_pl *pl, const struct ibv_pl_port *pp,
		      struct ibv_pl_rx *rx, char *err, size_t len);
/* payload_copy.c: len bytes at off of a whole packet, when there. */
const uint8_t *ibv_pl_whole_payload(const struct rte_mbuf *m, const uint8_t *data, uint32_t cap,
				    uint32_t off, uint32_t len);

/* payload_ref.c: a pool the layer made, freed by ibv_pl_free. */
void ibv_pl_pool_keep(struct ibv_pl *pl, struct rte_mempool *mp);
/* payload_ref.c: an indexed ring's reference table; gaps point at zero_off. */
int ibv_pl_refs_attach(struct ibv_pl *pl, unsigned int a, struct antbuf_prod *p,
		       uint64_t zero_off, const char *what, char *err, size_t len);
/* payload_ref.c: the zeroed frame the zero-copy modes' gaps point at. */
int ibv_pl_zero_create(struct ibv_pl *pl, const char *opt, char *err, size_t len);

/* payload_split.c: decide buffer split from the ports' capabilities. */
int ibv_pl_split_plan(struct ibv_pl *pl, const uint16_t *port_ids, const char *const *names,
		      char *err, size_t len);
/* payload_split.c: payload buffers the rings may hold, and those in flight. */
void ibv_pl_split_counts(const struct ibv_pl *pl, uint64_t *held, uint64_t *inflight);
/* payload_split.c: data room of a payload buffer (the frame past the split point). */
uint32_t ibv_pl_split_payload_room(const struct ibv_pl *pl);
/* payload_split.c: the header pool, inflight mbufs. */
int ibv_pl_split_hdr_pool(struct ibv_pl *pl, uint64_t inflight, char *err, size_t len);
/* payload_split.c: the split rx conf both split modes give a port. */
int ibv_pl_split_rx(struct ibv_pl *pl, const struct ibv_pl_port *pp, struct ibv_pl_rx *rx,
		    char *err, size_t len);

/* payload_gpu.c: the GPU device (--gpu), checked before any memory is taken. */
int ibv_pl_gpu_setup(struct ibv_pl *pl, char *err, size_t len);

#endif /* IBVCAP_PAYLOAD_H */
