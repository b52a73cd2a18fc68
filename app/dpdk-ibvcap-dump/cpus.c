/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU dpdk-ibvcap-dump runs on: its affinity read before EAL, the EAL
 * lcore argument built from it, and the pick among the CPUs that neither
 * the capture nor another writer process uses. */

#define _GNU_SOURCE /* sched_getaffinity, CPU_SET */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "dump.h"

/* The CPUs this process may run on (its affinity, ascending), taken before
 * EAL pins anything (dump_eal_lcores). */
static int allowed_cpu[SHM_MAX_CPUS];
static unsigned int nallowed;

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

/* With auto, EAL left it free on its whole affinity: the pick is made here
 * (dump.h). */
int
dump_pick_cpu(const struct dopts *o, struct shm_ctl *ctl, int reg)
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

int
dump_eal_lcores(const struct dopts *o, char *lc, size_t len)
{
	size_t k;
	unsigned int i;

	affinity_read();
	if (eal_lcores_given(o)) {
		lc[0] = '\0'; /* theirs: EAL takes one of -c, -l and --lcores */
		return 0;
	}
	if (o->lcore_set || nallowed == 0) {
		snprintf(lc, len, "-l%u", o->lcore);
		return 0;
	}
	k = (size_t)snprintf(lc, len, "--lcores=0@(");
	for (i = 0; i < nallowed && k < len; i++)
		k += (size_t)snprintf(lc + k, len - k, "%s%d", i ? "," : "", allowed_cpu[i]);
	if (k + 2 > len) {
		fprintf(stderr, "dpdk-ibvcap-dump: %u CPUs in its affinity: too many to list for "
			"EAL; give --lcore N\n", nallowed);
		return -1;
	}
	snprintf(lc + k, len - k, ")");
	return 0;
}

const char *
dump_cpu_text(int cpu)
{
	static char buf[16];

	if (cpu < 0)
		return "several (its affinity)";
	snprintf(buf, sizeof(buf), "%d", cpu);
	return buf;
}
