/* SPDX-License-Identifier: BSD-3-Clause */
/* codifgen: CODIF multi-antenna traffic to pcap, kernel UDP multicast or a DPDK port. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "codifgen.h"
#include "fmt_pcap.h"
#include "gen.h"
#include "parse.h"
#include "quirks.h"
#include "tconv.h"

/* Pacing of socket and DPDK output: real time, --rate-fps or --rate-gbps. */
struct pacer {
	uint64_t t0;        /* monotonic start */
	int64_t ts0;        /* first packet's frame time */
	double scale;       /* ns of wall per ns of frame time (fps mode) */
	double ns_per_bit;  /* gbps mode */
	uint64_t bits;
	bool none;
};

static void
pacer_init(struct pacer *p, const struct opts *o, const struct gen *g)
{
	memset(p, 0, sizeof(*p));
	p->ts0 = INT64_MIN;
	if (o->rate_gbps > 0) {
		p->ns_per_bit = 1.0 / o->rate_gbps;
	} else if (o->rate_fps == 0) {
		p->none = true;
	} else if (o->rate_fps > 0) {
		p->scale = 1e9 / o->rate_fps / (double)g->frame_ns;
	} else {
		p->scale = 1.0;
	}
}

/* Wait until packet (frame time ts, len bytes) is due. */
static void
pacer_wait(struct pacer *p, int64_t ts, uint32_t len)
{
	uint64_t due, now;

	if (p->none)
		return;
	if (p->ts0 == INT64_MIN) {
		p->ts0 = ts;
		p->t0 = (uint64_t)mono_ns();
	}
	if (p->ns_per_bit > 0) {
		due = p->t0 + (uint64_t)((double)p->bits * p->ns_per_bit);
		p->bits += (uint64_t)(len + 24) * 8; /* + preamble, FCS, IFG */
	} else {
		due = p->t0 + (uint64_t)((double)(ts - p->ts0) * p->scale);
	}
	now = (uint64_t)mono_ns();
	if (due > now + 200000) {
		struct timespec req;
		uint64_t sl = due - now - 100000;

		req.tv_sec = (time_t)(sl / 1000000000ULL);
		req.tv_nsec = (long)(sl % 1000000000ULL);
		nanosleep(&req, NULL);
	}
	while ((uint64_t)mono_ns() < due && !cg_stop)
		;
}


/* The outputs of a run, and which of them are open. */
struct outputs {
	struct fmt_sink op;
	struct out_sock os;
	struct out_dpdk od;
	bool pcap, sock, dpdk;
};

/* Start EAL on the arguments before '--', if any, and leave argc/argv at
 * codifgen's own. --check-config after '--' skips EAL (the EAL arguments
 * not looked at). @return 1: EAL started; 0: no EAL arguments; -1: EAL
 * skipped; -2: EAL failed (said). */
static int
eal_start(int *argc, char ***argv)
{
	int i, n, eal_args = 0;

	for (i = 1; i < *argc; i++)
		if (strcmp((*argv)[i], "--") == 0) {
			eal_args = i;
			break;
		}
	if (eal_args == 0)
		return 0;
	for (i = eal_args + 1; i < *argc; i++)
		if (strcmp((*argv)[i], "--check-config") == 0) {
			(*argv)[eal_args] = (*argv)[0];
			*argc -= eal_args;
			*argv += eal_args;
			return -1;
		}
	n = rte_eal_init(*argc, *argv);
	if (n < 0) {
		fprintf(stderr, "codifgen: EAL init failed: %s\n", rte_strerror(rte_errno));
		return -2;
	}
	*argc -= n;
	*argv += n;
	return 1;
}

/* Open the outputs o asks for, in order pcap, socket, DPDK port. On failure
 * what did open stays open (and marked) for outputs_close. @return 0 or -1
 * (said). */
static int
outputs_open(struct outputs *out, const struct opts *o, const struct gen *g)
{
	memset(out, 0, sizeof(*out));
	if (o->pcap_path != NULL) {
		if (pcap_out_open(&out->op, o->pcap_path) != 0)
			return -1;
		out->pcap = true;
	}
	if (o->socket) {
		if (sock_open(&out->os, &o->cfg) != 0) {
			sock_close(&out->os);
			return -1;
		}
		out->sock = true;
	}
	if (o->dpdk) {
		if (dpdk_open(&out->od, o, g) != 0) {
			dpdk_close(&out->od, 0);
			return -1;
		}
		out->od.pace = !(o->rate_fps == 0);
		out->od.drop = o->tx_drop;
		out->dpdk = true;
	}
	return 0;
}

/* Emit every packet of g to every open output, paced for the network ones,
 * until done or stopped. @return 0 done, 1 an output failed, 2 stopped. */
