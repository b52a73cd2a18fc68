/* SPDX-License-Identifier: BSD-3-Clause */
/* --source buffers: attach to the primary's antenna buffers, take an entry
 * in its writer table, follow its scans, and run lib/writer's loop over
 * the selected antennas until a stop. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include "dump.h"
#include "err.h"
#include "parse.h"
#include "tconv.h"

/* Antenna selection (--antenna): names or indices of this capture's
 * antennas; 0 = none matched (error set). */
static uint64_t
select_antennas(const struct shm_view *v, const char *list, char *err, size_t len)
{
	const char *names[64];
	uint64_t mask;
	unsigned int a;

	if (list[0] == '\0')
		return v->nant == 64 ? ~0ULL : (1ULL << v->nant) - 1;
	for (a = 0; a < v->nant && a < 64; a++)
		names[a] = v->ctl->ant[a].name;
	if (parse_antenna_select("--antenna", list, names, v->nant, &mask, err, len) != 0)
		return 0;
	return mask;
}

/* What the loop asks of the buffers source (lib/writer's wr_run). */
struct dump_ctx {
	const struct dopts *o;
	const struct shm_view *v;
};

static bool
dump_stop(void *ctx)
{
	(void)ctx;
	return dump_quit != 0;
}

static bool
dump_primary_stopped(void *ctx)
{
	const struct dump_ctx *d = ctx;

	return __atomic_load_n(&d->v->ctl->state, __ATOMIC_ACQUIRE) == SHM_STOPPED;
}

static bool
dump_primary_gone(void *ctx)
{
	(void)ctx;
	return !rte_eal_primary_proc_alive(NULL);
}

static void
dump_note(void *ctx, const char *line)
{
	const struct dump_ctx *d = ctx;

	fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", d->o->name, line);
}

/* How its files write, for its lines: "io_uring 1/4 in flight (most 4)" or
 * "sync (io=sync)". */
static const char *
io_text(struct wr_writer *w, char *buf, size_t len)
{
	struct wr_io io;

	wr_io(w, &io);
	if (io.uring)
		snprintf(buf, len, "io_uring %u/%u in flight (most %u)", io.inflight, io.limit,
			 io.peak);
	else
		snprintf(buf, len, "sync (%s)", io.why);
	return buf;
}

static void
dump_progress(void *ctx, struct wr_writer *w)
{
	const struct dump_ctx *d = ctx;
	char io[160];

	fprintf(stderr, "dpdk-ibvcap-dump %s: %" PRIu64 " frames taken, %" PRIu64 " written, %"
		PRIu64 " files, backlog %" PRIu64 " rows, overrun %" PRIu64 ", %s\n", d->o->name,
		w->st.taken, w->st.written, w->st.files, wr_backlog(w), w->st.overrun,
		io_text(w, io, sizeof(io)));
}

/* Why the buffers source ended, in the summary's words. */
static const char *
end_text(enum wr_end e)
{
	switch (e) {
	case WR_END_COUNT: return "--count";
	case WR_END_DURATION: return "--duration";
	default: return wr_end_name(e);
	}
}

/* The primary's buffers, unless their payload is in GPU memory, and the
 * antennas --antenna selects. @return the mask, 0 refused (said on stderr). */
