/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-ibvcap-dump's options: one lib/opt table (parsing, --help, the man
 * page, --check-config's print and --dump-options), the EAL arguments
 * before "--", and the checks that take --write and the options together. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_pdump.h>

#include "dump.h"
#include "err.h"
#include "opt.h"
#include "parse.h"

static void
defaults(void *obj, void *ctx)
{
	struct dopts *o = obj;

	(void)ctx;
	memset(o, 0, sizeof(*o));
	snprintf(o->prefix, sizeof(o->prefix), "rte");
	snprintf(o->name, sizeof(o->name), "dump-%d", (int)getpid());
	o->queue = RTE_PDUMP_ALL_QUEUES;
	o->ring_size = 16384;
	o->nb_mbufs = 16383;
}

static int
set_prefix(const struct opt_arg *a, char *err, size_t errlen)
{
	struct dopts *o = a->obj;

	if (*a->val == '\0' || strlen(a->val) >= sizeof(o->prefix) || strchr(a->val, '/')) {
		return err_set(err, errlen, -EINVAL, "%s: '%s': expected a prefix name", a->opt,
			       a->val);
	}
	str_copy(o->prefix, sizeof(o->prefix), a->val);
	return 0;
}

static void
print_prefix(const struct opt_cmd *cmd, const struct opt_def *d, const void *obj, FILE *f)
{
	(void)cmd;
	fprintf(f, "%s = %s\n", d->name, ((const struct dopts *)obj)->prefix);
}

static int
set_queue(const struct opt_arg *a, char *err, size_t errlen)
{
	struct dopts *o = a->obj;
	uint64_t v;
	int rc;

	if (strcmp(a->val, "*") == 0) {
		o->queue = RTE_PDUMP_ALL_QUEUES;
		return 0;
	}
	rc = opt_value_u64(a, &v, err, errlen);
	if (rc == 0)
		o->queue = (uint32_t)v;
	return rc;
}

static int
set_lcore(const struct opt_arg *a, char *err, size_t errlen)
{
	struct dopts *o = a->obj;
	uint64_t v;

	if (strcmp(a->val, "auto") == 0) {
		o->lcore_set = false;
		return 0;
	}
	if (parse_u64(a->opt, a->val, 0, RTE_MAX_LCORE - 1, &v, NULL, 0) != 0) {
		return err_set(err, errlen, -EINVAL, "%s: '%s': expected a CPU number 0..%d or auto",
			       a->opt, a->val, RTE_MAX_LCORE - 1);
	}
	o->lcore = (unsigned int)v;
	o->lcore_set = true;
	return 0;
}

static void
print_lcore(const struct opt_cmd *cmd, const struct opt_def *d, const void *obj, FILE *f)
{
	const struct dopts *o = obj;

	(void)cmd;
	if (o->lcore_set)
		fprintf(f, "%s = %u\n", d->name, o->lcore);
	else
		fprintf(f, "%s = auto\n", d->name);
}

static const char *const source_names[] = { "buffers", "pdump", NULL };
static const char *const record_names[] = { "follow", "always", NULL };

