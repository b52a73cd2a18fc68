/* SPDX-License-Identifier: BSD-3-Clause */
/* The EAL arguments: what the host checks read of them, and EAL's own verdict on all of them. */

/*
 * There is no copy of EAL's option table here: EAL gains and drops options
 * between releases, and a copy would misread the next release's. The view
 * reads only the options the host checks need (read_opts below) and takes
 * any other option as EAL's alone, with its value attached or as the next
 * argument. The verdict on every argument is EAL's: eal_dry_run() runs
 * rte_eal_init in a child process, with two options that no EAL has put
 * after the arguments. EAL's argument loop stops at the first argument it
 * refuses, and it creates nothing before the loop ends (the runtime
 * directory, hugepage files and devices come after it), so the child's
 * complaint names either the first of those options (EAL took every
 * argument) or what EAL refused. DPDK 22.11 offers no parse-only call, and
 * its table (eal_long_options) is not exported. EAL's checks after its
 * loop (--in-memory with --no-huge, -a with -b, ...) stay EAL's at the start.
 */

#define _GNU_SOURCE /* sched_getaffinity */

#include <ctype.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "err.h"
#include "host.h"
#include "parse.h"

/* ---- reading the options the checks need ---------------------------------- */

enum eo {
	EO_C, EO_L, EO_LCORES, EO_MAIN_LCORE, EO_SERVICE, EO_MEM, EO_SOCKET_MEM,
	EO_SOCKET_LIMIT, EO_NO_HUGE, EO_LEGACY_MEM, EO_IN_MEMORY, EO_HUGE_DIR,
	EO_FILE_PREFIX, EO_OTHER,
};

/* The options read, as EAL spells them (one letter: a short option). */
static const struct {
	const char *name;
	enum eo id;
	bool value;
} read_opts[] = {
	{ "c", EO_C, true }, { "l", EO_L, true }, { "s", EO_SERVICE, true },
	{ "S", EO_SERVICE, true }, { "m", EO_MEM, true },
	{ "lcores", EO_LCORES, true }, { "main-lcore", EO_MAIN_LCORE, true },
	{ "socket-mem", EO_SOCKET_MEM, true }, { "socket-limit", EO_SOCKET_LIMIT, true },
	{ "no-huge", EO_NO_HUGE, false }, { "legacy-mem", EO_LEGACY_MEM, false },
	{ "in-memory", EO_IN_MEMORY, false }, { "huge-dir", EO_HUGE_DIR, true },
	{ "file-prefix", EO_FILE_PREFIX, true },
};

/* A long option's row: its exact name, or a prefix of one name only (as
 * getopt_long takes abbreviations); -1 for EAL's other options. An
 * abbreviation EAL finds ambiguous is refused by the dry run. */
static int
long_row(const char *name, size_t n)
{
	int found = -1;
	size_t i;

	for (i = 0; i < RTE_DIM(read_opts); i++) {
		if (read_opts[i].name[1] == '\0' || strncmp(read_opts[i].name, name, n) != 0)
			continue;
		if (read_opts[i].name[n] == '\0')
			return (int)i;
		found = found < 0 ? (int)i : -2;
	}
	return found < 0 ? -1 : found;
}

/* A short option's row: the letter's, or -1 for EAL's other letters. */
static int
short_row(char c)
{
	size_t k;

	for (k = 0; k < RTE_DIM(read_opts); k++)
		if (read_opts[k].name[0] == c && read_opts[k].name[1] == '\0')
			return (int)k;
	return -1;
}

static int dry_verdict(int ac, char **av, char *line, size_t len);

/* Whether EAL takes -c alone, as a flag (-v): asked of EAL itself (its
 * parse in a child, once a letter), not of a table here. */