static uint64_t
buffers_attach(const struct dopts *o, struct shm_view *v)
{
	char err[DUMP_ERRLEN];
	uint64_t mask;

	if (shm_attach(v, err, sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
		return 0;
	}
	if (v->ctl->payload_mem == IBV_PAYLOAD_GPU) {
		fprintf(stderr,
			"dpdk-ibvcap-dump: the antenna payload of '%s' is in GPU memory, which this "
			"process cannot map for the CPU: write from inside the primary with --write\n",
			v->instance);
		return 0;
	}
	mask = select_antennas(v, o->antennas, err, sizeof(err));
	if (mask == 0)
		fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
	return mask;
}

/* Its entry in the primary's writer table, one running writer per --name.
 * @return the entry, -1 (none free: it writes without one), or -EEXIST
 * (said on stderr). */
static int
claim_entry(const struct dopts *o, const struct wr_opts *wo, const struct shm_view *v)
{
	int reg, holder = 0;

	reg = shm_writer_claim(v->ctl, (int)getpid(), o->name, wr_format_name(wo->format),
			       &holder);
	if (reg == -EEXIST) {
		fprintf(stderr, "dpdk-ibvcap-dump: --name %s: in use by a running writer, pid %d "
			"(one writer per name: stop it, or give this one another --name)\n",
			o->name, holder);
		return reg;
	}
	if (reg >= 0 && o->record_always)
		v->ctl->writer[reg].record = SHM_RECORD_ALWAYS;
	return reg;
}

/* The primary's scans: the one schedule, through the gate the --write
 * writers use, as writer WR_SCHED_DUMP_BASE + its entry reg.
 * @return 0, or -1 (said on stderr). */
static int
follow_scans(struct wr_writer *w, const struct shm_view *v, int reg)
{
	char err[DUMP_ERRLEN];

	if (v->sched_len != sizeof(struct wr_sched))
		err_set(err, sizeof(err), -EINVAL, "the primary's schedule of scans is %zu bytes, "
			"this program expects %zu: run the same dpdk-ibvcap build", v->sched_len,
			sizeof(struct wr_sched));
	else if (reg < 0 || reg >= WR_SCHED_DUMP_SLOTS)
		err_set(err, sizeof(err), -ENOSPC, "no free entry in the primary's writer table "
			"(%d): a writer that follows scans needs one (or --record always)",
			SHM_MAX_WRITERS);
	else if (wr_gate_attach(w, v->sched, WR_SCHED_DUMP_BASE + (unsigned int)reg, err,
				sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "dpdk-ibvcap-dump: %s\n", err);
	return -1;
}

/* The line it starts with: what it attached to and how it writes. */
static void
start_line(const struct dopts *o, const struct wr_opts *wo, const struct shm_view *v,
	   struct wr_writer *w, uint64_t mask, int cpu)
{
	struct wr_io io;

	wr_io(w, &io);
	fprintf(stderr, "dpdk-ibvcap-dump %s: attached to '%s' (%u antennas, %d selected), "
		"writing %s to %s (%s%s), on CPU %s\n", o->name, v->instance, v->nant,
		__builtin_popcountll(mask), wr_format_name(wo->format), wo->dir,
		io.uring ? "io_uring" : "sync: ", io.uring ? "" : io.why, dump_cpu_text(cpu));
}

/* lib/writer's loop until a stop. @return the exit status: 0, 2 (an I/O
 * error) or 3 (stopped at min-free: its files complete, w->err says why). */
static int
write_rows(const struct dopts *o, const struct shm_view *v, struct wr_writer *w, int reg,
	   enum wr_end *end)
{
	struct dump_ctx dc = { .o = o, .v = v };
	struct wr_run_opts ro;

	memset(&ro, 0, sizeof(ro));
	ro.batch = 256;
	ro.max_rate = o->max_rate;
	ro.duration_ns = o->duration_ns;
	ro.stats_ns = o->stats_ns;
	ro.reg = reg >= 0 ? &v->ctl->writer[reg] : NULL;
	ro.stop = dump_stop;
	ro.source_stopped = dump_primary_stopped;
	ro.source_gone = dump_primary_gone;
	ro.progress = dump_progress;
	ro.note = dump_note;
	ro.ctx = &dc;
	if (wr_run(w, &ro, end) != 0)
		return 2;
	return *end == WR_END_DISK_FULL ? 3 : 0;
}

int
dump_run_buffers(const struct dopts *o, const struct wr_opts *wo)
{
	struct shm_view v;
	struct wr_writer *w;
	struct dump_result r;
	enum wr_end end;
	char err[DUMP_ERRLEN];
	uint64_t mask;
	int64_t t0 = mono_ns();
	int reg, cpu, rc;

	mask = buffers_attach(o, &v);
	if (mask == 0)
		return 1;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return 1;
	if (wr_init(w, wo, (const struct antbuf *const *)v.b, NULL, v.nant, mask, err,
		    sizeof(err)) != 0) {
		fprintf(stderr, "dpdk-ibvcap-dump: --write %s: %s\n", o->spec, err);
		free(w);
		return 1;
	}
	reg = claim_entry(o, wo, &v);
	if (reg == -EEXIST) {
		free(w);
		return 1;
	}
	if (!o->record_always && v.sched != NULL && follow_scans(w, &v, reg) != 0) {
		shm_writer_release(v.ctl, reg);
		free(w);
		return 1;
	}
	cpu = dump_pick_cpu(o, v.ctl, reg);
	start_line(o, wo, &v, w, mask, cpu);
	if (wr_ring_direct(w, err, sizeof(err)) != NULL)
		fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", o->name, err);
	rc = write_rows(o, &v, w, reg, &end);
	r = (struct dump_result){
		.format = wr_format_name(wo->format), .st = &w->st,
		.why = dump_quit ? "signal" : end_text(end), .error = w->error, .errtext = w->err,
		.elapsed = (double)(mono_ns() - t0) / 1e9, .cpu = cpu, .w = w,
	};
	dump_summary(o, &r);
	if (w->ring_files + w->copy_files > 0 && wr_ring_direct(w, err, sizeof(err)) != NULL)
		fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", o->name, err);
	/* the primary, if alive, may still hold the entry for its summary */
	shm_writer_release(v.ctl, reg);
	wr_gate_free(w);
	free(w);
	return rc;
}
