/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-ibvcap runtime state shared by the control (main) and rx lcores. */

#ifndef IBVCAP_H
#define IBVCAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "acct.h"
#include "antbuf.h"
#include "config.h"
#include "gpumem.h"
#include "hwclock.h"
#include "json.h"
#include "payload.h"
#include "ql_keep.h"
#include "quicklook.h"
#include "shm.h"
#include "stats.h"
#include "steer.h"
#include "writer.h"

/** One rx queue polled by an lcore. */
struct ibv_rxq {
	uint16_t port_id;
	uint8_t port_idx;
	uint16_t queue;
	const volatile uint8_t *link_up;
	int ant;          /**< antenna steered here by rules, -1 default queue */
	bool hw_steered;  /**< rules put exactly antenna `ant` here */
};

struct ibv_ql_ent;
struct ibv_ql_win;
struct ibv_ql_live;

/**
 * An rx lcore's quick look (ql.c): an accumulator of a pool bound to each
 * stream the lcore sees, the first time it sees it.
 */
struct ibv_qlc {
	/** bound accumulators (rx lcore writes, release; others acquire) */
	struct ql_acc *acc[ACCT_MAX_ANTENNAS][ACCT_MAX_STREAMS];
	struct ql_acc *pool;        /**< npool accumulators, ready at setup */
	struct ibv_ql_ent *ent;     /**< each bound entry's antenna and stream */
	struct ibv_ql_win *win;     /**< the main lcore's window of each entry */
	struct ql_keep *keep;       /**< each entry's kept frames (NULL: none kept) */
	struct ibv_ql_live *live;   /**< the main lcore's analysis of them */
	unsigned int npool;
	unsigned int used;          /**< entries bound (release) */
	uint64_t unbound;           /**< frames of streams beyond the pool */
	uint64_t cycles;            /**< TSC cycles in ql_frame (sampled frames) */
};

/**
 * An rx lcore's state. Only that lcore writes it; counters are stored once
 * per burst and read (approximately, while running) by the main lcore.
 */
/** Frames of the scan with this id received and not recorded, per antenna
 * (the scan ledger's not_recorded, rec.c), kept by an rx lcore; entry
 * id % IBV_SCAN_NR (64 scans live at most, ids rising: two live scans
 * share an entry only 128 ids apart). */
struct ibv_scan_nr {
	uint32_t id;
	uint64_t nr[ACCT_MAX_ANTENNAS];
};
#define IBV_SCAN_NR 128

struct ibv_lcore {
	unsigned int lcore_id;
	unsigned int nq;
	struct ibv_rxq q[IBV_MAX_MAP];
	struct acct *acct;
	bool verbose;
	uint16_t burst;
	uint8_t *bounce;          /**< linear copy of multi-segment packets */
	/* the payload-memory mode, chosen once (payload.h) */
	const struct ibv_pl *pl;
	uint16_t head_segs;       /**< frames of at most this many segments are
				       read in place (pl's head_segs) */
	struct ibv_qlc *ql;       /**< quick look, NULL when off */

	/* counters */
	uint64_t pkts, bytes, polls, empty_polls, misdirected, segmented;
	uint64_t busy_cycles;     /**< TSC cycles of the polls that brought packets */
	uint64_t held;            /**< mbufs held for suspect frames now */
	uint64_t ev_shown;        /**< resync events logged (main lcore) */
	uint64_t q_pkts[IBV_MAX_MAP], q_bytes[IBV_MAX_MAP];
	uint64_t last_rx_tsc;
	volatile bool running;
	/* frames not recorded by scan (cold path: rx.c scan_nr_count) */
	struct ibv_scan_nr *scan_nr;  /**< IBV_SCAN_NR entries */
	struct wr_sched *scan_snap;   /**< the schedule as last seen */
	uint64_t scan_seen;           /**< its generation */
} __rte_cache_aligned;

