/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-ibvcap configuration: command-line and INI options, validation, printing. */

#ifndef IBVCAP_CONFIG_H
#define IBVCAP_CONFIG_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "acct.h"
#include "ql_bstate.h"
#include "writer.h"

#define IBV_MAX_PORTS ACCT_MAX_PORTS
#define IBV_MAX_QUEUES (ACCT_MAX_ANTENNAS + 1)
#define IBV_MAX_MAP (IBV_MAX_PORTS * IBV_MAX_QUEUES)
#define IBV_ERRLEN 1024
#define IBV_MAX_WRITERS 8
#define IBV_MAX_CONSUMERS 4 /* --consumer plugins, an lcore each */
/** Writer lcores of the --write writers in all (lcores=N counts N): each
 * takes an entry of the writer table (lib/shm). */
#define IBV_MAX_WLCORES 16

enum ibv_steer_mode {
	IBV_STEER_AUTO = 0, /**< rte_flow, else software (one log line) */
	IBV_STEER_FLOW,     /**< rte_flow or fail */
	IBV_STEER_SOFTWARE, /**< never try rte_flow */
};

enum ibv_split_mode {
	IBV_SPLIT_AUTO = 0, /**< buffer split where every port offers it */
	IBV_SPLIT_ON,       /**< buffer split or fail */
	IBV_SPLIT_OFF,      /**< no split: --gpu copies payload to the GPU,
				 --zero-copy keeps whole mbufs */
};

struct ibv_port_cfg {
	char spec[64];            /**< as given: port id or device name */
	int port_id;              /**< resolved after EAL init, else -1 */
	char iface[IF_NAMESIZE];  /**< kernel interface for joins ("" = ask the port) */
};

/** One (port, queue) -> lcore assignment. */
struct ibv_map {
	uint8_t port_idx;
	uint16_t queue;
	unsigned int lcore;
};

/** What --write writers record before any scan is given them (--record). */
enum ibv_record_mode {
	IBV_REC_ALWAYS = 0, /**< everything, as without scans */
	IBV_REC_IDLE,       /**< nothing: only scans */
};

struct ibv_config {
	unsigned int nport;          /**< 0: every probed port */
	struct ibv_port_cfg port[IBV_MAX_PORTS];
	struct acct_layout layout;   /**< antennas and groups */
	int group_port[ACCT_MAX_GROUPS]; /**< port index joining each group */
	unsigned int threads;        /**< CODIF threads per antenna and group (info) */
	unsigned int slots;          /**< buffer slots per antenna (streams it
					  records), 0: auto (ibv_slots) */

	uint32_t mtu;
	uint32_t mbuf_size;          /**< data room incl. headroom, 0 = auto */
	uint32_t nb_mbufs;           /**< per port, 0 = auto */
	uint16_t rx_desc;
	uint16_t burst;
	enum ibv_steer_mode steer;
	bool isolate;
	bool no_join;
	bool verbose;
	bool check_only;
	bool skip_host;              /**< --check-config of the file alone */

	uint64_t stop_packets;       /**< 0 = none */
	uint64_t stop_frames;        /**< per antenna, 0 = none */
	uint64_t stop_duration_ns;   /**< 0 = none */
	uint64_t idle_timeout_ns;    /**< 0 = none */
	uint64_t stats_period_ns;    /**< 0 = no periodic line */
	uint64_t clock_warn_ns;      /**< --clock-warn: data time vs host clock */
	uint64_t link_timeout_ns;
	uint32_t quicklook_every;    /**< quick look: one frame in N per stream, 0 off */
	uint64_t quicklook_window_ns; /**< the live figures' window */
	uint32_t quicklook_min;      /**< and at least this many frames per window */
	struct qlb_cfg sampler_levels; /**< --sampler-levels: the verdict's thresholds */

	char summary_json[PATH_MAX];
	char config_file[PATH_MAX];
	char eal_args[4096];         /**< a --config file's [eal] args (main() reads
					  them before EAL init; kept to be printed) */

	unsigned int nmap;
	struct ibv_map map[IBV_MAX_MAP];

	/* per-antenna buffers and writers */
	bool buffers;                /**< place frames in antenna buffers */
	bool zero_copy;              /**< the rings keep the received mbufs */
	uint32_t ring_frames;        /**< rows per antenna ring (power of two) */
	uint64_t ring_ns;            /**< ring as time (converted with frame_rate) */
	uint64_t retain_ns;          /**< --retain: data time every ring keeps at
					  least (0: not asked; the ring is then
					  at least its rows + the window) */
	uint32_t window_frames;      /**< rows kept open for late frames */
	uint64_t window_ns;
	uint32_t data_bytes;         /**< payload bytes per frame in the buffers */
	double frame_rate;           /**< frames/s per stream, for times -> frames */
	int gpu;                     /**< gpudev device for payload, -1 host */
	enum ibv_split_mode gpu_split;
	enum ibv_split_mode zc_split;  /**< --zero-copy-split */
	unsigned int nwrite;
	char write[IBV_MAX_WRITERS][PATH_MAX + 64]; /**< --write specs */
	/** Each --write parsed once (when the configuration is finished): the
	 * host checks, the writers and the scan commands take it from here. */
	struct wr_opts wo[IBV_MAX_WRITERS];
	unsigned int nwlcore;        /**< writer lcores: their sum */
	unsigned int nconsumer;
	char consumer[IBV_MAX_CONSUMERS][PATH_MAX + 256]; /**< --consumer LIB.so[,key=value...] */
	uint64_t drain_ns;           /**< wait for writers to finish at exit */
	int record;                  /**< enum ibv_record_mode: before any scan */
	char schedule[PATH_MAX];     /**< --schedule: scans to record ("": none) */
};

