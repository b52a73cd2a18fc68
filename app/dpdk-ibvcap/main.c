/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-ibvcap: EAL, options, start-up, the control loop, teardown. */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_pdump.h>

#include "host.h"
#include "ibvcap.h"
#include "ledger.h"
#include "fringe.h"
#include "summary.h"
#include "telemetry.h"
#include "trigger.h"
#include "quirks.h"
#include "tconv.h"

/* SIGINT, SIGTERM and SIGHUP (a terminal hung up) stop the capture the same
 * way: the summary, every file finished and renamed, the memory released.
 * SIGPIPE is ignored: a reader of stdout that went away (| head, | tee
 * ending) stops only the printing (stdout_check). */
static volatile sig_atomic_t stop_signal; /* the first of them, 0: none */

static void
on_signal(int sig)
{
	if (stop_signal == 0)
		stop_signal = sig;
}

/* Once stdout cannot be written (its reader went away: EPIPE), what the
 * capture prints goes to /dev/null from then on, said once on stderr; the
 * capture itself, its files and its --summary-json go on as before. */
static void
stdout_check(void)
{
	static bool gone;

	if (gone || !ferror(stdout))
		return;
	gone = true;
	fprintf(stderr, "dpdk-ibvcap: stdout closed (%s): printing stopped, the capture goes "
		"on\n", strerror(errno ? errno : EPIPE));
	if (freopen("/dev/null", "w", stdout) == NULL)
		clearerr(stdout);
}

/* Options after '--' (or all of them for --check-config without EAL). */
static int
find_dashdash(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return -1;
}

static bool
has_arg(int argc, char **argv, const char *a)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], a) == 0)
			return true;
	return false;
}

/*
 * EAL's arguments: the program, a --config file's [eal] args (already
 * read and checked with the options), then the command line's own (up
 * to '--' and what follows, which EAL leaves alone). @return the new
 * argc, argv in *out (static storage), or -1 with a message printed.
 */
static int
eal_argv(int argc, char **argv, const char *eal_args, char ***out)
{
	static char *nargv[256];
	static char buf[4096];
	char *tok, *save;
	int i, n = 0;

	*out = argv;
	if (eal_args[0] == '\0')
		return argc;
	snprintf(buf, sizeof(buf), "%s", eal_args);
	nargv[n++] = argv[0];
	for (tok = strtok_r(buf, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save)) {
		if (n >= (int)RTE_DIM(nargv) - argc - 1) {
			fprintf(stderr, "dpdk-ibvcap: [eal] args: too many arguments\n");
			return -1;
		}
		nargv[n++] = tok;
	}
	for (i = 1; i < argc; i++)
		nargv[n++] = argv[i];
	nargv[n] = NULL;
	*out = nargv;
	return n;
}

/* The FILE of a "--check-config FILE" among argv[1..n-1] (before '--'):
 * its index, or -1. */
static int
check_config_file(int n, char **argv)
{
	int i;

	for (i = 1; i + 1 < n; i++)
		if (strcmp(argv[i], "--check-config") == 0 && argv[i + 1][0] != '-')
			return i + 1;
	return -1;
}

/*
 * The options: those after '--', or with all_if_none every argument when
 * there is no '--' (--check-config needs no EAL). "--check-config FILE"
 * is "--check-config --config FILE", also where it stands before '--'.
 * @return as ibv_config_parse.
 */
static int
parse_options(int argc, char **argv, bool all_if_none, struct ibv_config *c, char *err,
	      size_t len)
{
	int dd = find_dashdash(argc, argv), ac = argc, i, k = 0, rc, file = -1;
	char **av = argv, **nav;

	if (dd > 0) {
		av = argv + dd;
		ac = argc - dd;
		file = check_config_file(dd, argv);
	} else if (!all_if_none) {
		ac = 1;
	}
	nav = calloc((size_t)ac + 4, sizeof(*nav));
	if (nav == NULL)
		return err_set(err, len, -ENOMEM, "out of memory");
	for (i = 0; i < ac; i++) {
		nav[k++] = av[i];
		if (i == 0 && file > 0) {
			nav[k++] = (char *)(uintptr_t)"--config";
			nav[k++] = argv[file];
		}
		if (strcmp(av[i], "--check-config") == 0 && i + 1 < ac && av[i + 1][0] != '-')
			nav[k++] = (char *)(uintptr_t)"--config";
	}
	ibv_config_defaults(c);
	rc = ibv_config_parse(c, k, nav, err, len);
	free(nav);
	return rc;
}