/** Where arrival times come from (clock.c). */
enum ibv_clk_mode {
	IBV_CLK_HOST = 0,   /**< the host clock: the TSC, calibrated */
	IBV_CLK_REALTIME,   /**< the NIC's stamps are Unix ns already */
	IBV_CLK_TICKS,      /**< the NIC's stamps are ticks: calibrated */
};

/** A clock fitted to CLOCK_REALTIME by the main lcore, read by rx lcores. */
struct ibv_clock {
	struct hwclock_pub pub;   /**< what rx lcores convert with */
	struct hwclock cal;       /**< main lcore only */
	enum ibv_clk_mode mode;
	uint64_t steps;           /**< steps seen (logged when they grow) */
	char what[192];           /**< for the log and the summary */
};

/** A port in use. */
struct ibv_port {
	uint16_t port_id;
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_mempool *mp;
	unsigned int nq;          /**< rx queues configured */
	bool configured, started;
	bool hw_steer;            /**< rte_flow rules installed */
	bool isolated;
	struct steer_port sp;
	struct steer_rule_spec *rules;
	unsigned int nrules;
	char steer_why[256];      /**< why software steering */
	bool few_queues;          /**< fewer rx queues than antennas + 1: software */
	bool fallback_said;       /**< the fallback's log line is out */
	char iface[IF_NAMESIZE];  /**< kernel interface ("" = none) */
	int join_fd;              /**< socket holding the memberships, -1 */
	uint64_t groups;          /**< bit g: this port joins group g */
	unsigned int joined;
	bool ts_offload, scatter;
	struct ibv_clock clk;     /**< its rx timestamps (clock.c) */
	const char *mcast_mode;   /**< how multicast frames are let in */
	uint32_t mtu;
	volatile uint8_t link_up; /**< polled only when up (memif maps its
				       rings at connect and drops them at
				       disconnect: rx then would crash) */
};

/** Antenna buffers in shared memory (buf.c); their payload memory is the
 * payload layer's (payload.h). */
struct ibv_bufs {
	bool on;
	char instance[SHM_NAMELEN];
	struct antbuf_geom geom;
	uint32_t threads;
	const struct rte_memzone *ctl_mz;
	struct shm_ctl *ctl;
	const struct rte_memzone *mz[SHM_MAX_ANT];
	struct antbuf *b[SHM_MAX_ANT];
	struct antbuf_prod prod[SHM_MAX_ANT]; /**< the rx lcores' side of each */
	bool keep_memory;   /**< a secondary lingers: no memzone_free at exit */
	bool retain_checked[SHM_MAX_ANT]; /**< --retain checked at its first frame */
};

/** Quick look's shared part (ql.c). */
struct ibv_ql {
	bool on;
	bool lock_init;
	uint32_t every;
	pthread_mutex_t lock;     /**< the windows: main lcore vs telemetry */
	uint64_t next_tsc;        /**< next window boundary */
	uint32_t min;             /**< --quicklook-min: kept frames read per window */
	int spec_ant;             /**< /ibvcap/spectrum's antenna (-1: none asked) */
	unsigned int spec_nfft;   /**< ... and its points per FFT */
	uint64_t drain_cycles;    /**< main lcore's TSC cycles reading kept frames */
	uint64_t drain_frames;
	uint64_t prev_tsc, cur_tsc; /**< the window's two ends */
};

/** A writer on an lcore of the primary (--write). */
struct ibv_wlcore {
	unsigned int lcore;
	char spec[PATH_MAX + 64];
	struct wr_writer w;
	int reg;                  /**< writer registry entry */
	unsigned int spec_idx;    /**< its --write: the schedule's writer bit */
	unsigned int part, parts; /**< part of lcores=parts: antennas a with
				       a mod parts == part */
	int rc;
	enum wr_end end;          /**< why it ended */
	bool done;
};

