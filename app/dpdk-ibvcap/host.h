/* SPDX-License-Identifier: BSD-3-Clause */
/* What the start needs from this host, checked before EAL init and by --check-config. */

#ifndef IBVCAP_HOST_H
#define IBVCAP_HOST_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_config.h>

#include "config.h"

/*
 * Everything the start would fail on before it captures, that can be
 * known without EAL and without a device: the output directories take
 * files, --summary-json can be written, the join interfaces exist, the
 * lcores give every writer one and the rx at least one, and the antenna
 * buffers fit the memory EAL will have (hugepages, or -m with --no-huge).
 * main() runs it before rte_eal_init (a refused start leaves nothing:
 * no hugepage file, no runtime directory), --check-config runs it too.
 */

#define IBV_MAX_CPUS 1024 /* CPU_SETSIZE */

/** What the EAL arguments (the [eal] args, then the command line's) say. */
struct ibv_eal_view {
	bool lcores_given;          /**< -c, -l or --lcores */
	char lcores_arg[300];       /**< that option and its value, for messages */
	bool lcore[RTE_MAX_LCORE];  /**< the lcores EAL will enable */
	unsigned int nlcore;
	bool cpu[IBV_MAX_CPUS];     /**< the CPUs -c, -l or --lcores name */
	int main_lcore;             /**< --main-lcore, -1: the lowest lcore */
	bool service_cores;         /**< -s/-S: lcores not modelled */
	bool no_huge, legacy_mem, in_memory;
	uint64_t mem_mb;            /**< -m (0: not given) */
	uint64_t socket_mem_mb;     /**< --socket-mem, summed (0: not given) */
	uint64_t socket_limit_mb;   /**< --socket-limit, summed (0: no limit) */
	char huge_dir[PATH_MAX];    /**< --huge-dir ("": any mount) */
	char prefix[128];           /**< --file-prefix ("rte") */
	char bad[400];              /**< an option read above that EAL will refuse, why */
	char refused[400];          /**< EAL's own words on an argument it refuses ("") */
};

/**
 * Read EAL's arguments (argv[0] the program; up to '--'): the options the
 * checks need, as getopt_long takes them (values attached or next,
 * unique abbreviations); any other option is EAL's. Then EAL judges them
 * all itself: rte_eal_init in a child process, stopped by its own argument
 * loop before it creates anything (host_eal.c says how). A value of an
 * option read here that EAL cannot read goes to v->bad; EAL's refusal of
 * any argument to v->refused.
 */
void ibv_eal_view_parse(int argc, char **argv, struct ibv_eal_view *v);

/** Is this CPU on the host (as EAL's eal_cpu_detected)? */
bool ibv_cpu_detected(unsigned int cpu);

/** The number in file dir/file (sysfs, procfs), 0 when unreadable. */
uint64_t ibv_sys_u64(const char *dir, const char *file);

/** "1.0 GiB": bytes for a message. @return buf */
const char *ibv_human(uint64_t bytes, char *buf, size_t len);

/** One hugepage size as EAL would see it. */
struct ibv_hp_size {
	uint64_t page;       /**< bytes */
	uint64_t free;       /**< pages EAL may take: free - reserved + overcommit
				  + unheld files EAL removes + our prefix's */
	uint64_t total;      /**< nr_hugepages */
	uint64_t stale;      /**< of free: pages in files no process holds */
	uint64_t own;        /**< of free: pages in files of our --file-prefix */
	uint64_t held;       /**< not in free: pages other DPDK processes hold */
	bool usable;         /**< mounted (or --in-memory) */
	char dir[PATH_MAX];  /**< where EAL would put its files */
};

#define IBV_HP_MAX_SIZES 4

struct ibv_hp_info {
	unsigned int n;
	struct ibv_hp_size s[IBV_HP_MAX_SIZES];
	unsigned int nsocket;
	bool huge_dir_bad;   /**< --huge-dir names no directory */
	char others[128];    /**< the --file-prefix of those holding pages */
};

/** Read the host's hugepages for EAL view v (/sys/kernel/mm/hugepages, /proc/mounts, /proc/locks). */
void ibv_hp_read(const struct ibv_eal_view *v, struct ibv_hp_info *h);

/** Memory the configuration asks EAL for. */
struct ibv_mem_need {
	unsigned int nant;
	uint64_t ant_bytes;   /**< one antenna buffer as EAL reserves it (exact) */
	uint64_t gpu_bytes;   /**< its payload in GPU memory (--gpu), not checked */
	uint64_t ctl_bytes;   /**< the shared control block */
	uint64_t pool_bytes;  /**< mbuf pools as created (mbufs, ring, per-lcore
				   caches; ports known, one queue each) */
	uint64_t nmbuf;       /**< their mbufs */
	uint64_t refs_bytes;  /**< --zero-copy: the rings' mbuf references */
	unsigned int nport;   /**< ports the pools were counted for */
	uint64_t total;       /**< all of it, in EAL memory */
	uint64_t page;        /**< the page size hp_bytes is counted in */
	uint64_t hp_bytes;    /**< what the capture takes of that memory: each
				   allocation of a page or more in whole pages,
				   the rest packed, and EAL's own (IBV_EAL_BASE) */
};

/** What EAL itself takes of hugepage memory beside the capture's
 * allocations (its heap, ethdev and driver queues, telemetry; measured
 * with DPDK 22.11 and net_pcap: 4 MiB; a driver may add its own). */
#define IBV_EAL_BASE (4ULL << 20)

void ibv_mem_need(const struct ibv_config *c, const struct ibv_eal_view *v,
		  struct ibv_mem_need *m);
/** m->hp_bytes in pages of `page` (0: bytes, unrounded). */
void ibv_mem_pages(const struct ibv_config *c, struct ibv_mem_need *m, uint64_t page);

/**
 * Does m fit the memory EAL will have (pure: v, h given)? With --no-huge,
 * -m (EAL's 64 MiB without it); with hugepages, the pages EAL may take
 * (ibv_hp_size.free) of the sizes it can use, -m/--socket-mem no more than
 * those, --socket-limit as a cap, and each buffer within one of EAL's
 * memory segment lists (RTE_MAX_MEMSEG_PER_LIST pages, RTE_MAX_MEM_MB_PER_LIST).
 *
 * @param avail  the bytes available (for the statement), may be NULL.
 * @return 0, or -ENOMEM with what to lower in err.
 */
int ibv_mem_fit(const struct ibv_config *c, const struct ibv_mem_need *m,
		const struct ibv_eal_view *v, const struct ibv_hp_info *h, uint64_t *avail,
		char *err, size_t len);

/**
 * All the host checks, in the order the start meets them: --summary-json,
 * --write directories (each probed by making a file in it; two writers
 * whose names would collide), --join-iface interfaces, lcores, memory.
 * The memory statement (per antenna, total, available) goes to out, each
 * line led by lead ("# " or "dpdk-ibvcap: "), when out is not NULL.
 *
 * @return 0, or a negative errno with "OPTION VALUE: what is wrong" in err.
 */
int ibv_host_check(const struct ibv_config *c, const struct ibv_eal_view *v, FILE *out,
		   const char *lead, char *err, size_t len);

#endif /* IBVCAP_HOST_H */