static bool
eal_flag(char *prog, char c)
{
	static signed char known[128]; /* 0 not asked, 1 a flag, -1 not */
	char opt[3] = { '-', c, '\0' }, line[300];
	char *av[3] = { prog, opt, NULL };
	unsigned char u = (unsigned char)c;

	if (u >= sizeof(known))
		return false;
	if (known[u] == 0)
		known[u] = dry_verdict(2, av, line, sizeof(line)) == 0 ? 1 : -1;
	return known[u] == 1;
}

/* A cluster of short options at a ("-vl 0-1"), read as getopt reads it: its
 * letters up to the first that takes a value, which takes the rest of the
 * cluster or the next argument. Every letter the view reads takes a value;
 * another letter is taken as one with a value unless EAL says it is a flag,
 * asked only where a letter the view reads follows it in the cluster.
 * @return the row of the letter that takes the value, or -1. */
static int
short_opts(char *prog, const char *a, const char **val)
{
	const char *p;
	int row;

	for (p = a + 1;; p++) {
		const char *q;

		row = short_row(*p);
		for (q = p + 1; row < 0 && *q != '\0' && short_row(*q) < 0; q++)
			;
		if (row >= 0 || *q == '\0' || !eal_flag(prog, *p))
			break;
	}
	if (p[1] != '\0')
		*val = p + 1;
	return row;
}

/* One option at av[*i] (*i advanced past it and its value): its row or -1,
 * its value in *val (NULL: none given). An option not read takes, as EAL's
 * do, a value attached or the next argument when that is no option. */
static int
next_opt(int ac, char **av, int *i, const char **val)
{
	const char *a = av[(*i)++], *eq;
	int row = -1;

	*val = NULL;
	if (a[0] != '-' || a[1] == '\0')
		return -1; /* not an option: EAL leaves it */
	if (a[1] == '-') {
		eq = strchr(a + 2, '=');
		row = long_row(a + 2, eq != NULL ? (size_t)(eq - a - 2) : strlen(a + 2));
		if (eq != NULL)
			*val = eq + 1;
	} else {
		row = short_opts(av[0], a, val);
	}
	/* getopt_long: a value the option needs is the next argument, whatever it is */
	if (*val == NULL && *i < ac &&
	    (row >= 0 ? read_opts[row].value : av[*i][0] != '-'))
		*val = av[(*i)++];
	return row;
}

/* "N" or "N-M" at *p (advanced); @return 0 or -1 */
static int
range(const char **p, unsigned long *lo, unsigned long *hi)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -1;
	*lo = *hi = strtoul(*p, &end, 10);
	*p = end;
	if (**p == '-') {
		(*p)++;
		if (!isdigit((unsigned char)**p))
			return -1;
		*hi = strtoul(*p, &end, 10);
		*p = end;
	}
	return *lo <= *hi ? 0 : -1;
}

/* A list of ranges "0-3,5" (-l), up to stop (a character or '\0'); each
 * number set in out[] (size n). @return 0 or -1. */
static int
id_list(const char **p, char stop, bool *out, unsigned long n)
{
	unsigned long lo, hi, i;

	for (;;) {
		if (range(p, &lo, &hi) != 0 || hi >= n)
			return -1;
		for (i = lo; i <= hi; i++)
			out[i] = true;
		if (**p != ',' || stop == ',')
			break;
		(*p)++;
	}
	return **p == stop ? 0 : -1;
}

/* one of "N", "N-M", "(list)" at *p */
static int
id_group(const char **p, bool *out, unsigned long n)
{
	unsigned long lo, hi, i;

	if (**p == '(') {
		(*p)++;
		if (id_list(p, ')', out, n) != 0)
			return -1;
		(*p)++;
		return 0;
	}
	if (range(p, &lo, &hi) != 0 || hi >= n)
		return -1;
	for (i = lo; i <= hi; i++)
		out[i] = true;
	return 0;
}

