/* SPDX-License-Identifier: BSD-3-Clause */
/* What the start needs from this host, checked before EAL init and by --check-config. */

#define _GNU_SOURCE /* sched_getaffinity */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mbuf_core.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "antbuf.h"
#include "err.h"
#include "fsprobe.h"
#include "host.h"
#include "parse.h"
#include "shm.h"
#include "writer.h"

#define MiB (1024ULL * 1024)
/* EAL's memory with --no-huge and no -m (MEMSIZE_IF_NO_HUGE_PAGE) */
#define NO_HUGE_DEFAULT_MB 64ULL
/* what rte_memzone_reserve_aligned adds to a buffer: the malloc element's
 * header and trailer and the alignment (generous) */
#define MZ_OVERHEAD (2 * ANTBUF_PAGE)

/* ---- the EAL arguments ------------------------------------------------ */

/* EAL's own option table (lib/eal/common/eal_common_options.c, 22.11):
 * getopt_long over it takes the arguments exactly as EAL will, value
 * forms and abbreviations included. */
enum {
	EO_FILE_PREFIX = 256, EO_HUGE_DIR, EO_LCORES, EO_MAIN_LCORE, EO_NO_HUGE,
	EO_IN_MEMORY, EO_SOCKET_MEM, EO_SOCKET_LIMIT, EO_LEGACY_MEM, EO_OTHER,
};

static const char eal_short[] = "a:b:c:s:d:hl:S:m:n:r:v";

static const struct option eal_long[] = {
	{ "base-virtaddr", 1, NULL, EO_OTHER }, { "create-uio-dev", 0, NULL, EO_OTHER },
	{ "file-prefix", 1, NULL, EO_FILE_PREFIX }, { "help", 0, NULL, EO_OTHER },
	{ "huge-dir", 1, NULL, EO_HUGE_DIR }, { "huge-unlink", 2, NULL, EO_OTHER },
	{ "iova-mode", 1, NULL, EO_OTHER }, { "lcores", 1, NULL, EO_LCORES },
	{ "log-level", 1, NULL, EO_OTHER }, { "trace", 1, NULL, EO_OTHER },
	{ "trace-dir", 1, NULL, EO_OTHER }, { "trace-bufsz", 1, NULL, EO_OTHER },
	{ "trace-mode", 1, NULL, EO_OTHER }, { "main-lcore", 1, NULL, EO_MAIN_LCORE },
	{ "mbuf-pool-ops-name", 1, NULL, EO_OTHER }, { "no-hpet", 0, NULL, EO_OTHER },
	{ "no-huge", 0, NULL, EO_NO_HUGE }, { "no-pci", 0, NULL, EO_OTHER },
	{ "no-shconf", 0, NULL, EO_OTHER }, { "in-memory", 0, NULL, EO_IN_MEMORY },
	{ "block", 1, NULL, EO_OTHER }, { "allow", 1, NULL, EO_OTHER },
	{ "proc-type", 1, NULL, EO_OTHER }, { "socket-mem", 1, NULL, EO_SOCKET_MEM },
	{ "socket-limit", 1, NULL, EO_SOCKET_LIMIT }, { "syslog", 1, NULL, EO_OTHER },
	{ "vdev", 1, NULL, EO_OTHER }, { "vfio-intr", 1, NULL, EO_OTHER },
	{ "vfio-vf-token", 1, NULL, EO_OTHER }, { "vmware-tsc-map", 0, NULL, EO_OTHER },
	{ "legacy-mem", 0, NULL, EO_LEGACY_MEM },
	{ "single-file-segments", 0, NULL, EO_OTHER },
	{ "match-allocations", 0, NULL, EO_OTHER }, { "telemetry", 0, NULL, EO_OTHER },
	{ "no-telemetry", 0, NULL, EO_OTHER },
	{ "force-max-simd-bitwidth", 1, NULL, EO_OTHER },
	{ "huge-worker-stack", 2, NULL, EO_OTHER },
	{ NULL, 0, NULL, 0 },
};

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
	if (**p == '(') {
		(*p)++;
		if (id_list(p, ')', out, n) != 0)
			return -1;
		(*p)++;
		return 0;
	}
	{
		unsigned long lo, hi, i;

		if (range(p, &lo, &hi) != 0 || hi >= n)
			return -1;
		for (i = lo; i <= hi; i++)
			out[i] = true;
	}
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

/* the option whose value EAL cannot read, for the message */
static const char *
opt_name(int o)
{
	switch (o) {
	case 'c':
		return "-c";
	case 'l':
		return "-l";
	case 'm':
		return "-m";
	case EO_LCORES:
		return "--lcores";
	case EO_MAIN_LCORE:
		return "--main-lcore";
	case EO_SOCKET_MEM:
		return "--socket-mem";
	default:
		return "--socket-limit";
	}
}

static bool
cpu_detected(unsigned int cpu)
{
	char path[96];

	/* as EAL's eal_cpu_detected() */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/topology/core_id", cpu);
	return access(path, F_OK) == 0;
}

