/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-ibvcap-dump: a DPDK secondary that saves a running dpdk-ibvcap's
 * antenna buffers as raw/codif/pcap files, or taps a port/queue through
 * rte_pdump (whole packets, for traffic no antenna buffer holds). */

#define _GNU_SOURCE /* sched_getaffinity, CPU_SET */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>
#include <rte_ring.h>

#include "fmt_name.h"
#include "fmt_pcap.h"
#include "json.h"
#include "opt.h"
#include "parse.h"
#include "quirks.h"
#include "shm_eal.h"
#include "stats.h"
#include "tconv.h"
#include "writer.h"

#define ERRLEN (PATH_MAX + 512)
#define MAX_EAL_ARGS 64

struct dopts {
	char prefix[128];
	char spec[PATH_MAX + 64];
	bool have_spec;
	char antennas[1024];
	uint64_t count;
	uint64_t duration_ns;
	char name[SHM_NAMELEN];
	unsigned int lcore;
	bool lcore_set;        /* --lcore given (else a CPU is picked: pick_cpu) */
	uint64_t stats_ns;
	char summary[PATH_MAX];
	bool pdump;
	uint16_t port;
	bool port_set;
	uint32_t queue;        /* RTE_PDUMP_ALL_QUEUES for '*' */
	uint32_t ring_size;
	uint32_t nb_mbufs;
	double max_rate;       /* frames per second written, 0 = no limit */
	bool check_only;       /* --check-config */
	bool record_always;    /* --record always: the primary's scans ignored */
	char eal_prefix[128];  /* --file-prefix among the EAL arguments (they win) */
	int eal_argc;
	char **eal_argv;
};

static volatile sig_atomic_t quit;

/* The CPUs this process may run on (its affinity, ascending), taken before
 * EAL pins anything, and the one it runs on (pick_cpu; -1 several). */
static int allowed_cpu[SHM_MAX_CPUS];
static unsigned int nallowed;
static int chosen_cpu = -1;

/* SIGINT, SIGTERM and SIGHUP end the writer the same way (its files
 * finished and renamed, its summary); SIGPIPE is ignored (a reader of its
 * output that went away stops nothing but that output). */
static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

/* ---- options (one table, lib/opt) ------------------------------------- */

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
		snprintf(err, errlen, "%s: '%s': expected a prefix name", a->opt, a->val);
		return -EINVAL;
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
		snprintf(err, errlen, "%s: '%s': expected a CPU number 0..%d or auto", a->opt,
			 a->val, RTE_MAX_LCORE - 1);
		return -EINVAL;
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
	char err[ERRLEN];
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

/* Antenna selection (--antenna): names or indices of this capture's
 * antennas; 0 = none matched (error set). */
static uint64_t
select_antennas(const struct shm_view *v, const char *list, char *err, size_t len)
{
	const char *names[64];
	uint64_t mask;
	unsigned int a;

	if (list[0] == '\0')
		return v->nant == 64 ? ~0ULL : (1ULL << v->nant) - 1;
	for (a = 0; a < v->nant && a < 64; a++)
		names[a] = v->ctl->ant[a].name;
	if (parse_antenna_select("--antenna", list, names, v->nant, &mask, err, len) != 0)
		return 0;
	return mask;
}

static struct wr_writer *summary_writer; /* per antenna figures, if any */

/* The pdump tap's I/O queue: its io_uring writes in flight, and how its
 * last file writes (io_uring, else why not). */
static struct {
	bool on;
	struct fio_depth depth;
	bool uring;
	char why[96];
} tap_io;

/* The summary: a line on stderr and (--summary-json) the figures under the
 * writer table's names (docs/counters.md), then what only a dump has. */