/** Defaults: the ASKAP-like layout of 6 antennas, 4 groups. */
void ibv_config_defaults(struct ibv_config *c);

/**
 * Parse the options after EAL's '--' (argv[0] is the program name). A
 * --config FILE is loaded first (wherever it appears), then the command
 * line overrides it. Everything is validated here; nothing touches a device.
 * The options are one table (config.c, lib/opt).
 *
 * @return 0; 1 when --help (or --dump-options) was printed; a negative
 *   errno (-EINVAL, -ERANGE, -E2BIG, -ENOENT, -ENOMEM) with the reason in err.
 */
int ibv_config_parse(struct ibv_config *c, int argc, char **argv, char *err,
		     size_t errlen);

/**
 * Apply an INI file (rte_cfgfile): every key is a long option name.
 * @return 0 or a negative errno with the file, section, key and reason in err.
 */
int ibv_config_load_ini(struct ibv_config *c, const char *path, char *err,
			size_t errlen);

/**
 * Print the effective configuration: every option of the table, as
 * "key = value" lines, or "# key: ..." for what is not set.
 */
void ibv_config_print(const struct ibv_config *c, FILE *f);

/** Usage text, generated from the option table. */
void ibv_usage(FILE *f);

/** --version: the program's and DPDK's versions. */
void ibv_version(FILE *f);

/** Rows of the antenna ring and window, from frames or time (power of two
 * ring), at least --retain's rows + the window (the rows a consumer can
 * still read behind the newest final row). */
void ibv_buffer_rows(const struct ibv_config *c, uint32_t *rows, uint32_t *window);

/** The antenna buffers a configuration asks for (ibv_buffer_plan). */
struct ibv_buf_plan {
	uint32_t rows;        /**< ring rows per antenna (a power of two) */
	uint32_t window;      /**< reorder window, rows */
	uint64_t asked;       /**< the ring asked for (--ring as frames or time) */
	uint64_t retain_rows; /**< --retain as rows at --frame-rate (0: none) */
	bool retained;        /**< rows come from --retain (more than --ring) */
	bool grown;           /**< rows > asked rounded up: twice the window */
	unsigned int nslots;  /**< slots per antenna (ibv_slots) */
	uint64_t host_bytes;  /**< one antenna's buffer in shared memory, exact */
	uint64_t gpu_bytes;   /**< its payload in GPU memory (--gpu), else 0 */
};

/**
 * Slots per antenna buffer: --slots, or auto: groups x threads with a
 * quarter more (at least one) spare for streams nobody declared (a stray
 * station must not take a real stream's place), at most ANTBUF_MAX_SLOTS.
 * A stream gets a slot by its identity as it first comes; one that finds
 * none free is counted not_recorded (no-slot).
 */
unsigned int ibv_slots(const struct ibv_config *c);

/** What the buffers of c take, per antenna (0 bytes with --no-buffers). */
void ibv_buffer_plan(const struct ibv_config *c, struct ibv_buf_plan *p);

/** Rows --retain asks for at --frame-rate (rounded up; 0: not asked). */
uint64_t ibv_retain_rows(const struct ibv_config *c);

/**
 * Where the options point, as the host is now (the OPT_F_OUTFILE rows:
 * --summary-json). @return 0 or a negative errno with the message in err.
 */
int ibv_config_check_files(const struct ibv_config *c, char *err, size_t errlen);

/** The largest frame the MTU allows on the wire: Ethernet, two VLAN tags, CRC. */
uint32_t ibv_frame_bytes(const struct ibv_config *c);

/** mbuf data room incl. headroom: --mbuf-size, else one whole frame per mbuf. */
uint32_t ibv_mbuf_room(const struct ibv_config *c);

/** mbufs of a port's pool with --mbufs auto: its nq rx rings, each of nlcore
 * lcores' burst and cache, and slack. */
uint32_t ibv_mbufs_auto(const struct ibv_config *c, unsigned int nq, unsigned int nlcore);

/** Number of rx queues a port needs: one per antenna plus the default one. */
static inline unsigned int
ibv_queues_needed(const struct ibv_config *c)
{
	return c->layout.nant + 1;
}

#endif /* IBVCAP_CONFIG_H */
