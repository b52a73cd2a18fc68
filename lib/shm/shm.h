/* SPDX-License-Identifier: BSD-3-Clause */
/* The primary <-> secondary contract: shared object names (with the
 * instance), the versioned control block and the writer registry. */

#ifndef SHM_H
#define SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "antbuf.h"

#define SHM_MAGIC 0x49425643u /* "IBVC" */
#define SHM_VERSION 10
#define SHM_MAX_ANT 64
#define SHM_MAX_WRITERS 16
#define SHM_NAMELEN 32    /* RTE_MEMZONE_NAMESIZE */
#define SHM_MAX_CPUS 1024 /* CPU_SETSIZE */

enum shm_state {
	SHM_STARTING = 0,
	SHM_RUNNING = 1,
	SHM_STOPPED = 2,  /**< rows flushed: writers take the rest and end */
};

enum ibv_payload_mem {
	IBV_PAYLOAD_HOST = 0,    /**< inline in the antenna memzone (hugepages) */
	IBV_PAYLOAD_GPU = 1,     /**< gpudev memory, CPU-mapped in the primary only */
	IBV_PAYLOAD_MBUF = 2,    /**< the received mbufs (--zero-copy): indexed
				      buffers whose offsets are addresses in
				      hugepage memory, the same in every process */
};

/** A writer's figures of one scan (lib/writer's scan records), published
 * with its other figures: the primary's scan ledger reads a
 * dpdk-ibvcap-dump's scans here. */
struct shm_scan_tally {
	uint32_t id;             /**< the scan's id in the schedule (0: none) */
	uint32_t open;           /**< 1: a file of it is still open */
	uint64_t frames;         /**< frames recorded in its files */
	uint64_t gaps;           /**< placeholders: frames lost on the wire */
	uint64_t overrun;        /**< frames it lost behind the ring */
	uint64_t cut;            /**< frames an I/O error cut off */
};
/** The scans a writer publishes: its newest by id. */
#define SHM_WRITER_SCANS 16

/**
 * One writer's figures, for the primary's telemetry and status screens (the
 * names and meanings: lib/stats' writer table, docs/counters.md). Files'
 * figures count what is in them on disk, not what is staged.
 * written + cut + overrun = the valid frames of the rows it went through.
 */
