/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-ibvcap-dump: a DPDK secondary that saves a running dpdk-ibvcap's
 * antenna buffers as raw/codif/pcap files, or taps a port/queue through
 * rte_pdump (whole packets, for traffic no antenna buffer holds). main()
 * builds its EAL arguments, attaches and runs the source asked for. */

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "dump.h"
#include "quirks.h"

#define MAX_EAL_ARGS 64

/* Our own EAL arguments, as dpdk-dumpcap builds its, then the EAL-ARGS
 * given before "--" (they win). @return how many, or -1. */
static int
eal_args(const struct dopts *o, char *argv0, char **eal, char *lc, size_t lclen, char *pf,
	 size_t pflen)
{
	int n = 0, i;

	if (dump_eal_lcores(o, lc, lclen) != 0)
		return -1;
	snprintf(pf, pflen, "--file-prefix=%s", o->prefix);
	eal[n++] = argv0;
	eal[n++] = (char *)"--proc-type=secondary";
	eal[n++] = pf;
	if (lc[0] != '\0')
		eal[n++] = lc;
	eal[n++] = (char *)"--no-telemetry";
	eal[n++] = (char *)"--log-level=lib.eal:error";
	if (!o->pdump)
		eal[n++] = (char *)"--no-pci"; /* buffers need no device */
	for (i = 0; i < o->eal_argc && n < MAX_EAL_ARGS - 1; i++)
		eal[n++] = o->eal_argv[i];
	eal[n] = NULL;
	return n;
}

int
main(int argc, char **argv)
{
	struct dopts o;
	struct wr_opts wo;
	char lc[SHM_MAX_CPUS * 5 + 16], pf[160];
	char *eal[MAX_EAL_ARGS];
	int n, rc;

	dump_ignore_sigpipe();
	rc = dump_options(argc, argv, &o, &wo);
	if (rc != 0)
		return rc > 0 ? 0 : 1;
	n = eal_args(&o, argv[0], eal, lc, sizeof(lc), pf, sizeof(pf));
	if (n < 0)
		return 1;
	/* a writer needs no port of the primary: net_pcap's failed re-probe
	 * of one is not an error here (lib/quirks); a tap names it */
	quirk_secondary_log_begin();
	rc = rte_eal_init(n, eal);
	quirk_secondary_log_end();
	if (rc < 0) {
		fprintf(stderr,
			"dpdk-ibvcap-dump: cannot attach to a dpdk-ibvcap with --file-prefix %s: %s "
			"(is it running, on hugepages, as this user?)\n", o.prefix,
			rte_strerror(rte_errno));
		return 1;
	}
	dump_stop_on_signals();
	rc = o.pdump ? dump_run_pdump(&o, &wo) : dump_run_buffers(&o, &wo);
	rte_eal_cleanup();
	return rc;
}
