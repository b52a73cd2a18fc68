/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture's quick look (quicklook.c): lib/quicklook's accumulators bound
 * to each rx lcore's streams, the main lcore's windows, and their telemetry. */

#ifndef IBV_QUICKLOOK_APP_H
#define IBV_QUICKLOOK_APP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "acct.h"
#include "json.h"
#include "payload.h"
#include "ql_keep.h"
#include "quicklook.h"

struct ibv_config;
struct ibv_lcores;
struct ibv_run;
struct ibv_ql_ent;
struct ibv_ql_win;
struct ibv_ql_live;

/**
 * An rx lcore's quick look (quicklook.c): an accumulator of a pool bound to each
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

/** Quick look's shared part (quicklook.c). */
struct ibv_ql {
	bool on;
	bool lock_init;
	uint32_t every;
	pthread_mutex_t lock;     /**< the windows: main lcore vs telemetry */
	uint64_t next_tsc;        /**< next window boundary */
	uint32_t min;             /**< --quicklook-min: kept frames read per window */
	struct qlb_cfg levels;    /**< --sampler-levels: the verdict's thresholds */
	int spec_ant;             /**< /ibvcap/spectrum's antenna (-1: none asked) */
	unsigned int spec_nfft;   /**< ... and its points per FFT */
	uint64_t drain_cycles;    /**< main lcore's TSC cycles reading kept frames */
	uint64_t drain_frames;
	uint64_t prev_tsc, cur_tsc; /**< the window's two ends */
	/* what it reads of the others, given at ibv_ql_setup */
	const struct ibv_config *cfg;
	const struct ibv_lcores *lcores; /**< the streams' accumulators, per lcore */
	const struct ibv_run *run;       /**< the TSC rate, the start */
};

/** Quick look's accumulators for every rx lcore (after ibv_lcores_setup). */
int ibv_ql_setup(struct ibv_ql *ql, const struct ibv_config *c, const struct ibv_lcores *lcores,
		 const struct ibv_pl *pl, const struct ibv_run *run, char *err, size_t len);
void ibv_ql_free(struct ibv_ql *ql);
/** Bind a pool accumulator to a stream (rx lcore; NULL: pool exhausted). */
struct ql_acc *ibv_ql_bind(struct ibv_qlc *q, unsigned int ant, unsigned int stream);
/** Move the live window on when it is due (force: now). Main lcore. */
void ibv_ql_tick(struct ibv_ql *ql, bool force);
/** Read the kept frames into the sampler statistics and the spectrum
 * asked for (at most --quicklook-min a stream per window). Main lcore. */
void ibv_ql_drain(struct ibv_ql *ql);
/** /ibvcap/bstate[,ANT]: the sampler statistics of the last window. */
int ibv_ql_tel_bstate(struct ibv_ql *ql, const char *params, struct rte_tel_data *d);
/** /ibvcap/spectrum,ANT[,NFFT]: the last window's spectra of ANT's streams
 * (asking starts them: "pending" until a window has them). */
int ibv_ql_tel_spectrum(struct ibv_ql *ql, const char *params, struct rte_tel_data *d);
/** /ibvcap/quicklook[,ANT]: the last window, per antenna or one antenna's
 * streams and bins; /ibvcap/quicklook/run: the run so far. Run by telemetry.c's
 * telemetry dispatcher (its lock). */
int ibv_ql_tel_window(struct ibv_ql *ql, const char *params, struct rte_tel_data *d);
int ibv_ql_tel_run(struct ibv_ql *ql, const char *params, struct rte_tel_data *d);
/** The whole run's figures as root's "quicklook" (the rx lcores stopped). */
void ibv_ql_summary_json(const struct ibv_ql *ql, json_t *root, double run_s);

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

#endif /* IBV_QUICKLOOK_APP_H */
