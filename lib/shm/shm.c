/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared object names and the control block of a capture instance. */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "shm.h"

void
shm_instance(const char *prefix, char out[SHM_NAMELEN])
{
	size_t n = strlen(prefix);
	uint32_t h = 2166136261u;
	size_t i;

	if (n <= 20) {
		snprintf(out, SHM_NAMELEN, "%s", prefix);
		return;
	}
	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)prefix[i]) * 16777619u;
	snprintf(out, SHM_NAMELEN, "%.11s%08x", prefix, h);
}

void
shm_ctl_name(const char *inst, char out[SHM_NAMELEN])
{
	snprintf(out, SHM_NAMELEN, "ibv_%.20s_ctl", inst);
}

void
shm_ant_name(const char *inst, unsigned int ant, char out[SHM_NAMELEN])
{
	snprintf(out, SHM_NAMELEN, "ibv_%.20s_a%02u", inst, ant % 100);
}

void
shm_sched_name(const char *inst, char out[SHM_NAMELEN])
{
	snprintf(out, SHM_NAMELEN, "ibv_%.20s_sch", inst);
}

void
shm_ctl_init(struct shm_ctl *c, const char *inst, unsigned int nant,
		 int pid)
{
	memset(c, 0, sizeof(*c));
	c->magic = SHM_MAGIC;
	c->version = SHM_VERSION;
	c->size = (uint32_t)sizeof(*c);
	c->nant = nant;
	c->primary_pid = pid;
	snprintf(c->instance, sizeof(c->instance), "%s", inst);
}

int
shm_ctl_check(const struct shm_ctl *c, size_t zone_len, char *err,
		  size_t len)
{
	if (zone_len < sizeof(*c) || c->magic != SHM_MAGIC)
		return err_set(err, len, -EPROTO,
			       "the control block is not dpdk-ibvcap's (magic 0x%08x)",
			       zone_len >= 4 ? c->magic : 0);
	if (c->version != SHM_VERSION || c->size != sizeof(*c))
		return err_set(err, len, -EPROTO,
			       "the primary's shared memory is version %u (%u bytes), this program "
			       "expects version %d (%zu bytes): run the same dpdk-ibvcap build",
			       c->version, c->size, SHM_VERSION, sizeof(*c));
	if (c->nant > SHM_MAX_ANT)
		return err_set(err, len, -EPROTO, "control block names %u antennas (at most %d)",
			       c->nant, SHM_MAX_ANT);
	return 0;
}

/* Whether free entry w suits name in pass: 0 it last held name, 1 it was
 * never used, 2 any. */
static bool
claim_fits(const struct shm_writer *w, const char *name, int pass)
{
	if (pass == 0)
		return strncmp(w->name, name, sizeof(w->name) - 1) == 0;
	return pass == 2 || w->name[0] == '\0';
}

bool
shm_pid_gone(int pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	if (pid <= 0)
		return true;
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f == NULL)
		return errno == ENOENT;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "pid (comm) S ...": the state after the last ')' */
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] == 'Z';
}

unsigned int
shm_writer_reap(struct shm_ctl *c, int self, int64_t now_ns, uint32_t *died)
{
	unsigned int i, n = 0;

	if (died != NULL)
		*died = 0;
	for (i = 0; i < SHM_MAX_WRITERS; i++) {
		struct shm_writer *w = &c->writer[i];
		int pid = __atomic_load_n(&w->pid, __ATOMIC_RELAXED);
		int64_t hb;

		if (!__atomic_load_n(&w->in_use, __ATOMIC_ACQUIRE) || pid == self)
			continue;
		if (shm_pid_gone(pid)) {
			uint32_t one = 1;

			/* dead, then free: a claim never sees it free and alive */
			__atomic_store_n(&w->dead, 1, __ATOMIC_RELEASE);
			__atomic_store_n(&w->hung, 0, __ATOMIC_RELAXED);
			if (__atomic_load_n(&w->pid, __ATOMIC_ACQUIRE) == pid &&
			    __atomic_compare_exchange_n(&w->in_use, &one, 0, false,
							__ATOMIC_ACQ_REL, __ATOMIC_RELAXED) &&
			    died != NULL)
				*died |= 1u << i;
			continue;
		}
		hb = __atomic_load_n(&w->heartbeat_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&w->hung, hb != 0 && now_ns - hb > SHM_WRITER_HUNG_NS,
				 __ATOMIC_RELAXED);
		n++;
	}
	return n;
}

/* The living writer (not pid) holding name, its index; -1 none. */
static int
name_held(struct shm_ctl *c, const char *name, int pid, int not)
{
	int i;

	for (i = 0; i < SHM_MAX_WRITERS; i++) {
		const struct shm_writer *w = &c->writer[i];
		int wp = __atomic_load_n(&w->pid, __ATOMIC_RELAXED);

		if (i == not || !__atomic_load_n(&w->in_use, __ATOMIC_ACQUIRE) ||
		    strncmp(w->name, name, sizeof(w->name) - 1) != 0 || wp == pid ||
		    shm_pid_gone(wp))
			continue;
		return i;
	}
	return -1;
}

