/* SPDX-License-Identifier: BSD-3-Clause */
/* Arrival times: the host TSC and each port's NIC clock fitted to
 * CLOCK_REALTIME (lib/hwclock) by the main lcore, at start and once a
 * second; the rx lcores convert each packet's stamp through the published
 * line. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "clock.h"
#include "ports.h"
#include "tconv.h"

#define ROUND_READS 5   /* reads per sampling round: the tightest is kept */
#define START_ROUNDS 8  /* rounds at start, 20 ms apart */

static int
read_tsc(void *arg, uint64_t *ticks)
{
	(void)arg;
	*ticks = rte_rdtsc_precise();
	return 0;
}

static int
read_nic(void *arg, uint64_t *ticks)
{
	return rte_eth_read_clock(*(const uint16_t *)arg, ticks);
}

/* one round of bracketed reads into the calibration; 0 or -errno */
static int
round_of(struct ibv_clock *k, hwclock_read_fn rd, void *arg)
{
	struct hwclock_sample s[ROUND_READS];
	unsigned int i;
	int rc;

	for (i = 0; i < ROUND_READS; i++) {
		rc = hwclock_sample_read(rd, arg, &s[i]);
		if (rc != 0)
			return rc;
	}
	return hwclock_add(&k->cal, s, ROUND_READS);
}

static void
describe(struct ibv_clock *k, const char *who)
{
	struct hwclock_state st;

	hwclock_state_get(&k->cal, &st);
	snprintf(k->what, sizeof(k->what), "%s calibrated to CLOCK_REALTIME: %.6f MHz "
		 "(%+.2f ppm of nominal), within %.0f ns", who, st.hz / 1e6, st.ppm,
		 st.uncertainty_ns);
	k->steps = st.steps_host + st.steps_device + st.steps_unknown;
}

/* A NIC clock: already Unix time (real-time mode), or ticks to calibrate,
 * or unreadable (then the host clock stamps its packets). */
static void
nic_start(struct ibv_port *p)
{
	struct ibv_clock *k = &p->clk;
	struct hwclock_sample s;
	struct hwclock_cfg cfg;
	int64_t diff;
	unsigned int r;
	int rc;

	hwclock_pub_init(&k->pub);
	k->mode = IBV_CLK_HOST;
	if (!p->ts_offload) {
		snprintf(k->what, sizeof(k->what), "host clock (the port gives no rx "
			 "timestamps)");
		return;
	}
	rc = hwclock_sample_read(read_nic, &p->port_id, &s);
	if (rc != 0) {
		snprintf(k->what, sizeof(k->what), "host clock (the port stamps packets but "
			 "its clock cannot be read: %s)", strerror(-rc));
		return;
	}
	switch (hwclock_classify(s.ticks, s.host_before_ns, HWCLOCK_CLASSIFY_TOL_NS, &diff)) {
	case HWCLOCK_KIND_UNIX_NS:
	case HWCLOCK_KIND_PACKED:
		hwclock_init_rt(&k->pub, false, 0);
		k->mode = IBV_CLK_REALTIME;
		snprintf(k->what, sizeof(k->what), "NIC real-time clock (NIC - host = %+.6f s)",
			 (double)diff / 1e9);
		return;
	default:
		break;
	}
	hwclock_cfg_defaults(&cfg);
	hwclock_init(&k->cal, &cfg, &k->pub);
	for (r = 0; r < START_ROUNDS; r++) {
		if (r > 0)
			rte_delay_ms(20);
		round_of(k, read_nic, &p->port_id);
	}
	k->mode = IBV_CLK_TICKS;
	describe(k, "NIC free-running clock");
}

void
ibv_clocks_start(struct ibv_clock *h, struct ibv_ports *ports, uint64_t tsc_hz)
{
	struct hwclock_cfg cfg;
	struct hwclock_conv cv;
	unsigned int i, r;

	/* the host clock first: a line from EAL's TSC rate, then fitted */
	hwclock_cfg_defaults(&cfg);
	cfg.nominal_hz = tsc_hz;
	hwclock_init(&h->cal, &cfg, &h->pub);
	hwclock_conv_line(&cv, rte_rdtsc(), real_ns(),
			  1e9 / (double)tsc_hz, 64);
	hwclock_pub_write(&h->pub, &cv);
	for (r = 0; r < 3; r++)
		round_of(h, read_tsc, NULL);
	h->mode = IBV_CLK_TICKS;
	describe(h, "TSC");
	for (i = 0; i < ports->n; i++) {
		struct ibv_port *p = &ports->port[i];

		nic_start(p);
		printf("dpdk-ibvcap: port %u (%s): arrival times from the %s\n", p->port_id,
		       p->name, p->clk.what);
	}
	fflush(stdout);
}

void
ibv_clocks_tick(struct ibv_clock *host, struct ibv_ports *ports)
{
	unsigned int i;
	uint64_t steps;

	round_of(host, read_tsc, NULL);
	steps = host->steps;
	describe(host, "TSC");
	if (host->steps != steps)
		printf("dpdk-ibvcap: the host clock (CLOCK_REALTIME) stepped: arrival times "
		       "follow it\n");
	for (i = 0; i < ports->n; i++) {
		struct ibv_port *p = &ports->port[i];

		if (p->clk.mode != IBV_CLK_TICKS)
			continue;
		steps = p->clk.steps;
		if (round_of(&p->clk, read_nic, &p->port_id) == 0)
			describe(&p->clk, "NIC free-running clock");
		if (p->clk.steps != steps)
			printf("dpdk-ibvcap: port %u (%s): a clock stepped (NIC or host): "
			       "recalibrated, %s\n", p->port_id, p->name, p->clk.what);
	}
}

const char *
ibv_clock_mode_name(enum ibv_clk_mode m)
{
	switch (m) {
	case IBV_CLK_HOST: return "host";
	case IBV_CLK_REALTIME: return "nic-realtime";
	case IBV_CLK_TICKS: return "nic-calibrated";
	default: return "?";
	}
}