struct ibv_app {
	struct ibv_config cfg;
	unsigned int nport;
	struct ibv_port port[IBV_MAX_PORTS];
	unsigned int nlcore;
	struct ibv_lcore *lc[RTE_MAX_LCORE];
	volatile int stop;
	const char *stop_reason;
	uint64_t tsc_hz;
	uint64_t start_tsc, end_tsc;
	int64_t start_unix_ns;
	int ts_offset;            /**< rx timestamp dynfield, -1 none */
	uint64_t ts_flag;
	bool pdump;               /**< rte_pdump_init() succeeded */
	struct ibv_clock host_clk; /**< the TSC as Unix ns (clock.c) */
	struct ibv_bufs bufs;
	struct ibv_pl pl;         /**< the payload-memory layer (payload.h) */
	struct ibv_ql ql;
	unsigned int nwlcore;
	struct ibv_wlcore *wl[IBV_MAX_WLCORES]; /**< lcores=N: N of one --write */
	volatile int writers_stop;
	/** the writers' scans (rec.c; telemetry changes it): sched_own until
	 * the buffers exist, then their memzone (buf.c), where the
	 * dpdk-ibvcap-dump writers read it too, then sched_own again */
	struct wr_sched *sched;
	struct wr_sched sched_own;
	const struct rte_memzone *sched_mz;
	/* last stats sample, for rates */
	uint64_t last_tsc, last_pkts, last_bytes;
	uint64_t loop_tsc; /* the main loop's last turn (telemetry: loop_age_ms) */
	uint64_t quiet_since_tsc;  /**< no packet since (periodic line) */
	double rate_gbps, rate_mpps;
};

extern struct ibv_app *ibv_g; /* for telemetry callbacks and signals */

/* port.c */
int ibv_ports_resolve(struct ibv_app *app, char *err, size_t len);
int ibv_ports_setup(struct ibv_app *app, char *err, size_t len);
int ibv_ports_start(struct ibv_app *app, char *err, size_t len);
/** Wait (--link-timeout) for each link; the rx lcores already poll. */
void ibv_ports_wait_link(struct ibv_app *app);
/** Refresh every port's link_up (main lcore, every 100 ms). */
void ibv_ports_link_refresh(struct ibv_app *app);
void ibv_ports_stop(struct ibv_app *app);
void ibv_ports_close(struct ibv_app *app);

/* join.c */
int ibv_join_all(struct ibv_app *app, char *err, size_t len);
void ibv_leave_all(struct ibv_app *app);

/* rx.c */
int ibv_lcores_setup(struct ibv_app *app, char *err, size_t len);
void ibv_lcores_free(struct ibv_app *app);
int ibv_rx_main(void *arg);

/* buf.c */
void ibv_instance_name(char out[SHM_NAMELEN]);
int ibv_bufs_create(struct ibv_app *app, char *err, size_t len);
void ibv_bufs_stop(struct ibv_app *app);
/** --retain against each antenna's own frame period, once its first frame
 * is in (main lcore): a warning when its ring holds less data time. */
void ibv_bufs_retain_check(struct ibv_app *app, FILE *f);
/** The writers of other processes: one that died is marked dead (and
 * said on f, once; NULL: not said), one without a heartbeat hung
 * (shm_writer_reap). Main lcore, telemetry. @return those attached. */
unsigned int ibv_bufs_writers_check(struct ibv_app *app, FILE *f);
void ibv_bufs_drain_external(struct ibv_app *app);
void ibv_bufs_free(struct ibv_app *app);

/* clock.c */
/** Fit the host and NIC clocks (after the ports start); says each port's source. */
void ibv_clocks_start(struct ibv_app *app);
/** One calibration round of every clock (main lcore, about once a second). */
void ibv_clocks_tick(struct ibv_app *app);
const char *ibv_clock_mode_name(enum ibv_clk_mode m);

/* wr.c */
int ibv_writers_setup(struct ibv_app *app, char *err, size_t len);
void ibv_writers_launch(struct ibv_app *app);
/* Wait for the --write writers: 0, -1 one failed (said), 1 one stopped at
 * its min-free (said when it stopped). */
int ibv_writers_wait(struct ibv_app *app);
void ibv_writers_free(struct ibv_app *app);
/** Is this lcore a writer's? */
bool ibv_is_writer_lcore(const struct ibv_app *app, unsigned int lcore);

