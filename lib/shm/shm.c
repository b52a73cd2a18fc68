/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared object names and the control block of a capture instance. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

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
	if (zone_len < sizeof(*c) || c->magic != SHM_MAGIC) {
		snprintf(err, len, "the control block is not dpdk-ibvcap's (magic 0x%08x)",
			 zone_len >= 4 ? c->magic : 0);
		return -EPROTO;
	}
	if (c->version != SHM_VERSION || c->size != sizeof(*c)) {
		snprintf(err, len,
			 "the primary's shared memory is version %u (%u bytes), this program "
			 "expects version %d (%zu bytes): run the same dpdk-ibvcap build",
			 c->version, c->size, SHM_VERSION, sizeof(*c));
		return -EPROTO;
	}
	if (c->nant > SHM_MAX_ANT) {
		snprintf(err, len, "control block names %u antennas (at most %d)", c->nant,
			 SHM_MAX_ANT);
		return -EPROTO;
	}
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

int
shm_writer_claim(struct shm_ctl *c, int pid, const char *name,
		     const char *format)
{
	int i, pass;

	/* a slot is a writer's identity in the schedule of scans: a free slot
	 * that last held this name first (a writer restarted gets its scans
	 * back), then one never used, then any */
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
			w->error = 0;
			w->full = 0;
			w->record = SHM_RECORD_FOLLOW;
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