/* The command line's EAL part (before '--'; none without it) less the
 * program's own --check-config and its FILE, which may stand there too
 * (has_arg finds it anywhere; parse_options reads the FILE): EAL's verdict
 * (host_eal.c's dry run) is on what a start would give it.
 * out: argc + 1 entries. @return its count. */
static int
eal_part(int argc, char **argv, char **out)
{
	int dd = find_dashdash(argc, argv), n = 0, i, file;

	file = dd > 0 ? check_config_file(dd, argv) : -1;
	for (i = 0; i < (dd > 0 ? dd : 1); i++)
		if (i == 0 || (strcmp(argv[i], "--check-config") != 0 && i != file))
			out[n++] = argv[i];
	out[n] = NULL;
	return n;
}

/* --check-config: no EAL, no device; exit 0 or 1. */
static int
check_config(int argc, char **argv)
{
	struct ibv_config *c = calloc(1, sizeof(*c));
	struct ibv_eal_view *ev = calloc(1, sizeof(*ev));
	char **part = calloc((size_t)argc + 1, sizeof(*part));
	int rc, eac, status = 1;
	char err[IBV_ERRLEN], **eav, *mem = NULL;
	size_t memlen = 0;
	FILE *memf = NULL;

	if (c == NULL || ev == NULL || part == NULL)
		goto out;
	rc = parse_options(argc, argv, true, c, err, sizeof(err));
	if (rc > 0) {
		status = 0; /* --dump-options, --help */
		goto out;
	}
	if (rc < 0) {
		fprintf(stderr, "dpdk-ibvcap: %s\n", err);
		goto out;
	}
	/* the schedule's scans, as the start checks them (a file of this host) */
	if (!c->skip_host) {
		struct wr_sched *sc = calloc(1, sizeof(*sc));

		rc = sc == NULL ? -ENOMEM : ibv_rec_load(c, sc, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "dpdk-ibvcap: %s\n", sc == NULL ? "out of memory" : err);
			free(sc);
			goto out;
		}
		free(sc);
	}
	if (!c->skip_host) {
		/* EAL's arguments as the start would have them */
		eac = eal_argv(eal_part(argc, argv, part), part, c->eal_args, &eav);
		if (eac < 0)
			goto out;
		ibv_eal_view_parse(eac, eav, ev);
		/* the memory statement, printed after the configuration */
		memf = open_memstream(&mem, &memlen);
		if (ibv_host_check(c, ev, memf, "# ", err, sizeof(err)) != 0) {
			fprintf(stderr, "dpdk-ibvcap: %s\n", err);
			goto out;
		}
		if (memf != NULL)
			fclose(memf);
		memf = NULL;
	}
	ibv_config_print(c, stdout);
	if (c->skip_host) {
		printf("# configuration valid; this host not checked (--skip-host-checks): output "
		       "directories, join interfaces, lcores, memory, the --schedule file\n");
	} else {
		fputs(mem != NULL ? mem : "", stdout);
		printf("# configuration valid on this host (ports are resolved only when "
		       "capturing)\n");
	}
	status = 0;
out:
	if (memf != NULL)
		fclose(memf);
	free(mem);
	free(part);
	free(ev);
	free(c);
	return status;
}

