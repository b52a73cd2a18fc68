/* SPDX-License-Identifier: BSD-3-Clause */
/* --source pdump: tap a port's rx queues through rte_pdump into a ring of
 * packet copies, and write them to pcap files (rotated as --write says). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>
#include <rte_ring.h>

#include "dump.h"
#include "err.h"
#include "fmt_name.h"
#include "fmt_pcap.h"
#include "quirks.h"
#include "tconv.h"

/* The tap's file in progress and its figures (what is in its files on
 * disk: lib/fmt counts each packet once it is written out). */
struct tap {
	struct fmt_sink f;
	bool open;
	uint64_t opened;         /* files opened */
	int64_t t0;              /* monotonic time it was opened */
	struct wr_stats st;
	struct fmt_tally closed; /* what the files closed so far hold */
	struct dump_tap_io io;   /* its I/O queue, for the summary */
	struct rte_ring *ring;   /* the copies rte_pdump makes */
	struct rte_mempool *mp;  /* their mbufs */
	uint16_t first, last;    /* the rx queues it taps */
};

static void
tap_tally(struct tap *t)
{
	const struct fmt_tally *d = fmt_disk(&t->f);

	t->st.written = t->closed.frames + (t->open ? d->frames : 0);
	t->st.bytes = t->closed.bytes + (t->open ? d->bytes : 0);
}

static int
tap_close(struct tap *t, char *err, size_t len)
{
	bool kept;
	int rc;

	if (!t->open)
		return 0;
	t->open = false;
	rc = fmt_close(&t->f, true, &kept, err, len);
	t->closed.frames += fmt_disk(&t->f)->frames;
	t->closed.bytes += fmt_disk(&t->f)->bytes;
	t->st.cut += fmt_cut(&t->f)->frames;
	t->st.files += kept;
	tap_tally(t);
	return rc;
}

static int
tap_open(struct tap *t, const struct wr_opts *wo, uint16_t port, uint32_t queue, int64_t ts,
	 char *err, size_t len)
{
	struct fmt_opts fo = {
		.bufsize = wo->bufsize,
		.fio_flags = wo->direct ? FIO_DIRECT : 0,
		.snaplen = wo->snaplen,
	};
	char ant[64], path[PATH_MAX];
	int rc, tries = 0;

	if (queue == RTE_PDUMP_ALL_QUEUES)
		snprintf(ant, sizeof(ant), "port%u", port);
	else
		snprintf(ant, sizeof(ant), "port%uq%u", port, queue);
	/* two of its files can begin with frames of one time (other streams'
	 * frames of that time, a duplicate): a later one takes the next free
	 * ns; its first file never replaces one (as the buffer writers) */
	do {
		rc = wr_file_name(path, sizeof(path), wo, ant, ts++, "pcap");
		if (rc != 0)
			return err_set(err, len, rc, "file name too long");
		rc = fmt_open(&t->f, FMT_PCAP, path, &fo, NULL, err, len);
	} while (rc == -EEXIST && t->opened > 0 && ++tries < 1000);
	if (rc == 0) {
		const char *y = fio_sync_why(&t->f.f);

		fio_track(&t->f.f, &t->io.depth);
		t->io.on = true;
		t->io.uring = y == NULL;
		snprintf(t->io.why, sizeof(t->io.why), "%s", y != NULL ? y : "");
		t->opened++;
		t->open = true;
		t->t0 = mono_ns();
	}
	return rc;
}

/* One tapped packet into the open file (opened or rotated as needed).
 * @return 0, or a positive errno with the reason in err. */