void
ibv_eal_view_parse(int argc, char **argv, struct ibv_eal_view *v)
{
	char **av = calloc((size_t)argc + 1, sizeof(*av));
	int ac = 0, i, o, core_opts = 0, k;
	bool limit_zero = false;

	memset(v, 0, sizeof(*v));
	v->main_lcore = -1;
	snprintf(v->prefix, sizeof(v->prefix), "rte");
	if (av == NULL)
		return;
	for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		av[ac++] = argv[i];
	optind = 0;
	opterr = 0;
	while ((o = getopt_long(ac, av, eal_short, eal_long, NULL)) != -1) {
		const char *arg = optarg;
		int rc = 0;

		switch (o) {
		case 'c':
		case 'l':
		case EO_LCORES:
			if (core_opts++ > 0) {
				snprintf(v->bad, sizeof(v->bad), "%s and %s %s: EAL takes one of -c, "
					 "-l and --lcores", v->lcores_arg, opt_name(o), arg);
				break;
			}
			v->lcores_given = true;
			snprintf(v->lcores_arg, sizeof(v->lcores_arg), "%s %s",
				 o == 'c' ? "-c" : o == 'l' ? "-l" : "--lcores", arg);
			if (o == 'c') {
				rc = coremask(arg, v);
			} else if (o == 'l') {
				rc = id_list(&arg, '\0', v->lcore, RTE_MAX_LCORE);
				for (k = 0; k < RTE_MAX_LCORE && k < IBV_MAX_CPUS; k++)
					v->cpu[k] = v->lcore[k]; /* lcore i on CPU i */
			} else {
				rc = lcores_map(arg, v);
			}
			break;
		case 's':
		case 'S':
			v->service_cores = true;
			break;
		case 'm':
			/* EAL: atoi(optarg) MiB */
			v->mem_mb = strtoull(arg, NULL, 10);
			break;
		case EO_SOCKET_MEM:
			rc = mb_list(arg, &v->socket_mem_mb, NULL);
			break;
		case EO_SOCKET_LIMIT:
			rc = mb_list(arg, &v->socket_limit_mb, &limit_zero);
			break;
		case EO_MAIN_LCORE: {
			char *end;
			unsigned long x = strtoul(arg, &end, 10);

			if (*end != '\0' || !isdigit((unsigned char)*arg) || x >= RTE_MAX_LCORE)
				rc = -1;
			else
				v->main_lcore = (int)x;
			break;
		}
		case EO_NO_HUGE:
			v->no_huge = true;
			break;
		case EO_LEGACY_MEM:
			v->legacy_mem = true;
			break;
		case EO_IN_MEMORY:
			v->in_memory = true;
			break;
		case EO_HUGE_DIR:
			str_copy(v->huge_dir, sizeof(v->huge_dir), arg);
			break;
		case EO_FILE_PREFIX:
			str_copy(v->prefix, sizeof(v->prefix), arg);
			break;
		default:
			break; /* EAL's to take or refuse */
		}
		if (rc != 0 && v->bad[0] == '\0')
			snprintf(v->bad, sizeof(v->bad), "%s '%s': EAL cannot read it", opt_name(o),
				 optarg);
	}
	optind = 0;
	free(av);
	if (limit_zero)
		v->socket_limit_mb = 0; /* a socket without a limit */
	if (!v->lcores_given) {
		/* EAL: every detected CPU of the process's affinity */
		cpu_set_t set;
		unsigned int c;

		CPU_ZERO(&set);
		if (sched_getaffinity(0, sizeof(set), &set) == 0)
			for (c = 0; c < RTE_MAX_LCORE && c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &set) && cpu_detected(c))
					v->lcore[c] = true;
	}
	for (i = 0; i < RTE_MAX_LCORE; i++)
		v->nlcore += v->lcore[i];
}

/* ---- hugepages ---------------------------------------------------------- */

static uint64_t
sys_u64(const char *dir, const char *file)
{
	char path[PATH_MAX];
	unsigned long long x = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &x) != 1)
		x = 0;
	fclose(f);
	return x;
}

static uint64_t
default_page(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Hugepagesize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* "2M", "1G", "2048k" (pagesize= of a hugetlbfs mount) */
static uint64_t
size_word(const char *s)
{
	char *end;
	unsigned long long x = strtoull(s, &end, 10);

	switch (tolower((unsigned char)*end)) {
	case 'g':
		return x << 30;
	case 'm':
		return x << 20;
	case 'k':
		return x << 10;
	default:
		return x;
	}
}

/* Where EAL keeps pages of this size: a hugetlbfs mount for it (the one
 * holding --huge-dir when given), as eal_hugepage_info.c's get_hugepage_dir. */
static bool
page_dir(uint64_t page, uint64_t dflt, const char *huge_dir, char *dir, size_t len)
{
	char line[4096], found[PATH_MAX] = "";
	FILE *f = fopen("/proc/mounts", "r");

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		char dev[256], mnt[PATH_MAX], fs[64], opts[1024];
		const char *ps;
		size_t ml;

		if (sscanf(line, "%255s %4095s %63s %1023s", dev, mnt, fs, opts) != 4 ||
		    strcmp(fs, "hugetlbfs") != 0)
			continue;
		ps = strstr(opts, "pagesize=");
		if ((ps != NULL ? size_word(ps + 9) : dflt) != page)
			continue;
		if (huge_dir[0] == '\0') {
			str_copy(found, sizeof(found), mnt);
			break;
		}
		ml = strlen(mnt);
		if (strncmp(huge_dir, mnt, ml) != 0 ||
		    (strlen(huge_dir) > ml && huge_dir[ml] != '/' && strcmp(mnt, "/") != 0))
			continue;
		if (ml > strlen(found))
			str_copy(found, sizeof(found), mnt);
	}
	fclose(f);
	if (found[0] == '\0')
		return false;
	str_copy(dir, len, huge_dir[0] != '\0' ? huge_dir : found);
	return true;
}

