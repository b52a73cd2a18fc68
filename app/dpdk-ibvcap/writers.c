/* SPDX-License-Identifier: BSD-3-Clause */
/* --write: writers running inside the primary, each on an lcore of its own,
 * with the same code and cursors as dpdk-ibvcap-dump. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_launch.h>
#include <rte_malloc.h>

#include "err.h"
#include "payload.h"
#include "rings.h"
#include "writers.h"
#include "parse.h"

bool
ibv_is_writer_lcore(const struct ibv_writers *ws, unsigned int lcore)
{
	unsigned int i;

	for (i = 0; i < ws->n; i++)
		if (ws->wl[i]->lcore == lcore)
			return true;
	return false;
}

/* The antennas of part j of n (lcores=n): antenna a on its (a mod n)th lcore. */
static uint64_t
part_mask(unsigned int nant, unsigned int j, unsigned int n)
{
	uint64_t m = 0;
	unsigned int a;

	for (a = j; a < nant && a < 64; a += n)
		m |= 1ULL << a;
	return m;
}

int
ibv_writers_setup(struct ibv_writers *ws, const struct ibv_config *c, const struct ibv_rings *rings,
		  const struct ibv_pl *pl, struct wr_sched *sched, char *err, size_t len)
{
	unsigned int workers[RTE_MAX_LCORE], nw = 0, lcore, i, j;
	const struct antbuf *bufs[SHM_MAX_ANT];
	uint8_t *payloads[SHM_MAX_ANT];
	char e[IBV_ERRLEN];

	if (c->nwrite == 0)
		return 0;
	RTE_LCORE_FOREACH_WORKER(lcore)
		workers[nw++] = lcore;
	if (nw < c->nwlcore + 1)
		return err_set(err, len, -EINVAL,
			    "--write: %u writer%s need%s an lcore each%s besides at least one rx "
			    "lcore: this process has %u worker lcore%s (give more with -l, or "
			    "map several lcores to CPUs with --lcores, e.g. --lcores 0@0,1@1,2@0)",
			    c->nwlcore, c->nwlcore == 1 ? "" : "s", c->nwlcore == 1 ? "s" : "",
			    c->nwlcore > c->nwrite ? " (lcores=N: N)" : "", nw, nw == 1 ? "" : "s");
	for (i = 0; i < SHM_MAX_ANT && i < c->layout.nant; i++) {
		bufs[i] = rings->b[i];
		payloads[i] = ibv_pl_base(pl, i);
	}
	for (i = 0; i < c->nwrite; i++) {
		struct wr_writer *part[WR_MAX_ANT];
		const struct wr_opts *o = &c->wo[i]; /* parsed with the configuration */

		/* lcores=N: N writers, antenna a on the (a mod N)th; each writes
		 * the files one writer would, under the one schedule bit i */
		for (j = 0; j < o->lcores; j++) {
			struct ibv_wlcore *wl = rte_zmalloc("ibvcap_writer", sizeof(*wl), 64);
			char name[SHM_NAMELEN];

			if (wl == NULL)
				return err_set(err, len, -EINVAL, "out of memory for writer %u", i);
			/* the last worker lcores are the writers' */
			wl->lcore = workers[nw - c->nwlcore + ws->n];
			ws->wl[ws->n++] = wl;
			wl->reg = -1;
			wl->stop = &ws->stop;
			wl->spec_idx = i;
			wl->part = j;
			wl->parts = o->lcores;
			str_copy(wl->spec, sizeof(wl->spec), c->write[i]);
			if (wr_init(&wl->w, o, bufs, payloads, c->layout.nant,
				    part_mask(c->layout.nant, j, o->lcores), e, sizeof(e)) != 0)
				return err_set(err, len, -EINVAL, "--write %s: %s", c->write[i], e);
			if (wr_gate_attach(&wl->w, sched, i, e, sizeof(e)) != 0)
				return err_set(err, len, -ENOMEM, "--write %s: %s", c->write[i], e);
			part[j] = &wl->w;
			if (o->lcores > 1)
				snprintf(name, sizeof(name), "primary-%u-%s-%u", i,
					 wr_format_name(o->format), j);
			else
				snprintf(name, sizeof(name), "primary-%u-%s", i,
					 wr_format_name(o->format));
			wl->reg = shm_writer_claim(rings->ctl, (int)getpid(), name,
						   wr_format_name(o->format), NULL);
			wl->regw = wl->reg >= 0 ? &rings->ctl->writer[wl->reg] : NULL;
			if (wl->regw != NULL) /* status, telemetry, the summary say it */
				wl->regw->lcore = (int32_t)wl->lcore;
		}
		/* one index per scan, with every antenna of its lcores, and one
		 * min-free kept by all of them */
		if (wr_gate_share(part, o->lcores, e, sizeof(e)) != 0 ||
		    wr_budget_share(part, o->lcores, e, sizeof(e)) != 0)
			return err_set(err, len, -ENOMEM, "--write %s: %s", c->write[i], e);
		if (wr_ring_direct(part[0], e, sizeof(e)) != NULL)
			fprintf(stderr, "dpdk-ibvcap: --write %s: %s\n", c->write[i], e);
	}
	return 0;
}