static int
tap_write(struct tap *t, const struct dopts *o, const struct wr_opts *wo, struct rte_mbuf *m,
	  char *err, size_t len)
{
	uint32_t plen = m->pkt_len, cap = plen < wo->snaplen ? plen : wo->snaplen;
	int64_t ts = real_ns();
	const void *d;
	uint8_t *p;
	int rc;

	if (t->open && wr_rotate_due(wo, fmt_size(&t->f), mono_ns() - t->t0)) {
		rc = tap_close(t, err, len);
		if (rc != 0)
			return -rc;
	}
	if (!t->open) {
		/* named by its first packet's frame time (docs/formats.md: one
		 * clock in every file name), arrival only where it carries none */
		uint8_t head[256];
		uint32_t hl = plen < sizeof(head) ? plen : (uint32_t)sizeof(head);
		const uint8_t *h = rte_pktmbuf_read(m, 0, hl, head);

		rc = tap_open(t, wo, o->port, o->queue,
			      h != NULL ? fmt_name_time(h, hl, plen, ts) : ts, err, len);
		if (rc != 0)
			return -rc;
	}
	p = fmt_pcap_record(&t->f, ts, cap, plen);
	if (p == NULL) {
		rc = fio_error(&t->f.f) ? fio_error(&t->f.f) : EIO;
		return -err_set(err, len, -rc, "%s: %s", fio_part(&t->f.f), strerror(rc));
	}
	d = rte_pktmbuf_read(m, 0, cap, p);
	if (d != p)
		memcpy(p, d, cap);
	t->st.taken++;
	rc = fmt_pcap_record_end(&t->f);
	tap_tally(t);
	if (rc != 0)
		return -err_set(err, len, rc, "%s: %s", fio_part(&t->f.f), strerror(-rc));
	return 0;
}

static uint64_t
pdump_drops(uint16_t port)
{
	struct rte_pdump_stats ps;

	memset(&ps, 0, sizeof(ps));
	if (rte_eal_primary_proc_alive(NULL) && rte_pdump_stats(port, &ps) == 0)
		return ps.ringfull + ps.nombuf;
	return 0;
}

/* The rx queues the tap takes: one, or (--queue *) every one of the port. */
static int
tap_queues(const struct dopts *o, uint16_t *first, uint16_t *last)
{
	struct rte_eth_dev_info info;
	int rc;

	if (o->queue != RTE_PDUMP_ALL_QUEUES) {
		*first = *last = (uint16_t)o->queue;
		return 0;
	}
	rc = rte_eth_dev_info_get(o->port, &info);
	if (rc != 0 || info.nb_rx_queues == 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: --port %u: %s\n", o->port,
			rc != 0 ? rte_strerror(-rc) : "no rx queues");
		return -1;
	}
	*first = 0;
	*last = (uint16_t)(info.nb_rx_queues - 1);
	return 0;
}

/*
 * Tap the queues, one rte_pdump_enable each. rte_pdump keeps one rx
 * callback per port and queue: a queue another tool taps (dpdk-pdump,
 * dpdk-dumpcap, another dpdk-ibvcap-dump) is refused with EEXIST (pdump
 * returns it negated in rte_errno); with '*' the queues before it would
 * stay tapped into our ring, so each queue is enabled on its own and ours
 * are undone before the ring goes.
 */
static int
tap_enable(const struct dopts *o, const struct tap *t)
{
	uint32_t q;

	for (q = t->first; q <= t->last; q++) {
		uint32_t u;
		int e;

		if (rte_pdump_enable(o->port, (uint16_t)q, RTE_PDUMP_FLAG_RX, t->ring, t->mp,
				     NULL) == 0)
			continue;
		e = rte_errno < 0 ? -rte_errno : rte_errno;
		for (u = t->first; u < q; u++) /* ours before it, undone */
			rte_pdump_disable(o->port, (uint16_t)u, RTE_PDUMP_FLAG_RX);
		if (e == EEXIST)
			fprintf(stderr,
				"dpdk-ibvcap-dump: port %u queue %u is already tapped by another tool "
				"(dpdk-pdump, dpdk-dumpcap or another dpdk-ibvcap-dump --source pdump): "
				"rte_pdump takes one tap per port and queue; stop the other tap, or "
				"choose another --queue\n", o->port, q);
		else
			fprintf(stderr,
				"dpdk-ibvcap-dump: rte_pdump_enable port %u queue %u: %s (the "
				"primary must call rte_pdump_init: dpdk-ibvcap does, except with GPU "
				"buffer split)\n", o->port, q, rte_strerror(e));
		return -1;
	}
	return 0;
}