#define O struct dopts
static const struct opt_def lopts[] = {
	{"file-prefix", .kind = OPT_CUSTOM, .metavar = "PREFIX", .def = "rte",
	 .set = set_prefix, .print = print_prefix,
	 .help = "the primary's EAL --file-prefix (or give it among EAL-ARGS)"},
	{"write", .kind = OPT_STRING, .metavar = "FORMAT:DIR[,key=value...]", OPT_AT(O, spec),
	 OPT_SEEN(O, have_spec),
	 .kv = &wr_opts_kv, .help = "raw | codif | pcap | pcapng into DIR"},
	{"antenna", .kind = OPT_STRING, .metavar = "A[,A...]", .def = "all",
	 OPT_AT(O, antennas), .help = "antennas by name or index"},
	{"count", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = UINT64_MAX,
	 .unset = "none", OPT_AT(O, count),
	 .help = "stop after N frames written (buffers: the time row in progress is "
		 "completed; pdump: exactly N packets)"},
	{"duration", .kind = OPT_DURATION, .metavar = "T", .min = 1000000,
	 .max = 400ULL * 86400 * 1000000000ULL, .unset = "none", OPT_AT(O, duration_ns),
	 .help = "stop after T (e.g. 30s)"},
	{"name", .kind = OPT_STRING, .metavar = "NAME", .def = "dump-<pid>", OPT_AT(O, name),
	 .help = "name in the primary's writer table: one running writer per name; "
		 "restarted under it, a writer takes its entry and scans back"},
	{"lcore", .kind = OPT_CUSTOM, .metavar = "N|auto", .def = "auto", .set = set_lcore,
	 .print = print_lcore, .example = "1",
	 .help = "the lcore (CPU) this process runs on; auto: the lowest CPU of its affinity\n"
		 "  that neither the capture's lcores nor another writer process uses\n"
		 "  (else the least used, said in one line)"},
	{"stats-period", .kind = OPT_DURATION, .flags = OPT_F_ZERO, .metavar = "T",
	 .min = 10000000, .max = 86400ULL * 1000000000ULL, .unset = "none",
	 OPT_AT(O, stats_ns), .help = "a progress line every T (0 = none)"},
	{"summary-json", .kind = OPT_PATH, .metavar = "FILE", OPT_AT(O, summary),
	 .help = "final counts as JSON"},
	{"max-rate", .kind = OPT_DOUBLE, .metavar = "F", .dmin = 1, .dmax = 1e9,
	 .unset = "no limit", OPT_AT(O, max_rate),
	 .help = "write at most F frames per second (to share a disk; a writer held back "
		 "loses frames, counted; one descheduled makes up at most 0.1 s of its pace, "
		 "so no second exceeds 1.1 F)"},
	{"record", .kind = OPT_ENUM, .names = record_names, OPT_AT(O, record_always),
	 .help = "follow: record as the primary's scans and --record say (only inside\n"
		 "  scans, into DIR/SCAN/, once it has scans or --record idle); always:\n"
		 "  every frame from attach to exit, scans ignored"},
	{"source", .kind = OPT_ENUM, .names = source_names, OPT_AT(O, pdump),
	 .help = "buffers: the antenna buffers; pdump: copies of whole packets of a "
		 "port/queue"},
	{"port", .kind = OPT_UINT, .metavar = "P", .min = 0, .max = RTE_MAX_ETHPORTS - 1,
	 .unset = "none", OPT_AT(O, port), OPT_SEEN(O, port_set), .help = "pdump: the port id"},
	{"queue", .kind = OPT_CUSTOM, .metavar = "Q|*", .min = 0, .max = 65534,
	 .def = "*: all", .set = set_queue, .help = "pdump: the rx queue"},
	{"ring-size", .kind = OPT_UINT, .flags = OPT_F_POW2, .metavar = "N", .min = 64,
	 .max = 1u << 24, OPT_AT(O, ring_size), .help = "pdump: ring of packet copies"},
	{"mbufs", .kind = OPT_UINT, .metavar = "N", .min = 64, .max = 1u << 24,
	 OPT_AT(O, nb_mbufs), .help = "pdump: mbufs for copies"},
	{"check-config", .kind = OPT_FLAG, .flags = OPT_F_ACTION, OPT_AT(O, check_only),
	 .help = "check the options (and --write's directory), print the effective "
		 "configuration and exit 0, or exit 1 naming the option; attaches to nothing"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = opt_act_help,
	 .help = "this text"},
	{ .name = NULL },
};
#undef O

static const struct opt_cmd dump_cmd = {
	.prog = "dpdk-ibvcap-dump",
	.usage =
"Usage: dpdk-ibvcap-dump [EAL-ARGS --] --file-prefix PREFIX --write FORMAT:DIR[,key=value...]\n"
"           [options]\n"
"  or:  dpdk-ibvcap-dump [EAL-ARGS --] --file-prefix PREFIX --source pdump --port P\n"
"           [--queue Q] --write pcap:DIR[,...] [options]\n",
	.about =
"Save a running dpdk-ibvcap's per-antenna buffers to files (a DPDK secondary\n"
"process: EAL arguments are built for you, as dpdk-dumpcap does; EAL-ARGS\n"
"before '--', as dpdk-ibvcap and codifgen take them, are added after those\n"
"and win: '--file-prefix P --' there is the same as --file-prefix P, and\n"
"-l there overrides --lcore). Several may run at once, each\n"
"with its own cursor; a writer that falls behind the ring loses frames with\n"
"an exact count, the capture never waits for it.\n",
	.epilog =
"Stops on SIGINT/SIGTERM/SIGHUP, --count, --duration, or when the primary stops (after\n"
"taking every frame it flushed) or dies (after taking every final frame); files\n"
"are then completed and renamed from NAME.part. Exit status: 0 done; 1 bad\n"
"option or cannot attach; 2 an I/O error (e.g. ENOSPC: finished files stay\n"
"valid, the file in progress is cut at its last whole frame); 3 stopped at\n"
"min-free (on-full=stop, or nothing of its own left to remove): every file\n"
"complete, the reason (directory, free space, min-free) on stderr.\n",
	.opts = lopts,
	.defaults = defaults,
	.obj_size = sizeof(struct dopts),
};

/* EAL-ARGS -- OPTIONS: the EAL arguments before "--" (none without one);
 * their --file-prefix is the primary's. An option of ours before "--" is
 * the old order: refused, saying the order. */