static void
summary(const struct dopts *o, const char *fmt, const struct wr_stats *st,
	const char *why, int error, const char *errtext, uint64_t tap_drops,
	double el)
{
	struct shm_writer rec;
	char err[ERRLEN];
	json_t *root, *arr, *a;

	if (o->pdump)
		fprintf(stderr,
			"dpdk-ibvcap-dump %s: %s, %" PRIu64 " packets written in %" PRIu64 " files, %"
			PRIu64 " bytes in %.2f s; tap drops (ring full + no mbuf): %" PRIu64 "; cut "
			"off by an I/O error: %" PRIu64 "%s\n", o->name, why, st->written, st->files,
			st->bytes, el, tap_drops, st->cut, error ? " [I/O error]" : "");
	else
		fprintf(stderr,
			"dpdk-ibvcap-dump %s: %s, %" PRIu64 " frames written (%" PRIu64 " placeholders)"
			" in %" PRIu64 " files, %" PRIu64 " bytes in %.2f s; overrun: %" PRIu64
			" frames; cut off by an I/O error: %" PRIu64 " frames%s\n", o->name, why,
			st->written, st->placeholders, st->files, st->bytes, el, st->overrun, st->cut,
			error ? " [I/O error]" : "");
	if (error)
		fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", o->name, errtext);
	if (st->files_removed)
		fprintf(stderr, "dpdk-ibvcap-dump %s: min-free: removed %" PRIu64 " of its files (%"
			PRIu64 " bytes)\n", o->name, st->files_removed, st->bytes_removed);
	if (o->summary[0] == '\0')
		return;
	root = json_object();
	if (root == NULL)
		goto nomem;
	js_str(root, "program", "dpdk-ibvcap-dump");
	memset(&rec, 0, sizeof(rec));
	snprintf(rec.name, sizeof(rec.name), "%s", o->name);
	snprintf(rec.format, sizeof(rec.format), "%s", fmt);
	rec.pid = (int32_t)getpid();
	wr_figures(st, error, &rec);
	if (summary_writer != NULL)
		wr_io_figures(summary_writer, &rec);
	else if (tap_io.on) { /* the tap: one pcap file at a time */
		rec.io_uring = tap_io.uring;
		rec.io_depth = tap_io.uring ? FIO_INFLIGHT : 0;
		rec.io_inflight_max = tap_io.depth.peak;
		snprintf(rec.io_why, sizeof(rec.io_why), "%s", tap_io.why);
	}
	rec.full = strcmp(why, wr_end_name(WR_END_DISK_FULL)) == 0;
	stats_writer_json(&rec, root);
	js_str(root, "name", o->name); /* whole (the registry keeps 31 bytes) */
	js_str(root, "source", o->pdump ? "pdump" : "buffers");
	js_i64(root, "cpu", chosen_cpu);
	js_str(root, "stop_reason", why);
	js_u64(root, "overrun_placeholders", st->overrun_placeholders);
	js_u64(root, "taken", st->taken);
	js_u64(root, "rows", st->rows);
	js_u64(root, "overrun_rows", st->lost_rows);
	js_u64(root, "torn_rows", st->torn_rows);
	js_u64(root, "discontinuities", st->discontinuities);
	js_u64(root, "run_files", st->run_files);
	js_u64(root, "tap_drops", tap_drops);
	js_str(root, "error_text", error ? errtext : "");
	/* a stop at min-free: the directory, free space and threshold */
	js_str(root, "stop_text", strcmp(why, wr_end_name(WR_END_DISK_FULL)) == 0 ? errtext : "");
	js_dbl(root, "duration_s", el);
	if (summary_writer != NULL) {
		unsigned int i;

		arr = js_arr(root, "antennas");
		for (i = 0; i < summary_writer->n; i++) {
			const struct wr_src *sr = &summary_writer->src[i];

			if (!sr->on)
				continue;
			a = js_obj(arr, NULL);
			js_str(a, "name", sr->b->name);
			js_u64(a, "rows", sr->cur.rows);
			js_u64(a, "taken", sr->cur.frames);
			js_u64(a, "overrun_rows", sr->cur.lost_rows);
			js_u64(a, "overrun", sr->cur.lost_frames);
			/* the producer's running total at the cursor: the valid
			 * frames placed in the rows this writer went through */
			if (sr->cur.cum_next != UINT64_MAX)
				js_u64(a, "placed", sr->cur.cum_next);
			else
				js_null(a, "placed");
			js_i64(a, "next_row", sr->cur.next);
		}
		/* the primary's scans it recorded, as the --write writers' in
		 * dpdk-ibvcap's summary ("recording") */
		js_str(root, "record", o->record_always ? "always" : "follow");
		js_u64(root, "rows_not_recorded", wr_gate_skipped(summary_writer));
		wr_gate_json(summary_writer, js_arr(root, "scans"));
	}
	if (js_write_file(root, o->summary, err, sizeof(err)) != 0)
		fprintf(stderr, "dpdk-ibvcap-dump %s: --summary-json: %s\n", o->name, err);
	json_decref(root);
	return;
nomem:
	fprintf(stderr, "dpdk-ibvcap-dump %s: --summary-json %s: out of memory\n", o->name,
		o->summary);
}