/* Why to stop now (an I/O error, --count, --duration), or NULL to go on. */
static const char *
stop_due(const struct dopts *o, int64_t t0, int64_t now, bool io_error, bool count_done)
{
	if (io_error)
		return "I/O error";
	if (count_done)
		return "--count";
	if (o->duration_ns && now - t0 >= (int64_t)o->duration_ns)
		return "--duration";
	return NULL;
}

/* The port, as the primary has it. @return 0, or -1 (said on stderr). */
static int
port_check(const struct dopts *o)
{
	char why_not[DUMP_ERRLEN];

	if (rte_eth_dev_is_valid_port(o->port))
		return 0;
	if (quirk_pcap_port_unattached(o->port, why_not, sizeof(why_not)))
		fprintf(stderr, "dpdk-ibvcap-dump: --port %u: %s\n", o->port, why_not);
	else
		fprintf(stderr, "dpdk-ibvcap-dump: --port %u: no such port in the primary "
			"(%u ports)\n", o->port, rte_eth_dev_count_avail());
	return -1;
}

/* The ring and mempool rte_pdump copies into, and the taps on t's queues.
 * @return 0, or -1 (said on stderr; nothing left behind). */
static int
tap_start(const struct dopts *o, struct tap *t)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "ibvd_r%d", (int)getpid());
	/* rte_pdump requires a multi-producer, multi-consumer ring */
	t->ring = rte_ring_create(name, o->ring_size, (int)rte_socket_id(), 0);
	snprintf(name, sizeof(name), "ibvd_m%d", (int)getpid());
	t->mp = rte_pktmbuf_pool_create(name, o->nb_mbufs, 256, 0,
					(uint16_t)RTE_MIN(65535u, RTE_PKTMBUF_HEADROOM + 10240u),
					(int)rte_socket_id());
	if (t->ring == NULL || t->mp == NULL)
		fprintf(stderr, "dpdk-ibvcap-dump: pdump ring/mempool: %s (hugepages?)\n",
			rte_strerror(rte_errno));
	else if (tap_enable(o, t) == 0)
		return 0;
	rte_ring_free(t->ring);
	rte_mempool_free(t->mp);
	return -1;
}

/* The CPU it runs on, and the line it starts with. @return the CPU. */
static int
tap_start_line(const struct dopts *o, const struct tap *t)
{
	/* the capture's CPUs, where it has buffers (a tap is in no writer
	 * entry: later writers do not see its CPU) */
	struct shm_view v;
	char e[DUMP_ERRLEN];
	int cpu = dump_pick_cpu(o, shm_attach(&v, e, sizeof(e)) == 0 ? v.ctl : NULL, -1);

	if (o->queue == RTE_PDUMP_ALL_QUEUES)
		fprintf(stderr, "dpdk-ibvcap-dump %s: tapping port %u queue * (%u queues) through "
			"rte_pdump, on CPU %s\n", o->name, o->port, t->last - t->first + 1u,
			dump_cpu_text(cpu));
	else
		fprintf(stderr, "dpdk-ibvcap-dump %s: tapping port %u queue %u through rte_pdump, "
			"on CPU %s\n", o->name, o->port, o->queue, dump_cpu_text(cpu));
	return cpu;
}

/* How the tap's writing went: the first I/O error and its message, and
 * whether --count is reached (later copies are freed unwritten). */
struct tap_run {
	int error;
	bool full;
	char err[DUMP_ERRLEN];
};