/* --lcores 'lcores[@cpus][,lcores[@cpus]...]' */
static int
lcores_map(const char *s, struct ibv_eal_view *v)
{
	const char *p = s;

	while (*p != '\0') {
		bool ids[RTE_MAX_LCORE] = { false }, cpus[IBV_MAX_CPUS] = { false };
		unsigned int i;

		if (id_group(&p, ids, RTE_MAX_LCORE) != 0)
			return -1;
		if (*p == '@') {
			p++;
			if (id_group(&p, cpus, IBV_MAX_CPUS) != 0)
				return -1;
		} else {
			for (i = 0; i < RTE_MAX_LCORE && i < IBV_MAX_CPUS; i++)
				cpus[i] = ids[i];
		}
		for (i = 0; i < RTE_MAX_LCORE; i++)
			v->lcore[i] |= ids[i];
		for (i = 0; i < IBV_MAX_CPUS; i++)
			v->cpu[i] |= cpus[i];
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return -1;
	}
	return 0;
}

static int
coremask(const char *s, struct ibv_eal_view *v)
{
	size_t n, i;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || strspn(s, "0123456789abcdefABCDEF") != n)
		return -1;
	for (i = 0; i < n; i++) {
		char c = s[n - 1 - i];
		unsigned int d = isdigit((unsigned char)c) ? (unsigned int)(c - '0') :
			(unsigned int)(tolower((unsigned char)c) - 'a' + 10), b;

		for (b = 0; b < 4; b++)
			if (d >> b & 1) {
				if (4 * i + b >= RTE_MAX_LCORE)
					return -1;
				v->lcore[4 * i + b] = true;
				v->cpu[4 * i + b] = true;
			}
	}
	return 0;
}

/* "1024" or "1024,0,512": the sum in MiB; *zero: a 0 among them */
static int
mb_list(const char *s, uint64_t *sum, bool *zero)
{
	const char *p = s;

	*sum = 0;
	if (zero != NULL)
		*zero = false;
	for (;;) {
		char *end;
		unsigned long long x;

		if (!isdigit((unsigned char)*p))
			return -1;
		x = strtoull(p, &end, 10);
		*sum += x;
		if (x == 0 && zero != NULL)
			*zero = true;
		p = end;
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return -1;
		p++;
	}
}

/* "-l", "--lcores": the option of a row, for messages */
static const char *
opt_name(int row, char *buf, size_t len)
{
	const char *n = read_opts[row].name;

	snprintf(buf, len, "%s%s", n[1] == '\0' ? "-" : "--", n);
	return buf;
}

bool
ibv_cpu_detected(unsigned int cpu)
{
	char path[96];

	/* as EAL's eal_cpu_detected() */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/core_id", cpu);
	return access(path, F_OK) == 0;
}

/* -c, -l, --lcores: the lcores, and the CPUs they run on. @return 0 or -1. */
static int
read_lcores(struct ibv_eal_view *v, int row, const char *arg, int *core_opts)
{
	enum eo id = read_opts[row].id;
	char name[32];
	int k, rc;

	if ((*core_opts)++ > 0) {
		snprintf(v->bad, sizeof(v->bad), "%s and %s %s: EAL takes one of -c, -l and --lcores",
			 v->lcores_arg, opt_name(row, name, sizeof(name)), arg);
		return 0;
	}
	v->lcores_given = true;
	snprintf(v->lcores_arg, sizeof(v->lcores_arg), "%s %s", opt_name(row, name, sizeof(name)),
		 arg);
	if (id == EO_C)
		return coremask(arg, v);
	if (id == EO_LCORES)
		return lcores_map(arg, v);
	rc = id_list(&arg, '\0', v->lcore, RTE_MAX_LCORE);
	for (k = 0; k < RTE_MAX_LCORE && k < IBV_MAX_CPUS; k++)
		v->cpu[k] = v->lcore[k]; /* lcore i on CPU i */
	return rc;
}

/* --main-lcore N */
static int
read_main_lcore(struct ibv_eal_view *v, const char *arg)
{
	char *end;
	unsigned long x = strtoul(arg, &end, 10);

	if (*end != '\0' || !isdigit((unsigned char)*arg) || x >= RTE_MAX_LCORE)
		return -1;
	v->main_lcore = (int)x;
	return 0;
}