struct shm_writer {
	uint32_t in_use;         /**< claimed with a CAS; 0 free */
	int32_t pid;
	char name[SHM_NAMELEN];
	char format[8];          /**< its files' (wr_format_name), or what reads
				      without files: SHM_FORMAT_READER,
				      SHM_FORMAT_PLUGIN */
	uint64_t written;        /**< valid frames in its files */
	uint64_t placeholders;   /**< gap frames in its files (frames the capture lost) */
	uint64_t bytes;          /**< bytes of its files */
	uint64_t overrun;        /**< valid frames lost: it fell behind the ring */
	uint64_t files;          /**< files completed */
	uint64_t cut;            /**< valid frames taken, not kept: an I/O error
				      (a full disk) cut them off its files */
	int64_t heartbeat_ns;
	int32_t error;           /**< errno of a fatal I/O error, 0 none */
	uint32_t full;           /**< 1: it stopped at its min-free (on-full=stop) */
	/* live gauges, refreshed at each publish (lib/writer's wr_publish) */
	uint64_t lag_frames;     /**< rows behind the newest placed (its worst antenna) */
	uint64_t lag_ns;         /**< the same as data time (frames x frame duration) */
	uint64_t write_rate;     /**< bytes/s into its files over the last second */
	uint64_t disk_free;      /**< bytes free to it in its directory (statvfs) */
	uint64_t min_free;       /**< its min-free in bytes (0: none) */
	uint64_t time_left_ns;   /**< recording time left at write_rate: the space
				      above min_free over the rate (0: not writing) */
	/* its disk budget's removals (on-full=remove-oldest) */
	uint64_t files_removed;  /**< its own finished files removed */
	uint64_t bytes_removed;  /**< their bytes */
	/* scans (set by the writer after its claim, read by the primary's
	 * /ibvcap/record status) */
	uint32_t record;         /**< enum shm_record */
	uint32_t recycles;       /**< 1: on-full=remove-oldest: at its min-free it
				      removes its own oldest files and goes on
				      (time_left_ns is then when it starts to) */
	/* its I/O queue (lib/writer's wr_io), refreshed at each publish */
	uint64_t io_inflight;    /**< io_uring writes in flight now, all its files */
	uint64_t io_inflight_max; /**< the most in flight at once so far */
	uint64_t io_depth;       /**< the most it may have: FIO_INFLIGHT x its
				      io_uring files open (its last files' when
				      none is open) */
	uint32_t io_uring;       /**< 1: its files write through io_uring; 0:
				      synchronous pwrite, io_why says why */
	int32_t cpu;             /**< the CPU its thread runs on, -1 several or
				      not known (shm_cpu_pick) */
	char io_why[96];         /**< "io=sync", "direct=no", O_DIRECT refused, or
				      why this process may not use io_uring */
	/* liveness, set by the primary (shm_writer_reap) */
	uint32_t dead;           /**< 1: its process died without ending (kill -9,
				      a crash): the entry is free again for its
				      name, its figures as it last published them */
	uint32_t hung;           /**< 1: its process lives but published nothing
				      for SHM_WRITER_HUNG_NS (stopped, stuck) */
	/* its scans, refreshed at each publish (lib/writer's wr_publish) */
	uint64_t ants;           /**< the antennas it writes: bit a */
	struct shm_scan_tally scans[SHM_WRITER_SCANS];
	int32_t lcore;           /**< the primary's EAL lcore it runs on (a
				      --write writer, a --consumer plugin), -1
				      another process */
};

/** The format of a registry entry that writes no files: a libibvcap
 * consumer (another process), a --consumer plugin (in the primary, on an
 * lcore of its own). */
#define SHM_FORMAT_READER "reader"
#define SHM_FORMAT_PLUGIN "plugin"

/** Whether registry entry w is a --consumer plugin's. */
static inline bool
shm_writer_plugin(const struct shm_writer *w)
{
	return strncmp(w->format, SHM_FORMAT_PLUGIN, sizeof(w->format)) == 0;
}

/** Whether registry entry w is a consumer's (a libibvcap reader or a
 * --consumer plugin): it writes no files. */
static inline bool
shm_writer_consumer(const struct shm_writer *w)
{
	return shm_writer_plugin(w) ||
	       strncmp(w->format, SHM_FORMAT_READER, sizeof(w->format)) == 0;
}

/** A writer whose heartbeat is older than this is hung (shm_writer_reap). */
#define SHM_WRITER_HUNG_NS 3000000000LL

/** What a writer of the registry does with the primary's scans. */
enum shm_record {
	SHM_RECORD_FOLLOW = 0,   /**< the schedule's gate: scans, or everything
				      as the primary's --record says */
	SHM_RECORD_ALWAYS = 1,   /**< dpdk-ibvcap-dump --record always: every
				      row, scans ignored */
};

/** The control block: one per capture instance. */
struct shm_ctl {
	uint32_t magic, version, size, nant;
	int32_t primary_pid;
	uint32_t state;          /**< enum shm_state (acq/rel) */
	int64_t start_unix_ns;
	uint32_t payload_mem;    /**< enum ibv_payload_mem */
	uint32_t gpu_dev;
	char instance[SHM_NAMELEN];
	/** the schedule of scans (lib/writer's struct wr_sched, published by
	 * its sequence counter): memzone sched_zone of sched_size bytes, which
	 * a writer checks against its own sizeof; sched_size 0: none */
	char sched_zone[SHM_NAMELEN];
	uint32_t sched_size;
	/** who picks a CPU now (shm_cpu_lock): its pid, 0 nobody */
	int32_t cpu_lock;
	/** the CPUs the primary's lcores run on (bit c: CPU c), for writers in
	 * other processes to keep off (shm_cpu_pick) */
	uint64_t primary_cpus[SHM_MAX_CPUS / 64];
	struct {
		char zone[SHM_NAMELEN];  /**< memzone of the antenna buffer */
		char name[ANTBUF_NAME_LEN];
		uint32_t src_ip;
		uint32_t reserved;
	} ant[SHM_MAX_ANT];
	struct shm_writer writer[SHM_MAX_WRITERS];
};