static void
check_stop(struct ibv_app *app)
{
	const struct ibv_config *c = &app->cfg;
	uint64_t now = rte_rdtsc(), pkts = 0;
	unsigned int i;

	if (app->run.stop)
		return;
	if (stop_signal != 0) {
		app->run.stop_reason = stop_signal == SIGINT ? "SIGINT" :
				       stop_signal == SIGHUP ? "SIGHUP" : "SIGTERM";
		app->run.stop = 1;
		return;
	}
	if (c->stop_duration_ns &&
	    now - app->run.start_tsc >= ns_to_cycles(c->stop_duration_ns, app->run.tsc_hz)) {
		app->run.stop_reason = "--duration";
		app->run.stop = 1;
		return;
	}
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lcores.lc[i];

		if (lc == NULL)
			continue;
		pkts += lc->pkts;
	}
	if (c->stop_packets && pkts >= c->stop_packets) {
		app->run.stop_reason = "--count-packets";
		app->run.stop = 1;
		return;
	}
	/* idle: no new packet for the timeout, on this lcore's own clock (an
	 * rx lcore's TSC, on another CPU, may disagree with it on a VM) */
	if (pkts != app->run.idle_pkts) {
		app->run.idle_pkts = pkts;
		app->run.idle_since_tsc = now;
	}
	if (c->idle_timeout_ns && pkts > 0 &&
	    now - app->run.idle_since_tsc >= ns_to_cycles(c->idle_timeout_ns, app->run.tsc_hz)) {
		app->run.stop_reason = "--idle-timeout";
		app->run.stop = 1;
		return;
	}
	if (c->stop_frames) {
		struct ibv_totals t;
		unsigned int a;

		ibv_collect(&app->counts, &t);
		for (a = 0; a < c->layout.nant; a++)
			if (t.ant[a].received < c->stop_frames)
				return;
		app->run.stop_reason = "--count";
		app->run.stop = 1;
	}
}

/*
 * The answers that need no EAL: --check-config, --dump-options (tests, man
 * pages), --version (EAL's -v is its own) and --help wherever it is asked.
 * @return the exit status, or -1 when none was asked.
 */
static int
answer_without_eal(int argc, char **argv)
{
	if (has_arg(argc, argv, "--check-config") || has_arg(argc, argv, "--dump-options"))
		return check_config(argc, argv);
	if (has_arg(argc, argv, "--version")) {
		ibv_version(stdout);
		return 0;
	}
	if (has_arg(argc, argv, "--help") || has_arg(argc, argv, "-h")) {
		int dd = find_dashdash(argc, argv);

		if (dd < 0 || has_arg(argc - dd, argv + dd, "--help") ||
		    has_arg(argc - dd, argv + dd, "-h")) {
			ibv_usage(stdout);
			return 0;
		}
	}
	return -1;
}

/*
 * The whole configuration and this host, checked before EAL, so that a
 * refused start leaves nothing behind (no hugepage file, no runtime
 * directory). On success *argc and *argv are EAL's arguments and *memory
 * holds the host check's report of what the buffers take.
 * @return the exit status when the start ends here, or -1 to go on.
 */
static int
prepare(struct ibv_app *app, int *argc, char ***argv, char **memory)
{
	static struct ibv_eal_view ev;
	char err[IBV_ERRLEN];
	size_t memlen = 0;
	FILE *f;
	int rc;

	rc = parse_options(*argc, *argv, false, &app->cfg, err, sizeof(err));
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "dpdk-ibvcap: %s\n", err);
		return rc < 0 ? 1 : 0;
	}
	if (app->cfg.skip_host) {
		fprintf(stderr, "dpdk-ibvcap: --skip-host-checks is for --check-config: a start "
			"always checks the host\n");
		return 1;
	}
	*argc = eal_argv(*argc, *argv, app->cfg.eal_args, argv);
	if (*argc < 0)
		return 1;
	f = open_memstream(memory, &memlen);
	ibv_eal_view_parse(*argc, *argv, &ev);
	rc = ibv_host_check(&app->cfg, &ev, f, "dpdk-ibvcap: ", err, sizeof(err));
	if (f != NULL)
		fclose(f);
	if (rc != 0) {
		fprintf(stderr, "dpdk-ibvcap: %s\n", err);
		return 1;
	}
	return -1;
}

/* rte_eal_init, with a refusal that says what to check. @return 0 or -1. */
static int
eal_start(int argc, char **argv)
{
	char prefix[256];
	int holder;

	if (rte_eal_init(argc, argv) >= 0)
		return 0;
	holder = quirk_eal_prefix_holder(argc, argv, prefix, sizeof(prefix));
	if (holder > 0) {
		fprintf(stderr, "dpdk-ibvcap: EAL initialisation failed: another primary "
			"process (pid %d) runs with --file-prefix %s; give this one "
			"another --file-prefix, or stop that one\n", holder, prefix);
		return -1;
	}
	fprintf(stderr,
		"dpdk-ibvcap: EAL initialisation failed: %s. Check: hugepages "
		"reserved and mounted (scripts/setup.sh; grep Huge /proc/meminfo), a "
		"--file-prefix no other primary uses, the -l lcores, the devices "
		"(-a/--vdev)\n", rte_strerror(rte_errno));
	return -1;
}