/* The rx lcores have stopped and flushed every row (ibv_writers_wait). */
static bool
writer_primary_stopped(void *ctx)
{
	const struct ibv_wlcore *wl = ctx;

	return *wl->stop != 0;
}

/* What a writer says while it runs (min-free's removals and stop). */
static void
writer_note(void *ctx, const char *line)
{
	const struct ibv_wlcore *wl = ctx;

	fprintf(stderr, "dpdk-ibvcap: --write %s: %s\n", wl->spec, line);
}

/* A writer lcore: lib/writer's loop, as dpdk-ibvcap-dump runs it. */
static int
writer_main(void *arg)
{
	struct ibv_wlcore *wl = arg;
	struct wr_run_opts ro = {
		.batch = 256,
		.reg = wl->regw,
		.source_stopped = writer_primary_stopped,
		.note = writer_note,
		.ctx = wl,
	};

	wl->rc = wr_run(&wl->w, &ro, &wl->end);
	wl->done = true;
	return 0;
}

void
ibv_writers_launch(struct ibv_writers *ws)
{
	unsigned int i;

	for (i = 0; i < ws->n; i++)
		rte_eal_remote_launch(writer_main, ws->wl[i], ws->wl[i]->lcore);
}

int
ibv_writers_wait(struct ibv_writers *ws)
{
	unsigned int i;
	int rc = 0;
	char e[256];

	ws->stop = 1;
	for (i = 0; i < ws->n; i++) {
		struct ibv_wlcore *wl = ws->wl[i];

		rte_eal_wait_lcore(wl->lcore);
		if (wl->w.ring_files + wl->w.copy_files > 0 &&
		    wr_ring_direct(&wl->w, e, sizeof(e)) != NULL)
			fprintf(stderr, "dpdk-ibvcap: --write %s: %s\n", wl->spec, e);
		if (wl->rc != 0) {
			fprintf(stderr, "dpdk-ibvcap: --write %s: %s\n", wl->spec, wl->w.err);
			rc = -1;
		} else if (wl->end == WR_END_DISK_FULL && rc == 0) {
			rc = 1; /* it said why when it stopped */
		}
	}
	return rc;
}

void
ibv_writers_free(struct ibv_writers *ws, struct shm_ctl *reg)
{
	unsigned int i;

	for (i = 0; i < ws->n; i++) {
		if (ws->wl[i]->reg >= 0 && reg != NULL)
			shm_writer_release(reg, ws->wl[i]->reg);
		wr_gate_free(&ws->wl[i]->w);
		rte_free(ws->wl[i]);
		ws->wl[i] = NULL;
	}
	ws->n = 0;
}