/* The files some process holds with flock() (/proc/locks lines "1: FLOCK
 * ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF"; major and minor in hex). */
struct locks {
	size_t n, cap;
	struct { unsigned int maj, min; unsigned long long ino; } *e;
	bool unknown;      /* unreadable: every file taken as held */
};

static void
locks_read(struct locks *l)
{
	char line[512];
	FILE *f = fopen("/proc/locks", "r");

	memset(l, 0, sizeof(*l));
	if (f == NULL) {
		l->unknown = true;
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = strchr(line, ':');
		unsigned int maj, min;
		unsigned long long ino;

		if (strstr(line, "FLOCK") == NULL || p == NULL ||
		    sscanf(p + 1, "%*s %*s %*s %*s %x:%x:%llu", &maj, &min, &ino) != 3)
			continue;
		if (l->n == l->cap) {
			size_t nc = l->cap ? 2 * l->cap : 64;
			void *ne = realloc(l->e, nc * sizeof(*l->e));

			if (ne == NULL) {
				l->unknown = true;
				break;
			}
			l->e = ne;
			l->cap = nc;
		}
		l->e[l->n].maj = maj;
		l->e[l->n].min = min;
		l->e[l->n].ino = ino;
		l->n++;
	}
	fclose(f);
}

static bool
held(const struct locks *l, const struct stat *st)
{
	size_t i;

	if (l->unknown)
		return true;
	for (i = 0; i < l->n; i++)
		if (l->e[i].maj == major(st->st_dev) && l->e[i].min == minor(st->st_dev) &&
		    l->e[i].ino == st->st_ino)
			return true;
	return false;
}

/* Add prefix to a "a, b" list of at most len bytes, once. */
static void
add_name(char *list, size_t len, const char *name)
{
	size_t n = strlen(list), k = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)) != NULL; p += k)
		if ((p == list || p[-2] == ',') && (p[k] == '\0' || p[k] == ','))
			return;
	if (n + k + 3 < len)
		snprintf(list + n, len - n, "%s%s", n ? ", " : "", name);
}

/* Pages in s->dir's hugepage files ("*map_*"): those EAL would remove (no
 * process holds them), those of our own prefix (held by the primary this
 * start replaces: EAL names it if it still runs), and those other running
 * DPDK processes hold (their prefixes into others). */
static void
page_files(struct ibv_hp_size *s, const char *prefix, char *others, size_t olen)
{
	char own_pat[160];
	struct locks lk;
	struct dirent *e;
	DIR *d = opendir(s->dir);

	s->stale = s->own = s->held = 0;
	if (d == NULL || s->page == 0) {
		if (d != NULL)
			closedir(d);
		return;
	}
	locks_read(&lk);
	snprintf(own_pat, sizeof(own_pat), "%smap_*", prefix);
	while ((e = readdir(d)) != NULL) {
		char path[PATH_MAX + 256];
		struct stat st;
		uint64_t pages;

		if (fnmatch("*map_*", e->d_name, 0) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, e->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		pages = ((uint64_t)st.st_blocks * 512 + s->page - 1) / s->page;
		if (fnmatch(own_pat, e->d_name, 0) == 0) {
			s->own += pages;
		} else if (!held(&lk, &st)) {
			s->stale += pages;
		} else {
			char name[256];

			s->held += pages;
			str_copy(name, sizeof(name), e->d_name);
			*strstr(name, "map_") = '\0';
			add_name(others, olen, name);
		}
	}
	closedir(d);
	free(lk.e);
}

void
ibv_hp_read(const struct ibv_eal_view *v, struct ibv_hp_info *h)
{
	const char *sys = "/sys/kernel/mm/hugepages";
	uint64_t dflt = default_page();
	struct dirent *e;
	DIR *d;

	memset(h, 0, sizeof(*h));
	h->nsocket = 0;
	d = opendir("/sys/devices/system/node");
	if (d != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, "node", 4) == 0 && isdigit((unsigned char)e->d_name[4]))
				h->nsocket++;
		closedir(d);
	}
	if (h->nsocket == 0)
		h->nsocket = 1;
	if (v->huge_dir[0] != '\0' && !v->in_memory) {
		struct stat st;

		if (stat(v->huge_dir, &st) != 0 || !S_ISDIR(st.st_mode))
			h->huge_dir_bad = true; /* EAL matches no mount then */
	}
	d = opendir(sys);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && h->n < IBV_HP_MAX_SIZES) {
		struct ibv_hp_size *s = &h->s[h->n];
		char sub[PATH_MAX];
		uint64_t fr, rsv, over, surp;

		if (strncmp(e->d_name, "hugepages-", 10) != 0)
			continue;
		s->page = size_word(e->d_name + 10);
		snprintf(sub, sizeof(sub), "%s/%s", sys, e->d_name);
		/* as EAL's get_num_hugepages() */
		fr = sys_u64(sub, "free_hugepages");
		rsv = sys_u64(sub, "resv_hugepages");
		over = sys_u64(sub, "nr_overcommit_hugepages");
		surp = sys_u64(sub, "surplus_hugepages");
		s->total = sys_u64(sub, "nr_hugepages");
		s->free = (fr > rsv ? fr - rsv : 0) + (over > surp ? over - surp : 0);
		s->usable = !h->huge_dir_bad &&
			    page_dir(s->page, dflt, v->huge_dir, s->dir, sizeof(s->dir));
		if (s->usable && !v->in_memory) {
			page_files(s, v->prefix, h->others, sizeof(h->others));
			s->free += s->stale + s->own;
		}
		if (!s->usable && v->in_memory && v->huge_dir[0] == '\0')
			s->usable = true; /* memfd, no mount needed */
		h->n++;
	}
	closedir(d);
}

