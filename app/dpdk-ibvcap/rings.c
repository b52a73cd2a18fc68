/* SPDX-License-Identifier: BSD-3-Clause */
/* The primary's side of the shared memory: the control block and one
 * antenna buffer memzone per antenna. Where the payload lives is the
 * payload layer's (payload.h): inline in the memzone, or memory it gives
 * each ring. */

#define _GNU_SOURCE /* rte_cpuset_t, CPU_ISSET */

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>

#include "err.h"
#include "config.h"
#include "payload.h"
#include "rings.h"
#include "scans.h"
#include "parse.h"
#include "shm_eal.h"

void
ibv_instance_name(char out[SHM_NAMELEN])
{
	shm_eal_instance(out);
}

int
ibv_rings_create(struct ibv_rings *bf, const struct ibv_config *c, struct ibv_pl *pl,
		 struct ibv_scans *scans, int64_t start_unix_ns, char *err, size_t len)
{
	const struct ibv_pl_ops *mode = pl->ops;
	struct antbuf_geom g;
	char name[SHM_NAMELEN];
	unsigned int a;
	size_t sz;

	bf->on = c->buffers;
	if (!bf->on)
		return 0;
	ibv_instance_name(bf->instance);
	ibv_buffer_rows(c, &g.nrows, &g.window);
	g.nslots = ibv_slots(c);
	g.data_bytes = c->data_bytes;
	bf->threads = c->threads;
	bf->geom = g;

	shm_ctl_name(bf->instance, name);
	bf->ctl_mz = rte_memzone_reserve(name, sizeof(struct shm_ctl), SOCKET_ID_ANY, 0);
	if (bf->ctl_mz == NULL)
		return err_set(err, len, -rte_errno, "shared control block '%s': %s", name,
			    rte_strerror(rte_errno));
	bf->ctl = bf->ctl_mz->addr;
	shm_ctl_init(bf->ctl, bf->instance, c->layout.nant, (int)getpid());
	bf->ctl->start_unix_ns = start_unix_ns;
	/* the CPUs of every lcore, which dpdk-ibvcap-dump writers keep off */
	{
		unsigned int lc, cpu;

		RTE_LCORE_FOREACH(lc) {
			rte_cpuset_t cs = rte_lcore_cpuset(lc);

			for (cpu = 0; cpu < SHM_MAX_CPUS && cpu < CPU_SETSIZE; cpu++)
				if (CPU_ISSET(cpu, &cs))
					shm_ctl_cpu_add(bf->ctl, cpu);
		}
	}
	bf->ctl->payload_mem = mode->mem;
	bf->ctl->gpu_dev = c->gpu >= 0 ? (uint32_t)c->gpu : 0;
	/* the schedule, where every writer reads it (--write and dump) */
	shm_sched_name(bf->instance, name);
	if (ibv_scans_share(scans, name, err, len) != 0)
		return -1;
	snprintf(bf->ctl->sched_zone, sizeof(bf->ctl->sched_zone), "%s", name);
	bf->ctl->sched_size = (uint32_t)sizeof(struct wr_sched);