/* ---- the CPU it runs on ---------------------------------------------------- */


static void
affinity_read(void)
{
	cpu_set_t cs;
	int c;

	CPU_ZERO(&cs);
	nallowed = 0;
	if (sched_getaffinity(0, sizeof(cs), &cs) != 0)
		return;
	for (c = 0; c < CPU_SETSIZE && c < SHM_MAX_CPUS; c++)
		if (CPU_ISSET(c, &cs))
			allowed_cpu[nallowed++] = c;
}

/* Whether EAL-ARGS choose the lcores themselves (-l, -c, --lcores): they
 * win over --lcore and over the pick. */
static bool
eal_lcores_given(const struct dopts *o)
{
	int i;

	for (i = 0; i < o->eal_argc; i++) {
		const char *a = o->eal_argv[i];

		if (strncmp(a, "-l", 2) == 0 || strncmp(a, "-c", 2) == 0 ||
		    strncmp(a, "--lcores", 8) == 0)
			return true;
	}
	return false;
}

/* The one CPU the calling thread may run on, -1 several. */
static int
thread_cpu(void)
{
	cpu_set_t cs;
	int c, one = -1;

	if (pthread_getaffinity_np(pthread_self(), sizeof(cs), &cs) != 0)
		return -1;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &cs))
			continue;
		if (one >= 0)
			return -1;
		one = c;
	}
	return one;
}

/*
 * Where this writer runs. --lcore or EAL's -l: there, as given. Else (auto)
 * EAL left it free on its whole affinity: the lowest CPU of it that neither
 * the primary's lcores nor another writer process uses, as the control
 * block says (ctl; NULL: it says nothing), else the least used, said in
 * one line; the pick is made one process at a time and written to its
 * entry reg (-1: none) for the next writers. @return the CPU, -1 several.
 */
static int
pick_cpu(const struct dopts *o, struct shm_ctl *ctl, int reg)
{
	char why[1024];
	rte_cpuset_t cs;
	int cpu, rc;

	if (o->lcore_set || eal_lcores_given(o) || nallowed == 0) {
		cpu = thread_cpu();
		if (ctl != NULL && reg >= 0)
			__atomic_store_n(&ctl->writer[reg].cpu, cpu, __ATOMIC_RELEASE);
		return cpu;
	}
	if (ctl == NULL) {
		cpu = allowed_cpu[0];
		rc = 0;
	} else {
		bool locked = shm_cpu_lock(ctl, (int)getpid()) == 0;

		rc = shm_cpu_pick(ctl, reg, allowed_cpu, nallowed, &cpu, why, sizeof(why));
		if (reg >= 0)
			__atomic_store_n(&ctl->writer[reg].cpu, cpu, __ATOMIC_RELEASE);
		if (locked)
			shm_cpu_unlock(ctl, (int)getpid());
	}
	if (rc == 1)
		fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", o->name, why);
	CPU_ZERO(&cs);
	CPU_SET(cpu, &cs);
	if (rte_thread_set_affinity(&cs) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump %s: cannot run on CPU %d: %s (left on its "
			"affinity)\n", o->name, cpu, strerror(errno));
		return thread_cpu();
	}
	return cpu;
}

/* "3", or "several" (-1) */
static const char *
cpu_text(int cpu)
{
	static char buf[16];

	if (cpu < 0)
		return "several (its affinity)";
	snprintf(buf, sizeof(buf), "%d", cpu);
	return buf;
}

/* ---- buffers source ----------------------------------------------------- */

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

/* What the loop asks of the buffers source (lib/writer's wr_run). */
struct dump_ctx {
	const struct dopts *o;
	const struct shm_view *v;
};

static bool
dump_stop(void *ctx)
{
	(void)ctx;
	return quit != 0;
}

static bool
dump_primary_stopped(void *ctx)
{
	const struct dump_ctx *d = ctx;

	return __atomic_load_n(&d->v->ctl->state, __ATOMIC_ACQUIRE) == SHM_STOPPED;
}

static bool
dump_primary_gone(void *ctx)
{
	(void)ctx;
	return !rte_eal_primary_proc_alive(NULL);
}

