/* SPDX-License-Identifier: BSD-3-Clause */
/* libibvcap's handle: attaching to a capture as a DPDK secondary, the
 * consumer's registry entry (its name, figures and heartbeat, as a
 * dpdk-ibvcap-dump's), the antennas' and streams' descriptions, and the
 * blocking around block.c's builder. */

#define _GNU_SOURCE /* sched_getaffinity */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "codif.h"
#include "consumer.h"
#include "err.h"
#include "quirks.h"

static bool eal_done;
static struct ibvcap *open_handle;

IBVCAP_EXPORT const char *
ibvcap_version(void)
{
	return IBVCAP_LIB_VERSION;
}

/* "--lcores=0@(c0,c1,...)": lcore 0 on every CPU this thread may run on,
 * so that EAL pins the caller's thread nowhere new. */
static int
lcores_arg(char *buf, size_t len)
{
	cpu_set_t cs;
	size_t k;
	int cpu, n = 0;

	CPU_ZERO(&cs);
	if (sched_getaffinity(0, sizeof(cs), &cs) != 0)
		return -errno;
	k = (size_t)snprintf(buf, len, "--lcores=0@(");
	for (cpu = 0; cpu < CPU_SETSIZE && k < len; cpu++)
		if (CPU_ISSET(cpu, &cs))
			k += (size_t)snprintf(buf + k, len - k, "%s%d", n++ ? "," : "", cpu);
	if (n == 0 || k + 2 > len)
		return -E2BIG;
	snprintf(buf + k, len - k, ")");
	return 0;
}

/* rte_eal_init as a secondary of instance, as dpdk-ibvcap-dump runs it. */
static int
eal_attach(const char *instance, char *err, size_t len)
{
	static char lc[8192], pf[160];
	char *argv[8];
	int argc = 0, rc;

	if (lcores_arg(lc, sizeof(lc)) != 0)
		return err_set(err, len, -E2BIG, "this thread's CPUs: cannot list them for EAL");
	snprintf(pf, sizeof(pf), "--file-prefix=%s", instance);
	argv[argc++] = (char *)"libibvcap";
	argv[argc++] = (char *)"--proc-type=secondary";
	argv[argc++] = pf;
	argv[argc++] = lc;
	argv[argc++] = (char *)"--no-pci";
	argv[argc++] = (char *)"--no-telemetry";
	argv[argc++] = (char *)"--log-level=lib.eal:error";
	argv[argc] = NULL;
	/* net_pcap's failed re-probe of the primary's ports is noise here: a
	 * consumer uses no port (lib/quirks) */
	quirk_secondary_log_begin();
	rc = rte_eal_init(argc, argv);
	quirk_secondary_log_end();
	if (rc < 0)
		return err_set(err, len, -ENOENT, "instance '%s': cannot attach as a DPDK secondary: "
			       "%s (is dpdk-ibvcap running with --file-prefix %s, on hugepages, as "
			       "this user?)", instance, rte_strerror(rte_errno), instance);
	eal_done = true;
	return 0;
}

static int
name_check(const char *instance, const char *name, char *err, size_t len)
{
	size_t i, n;

	if (instance == NULL || instance[0] == '\0' || strlen(instance) > 100)
		return err_set(err, len, -EINVAL, "instance '%s': expected the capture's EAL "
			       "--file-prefix, 1 to 100 characters", instance ? instance : "(null)");
	n = name == NULL ? 0 : strlen(name);
	if (n == 0 || n >= SHM_NAMELEN)
		return err_set(err, len, -EINVAL, "consumer name '%s': expected 1 to %d characters",
			       name ? name : "(null)", SHM_NAMELEN - 1);
	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] <= ' ' || (unsigned char)name[i] >= 0x7f)
			return err_set(err, len, -EINVAL, "consumer name '%s': character %zu is not "
				       "printable ASCII (expected letters, digits, '-', '_', ...)",
				       name, i + 1);
	return 0;
}

/* Attach to the control block and antenna rings, refuse GPU payloads and
 * claim the registry entry. */