	sz = antbuf_size(&g, mode->inline_payload);
	for (a = 0; a < c->layout.nant; a++) {
		const struct rte_memzone *mz;

		shm_ant_name(bf->instance, a, name);
		mz = rte_memzone_reserve_aligned(name, sz, SOCKET_ID_ANY, 0, ANTBUF_PAGE);
		if (mz == NULL)
			return err_set(err, len, -rte_errno,
				    "antenna %u (%s) buffer: %zu bytes (%u frames x %u slots x %u "
				    "bytes + metadata): %s (hugepages exhausted? reserve more, or a "
				    "smaller --ring)",
				    a, c->layout.ant_name[a], sz, g.nrows, g.nslots, g.data_bytes,
				    rte_strerror(rte_errno));
		bf->mz[a] = mz;
		bf->b[a] = mz->addr;
		if (antbuf_init(mz->addr, sz, &g, mode->inline_payload, a, c->layout.ant_name[a],
				c->layout.ant_ip[a]) != 0)
			return err_set(err, len, -EINVAL, "antenna %u buffer: bad geometry", a);
		antbuf_prod_init(&bf->prod[a], bf->b[a], NULL, false);
		/* its payload memory, or its table of references */
		if (ibv_pl_ring_attach(pl, a, &bf->prod[a], err, len) != 0)
			return -1;
		str_copy(bf->ctl->ant[a].zone, SHM_NAMELEN, name);
		str_copy(bf->ctl->ant[a].name, ANTBUF_NAME_LEN, c->layout.ant_name[a]);
		bf->ctl->ant[a].src_ip = c->layout.ant_ip[a];
	}
	__atomic_store_n(&bf->ctl->state, SHM_RUNNING, __ATOMIC_RELEASE);
	printf("dpdk-ibvcap: antenna buffers '%s': %u x %.1f MiB (%u frames x %u slots x "
	       "%u bytes, window %u) in %s\n", bf->instance, c->layout.nant,
	       (double)sz / 1048576.0, g.nrows, g.nslots, g.data_bytes, g.window,
	       mode->where != NULL ? mode->where :
	       rte_eal_has_hugepages() ? "hugepages" : "shared memory (no hugepages)");
	return 0;
}

void
ibv_rings_stop(struct ibv_rings *bf, unsigned int nant)
{
	unsigned int a;

	if (!bf->on || bf->ctl == NULL)
		return;
	for (a = 0; a < nant; a++)
		if (bf->b[a] != NULL)
			antbuf_flush(&bf->prod[a]);
	/* writers take the rest and end */
	__atomic_store_n(&bf->ctl->state, SHM_STOPPED, __ATOMIC_RELEASE);
}

void
ibv_rings_retain_check(struct ibv_rings *bf, const struct ibv_config *c, FILE *f)
{
	unsigned int a;

	if (!bf->on || c->retain_ns == 0)
		return;
	for (a = 0; a < c->layout.nant; a++) {
		const struct antbuf *b = bf->b[a];
		const struct codif_clock *clk;
		uint64_t rows, held;

		if (b == NULL || bf->retain_checked[a] ||
		    __atomic_load_n(&b->nruns, __ATOMIC_ACQUIRE) == 0)
			continue;
		bf->retain_checked[a] = true;
		/* the rows a consumer can read behind the newest final one, at
		 * the frame period the stream's headers give */
		clk = &b->run[0].clk;
		rows = b->g.nrows - b->g.window;
		held = rows * clk->step_q + rows * clk->step_r / (clk->fpp ? clk->fpp : 1);
		if (held >= c->retain_ns)
			continue;
		fprintf(f, "dpdk-ibvcap: warning: --retain %.9gs: antenna %s's ring of %u frames "
			"holds %.9g s of its data (%" PRIu64 " frames of %.9g us: %" PRIu64 " frames "
			"per %u s in its headers, %.6g frames/s, not the %.6g of --frame-rate): "
			"triggered dumps reach %.9g s back, not %.9g s; give --frame-rate %.6g\n",
			(double)c->retain_ns / 1e9, c->layout.ant_name[a], b->g.nrows,
			(double)held / 1e9, rows, (double)clk->period_ns / (double)clk->fpp / 1e3,
			clk->fpp, clk->period, (double)clk->fpp * 1e9 / (double)clk->period_ns,
			c->frame_rate, (double)held / 1e9, (double)c->retain_ns / 1e9,
			(double)clk->fpp * 1e9 / (double)clk->period_ns);
		fflush(f);
	}
}