/**
 * Memzone names, carrying the instance (the EAL file prefix), so two
 * captures on one host never mix: "ibv_<inst>_ctl", "ibv_<inst>_a<NN>",
 * "ibv_<inst>_sch".
 * Instances longer than 20 characters are shortened with a hash.
 */
void shm_instance(const char *file_prefix, char out[SHM_NAMELEN]);
void shm_ctl_name(const char *instance, char out[SHM_NAMELEN]);
void shm_ant_name(const char *instance, unsigned int ant,
		      char out[SHM_NAMELEN]);
/** The schedule's memzone: "ibv_<inst>_sch". */
void shm_sched_name(const char *instance, char out[SHM_NAMELEN]);

/** Initialise a control block. */
void shm_ctl_init(struct shm_ctl *c, const char *instance,
		      unsigned int nant, int pid);

/**
 * Check a control block found in shared memory.
 * @return 0, or -EPROTO with the reason in err.
 */
int shm_ctl_check(const struct shm_ctl *c, size_t zone_len, char *err,
		      size_t len);

/** Claim a writer entry: a free one that last held name if there is one
 * (a writer restarted under its name, after it ended or died: the same
 * entry, and its scans, by slot, come back to it), else one never used,
 * else any. A name held by a living writer is refused.
 * @return its index; -EEXIST (*holder: the pid holding name), or -ENOSPC. */
int shm_writer_claim(struct shm_ctl *c, int pid, const char *name,
			 const char *format, int *holder);

/** Whether process pid is gone (no such process, or a zombie: it has let
 * go of everything). */
bool shm_pid_gone(int pid);

/**
 * The primary (self: its pid, whose own writers are its threads): each
 * other writer's liveness. One whose process is gone is marked dead and its
 * entry freed (for its name: shm_writer_claim); one alive whose heartbeat is
 * older than SHM_WRITER_HUNG_NS at now_ns (CLOCK_REALTIME) hung. died (may be
 * NULL): bit i set for each entry i this call found dead.
 * @return the writers still attached (in use, not self's).
 */
unsigned int shm_writer_reap(struct shm_ctl *c, int self, int64_t now_ns, uint32_t *died);
/** Release a writer entry. */
void shm_writer_release(struct shm_ctl *c, int idx);

/** The primary: its lcores run on CPU cpu (published before writers attach). */
void shm_ctl_cpu_add(struct shm_ctl *c, unsigned int cpu);

/**
 * Take the right to pick a CPU (one process at a time, so that two writers
 * starting together never pick the same free CPU): waits while another
 * living process holds it (one that died holding it is overtaken), at most
 * about a second. @return 0, or -ETIMEDOUT (picked anyway).
 */
int shm_cpu_lock(struct shm_ctl *c, int pid);
void shm_cpu_unlock(struct shm_ctl *c, int pid);

/**
 * A CPU for writer entry self (-1: none) among the CPUs allowed[0..n-1]
 * (its affinity, ascending): the lowest that neither the primary's lcores
 * nor another process's writer (in the registry, cpu set) use. When every
 * one is used: the least used, a CPU without the primary's lcores first,
 * then the fewest writers, then the lowest; why then says so in one line
 * naming each CPU in use and by what. Pure: reads c only.
 * @return 0 a free CPU, 1 a shared one (why set), -EINVAL n == 0.
 */
int shm_cpu_pick(const struct shm_ctl *c, int self, const int *allowed, unsigned int n,
		 int *cpu, char *why, size_t len);

#endif /* SHM_H */