/* trig.c: triggered dumps (/ibvcap/trigger), each a job on its own thread */
#define IBV_TRIG_MAX_FILES 512 /* RTE_TEL_MAX_ARRAY_ENTRIES */
#define IBV_TRIG_JOBS 64       /**< jobs kept (the oldest finished aged out) */
#define IBV_TRIG_RUNNING 32    /**< jobs running at once (more refused) */
#define IBV_TRIG_MAX_TIMEOUT_NS (600ULL * 1000000000ULL) /**< timeout= at most */
#define IBV_TRIG_MAX_WINDOW_NS (3600LL * 1000000000LL)   /**< T1 - T0 at most */

/** A trigger as asked: [t0, t1) of data time, antennas, where, how long to
 * wait for data not yet in. */
struct ibv_trig_req {
	int64_t t0, t1;           /**< Unix ns (CODIF data time), t0 < t1 */
	uint64_t ants;            /**< antennas (bit a) */
	uint64_t timeout_ns;      /**< wait at most this long for a new row */
	struct wr_opts o;         /**< format, dir, prefix; the window */
};

/** Why a dump ended. */
enum ibv_trig_end {
	IBV_TRIG_DONE = 0,     /**< every antenna reached T1 or was blocked */
	IBV_TRIG_TIMEOUT,      /**< no new row of the window for timeout */
	IBV_TRIG_STOPPED,      /**< the capture stopped before T1 */
	IBV_TRIG_CLOSING,      /**< cancelled: the capture is tearing down */
};

/** What a dump wrote of its window. */
enum ibv_trig_outcome {
	IBV_TRIG_COMPLETE = 0, /**< every antenna's whole window */
	IBV_TRIG_PARTIAL,      /**< some of it (the antennas say what not, why) */
	IBV_TRIG_OVERWRITTEN,  /**< none: overwritten in the rings before */
	IBV_TRIG_EMPTY,        /**< none, for another reason (not arrived,
				    blocked, before the capture, no data) */
};

/** One antenna's part of a dump; spans are [from, to) of data time. */
struct ibv_trig_ant {
	bool on, complete, blocked;
	unsigned int streams;
	uint64_t window_frames;                  /**< rows x streams of [t0, t1)
						      (0: no clock known) */
	uint64_t files, frames, placeholders, overrun_placeholders, bytes;
	int64_t from_ns, to_ns;                  /**< what it wrote */
	int64_t oldest_ns;                       /**< the oldest row in its ring
						      when the dump began */
	int64_t over_from, over_to;              /**< already overwritten */
	uint64_t over_frames;                    /**< rows x streams */
	int64_t before_from, before_to;          /**< before its first frame */
	uint64_t before_frames;
	int64_t future_from, future_to;          /**< not arrived */
	uint64_t future_frames;
	int64_t nodata_from, nodata_to;          /**< no frame of it at all */
	int64_t blocked_from, blocked_to;        /**< not written: blocked */
	uint64_t blocked_frames;
	char why[256];                           /**< blocked: why (its file's
						      error) */
	uint64_t overrun;                        /**< frames of the window the
						      ring overwrote while this dump
						      was inside it (written as gaps) */
};

struct ibv_trig_result {
	enum ibv_trig_end end;
	enum ibv_trig_outcome outcome;
	struct ibv_trig_ant ant[ACCT_MAX_ANTENNAS];
	unsigned int nfiles;
	char file[IBV_TRIG_MAX_FILES][RTE_TEL_MAX_STRING_LEN]; /**< base names */
	uint64_t overrun;
	int64_t wall_ns;
};

/** An antenna of the layout by name or index. @return its index, or -1. */
int ibv_antenna_of(const struct ibv_config *c, const char *s);
void ibv_trig_defaults(struct ibv_trig_req *r);
/**
 * Parse "T0,T1,FORMAT,DIR[,ANTENNA[+ANTENNA...]...][,timeout=T][,prefix=P]".
 * @return 0, or -EINVAL with the input, its value and what was expected in e.
 */