static void
dump_note(void *ctx, const char *line)
{
	const struct dump_ctx *d = ctx;

	fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", d->o->name, line);
}

/* How its files write, for its lines: "io_uring 1/4 in flight (most 4)" or
 * "sync (io=sync)". */
static const char *
io_text(struct wr_writer *w, char *buf, size_t len)
{
	struct wr_io io;

	wr_io(w, &io);
	if (io.uring)
		snprintf(buf, len, "io_uring %u/%u in flight (most %u)", io.inflight, io.limit,
			 io.peak);
	else
		snprintf(buf, len, "sync (%s)", io.why);
	return buf;
}

static void
dump_progress(void *ctx, struct wr_writer *w)
{
	const struct dump_ctx *d = ctx;
	char io[160];

	fprintf(stderr, "dpdk-ibvcap-dump %s: %" PRIu64 " frames taken, %" PRIu64 " written, %"
		PRIu64 " files, backlog %" PRIu64 " rows, overrun %" PRIu64 ", %s\n", d->o->name,
		w->st.taken, w->st.written, w->st.files, wr_backlog(w), w->st.overrun,
		io_text(w, io, sizeof(io)));
}

/* Why the buffers source ended, in the summary's words. */
static const char *
end_text(enum wr_end e)
{
	switch (e) {
	case WR_END_COUNT: return "--count";
	case WR_END_DURATION: return "--duration";
	default: return wr_end_name(e);
	}
}