/* How far the start-up got; teardown() undoes exactly that much. */
enum reached {
	R_EAL,      /* EAL is up */
	R_TAPS,     /* pdump and telemetry registered */
	R_PORTS,    /* ports configured */
	R_BUFS,     /* antenna buffers created */
	R_WRITERS,  /* --write writers set up */
	R_STARTED,  /* ports started */
	R_LCORES,   /* rx lcores and quick look set up */
	R_JOINED,   /* groups joined: ready to capture */
};

/* What each component is given of the others, once: the deps of the
 * components that read others (their addresses are app's, fixed). */
static void
wire(struct ibv_app *app)
{
	const struct ibv_config *c = &app->cfg;

	app->counts = (struct ibv_counts_src){ .layout = &c->layout, .lcores = &app->lcores,
						.ports = &app->ports };
	app->scans.deps = (struct ibv_scans_deps){ .cfg = c, .rings = &app->rings,
						   .writers = &app->writers,
						   .ledger = &app->ledger };
	ibv_ledger_init(&app->ledger, &(struct ibv_ledger_deps){
				.cfg = c, .lcores = &app->lcores, .rings = &app->rings,
				.scans = &app->scans, .writers = &app->writers,
				.counts = &app->counts });
	ibv_trig_init(&app->trig, &(struct ibv_trig_deps){
			      .cfg = c, .rings = &app->rings, .pl = &app->pl,
			      .counts = &app->counts });
	ibv_fringe_init(&app->fringe, &(struct ibv_fringe_deps){
				.cfg = c, .rings = &app->rings, .pl = &app->pl });
}

/* The checks and set-up after EAL, in order. @return the step reached. */
static enum reached
start_up(struct ibv_app *app, char **memory)
{
	char err[IBV_ERRLEN];
	enum reached r = R_EAL;

	app->ports.ts_offset = -1;
	wire(app);
	app->scans.sched = &app->scans.own;
	if (ibv_rec_load(&app->cfg, app->scans.sched, err, sizeof(err)) != 0)
		goto refused;
	if (!rte_eal_has_hugepages())
		printf("dpdk-ibvcap: running without hugepages: dpdk-pdump, dpdk-dumpcap and "
		       "writers cannot attach\n");
	if (ibv_ports_resolve(&app->ports, &app->cfg, err, sizeof(err)) != 0)
		goto refused;
	ibv_config_print(&app->cfg, stdout);
	fputs(*memory != NULL ? *memory : "", stdout); /* what the buffers take, what EAL has */
	free(*memory);
	*memory = NULL;

	/* the payload-memory mode, once (--gpu, --zero-copy: split headers
	 * from payload where every port can; the GPU itself before any
	 * memory is taken) */
	{
		uint16_t ids[IBV_MAX_PORTS];
		const char *names[IBV_MAX_PORTS];
		unsigned int i;

		for (i = 0; i < app->ports.n; i++) {
			ids[i] = app->ports.port[i].port_id;
			names[i] = app->ports.port[i].name;
		}
		if (ibv_pl_plan(&app->pl, &app->cfg, ids, names, app->ports.n, err,
				sizeof(err)) != 0)
			goto refused;
	}

	/* stock dpdk-pdump/dpdk-dumpcap attach through this; not with the
	 * payload in GPU memory: a tap would copy it through a CPU pointer
	 * that is not mapped for it */
	if (!app->pl.ops->cpu_packets)
		app->run.pdump = false;
	else if (rte_pdump_init() == 0)
		app->run.pdump = true;
	else
		printf("dpdk-ibvcap: rte_pdump_init failed (%s): live taps unavailable\n",
		       rte_strerror(rte_errno));
	if (ibv_telemetry_register() != 0)
		printf("dpdk-ibvcap: telemetry commands not registered\n");
	r = R_TAPS;

	app->run.tsc_hz = rte_get_tsc_hz();
	app->run.start_unix_ns = real_ns();
	app->run.start_tsc = app->rates.last_tsc = rte_rdtsc();
	if (ibv_ports_setup(&app->ports, &app->cfg, &app->pl, err, sizeof(err)) != 0)
		goto refused;
	r = R_PORTS;
	if (ibv_rings_create(&app->rings, &app->cfg, &app->pl, &app->scans,
			     app->run.start_unix_ns, err, sizeof(err)) != 0)
		goto refused;
	r = R_BUFS;
	if (ibv_writers_setup(&app->writers, &app->cfg, &app->rings, &app->pl, app->scans.sched,
			      err, sizeof(err)) != 0 ||
	    ibv_plugin_setup(&app->plugin, &app->cfg, &app->rings, &app->pl, &app->writers,
			     app->scans.sched, err, sizeof(err)) != 0)
		goto refused;
	r = R_WRITERS;
	if (ibv_ports_start(&app->ports, &app->cfg, err, sizeof(err)) != 0)
		goto refused;
	r = R_STARTED;
	if (ibv_lcores_setup(&app->lcores, &(struct ibv_rx_deps){
				     .cfg = &app->cfg, .pl = &app->pl, .stop = &app->run.stop,
				     .rings = &app->rings, .host_clk = &app->host_clk,
				     .ports = &app->ports, .sched = &app->scans.sched,
				     .writers = &app->writers, .plugins = app->plugin }, err,
			     sizeof(err)) != 0 ||
	    ibv_ql_setup(&app->ql, &app->cfg, &app->lcores, &app->pl, &app->run, err,
			 sizeof(err)) != 0)
		goto refused;
	r = R_LCORES;
	if (ibv_join_all(&app->ports, &app->cfg, err, sizeof(err)) != 0)
		goto refused;
	return R_JOINED;
refused:
	fprintf(stderr, "dpdk-ibvcap: %s\n", err);
	return r;
}