/* ---- memory ------------------------------------------------------------- */

/* Bytes a size takes of memory in pages of `page`: a page or more in
 * whole pages (EAL's heap grows by the pages an allocation needs), less
 * packed beside others. */
static uint64_t
in_pages(uint64_t bytes, uint64_t page)
{
	if (page == 0 || bytes < page)
		return bytes;
	return (bytes + MZ_OVERHEAD + page - 1) / page * page;
}

/* One rte_pktmbuf_pool_create(n, cache 256, priv 0, room) in pages of
 * `page`: its objects (header, mbuf, room, cache-line padding; none across
 * a page boundary), its ring, and its header with the per-lcore caches. */
static uint64_t
pool_bytes(uint64_t n, uint32_t room, uint64_t page)
{
	struct rte_mempool_objsz sz;
	uint64_t obj = rte_mempool_calc_obj_size(sizeof(struct rte_mbuf) + room, 0, &sz);
	uint64_t objs, hdr, ring;

	if (page >= obj && page > 0) {
		uint64_t per = page / obj;

		objs = (n + per - 1) / per * page;
	} else {
		objs = n * obj;
	}
	/* the pool's ring: a power of two above n (rte_mempool's ring ops) */
	ring = rte_ring_get_memsize(rte_align32pow2((uint32_t)(n < (1u << 30) ? n + 1 : 1u << 30)));
	hdr = sizeof(struct rte_mempool) + RTE_MAX_LCORE * sizeof(struct rte_mempool_cache) +
	      sizeof(struct rte_pktmbuf_pool_private);
	return objs + in_pages(ring, page) + hdr;
}

void
ibv_mem_need(const struct ibv_config *c, const struct ibv_eal_view *v, struct ibv_mem_need *m)
{
	struct ibv_buf_plan p;
	uint64_t nb, slots = 0;

	memset(m, 0, sizeof(*m));
	ibv_buffer_plan(c, &p);
	if (c->buffers) {
		struct antbuf_geom g = { .nrows = p.rows, .window = p.window, .nslots = p.nslots,
					 .data_bytes = c->data_bytes };

		m->nant = c->layout.nant;
		/* --zero-copy: rings of references, the frames in the mbufs */
		m->ant_bytes = c->zero_copy && c->gpu < 0 ? antbuf_size(&g, false) : p.host_bytes;
		m->gpu_bytes = p.gpu_bytes;
		m->ctl_bytes = sizeof(struct shm_ctl) + sizeof(struct wr_sched);
		if (c->zero_copy) {
			slots = (uint64_t)p.rows * p.nslots;
			m->refs_bytes = slots * sizeof(uintptr_t);
			slots *= m->nant;
		}
	}
	/* mbuf pools: the ports named, else one, one queue each (a port may
	 * have more: the start says); with --gpu buffer split replaces them */
	m->nport = c->nport ? c->nport : 1;
	if (c->gpu < 0) {
		nb = c->nb_mbufs ? c->nb_mbufs : ibv_mbufs_auto(c, 1, v->nlcore ? v->nlcore : 1);
		/* --zero-copy: one pool, every ring slot besides the ports' */
		m->nmbuf = c->zero_copy ? slots + nb * m->nport : nb * m->nport;
		m->pool_bytes = c->zero_copy ? pool_bytes(m->nmbuf, ibv_mbuf_room(c), 0) :
				m->nport * pool_bytes(nb, ibv_mbuf_room(c), 0);
	}
	m->total = (uint64_t)m->nant * (m->ant_bytes + MZ_OVERHEAD + m->refs_bytes) +
		   m->ctl_bytes + m->pool_bytes;
	ibv_mem_pages(c, m, 0);
}