/* One option read into v. @return 0, or -1 when its value is unreadable. */
static int
read_one(struct ibv_eal_view *v, int row, const char *arg, int *core_opts, bool *limit_zero)
{
	switch (read_opts[row].id) {
	case EO_C:
	case EO_L:
	case EO_LCORES:
		return read_lcores(v, row, arg, core_opts);
	case EO_MAIN_LCORE:
		return read_main_lcore(v, arg);
	case EO_SERVICE:
		v->service_cores = true;
		return 0;
	case EO_MEM:
		v->mem_mb = strtoull(arg, NULL, 10); /* EAL: atoi(optarg) MiB */
		return 0;
	case EO_SOCKET_MEM:
		return mb_list(arg, &v->socket_mem_mb, NULL);
	case EO_SOCKET_LIMIT:
		return mb_list(arg, &v->socket_limit_mb, limit_zero);
	case EO_NO_HUGE:
		v->no_huge = true;
		return 0;
	case EO_LEGACY_MEM:
		v->legacy_mem = true;
		return 0;
	case EO_IN_MEMORY:
		v->in_memory = true;
		return 0;
	case EO_HUGE_DIR:
		str_copy(v->huge_dir, sizeof(v->huge_dir), arg);
		return 0;
	default:
		str_copy(v->prefix, sizeof(v->prefix), arg);
		return 0;
	}
}

/* Without -c, -l or --lcores, EAL takes every detected CPU of the process's affinity. */
static void
default_lcores(struct ibv_eal_view *v)
{
	cpu_set_t set;
	unsigned int c;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (c = 0; c < RTE_MAX_LCORE && c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set) && ibv_cpu_detected(c))
				v->lcore[c] = true;
}

/* ---- EAL's verdict: its own parse in a child -------------------------------- */

#define DRY_END1 "--ibvcap-dry-run-end-a"
#define DRY_END2 "--ibvcap-dry-run-end-b"

/* The child: rte_eal_init on the arguments and the two ends, its words to fd.
 * EAL's own messages at level error (a refusal is logged at that level),
 * unless the arguments lower it. */