/* One burst of copies from the ring, written and freed. @return how many. */
static unsigned int
tap_burst(struct tap *t, const struct dopts *o, const struct wr_opts *wo, struct tap_run *r)
{
	struct rte_mbuf *m[64];
	unsigned int n = rte_ring_dequeue_burst(t->ring, (void **)m, 64, NULL), i;

	for (i = 0; i < n; i++) {
		if (!r->error && !r->full) {
			r->error = tap_write(t, o, wo, m[i], r->err, sizeof(r->err));
			r->full = wo->count && t->st.taken >= wo->count;
		}
		rte_pktmbuf_free(m[i]);
	}
	return n;
}

/* Bursts until a stop (a signal, an I/O error, --count, --duration, the
 * primary's exit), a progress line every --stats-period. @return why. */
static const char *
tap_loop(struct tap *t, const struct dopts *o, const struct wr_opts *wo, struct tap_run *r,
	 int64_t t0)
{
	int64_t next_stats = t0 + (int64_t)o->stats_ns;
	const char *stop;

	while (!dump_quit) {
		unsigned int n = tap_burst(t, o, wo, r);
		int64_t now = mono_ns();

		stop = stop_due(o, t0, now, r->error != 0, r->full);
		if (stop != NULL)
			return stop;
		if (o->stats_ns && now >= next_stats) {
			fprintf(stderr, "dpdk-ibvcap-dump %s: %" PRIu64 " packets taken, %" PRIu64
				" written, %" PRIu64 " files, tap drops %" PRIu64 "\n", o->name,
				t->st.taken, t->st.written, t->st.files + (t->open ? 1 : 0),
				pdump_drops(o->port));
			next_stats += (int64_t)o->stats_ns;
		}
		if (n == 0) {
			if (!rte_eal_primary_proc_alive(NULL))
				return "the primary exited";
			rte_delay_us_sleep(200);
		}
	}
	return "stopped";
}

/* The file in progress closed. @return the exit status: 0, or 2 (an I/O
 * error; the first one is kept in r). */
static int
tap_end(struct tap *t, struct tap_run *r)
{
	char e2[DUMP_ERRLEN];
	int rc = r->error ? 2 : 0, crc;

	if (!t->open)
		return rc;
	crc = tap_close(t, e2, sizeof(e2));
	if (crc != 0) {
		rc = 2;
		if (!r->error) {
			r->error = -crc;
			snprintf(r->err, sizeof(r->err), "%s", e2);
		}
	}
	return rc;
}

int
dump_run_pdump(const struct dopts *o, const struct wr_opts *wo)
{
	struct tap_run r = { .error = 0 };
	struct dump_result res;
	struct tap *t;
	int64_t t0 = mono_ns();
	const char *why;
	uint32_t q;
	int cpu, rc;

	if (port_check(o) != 0)
		return 1;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return 1;
	if (tap_queues(o, &t->first, &t->last) != 0 || tap_start(o, t) != 0) {
		free(t);
		return 1;
	}
	cpu = tap_start_line(o, t);
	why = tap_loop(t, o, wo, &r, t0);
	if (rte_eal_primary_proc_alive(NULL))
		for (q = t->first; q <= t->last; q++)
			rte_pdump_disable(o->port, (uint16_t)q, RTE_PDUMP_FLAG_RX);
	while (tap_burst(t, o, wo, &r) > 0) /* what was copied before the disable */
		;
	rc = tap_end(t, &r);
	res = (struct dump_result){
		.format = wr_format_name(wo->format), .st = &t->st, .why = dump_quit ? "signal" : why,
		.error = r.error, .errtext = r.err, .tap_drops = pdump_drops(o->port),
		.elapsed = (double)(mono_ns() - t0) / 1e9, .cpu = cpu, .tap = &t->io,
	};
	dump_summary(o, &res);
	rte_ring_free(t->ring);
	rte_mempool_free(t->mp);
	free(t);
	return rc;
}