static int
run_buffers(const struct dopts *o, const struct wr_opts *wo)
{
	struct shm_view v;
	struct wr_writer *w;
	struct dump_ctx dc = { .o = o, .v = &v };
	struct wr_run_opts ro;
	enum wr_end end;
	char err[ERRLEN];
	uint64_t mask;
	int64_t t0 = mono_ns();
	int reg, holder = 0, rc = 0;

	if (shm_attach(&v, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
		return 1;
	}
	if (v.ctl->payload_mem == IBV_PAYLOAD_GPU) {
		fprintf(stderr,
			"dpdk-ibvcap-dump: the antenna payload of '%s' is in GPU memory, which this "
			"process cannot map for the CPU: write from inside the primary with --write\n",
			v.instance);
		return 1;
	}
	mask = select_antennas(&v, o->antennas, err, sizeof(err));
	if (mask == 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
		return 1;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return 1;
	if (wr_init(w, wo, (const struct antbuf *const *)v.b, NULL, v.nant, mask, err,
		    sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write %s: %s\n", o->spec, err);
		free(w);
		return 1;
	}
	reg = shm_writer_claim(v.ctl, (int)getpid(), o->name, wr_format_name(wo->format), &holder);
	if (reg == -EEXIST) {
		fprintf(stderr, "dpdk-ibvcap-dump: --name %s: in use by a running writer, pid %d "
			"(one writer per name: stop it, or give this one another --name)\n",
			o->name, holder);
		free(w);
		return 1;
	}
	if (reg >= 0 && o->record_always)
		v.ctl->writer[reg].record = SHM_RECORD_ALWAYS;
	/* the primary's scans: the one schedule, through the gate the --write
	 * writers use, as writer WR_SCHED_DUMP_BASE + its registry slot */
	if (!o->record_always && v.sched != NULL) {
		if (v.sched_len != sizeof(struct wr_sched))
			snprintf(err, sizeof(err), "the primary's schedule of scans is %zu bytes, "
				 "this program expects %zu: run the same dpdk-ibvcap build",
				 v.sched_len, sizeof(struct wr_sched));
		else if (reg < 0 || reg >= WR_SCHED_DUMP_SLOTS)
			snprintf(err, sizeof(err), "no free entry in the primary's writer table "
				 "(%d): a writer that follows scans needs one (or --record always)",
				 SHM_MAX_WRITERS);
		else if (wr_gate_attach(w, v.sched, WR_SCHED_DUMP_BASE + (unsigned int)reg, err,
					sizeof(err)) == 0)
			err[0] = '\0';
		if (w->gate == NULL) {
			fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
			shm_writer_release(v.ctl, reg);
			free(w);
			return 1;
		}
	}
	chosen_cpu = pick_cpu(o, v.ctl, reg);
	{
		struct wr_io io;

		wr_io(w, &io);
		fprintf(stderr, "dpdk-ibvcap-dump %s: attached to '%s' (%u antennas, %d selected), "
			"writing %s to %s (%s%s), on CPU %s\n", o->name, v.instance, v.nant,
			__builtin_popcountll(mask), wr_format_name(wo->format), wo->dir,
			io.uring ? "io_uring" : "sync: ", io.uring ? "" : io.why,
			cpu_text(chosen_cpu));
	}
	if (wr_ring_direct(w, err, sizeof(err)) != NULL)
		fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", o->name, err);
	memset(&ro, 0, sizeof(ro));
	ro.batch = 256;
	ro.max_rate = o->max_rate;
	ro.duration_ns = o->duration_ns;
	ro.stats_ns = o->stats_ns;
	ro.reg = reg >= 0 ? &v.ctl->writer[reg] : NULL;
	ro.stop = dump_stop;
	ro.source_stopped = dump_primary_stopped;
	ro.source_gone = dump_primary_gone;
	ro.progress = dump_progress;
	ro.note = dump_note;
	ro.ctx = &dc;
	if (wr_run(w, &ro, &end) != 0)
		rc = 2;
	else if (end == WR_END_DISK_FULL)
		rc = 3; /* stopped at min-free: its files complete (w->err says why) */
	summary_writer = w;
	summary(o, wr_format_name(wo->format), &w->st, quit ? "signal" : end_text(end), w->error,
		w->err, 0, (double)(mono_ns() - t0) / 1e9);
	if (w->ring_files + w->copy_files > 0 && wr_ring_direct(w, err, sizeof(err)) != NULL)
		fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", o->name, err);
	/* the primary, if alive, may still hold the entry for its summary */
	shm_writer_release(v.ctl, reg);
	wr_gate_free(w);
	free(w);
	return rc;
}

/* ---- pdump source --------------------------------------------------------- */

/* The tap's file in progress and its figures (what is in its files on
 * disk: lib/fmt counts each packet once it is written out). */
struct tap {
	struct fmt_sink f;
	bool open;
	uint64_t opened;         /* files opened */
	int64_t t0;              /* monotonic time it was opened */
	struct wr_stats st;
	struct fmt_tally closed; /* what the files closed so far hold */
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
		if (rc != 0) {
			snprintf(err, len, "file name too long");
			return rc;
		}
		rc = fmt_open(&t->f, FMT_PCAP, path, &fo, NULL, err, len);
	} while (rc == -EEXIST && t->opened > 0 && ++tries < 1000);
	if (rc == 0) {
		const char *y = fio_sync_why(&t->f.f);

		fio_track(&t->f.f, &tap_io.depth);
		tap_io.on = true;
		tap_io.uring = y == NULL;
		snprintf(tap_io.why, sizeof(tap_io.why), "%s", y != NULL ? y : "");
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
		snprintf(err, len, "%s: %s", fio_part(&t->f.f), strerror(rc));
		return rc;
	}
	d = rte_pktmbuf_read(m, 0, cap, p);
	if (d != p)
		memcpy(p, d, cap);
	t->st.taken++;
	rc = fmt_pcap_record_end(&t->f);
	tap_tally(t);
	if (rc != 0) {
		snprintf(err, len, "%s: %s", fio_part(&t->f.f), strerror(-rc));
		return -rc;
	}
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
tap_enable(const struct dopts *o, uint16_t first, uint16_t last, struct rte_ring *ring,
	   struct rte_mempool *mp)
{
	uint32_t q;

	for (q = first; q <= last; q++) {
		uint32_t u;
		int e;

		if (rte_pdump_enable(o->port, (uint16_t)q, RTE_PDUMP_FLAG_RX, ring, mp, NULL) == 0)
			continue;
		e = rte_errno < 0 ? -rte_errno : rte_errno;
		for (u = first; u < q; u++) /* ours before it, undone */
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

static int
run_pdump(const struct dopts *o, const struct wr_opts *wo)
{
	struct rte_ring *ring;
	struct rte_mempool *mp;
	struct tap *t;
	char name[RTE_RING_NAMESIZE], err[ERRLEN] = "";
	int64_t t0 = mono_ns(), next_stats;
	const char *why = "stopped", *stop;
	uint64_t drops;
	uint16_t first, last;
	uint32_t q;
	bool full = false;
	int rc = 0, error = 0;
	unsigned int pass;

	if (!rte_eth_dev_is_valid_port(o->port)) {
		char why_not[ERRLEN];

		if (quirk_pcap_port_unattached(o->port, why_not, sizeof(why_not)))
			fprintf(stderr, "dpdk-ibvcap-dump: --port %u: %s\n", o->port, why_not);
		else
			fprintf(stderr, "dpdk-ibvcap-dump: --port %u: no such port in the primary "
				"(%u ports)\n", o->port, rte_eth_dev_count_avail());
		return 1;
	}
	if (tap_queues(o, &first, &last) != 0)
		return 1;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return 1;
	snprintf(name, sizeof(name), "ibvd_r%d", (int)getpid());
	/* rte_pdump requires a multi-producer, multi-consumer ring */
	ring = rte_ring_create(name, o->ring_size, (int)rte_socket_id(), 0);
	snprintf(name, sizeof(name), "ibvd_m%d", (int)getpid());
	mp = rte_pktmbuf_pool_create(name, o->nb_mbufs, 256, 0,
				     (uint16_t)RTE_MIN(65535u, RTE_PKTMBUF_HEADROOM + 10240u),
				     (int)rte_socket_id());
	if (ring == NULL || mp == NULL) {
		fprintf(stderr, "dpdk-ibvcap-dump: pdump ring/mempool: %s (hugepages?)\n",
			rte_strerror(rte_errno));
		rte_ring_free(ring);
		rte_mempool_free(mp);
		free(t);
		return 1;
	}
	if (tap_enable(o, first, last, ring, mp) != 0) {
		rte_ring_free(ring);
		rte_mempool_free(mp);
		free(t);
		return 1;
	}
	{
		/* the capture's CPUs, where it has buffers (a tap is in no
		 * writer entry: later writers do not see its CPU) */
		struct shm_view v;
		char e[ERRLEN];

		chosen_cpu = pick_cpu(o, shm_attach(&v, e, sizeof(e)) == 0 ? v.ctl : NULL, -1);
	}
	if (o->queue == RTE_PDUMP_ALL_QUEUES)
		fprintf(stderr, "dpdk-ibvcap-dump %s: tapping port %u queue * (%u queues) through "
			"rte_pdump, on CPU %s\n", o->name, o->port, last - first + 1u,
			cpu_text(chosen_cpu));
	else
		fprintf(stderr, "dpdk-ibvcap-dump %s: tapping port %u queue %u through rte_pdump, "
			"on CPU %s\n", o->name, o->port, o->queue, cpu_text(chosen_cpu));
	next_stats = t0 + (int64_t)o->stats_ns;
	/* pass 0: until a stop; pass 1: what was copied before the disable */
	for (pass = 0; pass < 2; pass++) {
		while (pass == 1 || !quit) {
			struct rte_mbuf *m[64];
			unsigned int n = rte_ring_dequeue_burst(ring, (void **)m, 64, NULL), i;
			int64_t now = mono_ns();

			for (i = 0; i < n; i++) {
				if (!error && !full) {
					error = tap_write(t, o, wo, m[i], err, sizeof(err));
					full = wo->count && t->st.taken >= wo->count;
				}
				rte_pktmbuf_free(m[i]);
			}
			if (pass == 1) {
				if (n == 0)
					break;
				continue;
			}
			stop = stop_due(o, t0, now, error != 0, full);
			if (stop != NULL) {
				why = stop;
				break;
			}
			if (o->stats_ns && now >= next_stats) {
				fprintf(stderr, "dpdk-ibvcap-dump %s: %" PRIu64 " packets taken, %"
					PRIu64 " written, %" PRIu64 " files, tap drops %" PRIu64 "\n",
					o->name, t->st.taken, t->st.written,
					t->st.files + (t->open ? 1 : 0), pdump_drops(o->port));
				next_stats += (int64_t)o->stats_ns;
			}
			if (n == 0) {
				if (!rte_eal_primary_proc_alive(NULL)) {
					why = "the primary exited";
					break;
				}
				rte_delay_us_sleep(200);
			}
		}
		if (pass == 0 && rte_eal_primary_proc_alive(NULL))
			for (q = first; q <= last; q++)
				rte_pdump_disable(o->port, (uint16_t)q, RTE_PDUMP_FLAG_RX);
	}
	if (error)
		rc = 2;
	if (t->open) {
		char e2[ERRLEN];
		int crc = tap_close(t, e2, sizeof(e2));

		if (crc != 0) {
			rc = 2;
			if (!error) {
				error = -crc;
				snprintf(err, sizeof(err), "%s", e2);
			}
		}
	}
	drops = pdump_drops(o->port);
	summary(o, "pcap", &t->st, quit ? "signal" : why, error, err, drops,
		(double)(mono_ns() - t0) / 1e9);
	rte_ring_free(ring);
	rte_mempool_free(mp);
	free(t);
	return rc;
}

int
main(int argc, char **argv)
{
	struct dopts o;
	struct wr_opts wo;
	char err[ERRLEN], lc[SHM_MAX_CPUS * 5 + 16], pf[160];
	char *eal[MAX_EAL_ARGS];
	int n = 0, i, rc;
	struct sigaction sa;

	signal(SIGPIPE, SIG_IGN);
	if (parse(argc, argv, &o) != 0)
		return 1;
	if (wr_opts_parse(&wo, "--write", o.spec, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
		return 1;
	}
	if (wo.lcores > 1) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write lcores: '%u': a dpdk-ibvcap-dump writes "
			"on one lcore: expected lcores=1 (spread antennas over several "
			"dpdk-ibvcap-dump with --antenna)\n", wo.lcores);
		return 1;
	}
	if (o.pdump && wo.budget) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write %s: min-free and on-full are for --source "
			"buffers (the pdump tap keeps no disk budget)\n", o.spec);
		return 1;
	}
	if (o.pdump && wo.format != WR_PCAP) {
		fprintf(stderr, "dpdk-ibvcap-dump: --source pdump writes whole packets: use "
			"--write pcap:DIR\n");
		return 1;
	}
	if (access(wo.dir, W_OK) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write: output directory '%s': %s (expected a "
			"writable directory)\n", wo.dir, strerror(errno));
		return 1;
	}
	if (wr_budget_check(&wo, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write %s: %s\n", o.spec, err);
		return 1;
	}
	if (o.count)
		wo.count = o.count;
	if (o.check_only) {
		opt_print(&dump_cmd, &o, stdout);
		printf("# EAL arguments after the built ones:");
		for (i = 0; i < o.eal_argc; i++)
			printf(" %s", o.eal_argv[i]);
		printf("%s\n", o.eal_argc ? "" : " none");
		return 0;
	}
	/* our own EAL arguments, as dpdk-dumpcap builds its; without --lcore,
	 * lcore 0 on every CPU of its affinity until it picks one (pick_cpu) */
	affinity_read();
	if (eal_lcores_given(&o)) {
		lc[0] = '\0'; /* theirs: EAL takes one of -c, -l and --lcores */
	} else if (o.lcore_set || nallowed == 0) {
		snprintf(lc, sizeof(lc), "-l%u", o.lcore);
	} else {
		size_t k = (size_t)snprintf(lc, sizeof(lc), "--lcores=0@(");

		for (i = 0; i < (int)nallowed && k < sizeof(lc); i++)
			k += (size_t)snprintf(lc + k, sizeof(lc) - k, "%s%d", i ? "," : "",
					      allowed_cpu[i]);
		if (k + 2 > sizeof(lc)) {
			fprintf(stderr, "dpdk-ibvcap-dump: %u CPUs in its affinity: too many to "
				"list for EAL; give --lcore N\n", nallowed);
			return 1;
		}
		snprintf(lc + k, sizeof(lc) - k, ")");
	}
	snprintf(pf, sizeof(pf), "--file-prefix=%s", o.prefix);
	eal[n++] = argv[0];
	eal[n++] = (char *)"--proc-type=secondary";
	eal[n++] = pf;
	if (lc[0] != '\0')
		eal[n++] = lc;
	eal[n++] = (char *)"--no-telemetry";
	eal[n++] = (char *)"--log-level=lib.eal:error";
	if (!o.pdump)
		eal[n++] = (char *)"--no-pci"; /* buffers need no device */
	for (i = 0; i < o.eal_argc && n < MAX_EAL_ARGS - 1; i++)
		eal[n++] = o.eal_argv[i];
	eal[n] = NULL;
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
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rc = o.pdump ? run_pdump(&o, &wo) : run_buffers(&o, &wo);
	rte_eal_cleanup();
	return rc;
}