/* The rx lcores and writers start; the main lcore runs the control loop
 * (links, clocks, scans, quick look, events, stop conditions) until a
 * signal or a stop condition ends it. */
static void
capture(struct ibv_app *app)
{
	struct sigaction sa;
	uint64_t next_stats;
	unsigned int l, tick = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	ibv_clocks_start(&app->host_clk, &app->ports, app->run.tsc_hz);
	app->run.start_tsc = app->rates.last_tsc = rte_rdtsc();
	app->run.start_unix_ns = real_ns();
	ibv_telemetry_open(&(struct ibv_tel_ctx){
				   .view = { .cfg = &app->cfg, .run = &app->run,
					     .counts = &app->counts, .ports = &app->ports,
					     .rings = &app->rings, .rates = &app->rates },
				   .scans = &app->scans, .ledger = &app->ledger, .ql = &app->ql,
				   .trig = &app->trig, .fringe = &app->fringe });
	printf("dpdk-ibvcap: capturing on %u rx lcore%s%s (Ctrl-C stops)\n", app->lcores.n,
	       app->lcores.n == 1 ? "" : "s", app->writers.n ? " and writer lcores" : "");
	fflush(stdout);
	ibv_ports_link_refresh(&app->ports);
	ibv_writers_launch(&app->writers);
	ibv_plugin_start(app->plugin);
	RTE_LCORE_FOREACH_WORKER(l)
		if (app->lcores.lc[l] != NULL)
			rte_eal_remote_launch(ibv_rx_main, app->lcores.lc[l], l);
	/* polling already: a peer (memif) brings the link up by connecting */
	ibv_ports_wait_link(&app->ports, app->cfg.link_timeout_ns, &stop_signal);

	next_stats = app->run.start_tsc + ns_to_cycles(app->cfg.stats_period_ns, app->run.tsc_hz);
	while (!app->run.stop) {
		rte_delay_us_sleep(10000);
		__atomic_store_n(&app->run.loop_tsc, rte_rdtsc(), __ATOMIC_RELAXED);
		if (++tick % 10 == 0)
			ibv_ports_link_refresh(&app->ports);
		if (tick % 100 == 0)
			ibv_clocks_tick(&app->host_clk, &app->ports);
		if (tick % 10 == 5)
			ibv_rec_tick(&app->ledger, stdout, false);
		if (tick % 50 == 0)
			ibv_rings_writers_check(&app->rings, stdout);
		check_stop(app);
		ibv_ql_tick(&app->ql, false);
		ibv_ql_drain(&app->ql);
		ibv_events_print(&app->counts, stdout, false);
		ibv_unrecorded_print(&app->counts, stdout);
		ibv_rings_retain_check(&app->rings, &app->cfg, stdout);
		if (app->cfg.stats_period_ns && rte_rdtsc() >= next_stats) {
			ibv_stats_line(&app->rates, &app->counts, &app->run, stdout);
			next_stats += ns_to_cycles(app->cfg.stats_period_ns, app->run.tsc_hz);
		}
		stdout_check();
	}
	RTE_LCORE_FOREACH_WORKER(l)
		if (app->lcores.lc[l] != NULL)
			rte_eal_wait_lcore(l);
	app->run.end_tsc = rte_rdtsc();
}