void
ibv_mem_pages(const struct ibv_config *c, struct ibv_mem_need *m, uint64_t page)
{
	uint64_t t = IBV_EAL_BASE + m->ctl_bytes, nb;

	m->page = page;
	t += (uint64_t)m->nant * (in_pages(m->ant_bytes, page) + in_pages(m->refs_bytes, page));
	if (c->gpu < 0) {
		if (c->zero_copy) {
			t += pool_bytes(m->nmbuf, ibv_mbuf_room(c), page);
		} else {
			nb = m->nmbuf / (m->nport ? m->nport : 1);
			t += m->nport * pool_bytes(nb, ibv_mbuf_room(c), page);
		}
	}
	m->hp_bytes = page ? (t + page - 1) / page * page : t;
}

/* Bytes one memory segment list holds with pages of this size. */
static uint64_t
list_bytes(uint64_t page)
{
	uint64_t a = (uint64_t)RTE_MAX_MEMSEG_PER_LIST * page,
		 b = (uint64_t)RTE_MAX_MEM_MB_PER_LIST * MiB;

	return a < b ? a : b;
}

static const char *
page_name(uint64_t page, char *buf, size_t len)
{
	if (page >= (1ULL << 30))
		snprintf(buf, len, "%" PRIu64 " GiB", page >> 30);
	else if (page >= MiB)
		snprintf(buf, len, "%" PRIu64 " MiB", page >> 20);
	else
		snprintf(buf, len, "%" PRIu64 " KiB", page >> 10);
	return buf;
}

/* "1.0 GiB", for messages (the statement gives the bytes) */
static const char *
human(uint64_t bytes, char *buf, size_t len)
{
	char full[64], *p;

	bytes_str(bytes, full, sizeof(full));
	p = strchr(full, '(');
	if (p != NULL) {
		snprintf(buf, len, "%s", p + 1);
		buf[strcspn(buf, ")")] = '\0';
	} else {
		snprintf(buf, len, "%s", full);
	}
	return buf;
}

/* "1000 x 2 MiB free in /dev/hugepages" (sizes with no pages left out) */
static void
pages_str(const struct ibv_hp_info *h, const char *huge_dir, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;
	char pn[32];

	buf[0] = '\0';
	for (i = 0; i < h->n && off < len; i++) {
		const struct ibv_hp_size *s = &h->s[i];

		if (s->total == 0 && s->free == 0)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%" PRIu64 " x %s free%s%s",
					off ? ", " : "", s->free, page_name(s->page, pn, sizeof(pn)),
					s->usable ? (s->dir[0] ? " in " : " (in memory)") :
					huge_dir[0] ? " but --huge-dir is on no hugetlbfs mount of "
						      "them: " : " but no hugetlbfs mounted for them",
					s->usable ? s->dir : huge_dir);
	}
	if (off == 0)
		snprintf(buf, len, "no hugepages reserved");
}

/* What to lower, with the values in force. */
static void
lower_str(const struct ibv_config *c, char *buf, size_t len)
{
	struct ibv_buf_plan p;

	ibv_buffer_plan(c, &p);
	if (p.retained) {
		snprintf(buf, len, "lower --retain (%.9g s: %" PRIu64 " frames at --frame-rate "
			 "%.6g, a ring of %u frames), --reorder-window (%u frames) or --antennas "
			 "(%u)", (double)c->retain_ns / 1e9, p.retain_rows, c->frame_rate, p.rows,
			 p.window, c->layout.nant);
		return;
	}
	snprintf(buf, len, "lower --ring (%u frames%s), --reorder-window (%u frames; the ring "
		 "is at least twice it) or --antennas (%u)", p.rows,
		 p.grown ? ", grown for the reorder window" : "", p.window, c->layout.nant);
}