int
shm_writer_claim(struct shm_ctl *c, int pid, const char *name,
		     const char *format, int *holder)
{
	int i, pass, h;

	/* one living writer per name (its process's own writers apart: the
	 * primary names each of its own) */
	h = name_held(c, name, pid, -1);
	if (h >= 0) {
		if (holder != NULL)
			*holder = c->writer[h].pid;
		return -EEXIST;
	}
	/* a slot is a writer's identity in the schedule of scans: a free slot
	 * that last held this name first (a writer restarted, after it ended
	 * or died, gets its entry and scans back), then one never used, then
	 * any */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < SHM_MAX_WRITERS; i++) {
			uint32_t zero = 0;
			struct shm_writer *w = &c->writer[i];

			if (__atomic_load_n(&w->in_use, __ATOMIC_RELAXED) != 0 ||
			    !claim_fits(w, name, pass) ||
			    !__atomic_compare_exchange_n(&w->in_use, &zero, 1, false,
							 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				continue;
			w->pid = pid;
			snprintf(w->name, sizeof(w->name), "%s", name);
			snprintf(w->format, sizeof(w->format), "%s", format);
			w->written = w->placeholders = w->bytes = w->overrun = 0;
			w->files = w->cut = w->files_removed = w->bytes_removed = 0;
			w->lag_frames = w->lag_ns = w->write_rate = w->disk_free = 0;
			w->min_free = w->time_left_ns = 0;
			w->io_inflight = w->io_inflight_max = w->io_depth = 0;
			w->io_uring = 0;
			w->io_why[0] = '\0';
			w->cpu = -1;
			w->lcore = -1;
			w->error = 0;
			w->full = w->recycles = 0;
			w->heartbeat_ns = 0;
			w->dead = w->hung = 0;
			w->record = SHM_RECORD_FOLLOW;
			/* two claiming one name at once: neither keeps it */
			h = name_held(c, name, pid, i);
			if (h >= 0) {
				if (holder != NULL)
					*holder = c->writer[h].pid;
				__atomic_store_n(&w->in_use, 0, __ATOMIC_RELEASE);
				return -EEXIST;
			}
			return i;
		}
	}
	return -ENOSPC;
}

void
shm_writer_release(struct shm_ctl *c, int idx)
{
	if (idx < 0 || idx >= SHM_MAX_WRITERS)
		return;
	__atomic_store_n(&c->writer[idx].in_use, 0, __ATOMIC_RELEASE);
}

void
shm_ctl_cpu_add(struct shm_ctl *c, unsigned int cpu)
{
	if (cpu < SHM_MAX_CPUS)
		c->primary_cpus[cpu / 64] |= 1ULL << (cpu % 64);
}

int
shm_cpu_lock(struct shm_ctl *c, int pid)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 1000000 };
	int i;

	for (i = 0; i < 1000; i++) {
		int32_t holder = 0;

		if (__atomic_compare_exchange_n(&c->cpu_lock, &holder, pid, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 0;
		/* a process that died picking holds it no more */
		if (holder > 0 && kill(holder, 0) != 0 && errno == ESRCH &&
		    __atomic_compare_exchange_n(&c->cpu_lock, &holder, pid, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 0;
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

void
shm_cpu_unlock(struct shm_ctl *c, int pid)
{
	int32_t me = pid;

	__atomic_compare_exchange_n(&c->cpu_lock, &me, 0, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

static bool
primary_on(const struct shm_ctl *c, int cpu)
{
	return cpu >= 0 && cpu < SHM_MAX_CPUS && (c->primary_cpus[cpu / 64] >> (cpu % 64) & 1);
}

/* Writers of other processes than the primary on cpu (its own are its
 * lcores), self left out; the first one's name in first. */
static unsigned int
writers_on(const struct shm_ctl *c, int self, int cpu, const char **first)
{
	unsigned int i, n = 0;

	for (i = 0; i < SHM_MAX_WRITERS; i++) {
		const struct shm_writer *w = &c->writer[i];

		if ((int)i == self || !__atomic_load_n(&w->in_use, __ATOMIC_ACQUIRE) ||
		    w->pid == c->primary_pid || __atomic_load_n(&w->cpu, __ATOMIC_RELAXED) != cpu)
			continue;
		if (n++ == 0 && first != NULL)
			*first = w->name;
	}
	return n;
}

int
shm_cpu_pick(const struct shm_ctl *c, int self, const int *allowed, unsigned int n, int *cpu,
	     char *why, size_t len)
{
	unsigned int i, best = 0, best_w = 0, used;
	bool best_p = true;
	size_t k;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!primary_on(c, allowed[i]) && writers_on(c, self, allowed[i], NULL) == 0) {
			*cpu = allowed[i];
			return 0;
		}
	/* all used: the least, keeping off the capture's lcores first */
	for (i = 0; i < n; i++) {
		bool p = primary_on(c, allowed[i]);
		unsigned int w = writers_on(c, self, allowed[i], NULL);

		if (i == 0 || (!p && best_p) || (p == best_p && w < best_w)) {
			best = i;
			best_p = p;
			best_w = w;
		}
	}
	*cpu = allowed[best];
	k = (size_t)snprintf(why, len, "no free CPU among the %u it may run on:", n);
	for (i = 0; i < n && k < len; i++) {
		const char *name = NULL;

		used = writers_on(c, self, allowed[i], &name);
		k += (size_t)snprintf(why + k, len - k, "%s CPU %d:%s", i ? ";" : "", allowed[i],
				      primary_on(c, allowed[i]) ? " the capture's lcores" : "");
		if (used > 0 && k < len)
			k += (size_t)snprintf(why + k, len - k, "%s writer %.*s%s",
					      primary_on(c, allowed[i]) ? "," : "",
					      SHM_NAMELEN, name, used > 1 ? " and others" : "");
	}
	if (k < len)
		snprintf(why + k, len - k, "; sharing CPU %d, the least used (%s)", *cpu,
			 best_p ? "with the capture's lcores" : "not the capture's");
	return 1;
}