/*
 * After the rx lcores stopped: every open row final, the writers (ours,
 * then other processes) take the rest, every scan ends with its ledger,
 * and the summary is printed. @return the exit status: 0, 2 (a writer
 * failed or the summary JSON could not be written), 3 (a --write writer
 * stopped at its min-free).
 */
static int
finish(struct ibv_app *app)
{
	const struct ibv_summary_src sm = {
		.cfg = &app->cfg, .run = &app->run, .counts = &app->counts,
		.lcores = &app->lcores, .ports = &app->ports, .rings = &app->rings,
		.pl = &app->pl, .ql = &app->ql, .ledger = &app->ledger };
	int rc, status = 0;

	ibv_events_print(&app->counts, stdout, false);
	ibv_unrecorded_print(&app->counts, stdout);
	ibv_rings_stop(&app->rings, app->cfg.layout.nant);
	rc = ibv_writers_wait(&app->writers);
	if (ibv_plugin_join(app->plugin) < 0)
		rc = -1; /* said */
	if (rc < 0)
		status = 2;
	else if (rc > 0)
		status = 3;
	ibv_rings_drain_external(&app->rings, app->cfg.drain_ns);
	ibv_rec_tick(&app->ledger, stdout, true);

	/* counts are final: the lcores have stopped, the ports still hold
	 * their NIC counters */
	stdout_check();
	ibv_summary(&sm, stdout);
	if (app->cfg.summary_json[0] &&
	    ibv_summary_json(&sm, app->cfg.summary_json) != 0)
		status = 2;
	return status;
}

/* Undo start_up() from the step it reached, in reverse order. */
static void
teardown(struct ibv_app *app, enum reached r)
{
	if (r >= R_LCORES) {
		ibv_telemetry_close(); /* nothing a reply reads is freed before */
		ibv_leave_all(&app->ports);
	}
	if (r >= R_STARTED) {
		ibv_ql_free(&app->ql);
		ibv_lcores_free(&app->lcores);
	}
	if (r >= R_WRITERS) {
		/* taps first: a tap still attached must not see the ports go */
		if (app->run.pdump)
			rte_pdump_uninit();
		app->run.pdump = false;
		ibv_ports_stop(&app->ports);
	}
	if (r >= R_BUFS) {
		ibv_plugin_close(app->plugin);
		app->plugin = NULL;
		ibv_writers_free(&app->writers, app->rings.ctl);
	}
	if (r >= R_PORTS)
		ibv_rings_free(&app->rings, &app->pl, &app->scans, app->cfg.layout.nant);
	if (r >= R_TAPS) {
		ibv_ports_close(&app->ports, &app->pl, app->rings.keep_memory);
		if (app->run.pdump)
			rte_pdump_uninit();
	}
	fflush(stdout);
	quirk_hugepages_release(); /* 22.11 keeps them allocated: quirks.h */
	if (quirk_eal_cleanup_safe()) /* not with net_memif ports: quirks.h */
		rte_eal_cleanup();
	quirk_runtime_release(); /* 22.11 leaves it behind: quirks.h */
}

int
main(int argc, char **argv)
{
	static struct ibv_app app_store;
	struct ibv_app *app = &app_store;
	char *memory = NULL;
	enum reached r;
	int status;

	signal(SIGPIPE, SIG_IGN);
	status = answer_without_eal(argc, argv);
	if (status < 0)
		status = prepare(app, &argc, &argv, &memory);
	if (status >= 0) {
		free(memory);
		return status;
	}
	if (eal_start(argc, argv) != 0) {
		free(memory);
		return 1;
	}
	r = start_up(app, &memory);
	free(memory);
	status = 1;
	if (r == R_JOINED) {
		capture(app);
		status = finish(app);
	}
	teardown(app, r);
	return status;
}
