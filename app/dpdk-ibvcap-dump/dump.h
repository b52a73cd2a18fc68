/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-ibvcap-dump's parts and what they hand each other: its options
 * (options.c), the CPU it runs on (cpus.c), its two sources, the antenna
 * buffers (buffers.c) and a pdump tap (pdump.c), and the summary both end
 * with (summary.c). */
#ifndef IBVCAP_DUMP_H
#define IBVCAP_DUMP_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "shm_eal.h"
#include "writer.h"

#define DUMP_ERRLEN (PATH_MAX + 512)

/* The options, as lib/opt's table (options.c) stores them. */
struct dopts {
	char prefix[128];
	char spec[PATH_MAX + 64];
	bool have_spec;
	char antennas[1024];
	uint64_t count;
	uint64_t duration_ns;
	char name[SHM_NAMELEN];
	unsigned int lcore;
	bool lcore_set;        /* --lcore given (else a CPU is picked: dump_pick_cpu) */
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

/* Set by SIGINT, SIGTERM and SIGHUP (stop.c): the source ends its files
 * and writes its summary, as at --count. */
extern volatile sig_atomic_t dump_quit;

/* SIGPIPE ignored; from dump_stop_on_signals on (once attached), SIGINT,
 * SIGTERM and SIGHUP set dump_quit. */
void dump_ignore_sigpipe(void);
void dump_stop_on_signals(void);

/**
 * Parse the command line into o and its --write into wo, and check them
 * together (one lcore, what a pdump tap takes, the output directory, the
 * disk budget); --check-config prints the effective configuration.
 * Messages go to stderr.
 *
 * @return 0 to run, 1 to exit 0 (--check-config printed), -1 to exit 1
 */
int dump_options(int argc, char **argv, struct dopts *o, struct wr_opts *wo);

/**
 * The EAL lcore argument for this process, read from its affinity (taken
 * here, before EAL pins anything): "" where the EAL arguments choose
 * (-l, -c, --lcores), "-lN" for --lcore N, else lcore 0 on every CPU of
 * the affinity ("--lcores=0@(...)") until dump_pick_cpu picks one.
 *
 * @return 0, or -1 (too many CPUs to list: said on stderr)
 */
int dump_eal_lcores(const struct dopts *o, char *lc, size_t len);

/**
 * Where this writer runs. --lcore or EAL's -l: there, as given. Else the
 * lowest CPU of its affinity that neither the primary's lcores nor another
 * writer process uses, as the control block says (ctl; NULL: it says
 * nothing), else the least used, said in one line; the pick is made one
 * process at a time and written to its entry reg (-1: none) for the next
 * writers.
 *
 * @return the CPU, -1 several
 */
int dump_pick_cpu(const struct dopts *o, struct shm_ctl *ctl, int reg);

/** "3", or "several (its affinity)" for -1 (a static buffer). */
const char *dump_cpu_text(int cpu);

/**
 * Write the antenna buffers of the primary to files (--source buffers).
 *
 * @return the exit status: 0, 1 (cannot attach or start), 2 (I/O error),
 *         3 (stopped at min-free)
 */
int dump_run_buffers(const struct dopts *o, const struct wr_opts *wo);

/**
 * Tap a port's rx queues through rte_pdump into pcap files (--source pdump).
 *
 * @return the exit status: 0, 1 (cannot tap), 2 (I/O error)
 */
int dump_run_pdump(const struct dopts *o, const struct wr_opts *wo);

/* The pdump tap's I/O queue: its io_uring writes in flight, and how its
 * last file writes (io_uring, else why not). */
struct dump_tap_io {
	bool on;
	struct fio_depth depth;
	bool uring;
	char why[96];
};

/* How a source ended, for its summary. */
struct dump_result {
	const char *format;          /* the files' format name */
	const struct wr_stats *st;   /* what it took and wrote */
	const char *why;             /* why it stopped, in the summary's words */
	int error;                   /* an I/O error (errno), 0 none */
	const char *errtext;         /* its message, or why it stopped at min-free */
	uint64_t tap_drops;          /* a tap's packets lost before its ring */
	double elapsed;              /* seconds it ran */
	int cpu;                     /* the CPU it ran on, -1 several */
	struct wr_writer *w;         /* the buffers' writer (per antenna figures), or NULL */
	const struct dump_tap_io *tap; /* the tap's I/O queue, or NULL */
};

/**
 * The summary: a line on stderr and (--summary-json) the figures under the
 * writer table's names (docs/counters.md), then what only a dump has.
 */
void dump_summary(const struct dopts *o, const struct dump_result *r);

#endif