static void __rte_noreturn
dry_child(int fd, int ac, char **av)
{
	char **a = calloc((size_t)ac + 4, sizeof(*a));
	int null = open("/dev/null", O_RDONLY);

	if (a == NULL || null < 0 || dup2(null, STDIN_FILENO) < 0 ||
	    dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
		_exit(2);
	a[0] = av[0];
	a[1] = (char *)(uintptr_t)"--log-level=lib.eal:error";
	memcpy(a + 2, av + 1, (size_t)(ac - 1) * sizeof(*a));
	a[ac + 1] = (char *)(uintptr_t)DRY_END1;
	a[ac + 2] = (char *)(uintptr_t)DRY_END2;
	opterr = 1; /* getopt names what it refuses (the options' parser may have silenced it) */
	if (rte_eal_init(ac + 3, a) >= 0) {
		/* an EAL that takes options no EAL has: it started, undo it */
		rte_eal_cleanup();
		_exit(3);
	}
	fflush(stdout);
	_exit(0);
}

/* What the child said, up to EAL's usage text (printed after a refusal). */
static int
dry_words(int ac, char **av, char *out, size_t len)
{
	int p[2], st = 0;
	size_t off = 0;
	ssize_t n = 1;
	char sink[512];
	pid_t pid;

	out[0] = '\0';
	if (pipe(p) != 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		dry_child(p[1], ac, av);
	}
	close(p[1]);
	while (pid > 0 && n > 0) {
		/* all of it read, what does not fit dropped: the child never blocks */
		if (off + 1 < len) {
			n = read(p[0], out + off, len - 1 - off);
			off += n > 0 ? (size_t)n : 0;
		} else {
			n = read(p[0], sink, sizeof(sink));
		}
	}
	out[off] = '\0';
	close(p[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The last line of text that is not blank, cut from its "EAL: " or "PROG: ". */
static const char *
last_line(char *text, const char *prog)
{
	char *line = NULL, *p, *usage = strstr(text, "Usage:");
	size_t pl = strlen(prog);

	if (usage != NULL)
		*usage = '\0';
	for (p = strtok(text, "\n"); p != NULL; p = strtok(NULL, "\n"))
		if (p[strspn(p, " \t\r")] != '\0')
			line = p;
	if (line == NULL)
		return "";
	if (strncmp(line, "EAL: ", 5) == 0)
		return line + 5;
	if (strncmp(line, prog, pl) == 0 && strncmp(line + pl, ": ", 2) == 0)
		return line + pl + 2;
	return line;
}

/* EAL's verdict on av[0..ac-1], its last words in line: 0 it takes them,
 * 1 it refuses one, 2 the last took the first end as its value, -1 no
 * child, -2 EAL started (it took an option no EAL has). */
static int
dry_verdict(int ac, char **av, char *line, size_t len)
{
	char text[16384];
	const char *l;
	int rc = dry_words(ac, av, text, sizeof(text));

	if (rc != 0)
		return rc == 3 ? -2 : -1;
	l = last_line(text, av[0]);
	str_copy(line, len, l);
	if (strstr(l, DRY_END2) != NULL)
		return 2;
	return strstr(l, DRY_END1) != NULL ? 0 : 1;
}

/* EAL's refusal into v->refused ("" when it takes every argument), with the
 * argument it refuses: the last of the shortest list it refuses in the same
 * words (EAL's words need not name it; a few more children, on refusal only). */
static void
eal_dry_run(int ac, char **av, struct ibv_eal_view *v)
{
	char words[300], w[300];
	int rc = dry_verdict(ac, av, words, sizeof(words)), lo = 1, hi = ac - 1;

	if (rc < 0) {
		snprintf(v->refused, sizeof(v->refused), "EAL's own parse could not be run here "
			 "(%s): the start's rte_eal_init will judge them",
			 rc == -2 ? "it took an option no EAL has" : "no child process");
		return;
	}
	if (rc == 0 || ac < 2)
		return;
	if (rc == 2) {
		snprintf(v->refused, sizeof(v->refused), "%s: no value after it", av[ac - 1]);
		return;
	}
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (dry_verdict(mid + 1, av, w, sizeof(w)) == 1 && strcmp(w, words) == 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	snprintf(v->refused, sizeof(v->refused), "%s: EAL refuses it: %s", av[lo], words);
}

void
ibv_eal_view_parse(int argc, char **argv, struct ibv_eal_view *v)
{
	int ac = 0, i, row, core_opts = 0;
	bool limit_zero = false;
	char name[32];

	memset(v, 0, sizeof(*v));
	v->main_lcore = -1;
	snprintf(v->prefix, sizeof(v->prefix), "rte");
	while (ac < argc && strcmp(argv[ac], "--") != 0)
		ac++;
	for (i = 1; i < ac;) {
		const char *arg;

		row = next_opt(ac, argv, &i, &arg);
		if (row < 0 || (arg == NULL && read_opts[row].value))
			continue; /* EAL's to take or refuse */
		if (read_one(v, row, arg, &core_opts, &limit_zero) != 0 && v->bad[0] == '\0')
			snprintf(v->bad, sizeof(v->bad), "%s '%s': EAL cannot read it",
				 opt_name(row, name, sizeof(name)), arg);
	}
	if (limit_zero)
		v->socket_limit_mb = 0; /* a socket without a limit */
	if (!v->lcores_given)
		default_lcores(v);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		v->nlcore += v->lcore[i];
	if (ac > 1)
		eal_dry_run(ac, argv, v); /* no arguments: nothing for EAL to refuse */
}