unsigned int
ibv_rings_writers_check(const struct ibv_rings *rings, FILE *f)
{
	struct shm_ctl *ctl = rings->ctl;
	struct timespec ts;
	uint32_t died = 0;
	unsigned int n, i;

	if (!rings->on || ctl == NULL)
		return 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	n = shm_writer_reap(ctl, (int)getpid(), (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec,
			    &died);
	for (i = 0; f != NULL && i < SHM_MAX_WRITERS; i++)
		if (died >> i & 1) {
			const struct shm_writer *w = &ctl->writer[i];

			fprintf(f, "dpdk-ibvcap: writer %.*s (pid %d) died without ending: %" PRIu64
				" frames written in %" PRIu64 " files as it last said; started "
				"again under --name %.*s it takes its entry and scans back\n",
				SHM_NAMELEN, w->name, w->pid, w->written, w->files, SHM_NAMELEN,
				w->name);
			fflush(f);
		}
	return n;
}

/* External writers still attached (their process alive; one that died is
 * marked dead, shm_writer_reap). */
static unsigned int
external_writers(const struct ibv_rings *rings)
{
	return ibv_rings_writers_check(rings, stdout);
}

/* Writer processes that have ever registered and still exist. */
static unsigned int
writer_procs_alive(const struct ibv_rings *rings)
{
	struct shm_ctl *ctl = rings->ctl;
	unsigned int i, n = 0;

	for (i = 0; i < SHM_MAX_WRITERS; i++) {
		int pid = ctl->writer[i].pid;

		if (pid > 0 && pid != getpid() && !shm_pid_gone(pid))
			n++;
	}
	return n;
}

void
ibv_rings_drain_external(struct ibv_rings *rings, uint64_t drain_ns)
{
	uint64_t t0 = rte_get_timer_cycles(), hz = rte_get_timer_hz();
	unsigned int n;

	if (!rings->on || rings->ctl == NULL)
		return;
	n = external_writers(rings);
	if (n > 0) {
		printf("dpdk-ibvcap: waiting up to %.1f s for %u writer%s to take the last "
		       "frames\n", (double)drain_ns / 1e9, n, n == 1 ? "" : "s");
		fflush(stdout);
		while (external_writers(rings) > 0 &&
		       (rte_get_timer_cycles() - t0) / (double)hz * 1e9 < (double)drain_ns)
			rte_delay_us_sleep(20000);
	}
	/* a writer that has let go of the buffers is still a secondary until
	 * its process ends: freeing hugepage memory now would make EAL ask it
	 * to sync while it tears down (seen here: the primary then hung in
	 * rte_memzone_free). Wait, briefly, for those processes to end. */
	t0 = rte_get_timer_cycles();
	while (writer_procs_alive(rings) > 0 && (rte_get_timer_cycles() - t0) < 5 * hz)
		rte_delay_us_sleep(10000);
	n = writer_procs_alive(rings);
	if (n > 0) {
		/* leave the memory to the process exit rather than risk it */
		rings->keep_memory = true;
		printf("dpdk-ibvcap: %u writer process%s still running after 5 s: the buffers "
		       "are left to the process exit\n", n, n == 1 ? "" : "es");
	}
}

void
ibv_rings_free(struct ibv_rings *bf, struct ibv_pl *pl, struct ibv_scans *scans,
	       unsigned int nant)
{
	unsigned int a;

	/* no reader left: what the rings hold by reference goes back */
	ibv_pl_rings_release(pl, bf->prod, nant);
	/* The antenna buffers themselves are left to the process exit, which
	 * follows: rte_memzone_free zeroes every byte it frees
	 * (malloc_elem_free), touching each page of a ring never written (3 s
	 * of a 2-vCPU host's time for 6 x 82 MiB without hugepages, most of a
	 * short capture's CPU), and the hugepage files go with
	 * quirk_hugepages_release at the end either way. */
	for (a = 0; a < SHM_MAX_ANT; a++) {
		bf->mz[a] = NULL;
		bf->b[a] = NULL;
	}
	ibv_scans_unshare(scans, bf->keep_memory);
	if (bf->ctl_mz != NULL && !bf->keep_memory)
		rte_memzone_free(bf->ctl_mz);
	bf->ctl_mz = NULL;
	bf->ctl = NULL;
}