int
ibv_mem_fit(const struct ibv_config *c, const struct ibv_mem_need *m,
	    const struct ibv_eal_view *v, const struct ibv_hp_info *h, uint64_t *avail,
	    char *err, size_t len)
{
	char need[64], have[64], per[64], low[300], pages[PATH_MAX + 300], pn[64], held[300];
	uint64_t total = 0, type_cap, maxlist = 0, maxpage = 0, fits = 0, heldb = 0;
	unsigned int i;

	if (avail != NULL)
		*avail = 0;
	lower_str(c, low, sizeof(low));
	if (v->no_huge) {
		uint64_t mb = v->mem_mb ? v->mem_mb : NO_HUGE_DEFAULT_MB;

		if (avail != NULL)
			*avail = mb * MiB;
		if (m->total <= mb * MiB)
			return 0;
		return err_set(err, len, -ENOMEM, "memory: antenna buffers %u x %s and mbuf pools of "
			    "at least %s need %s, more than the %" PRIu64 " MiB EAL has with "
			    "--no-huge%s: %s, or give a larger -m", m->nant,
			    human(m->ant_bytes, per, sizeof(per)),
			    human(m->pool_bytes, have, sizeof(have)),
			    human(m->total, need, sizeof(need)), mb,
			    v->mem_mb ? " -m" : " (no -m)", low);
	}
	if (h->huge_dir_bad)
		return err_set(err, len, -ENOENT, "--huge-dir %s: not a directory here: EAL would "
			    "find no hugepages", v->huge_dir);
	pages_str(h, v->huge_dir, pages, sizeof(pages));
	type_cap = (uint64_t)RTE_MAX_MEM_MB_PER_TYPE * MiB * h->nsocket;
	for (i = 0; i < h->n; i++) {
		const struct ibv_hp_size *s = &h->s[i];
		uint64_t b = s->free * s->page;

		if (!s->usable || s->total + s->free == 0)
			continue;
		if (b > type_cap)
			b = type_cap;
		total += b;
		if (list_bytes(s->page) > maxlist) {
			maxlist = list_bytes(s->page);
			maxpage = s->page;
		}
		/* a buffer lies in pages of one size, in one segment list */
		if (m->ant_bytes + MZ_OVERHEAD <= list_bytes(s->page))
			fits += b / (m->ant_bytes + MZ_OVERHEAD);
	}
	if (v->legacy_mem && (v->mem_mb || v->socket_mem_mb)) {
		uint64_t pre = (v->mem_mb ? v->mem_mb : v->socket_mem_mb) * MiB;

		if (pre < total)
			total = pre;
	} else if (v->socket_limit_mb && v->socket_limit_mb * MiB < total) {
		total = v->socket_limit_mb * MiB;
	}
	if (avail != NULL)
		*avail = total;
	if (total == 0 || maxlist == 0)
		return err_set(err, len, -ENOMEM, "memory: no hugepages EAL could use (%s): reserve "
			    "and mount some (scripts/setup.sh), or run without them: --no-huge -m "
			    "MiB (EAL arguments, before '--' or in [eal] args)", pages);
	if ((v->mem_mb || v->socket_mem_mb) &&
	    (v->mem_mb ? v->mem_mb : v->socket_mem_mb) * MiB > total)
		return err_set(err, len, -ENOMEM, "%s %" PRIu64 ": EAL takes that many MiB of "
			    "hugepages at start, only %s can be had (%s): give less, or reserve "
			    "more hugepages", v->mem_mb ? "-m" : "--socket-mem",
			    v->mem_mb ? v->mem_mb : v->socket_mem_mb,
			    human(total, have, sizeof(have)), pages);
	if (m->nant > 0 && m->ant_bytes + MZ_OVERHEAD > maxlist)
		return err_set(err, len, -ENOMEM, "memory: an antenna buffer of %s must lie in one of "
			    "EAL's memory segment lists, at most %s with %s pages (%u pages or %u "
			    "MiB a list): %s", human(m->ant_bytes, per, sizeof(per)),
			    human(maxlist, have, sizeof(have)), page_name(maxpage, pn, sizeof(pn)),
			    RTE_MAX_MEMSEG_PER_LIST, RTE_MAX_MEM_MB_PER_LIST, low);
	if (m->total <= total && fits >= m->nant)
		return 0;
	held[0] = '\0';
	for (i = 0; i < h->n; i++)
		heldb += h->s[i].usable ? h->s[i].held * h->s[i].page : 0;
	if (heldb > 0)
		/* --check-config while the capture to be replaced still runs */
		snprintf(held, sizeof(held), "; %s more are held by running DPDK processes "
			 "(--file-prefix %s): if this replaces one, give its --file-prefix",
			 human(heldb, need, sizeof(need)), h->others);
	return err_set(err, len, -ENOMEM, "memory: antenna buffers %u x %s and mbuf pools of at "
		    "least %s need %s, more than the %s of hugepages EAL can have (%s%s%s): %s, or "
		    "reserve more hugepages", m->nant, human(m->ant_bytes, per, sizeof(per)),
		    human(m->pool_bytes, have, sizeof(have)), human(m->total, need, sizeof(need)),
		    human(total, pn, sizeof(pn)), pages,
		    v->socket_limit_mb ? ", --socket-limit" : v->legacy_mem ? ", --legacy-mem" : "",
		    held, low);
}

/* ---- the checks ----------------------------------------------------------- */

/* Longest file name a writer makes: DIR/PREFIX_ANTENNA_TIME.EXT.json.part */
static size_t
longest_name(const struct ibv_config *c, const struct wr_opts *o)
{
	size_t ant = 3, i; /* "all" */

	for (i = 0; i < c->layout.nant; i++)
		if (strlen(c->layout.ant_name[i]) > ant)
			ant = strlen(c->layout.ant_name[i]);
	/* 20250310T120013.500000000Z */
	return strlen(o->dir) + 1 + strlen(o->prefix) + 1 + ant + 1 + 26 + 1 +
	       strlen(wr_format_name(o->format)) + sizeof(".json.part") - 1;
}