static int
split_eal(int *argc, char ***argv, struct dopts *o)
{
	int i, k;

	for (i = 1; i < *argc && strcmp((*argv)[i], "--") != 0; i++)
		;
	if (i == *argc)
		return 0;
	for (k = 1; k < i; k++) {
		const char *a = (*argv)[k];
		const struct opt_def *d;
		char name[64];

		if (strncmp(a, "--file-prefix", 13) == 0 && (a[13] == '=' || a[13] == '\0')) {
			const char *v = a[13] == '=' ? a + 14 : k + 1 < i ? (*argv)[k + 1] : "";

			if (*v != '\0' && strlen(v) < sizeof(o->eal_prefix))
				str_copy(o->eal_prefix, sizeof(o->eal_prefix), v);
			continue;
		}
		if (strncmp(a, "--", 2) != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(a + 2, "="), a + 2);
		d = opt_find(&dump_cmd, name);
		if (d != NULL) {
			fprintf(stderr, "dpdk-ibvcap-dump: '%s' before '--': EAL arguments go "
				"before '--', this program's options after it (dpdk-ibvcap-dump "
				"[EAL-ARGS --] OPTIONS)\n", a);
			return -1;
		}
	}
	o->eal_argc = i - 1;
	o->eal_argv = *argv + 1;
	(*argv)[i] = (*argv)[0]; /* the options, with the program's name first */
	*argv += i;
	*argc -= i;
	return 0;
}

static int
parse(int argc, char **argv, struct dopts *o)
{
	char err[DUMP_ERRLEN];
	int rc;

	defaults(o, NULL);
	if (split_eal(&argc, &argv, o) != 0)
		return -1;
	rc = opt_parse_argv(&dump_cmd, o, NULL, argc, argv, NULL, err, sizeof(err));
	if (rc > 0)
		exit(0); /* --help */
	if (rc < 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
		return -1;
	}
	if (o->eal_prefix[0] != '\0') /* EAL's, after ours, is the one taken */
		str_copy(o->prefix, sizeof(o->prefix), o->eal_prefix);
	if (!o->have_spec) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write FORMAT:DIR is required (see --help)\n");
		return -1;
	}
	if (o->pdump && !o->port_set) {
		fprintf(stderr, "dpdk-ibvcap-dump: --source pdump needs --port\n");
		return -1;
	}
	if (o->pdump && (o->antennas[0] != '\0' || o->max_rate > 0)) {
		fprintf(stderr, "dpdk-ibvcap-dump: --%s is for --source buffers (a pdump tap takes "
			"every packet of its port/queue)\n", o->antennas[0] ? "antenna" : "max-rate");
		return -1;
	}
	if (!o->pdump && o->port_set) {
		fprintf(stderr, "dpdk-ibvcap-dump: --port and --queue are for --source pdump\n");
		return -1;
	}
	return 0;
}

/* --write with the options: a dump writes on one lcore, a tap takes whole
 * packets into pcap and keeps no disk budget, and the directory must be
 * writable. */
static int
check_write(struct dopts *o, struct wr_opts *wo)
{
	char err[DUMP_ERRLEN];

	if (wr_opts_parse(wo, "--write", o->spec, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
		return -1;
	}
	if (wo->lcores > 1) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write lcores: '%u': a dpdk-ibvcap-dump writes "
			"on one lcore: expected lcores=1 (spread antennas over several "
			"dpdk-ibvcap-dump with --antenna)\n", wo->lcores);
		return -1;
	}
	if (o->pdump && wo->budget) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write %s: min-free and on-full are for --source "
			"buffers (the pdump tap keeps no disk budget)\n", o->spec);
		return -1;
	}
	if (o->pdump && wo->format != WR_PCAP) {
		fprintf(stderr, "dpdk-ibvcap-dump: --source pdump writes whole packets: use "
			"--write pcap:DIR\n");
		return -1;
	}
	if (access(wo->dir, W_OK) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write: output directory '%s': %s (expected a "
			"writable directory)\n", wo->dir, strerror(errno));
		return -1;
	}
	if (wr_budget_check(wo, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write %s: %s\n", o->spec, err);
		return -1;
	}
	if (o->count)
		wo->count = o->count;
	return 0;
}

int
dump_options(int argc, char **argv, struct dopts *o, struct wr_opts *wo)
{
	int i;

	if (parse(argc, argv, o) != 0 || check_write(o, wo) != 0)
		return -1;
	if (!o->check_only)
		return 0;
	opt_print(&dump_cmd, o, stdout);
	printf("# EAL arguments after the built ones:");
	for (i = 0; i < o->eal_argc; i++)
		printf(" %s", o->eal_argv[i]);
	printf("%s\n", o->eal_argc ? "" : " none");
	return 1;
}
