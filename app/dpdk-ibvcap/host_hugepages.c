/* SPDX-License-Identifier: BSD-3-Clause */
/* The host's hugepages as EAL would see them: sizes, free pages, mounts, and the files other processes hold. */

#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "host.h"
#include "parse.h"

uint64_t
ibv_sys_u64(const char *dir, const char *file)
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
		fr = ibv_sys_u64(sub, "free_hugepages");
		rsv = ibv_sys_u64(sub, "resv_hugepages");
		over = ibv_sys_u64(sub, "nr_overcommit_hugepages");
		surp = ibv_sys_u64(sub, "surplus_hugepages");
		s->total = ibv_sys_u64(sub, "nr_hugepages");
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