static int
send_all(struct outputs *out, const struct opts *o, struct gen *g, uint8_t *buf,
	 uint64_t *bytes)
{
	struct gen_pkt p;
	struct pacer pc;

	pacer_init(&pc, o, g);
	while (!cg_stop && gen_next(g, &p) == 1) {
		uint32_t len = gen_build(g, &p, buf);

		*bytes += len;
		if (out->pcap && pcap_out_write(&out->op, o->pcap_path, p.ts_ns, buf, len) != 0)
			return 1;
		if (out->sock || out->dpdk)
			pacer_wait(&pc, p.ts_ns, len);
		if (out->sock && sock_send(&out->os, g, &p, buf,
					   gen_build_payload(g, &p, buf)) != 0)
			return 1;
		if (out->dpdk && dpdk_send(&out->od, g, &p) != 0)
			return 1;
	}
	return cg_stop ? 2 : 0;
}

/* The run's summary on stderr: streams, packets, bytes and rates. */
static void
summary_print(const struct outputs *out, const struct opts *o, const struct gen *g,
	      uint64_t bytes, double el)
{
	fprintf(stderr,
		"codifgen: %u streams (%u antennas, %u groups, %u threads), "
		"%" PRIu64 " packets, %" PRIu64 " bytes in %.3f s "
		"(%.3f Mpps, %.3f Gb/s)%s\n",
		g->nstream, o->cfg.nant, o->cfg.ngroup, o->cfg.nthread, g->packets, bytes, el,
		el > 0 ? (double)g->packets / el / 1e6 : 0.0,
		el > 0 ? (double)bytes * 8 / el / 1e9 : 0.0,
		cg_stop ? " [interrupted]" : "");
	if (out->sock && out->os.retries)
		fprintf(stderr, "codifgen: socket send retried %" PRIu64
			" times (kernel queue full)\n", out->os.retries);
}

/* Close the open outputs (the port after --linger unless stopped).
 * @return 0, or 1 when the pcap could not be completed (said). */
static int
outputs_close(struct outputs *out, const struct opts *o)
{
	int rc = 0;

	if (out->dpdk) {
		dpdk_close(&out->od, cg_stop ? 0 : o->linger_ns);
		if (!o->quiet)
			fprintf(stderr, "codifgen: port %u: %" PRIu64 " frames sent, %"
				PRIu64 " tx retries, %" PRIu64 " dropped (tx ring full)\n",
				out->od.port, out->od.sent, out->od.retries, out->od.dropped);
	}
	if (out->sock)
		sock_close(&out->os);
	if (out->pcap && pcap_out_close(&out->op, o->pcap_path) != 0)
		rc = 1;
	return rc;
}

/* Write g's ground truth to --truth FILE ('-': stdout). @return 0 or 1
 * (said). */
static int
truth_write(const struct gen *g, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	int rc = 0;

	if (f == NULL || gen_truth_json(g, f) != 0) {
		fprintf(stderr, "codifgen: --truth: '%s': %s\n", path, strerror(errno));
		rc = 1;
	}
	if (f != NULL && f != stdout && fclose(f) != 0) {
		fprintf(stderr, "codifgen: --truth: '%s': %s\n", path, strerror(errno));
		rc = 1;
	}
	return rc;
}

/* --check-config: build the streams to check them, print the effective
 * configuration. @return the exit status. */
static int
check_config(const struct opts *o)
{
	struct gen g;

	if (gen_init(&g, &o->cfg) != 0) {
		fprintf(stderr, "codifgen: %s\n", g.err);
		return 1;
	}
	gen_free(&g);
	cg_opts_print(o, stdout);
	return 0;
}

/* Generate, send and account: the run between start-up and teardown.
 * @return the exit status. */
static int
run(const struct opts *o, struct gen *g)
{
	struct outputs out;
	uint64_t t_start, bytes = 0;
	uint8_t *buf = malloc(GEN_MAX_FRAME);
	int rc = 1;

	if (buf == NULL)
		return 1;
	if (outputs_open(&out, o, g) == 0) {
		cg_stop_on_signals();
		t_start = (uint64_t)mono_ns();
		rc = send_all(&out, o, g, buf, &bytes);
		if (!o->quiet)
			summary_print(&out, o, g, bytes,
				      (double)((uint64_t)mono_ns() - t_start) / 1e9);
	}
	if (outputs_close(&out, o) != 0)
		rc = 1;
	if (!out.pcap && !out.sock && !out.dpdk)
		rc = 1;
	else if (o->truth_path != NULL && truth_write(g, o->truth_path) != 0)
		rc = 1;
	free(buf);
	return rc;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct gen g;
	int rc = 1, eal = eal_start(&argc, &argv);

	if (eal == -2)
		return 1;
	if (cg_parse_args(argc, argv, &o) != 0)
		goto out_eal;
	if (o.check_only)
		return check_config(&o);
	if (o.dpdk && eal == 0) {
		fprintf(stderr, "codifgen: --tx-port needs EAL options before '--' "
			"(e.g. codifgen --no-pci --vdev net_pcap0,tx_pcap=out.pcap -- --tx-port 0 ...)\n");
		goto out_eal;
	}
	if (gen_init(&g, &o.cfg) != 0) {
		fprintf(stderr, "codifgen: %s\n", g.err);
		goto out_eal;
	}
	rc = run(&o, &g);
	gen_free(&g);
out_eal:
	fflush(stdout);
	if (eal > 0 && quirk_eal_cleanup_safe()) /* not with net_memif: quirks.h */
		rte_eal_cleanup();
	return rc;
}