int ibv_trig_parse(const struct ibv_config *c, const char *params, struct ibv_trig_req *r,
		   struct err_refusal *e);
const char *ibv_trig_end_name(enum ibv_trig_end e);
const char *ibv_trig_outcome_name(enum ibv_trig_outcome o);
/** /ibvcap/trigger: start a job (its id at once), or refuse (nothing
 * written). The telemetry thread. */
int ibv_trig_tel_start(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** /ibvcap/trigger/status[,ID]: one job's state and, once it ended, its
 * result; without ID every job kept. */
int ibv_trig_tel_status(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** Teardown, while telemetry still answers: running jobs end (those the
 * stop lets finish first, up to 2 s), the results a client is polling for
 * are read (up to 2 s), then new triggers are refused. Idempotent. */
void ibv_trig_jobs_end(void);

/* fringe.c */
/** /ibvcap/fringe,A,B[,SECONDS][,pairs=N][,max_lag=N]: start the live
 * fringe check of a baseline on a control thread (one at a time), or refuse. */
int ibv_fringe_tel_start(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** /ibvcap/fringe/status: the latest check's state and, once ended, its result. */
int ibv_fringe_tel_status(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** Teardown, while telemetry still answers: a running check stops, no new one. */
void ibv_fringe_end(void);

/* rec.c */
struct rte_tel_data;
/** A schedule from c: --record, then --schedule FILE's scans, checked
 * whole. @return 0 or a negative errno, the file, line, field, value and
 * what was expected in err. */
int ibv_rec_load(const struct ibv_config *c, struct wr_sched *sched, char *err, size_t len);
/** /ibvcap/record: on, off, cancel, status; answers what it did, or why not. */
int ibv_rec_command(struct ibv_app *app, const char *params, struct rte_tel_data *d);

/**
 * A refusal as the reply of a telemetry command (record, scan, trigger),
 * into the dict d the caller started: result "refused", command, error
 * ("COMMAND refused: nothing changed"), input, value, expected and changed
 * "nothing". Nothing was changed or written.
 */
void ibv_refusal_tel(struct rte_tel_data *d, const char *command, const struct err_refusal *r);

/** The refusal's log line: "dpdk-ibvcap: COMMAND PARAMS refused: INPUT 'VALUE':
 * expected EXPECTED" (PARAMS escaped). */
void ibv_refusal_log(FILE *f, const char *command, const char *params,
		     const struct err_refusal *r);
/** /ibvcap/scan,NAME[,WRITER]: one scan's ledger (per writer; per antenna
 * of WRITER). */
int ibv_rec_tel_scan(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** "recording": the schedule and each writer's scans, as their indexes say. */
void ibv_rec_summary_json(const struct ibv_app *app, json_t *root);
/** The main lcore's look at the scans (every 100 ms; final: at the stop,
 * the writers done): each scan logged when added, begun and ended, with
 * its ledger; each antenna's data time against the host clock. */
void ibv_rec_tick(struct ibv_app *app, FILE *f, bool final);
/** The scans' ledgers, as text (the summary). */
void ibv_rec_summary_text(const struct ibv_app *app, FILE *f);

/* ql.c */
/** Quick look's accumulators for every rx lcore (after ibv_lcores_setup). */
int ibv_ql_setup(struct ibv_app *app, char *err, size_t len);
void ibv_ql_free(struct ibv_app *app);
/** Bind a pool accumulator to a stream (rx lcore; NULL: pool exhausted). */
struct ql_acc *ibv_ql_bind(struct ibv_qlc *q, unsigned int ant, unsigned int stream);
/** Move the live window on when it is due (force: now). Main lcore. */
void ibv_ql_tick(struct ibv_app *app, bool force);
/** Read the kept frames into the sampler statistics and the spectrum
 * asked for (at most --quicklook-min a stream per window). Main lcore. */
void ibv_ql_drain(struct ibv_app *app);
/** /ibvcap/bstate[,ANT]: the sampler statistics of the last window. */
int ibv_ql_tel_bstate(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** /ibvcap/spectrum,ANT[,NFFT]: the last window's spectra of ANT's streams
 * (asking starts them: "pending" until a window has them). */
int ibv_ql_tel_spectrum(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** /ibvcap/quicklook[,ANT]: the last window, per antenna or one antenna's
 * streams and bins; /ibvcap/quicklook/run: the run so far. Run by ctl.c's
 * telemetry dispatcher (its lock). */
int ibv_ql_tel_window(struct ibv_app *app, const char *params, struct rte_tel_data *d);
int ibv_ql_tel_run(struct ibv_app *app, const char *params, struct rte_tel_data *d);
/** The whole run's figures as root's "quicklook" (the rx lcores stopped). */
void ibv_ql_summary_json(const struct ibv_app *app, json_t *root, double run_s);

/**
 * Offer an accepted frame to its stream's quick look (rx lcore): one in
 * --quicklook is read. data: the packet's first cap bytes.
 */
static inline void
ibv_ql_offer(struct ibv_qlc *q, const struct acct_result *r, const uint8_t *data, uint32_t cap,
	     const struct rte_mbuf *m, const struct ibv_pl *pl)
{
	struct ql_acc *a = q->acc[r->fd.ant][r->fd.stream];
	uint32_t off = (uint32_t)r->fd.codif_off + CODIF_HDR_LEN;
	const uint8_t *hdr = data + r->fd.codif_off;

	if (unlikely(a == NULL) && (a = ibv_ql_bind(q, (unsigned int)r->fd.ant,
						    (unsigned int)r->fd.stream)) == NULL)
		return;
	if (likely(!ql_sample(a, 0)))
		return;
	if (likely(r->fd.codif_len >= CODIF_HDR_LEN)) {
		uint32_t len = r->fd.codif_len - CODIF_HDR_LEN;
		/* the payload where the mode keeps it (NULL: not whole for
		 * the CPU here) */
		const uint8_t *pay = ibv_pl_frame_payload(pl, m, data, cap, off, len);
		/* its cost, measured where it is paid (one frame in --quicklook) */
		uint64_t t0;

		if (unlikely(pay == NULL))
			return;
		t0 = rte_rdtsc();
		ql_frame(a, &r->hdr, pay, len);
		/* a copy for the sampler statistics and spectra (main lcore) */
		if (q->keep != NULL)
			qlk_put(&q->keep[a - q->pool], hdr, pay, len);
		q->cycles += rte_rdtsc() - t0;
	}
}

/* ctl.c */
/** Totals over every lcore and antenna. */
struct ibv_totals {
	struct stats_rx rx;  /**< all rx lcores (lib/stats stats_capture) */
	struct acct_counts ant[ACCT_MAX_ANTENNAS];
	struct acct_counts all;
	uint64_t cause[ACCT_C__COUNT];  /**< unattributed, all ports */
	uint64_t port_cause[IBV_MAX_PORTS][ACCT_C__COUNT];
};
void ibv_collect(const struct ibv_app *app, struct ibv_totals *t);
void ibv_stats_line(struct ibv_app *app, FILE *f);
/** Log the timeline resyncs not logged yet (all: every one kept). */
void ibv_events_print(const struct ibv_app *app, FILE *f, bool all);
/** Streams with frames not recorded for a cause not yet logged: one line a
 * stream and cause (the main lcore's; the rx path only counts). */
void ibv_unrecorded_print(struct ibv_app *app, FILE *f);
void ibv_summary(const struct ibv_app *app, FILE *f);
int ibv_summary_json(const struct ibv_app *app, const char *path);
/** Register the telemetry commands (/ibvcap/...): they answer -EAGAIN
 * until ibv_telemetry_open. @return 0, or non-zero when one failed. */
int ibv_telemetry_register(void);
/** Serve app's figures: once everything they read is set up. */
void ibv_telemetry_open(struct ibv_app *app);
/** Stop serving them, before anything they read is freed (waits for a
 * reply in progress). Idempotent. */
void ibv_telemetry_close(void);

#endif /* IBVCAP_H */