static int
attach(struct ibvcap *c, const char *instance, const char *name, char *err, size_t len)
{
	char want[SHM_NAMELEN];
	int rc, holder = 0;

	/* EAL runs once per process: the instance asked for must be the one
	 * it attached to (IBVCAP_OPEN_NO_EAL, or a second open) */
	shm_instance(instance, want);
	shm_eal_instance(c->v.instance);
	if (strcmp(want, c->v.instance) != 0)
		return err_set(err, len, -EINVAL, "instance '%s': this process's DPDK EAL is "
			       "attached to instance '%s' (its --file-prefix); one instance per "
			       "process", instance, c->v.instance);
	rc = shm_attach(&c->v, err, len);
	if (rc != 0)
		return rc;
	rc = cons_payload_check(c->v.ctl, c->v.instance, err, len);
	if (rc != 0)
		return rc;
	rc = shm_writer_claim(c->v.ctl, (int)getpid(), name, SHM_FORMAT_READER, &holder);
	if (rc == -EEXIST)
		return err_set(err, len, -EEXIST, "consumer name '%s': in use by a running writer "
			       "or consumer, pid %d (one per name)", name, holder);
	if (rc < 0)
		return err_set(err, len, -ENOSPC, "instance '%s': no free entry in its registry "
			       "of writers and consumers (%d)", c->v.instance, SHM_MAX_WRITERS);
	c->reg = rc;
	c->v.ctl->writer[rc].cpu = -1;
	return cons_scans_attach(c, err, len);
}

IBVCAP_EXPORT struct ibvcap *
ibvcap_open(const char *instance, const char *name, unsigned int flags, char *err, size_t len)
{
	struct ibvcap *c;
	int rc;

	rc = name_check(instance, name, err, len);
	if (rc == 0 && open_handle != NULL)
		rc = err_set(err, len, -EALREADY, "a handle is open in this process (one per "
			     "process: DPDK's EAL runs once)");
	if (rc == 0 && (flags & ~(unsigned int)(IBVCAP_OPEN_OLDEST | IBVCAP_OPEN_NO_EAL |
						 IBVCAP_OPEN_SCANS)) != 0)
		rc = err_set(err, len, -EINVAL, "flags 0x%x: expected IBVCAP_OPEN_OLDEST, "
			     "IBVCAP_OPEN_NO_EAL, IBVCAP_OPEN_SCANS", flags);
	if (rc == 0 && !eal_done && !(flags & IBVCAP_OPEN_NO_EAL))
		rc = eal_attach(instance, err, len);
	if (rc != 0) {
		errno = -rc;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		err_set(err, len, -ENOMEM, "out of memory");
		return NULL;
	}
	c->reg = -1;
	c->flags = flags;
	rc = attach(c, instance, name, err, len);
	if (rc != 0) {
		if (c->reg >= 0)
			shm_writer_release(c->v.ctl, c->reg);
		free(c->snap);
		free(c);
		errno = -rc;
		return NULL;
	}
	cons_publish(c);
	open_handle = c;
	return c;
}