static int
check_writers(const struct ibv_config *c, char *err, size_t len)
{
	static char real[IBV_MAX_WRITERS][PATH_MAX];
	const struct wr_opts *o = c->wo; /* parsed with the configuration */
	char why[PATH_MAX + 128];
	unsigned int i, j;
	int rc;

	for (i = 0; i < c->nwrite; i++) {
		rc = fs_dir_takes_files(o[i].dir, why, sizeof(why));
		if (rc != 0)
			return err_set(err, len, rc, "--write %s: directory '%s' %s", c->write[i],
				    o[i].dir, why);
		rc = wr_budget_check(&o[i], why, sizeof(why));
		if (rc != 0)
			return err_set(err, len, rc, "--write %s: %s", c->write[i], why);
		if (longest_name(c, &o[i]) >= PATH_MAX)
			return err_set(err, len, -ENAMETOOLONG, "--write %s: file names in '%s' would "
				    "be %zu characters, more than the %d a path may have",
				    c->write[i], o[i].dir, longest_name(c, &o[i]), PATH_MAX - 1);
		if (realpath(o[i].dir, real[i]) == NULL)
			return err_set(err, len, -errno, "--write %s: directory '%s': %s",
				    c->write[i], o[i].dir, strerror(errno));
		/* files are DIR/PREFIX_ANTENNA_TIME.FORMAT (+ .json for raw):
		 * two writers collide only with the same directory, format
		 * and prefix; the second would stop at its first file */
		for (j = 0; j < i; j++)
			if (strcmp(real[i], real[j]) == 0 && o[i].format == o[j].format &&
			    strcmp(o[i].prefix, o[j].prefix) == 0)
				return err_set(err, len, -EEXIST, "--write %s and --write %s: both write "
					    "%s files named %s_* into %s: their names would collide; "
					    "give one another directory or prefix=",
					    c->write[j], c->write[i], wr_format_name(o[i].format),
					    o[i].prefix, real[i]);
	}
	return 0;
}

static int
check_ifaces(const struct ibv_config *c, char *err, size_t len)
{
	unsigned int i, g, joins[IBV_MAX_PORTS] = { 0 };
	uint64_t max = sys_u64("/proc/sys/net/ipv4", "igmp_max_memberships");

	if (c->no_join)
		return 0;
	for (i = 0; i < IBV_MAX_PORTS; i++)
		if (c->port[i].iface[0] != '\0' && if_nametoindex(c->port[i].iface) == 0)
			return err_set(err, len, -ENODEV, "--join-iface %u=%s: no such interface here "
				    "(ip link shows them; or --no-join)", i, c->port[i].iface);
	/* one socket per port joins its groups: the kernel allows each socket
	 * igmp_max_memberships (known where the port's interface is named) */
	for (g = 0; g < c->layout.ngroup; g++) {
		if (c->group_port[g] >= 0)
			joins[c->group_port[g]]++;
		else if (c->nport != 0)
			joins[g % c->nport]++;
	}
	for (i = 0; i < IBV_MAX_PORTS && max > 0; i++)
		if (c->port[i].iface[0] != '\0' && joins[i] > max)
			return err_set(err, len, -ENOBUFS, "port index %u joins %u groups on %s, more than "
				    "the kernel lets one socket join (net.ipv4.igmp_max_memberships = %"
				    PRIu64 "): raise it (sysctl -w net.ipv4.igmp_max_memberships=%u) or "
				    "spread the groups over ports (--group IP:PORT@P)", i, joins[i],
				    c->port[i].iface, max, joins[i]);
	return 0;
}

static int
check_lcores(const struct ibv_config *c, const struct ibv_eal_view *v, char *err, size_t len)
{
	unsigned int workers[RTE_MAX_LCORE], nw = 0, i, k, main_l;
	const char *how = v->lcores_given ? v->lcores_arg : "EAL's default: every CPU of this "
			  "process (taskset)";

	if (v->service_cores)
		return 0; /* service cores: EAL's to say */
	for (i = 0; v->lcores_given && i < IBV_MAX_CPUS; i++)
		if (v->cpu[i] && !cpu_detected(i))
			return err_set(err, len, -EINVAL, "%s: CPU %u is not on this host (lcores run on "
				    "CPUs that exist: lscpu)", v->lcores_arg, i);
	if (v->nlcore == 0)
		return err_set(err, len, -EINVAL, "lcores (%s): none", how);
	for (main_l = 0; !v->lcore[main_l]; main_l++)
		;
	if (v->main_lcore >= 0) {
		if (!v->lcore[v->main_lcore])
			return err_set(err, len, -EINVAL, "--main-lcore %d: not one of the lcores (%s)",
				    v->main_lcore, how);
		main_l = (unsigned int)v->main_lcore;
	}
	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (v->lcore[i] && i != main_l)
			workers[nw++] = i;
	/* as wr.c and rx.c: the last workers are the writers', the rest rx */
	if (c->nwlcore > 0 && nw < c->nwlcore + 1)
		return err_set(err, len, -EINVAL,
			    "--write: %u writer%s need%s an lcore each%s besides at least one rx "
			    "lcore: %s gives %u worker lcore%s besides the main lcore %u (give more "
			    "with -l, or map several lcores to CPUs with --lcores, e.g. --lcores "
			    "0@0,1@1,2@0)", c->nwlcore, c->nwlcore == 1 ? "" : "s",
			    c->nwlcore == 1 ? "s" : "", c->nwlcore > c->nwrite ?
			    " (lcores=N: N)" : "", how, nw, nw == 1 ? "" : "s", main_l);
	if (nw == 0)
		return err_set(err, len, -EINVAL,
			    "no worker lcore: the main lcore reports, rx needs at least one more "
			    "(e.g. -l 0,1): %s gives none", how);
	for (k = 0; k < c->nmap; k++) {
		const struct ibv_map *m = &c->map[k];
		bool writer = false;

		for (i = nw - c->nwlcore; i < nw; i++)
			writer |= workers[i] == m->lcore;
		if (m->lcore >= RTE_MAX_LCORE || !v->lcore[m->lcore] || m->lcore == main_l ||
		    writer)
			return err_set(err, len, -EINVAL, "--lcore-map %u.%u@%u: lcore %u is not a "
				    "worker lcore of this process (%s; main lcore %u%s)", m->port_idx,
				    m->queue, m->lcore, m->lcore, how, main_l,
				    writer ? "; it writes" : "");
	}
	return 0;
}