IBVCAP_EXPORT void
ibvcap_close(struct ibvcap *c)
{
	if (c == NULL)
		return;
	if (c->held)
		ibvcap_release(c, &c->blk);
	cons_publish(c);
	shm_writer_release(c->v.ctl, c->reg);
	cons_select_free(c);
	if (open_handle == c)
		open_handle = NULL;
	free(c->snap);
	free(c);
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

IBVCAP_EXPORT unsigned int
ibvcap_antennas(const struct ibvcap *c)
{
	return c->v.nant;
}

IBVCAP_EXPORT int
ibvcap_antenna_info(const struct ibvcap *c, unsigned int a, struct ibvcap_antenna *out)
{
	const struct antbuf *b;

	if (a >= c->v.nant)
		return -EINVAL;
	b = c->v.b[a];
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", c->v.ctl->ant[a].name);
	out->src_ip = c->v.ctl->ant[a].src_ip;
	out->max_streams = b->g.nslots;
	out->streams = antbuf_slots_used(b);
	out->slot_bytes = b->g.data_bytes;
	out->ring_frames = b->g.nrows;
	out->window = b->g.window;
	return 0;
}

IBVCAP_EXPORT int
ibvcap_stream_info(const struct ibvcap *c, unsigned int a, unsigned int s,
		   struct ibvcap_stream *out)
{
	return cons_stream_info(c, a, s, out);
}

IBVCAP_EXPORT int
ibvcap_select(struct ibvcap *c, uint64_t ants, uint32_t frames, char *err, size_t len)
{
	unsigned int a;
	int rc;

	if (c->selected)
		return err_set(err, len, -EBUSY, "antennas and block length already chosen");
	if (ants == 0 || (c->v.nant < 64 && (ants >> c->v.nant) != 0))
		return err_set(err, len, -EINVAL, "antennas 0x%llx: expected bits of antennas "
			       "0..%u", (unsigned long long)ants, c->v.nant - 1);
	for (a = 0; a < c->v.nant; a++)
		if ((ants >> a & 1) && (frames == 0 || frames > 65536 ||
					frames > c->v.b[a]->g.nrows / 4))
			return err_set(err, len, -EINVAL, "block length %u frames: expected 1 to %u "
				       "(65536, and a quarter of antenna %u's ring of %u frames)",
				       frames, c->v.b[a]->g.nrows / 4 < 65536 ?
				       c->v.b[a]->g.nrows / 4 : 65536, a, c->v.b[a]->g.nrows);
	c->ants = ants;
	c->T = frames;
	c->words = (frames + 63) / 64;
	rc = cons_select_alloc(c, err, len);
	if (rc != 0)
		return rc;
	c->selected = true;
	cons_publish(c);
	return 0;
}

/* Whether the capture's process is gone (it stopped without flushing). */
static bool
primary_gone(const struct ibvcap *c)
{
	return shm_pid_gone(c->v.ctl->primary_pid);
}

IBVCAP_EXPORT int
ibvcap_acquire(struct ibvcap *c, const struct ibvcap_block **blk, int timeout_ms)
{
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 200000 };
	int64_t deadline = 0;
	int rc;

	if (!c->selected)
		return -EINVAL;
	if (c->held)
		return -EBUSY;
	if (timeout_ms > 0)
		deadline = now_ns() + (int64_t)timeout_ms * 1000000;
	for (;;) {
		rc = cons_block_try(c);
		if (rc == 0) {
			c->held = true;
			*blk = &c->blk;
			cons_publish(c);
			return 0;
		}
		if (rc != -EAGAIN) {
			cons_publish(c);
			return rc;
		}
		/* the capture's liveness (a look in /proc) and this consumer's
		 * heartbeat, every 100 ms while nothing comes (polls included) */
		if (now_ns() - c->beat_ns > 100000000) {
			if (primary_gone(c))
				return -EPIPE;
			cons_publish(c);
			c->beat_ns = now_ns();
		}
		if (timeout_ms == 0 || (timeout_ms > 0 && now_ns() >= deadline))
			return -EAGAIN;
		nanosleep(&nap, NULL);
	}
}

IBVCAP_EXPORT int
ibvcap_release(struct ibvcap *c, const struct ibvcap_block *blk)
{
	int rc;

	if (!c->held || blk != &c->blk)
		return -EINVAL;
	rc = cons_block_release(c, c->checked);
	c->held = false;
	c->checked = false;
	cons_publish(c);
	return rc;
}

IBVCAP_EXPORT int
ibvcap_check(struct ibvcap *c, const struct ibvcap_block *blk)
{
	if (!c->held || blk != &c->blk)
		return -EINVAL;
	c->checked = true;
	return cons_block_check(c);
}

IBVCAP_EXPORT void
ibvcap_get_stats(const struct ibvcap *c, struct ibvcap_stats *st)
{
	*st = c->st;
}

IBVCAP_EXPORT int64_t
ibvcap_frame_time_ns(const struct ibvcap *c, const struct ibvcap_block *b, uint32_t i)
{
	return codif_clock_time_ns(&c->clk, b->index + i);
}