int
ibv_host_check(const struct ibv_config *c, const struct ibv_eal_view *v, FILE *out,
	       const char *lead, char *err, size_t len)
{
	struct ibv_mem_need m;
	struct ibv_hp_info h;
	uint64_t avail = 0;
	char a[64], b[64], t[64], p[64];
	int rc;

	if ((rc = ibv_config_check_files(c, err, len)) != 0 ||
	    (rc = check_writers(c, err, len)) != 0 || (rc = check_ifaces(c, err, len)) != 0)
		return rc;
	if (v->bad[0] != '\0')
		return err_set(err, len, -EINVAL, "EAL arguments: %s", v->bad);
	if ((rc = check_lcores(c, v, err, len)) != 0)
		return rc;
	ibv_mem_need(c, v, &m);
	if (!v->no_huge) {
		unsigned int i;
		uint64_t page = 0;

		ibv_hp_read(v, &h);
		/* the pages EAL's heap grows by: the smallest size it can use */
		for (i = 0; i < h.n; i++)
			if (h.s[i].usable && h.s[i].free > 0 && (page == 0 || h.s[i].page < page))
				page = h.s[i].page;
		ibv_mem_pages(c, &m, page);
	} else {
		memset(&h, 0, sizeof(h));
		ibv_mem_pages(c, &m, 4096);
	}
	if (m.hp_bytes > m.total)
		m.total = m.hp_bytes;
	rc = ibv_mem_fit(c, &m, v, &h, &avail, err, len);
	if (rc == -ENOMEM && c->retain_ns && c->buffers) {
		/* the rings were sized from --retain: say so first */
		struct ibv_buf_plan bp;
		char why[IBV_ERRLEN];

		ibv_buffer_plan(c, &bp);
		if (bp.retained) {
			str_copy(why, sizeof(why), err);
			err_set(err, len, rc, "--retain %.9gs: %u antenna rings of %u frames (%" PRIu64
				" frames of data time at --frame-rate %.6g + the reorder window) need "
				"%s in all, %s free: %s", (double)c->retain_ns / 1e9, m.nant, bp.rows,
				bp.retain_rows, c->frame_rate, human(m.total, a, sizeof(a)),
				human(avail, b, sizeof(b)), why);
		}
	}
	if (out != NULL) {
		if (m.nant > 0)
			fprintf(out, "%smemory: antenna buffers %u x %s = %s%s; control block %s\n",
				lead, m.nant, bytes_str(m.ant_bytes, a, sizeof(a)),
				bytes_str((uint64_t)m.nant * m.ant_bytes, t, sizeof(t)),
				m.gpu_bytes ? " (metadata; the payload in GPU memory, not checked "
					      "here)" : "",
				bytes_str(m.ctl_bytes, b, sizeof(b)));
		if (m.refs_bytes)
			fprintf(out, "%smemory: --zero-copy: the rings hold references (%s each), "
				"the frames one mbuf pool of %" PRIu64 " mbufs\n", lead,
				bytes_str(m.refs_bytes, a, sizeof(a)), m.nmbuf);
		fprintf(out, "%smemory: mbuf pools %s (%" PRIu64 " mbufs, %u port%s%s)\n", lead,
			bytes_str(m.pool_bytes, p, sizeof(p)), m.nmbuf, m.nport,
			m.nport == 1 ? "" : "s", c->nport ? "" : " counted: every probed port is used");
		fprintf(out, "%smemory: the capture takes %s of %s (its buffers and pools in whole "
			"pages, EAL's own ~%llu MiB); EAL can have %s (%s)\n", lead,
			bytes_str(m.hp_bytes, t, sizeof(t)),
			v->no_huge ? "its memory (--no-huge)" : m.page >= (1ULL << 30) ? "1 GiB pages" :
			m.page >= (2ULL << 20) ? "2 MiB pages" : "hugepages",
			IBV_EAL_BASE >> 20, bytes_str(avail, b, sizeof(b)),
			v->no_huge ? (v->mem_mb ? "-m with --no-huge" : "--no-huge, EAL's default -m") :
				     v->legacy_mem ? "hugepages, --legacy-mem" :
				     "free hugepages of the sizes EAL can use");
	}
	return rc;
}
