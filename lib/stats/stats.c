/* SPDX-License-Identifier: BSD-3-Clause */
/* The counter tables (frame counts, antenna buffer, writer, the rx lcores)
 * and the walkers that merge, print, name and write them as JSON. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "acct.h"
#include "antbuf.h"
#include "shm.h"
#include "parse.h"
#include "stats.h"

#define U64 STATS_FIELD_U64

#define DIM(a) (sizeof(a) / sizeof((a)[0]))
#define C(f) offsetof(struct acct_counts, f)
#define S STATS_STREAM
#define A STATS_ANTENNA
#define L STATS_LIVE
#define BR STATS_BRIEF

static const char *
mal_name(unsigned int i)
{
	return acct_malformed_name((enum acct_malformed)i);
}

static const char *
nr_name(unsigned int i)
{
	return acct_nr_name((enum acct_nr)i);
}

static const struct stats_field counts_f[] = {
	U64("streams", "strm", 4, "streams", A | L, STATS_SUM, C(streams),
	    "streams seen (CODIF ids and destination)"),
	U64("expected", "expected", 10, "frames", S | A | L, STATS_SUM, C(expected),
	    "frames from each stream's first to its newest frame, per segment"),
	U64("received", "received", 10, "frames", S | A | L | BR, STATS_SUM, C(received),
	    "distinct frames that arrived valid (invalid-flagged ones too)"),
	U64("lost", "lost", 8, "frames", S | A | L | BR, STATS_SUM, C(lost),
	    "expected - received: frames that never arrived validly"),
	U64("late", "late", 8, "frames", S | A | L | BR, STATS_SUM, C(late),
	    "arrived after a newer frame of their stream (received, not lost)"),
	U64("duplicate", "dup", 8, "frames", S | A | L | BR, STATS_SUM, C(duplicate),
	    "second copies of a frame (not placed)"),
	U64("invalid", "invalid", 8, "frames", S | A | L | BR, STATS_SUM, C(invalid),
	    "received with the CODIF invalid bit set"),
	U64("malformed", "malformed", 9, "packets", A | L | BR, STATS_SUM, C(malformed),
	    "packets from the antenna that are not valid CODIF frames (by cause below)"),
	U64("implausible", NULL, 0, "frames", S | A, STATS_SUM, C(implausible),
	    "frames of a time no timeline takes (bit flip, stray): held, then dropped"),
	U64("param_change", NULL, 0, "frames", S | A, STATS_SUM, C(param_change),
	    "frames of other parameters never confirmed: held, then dropped"),
	U64("too_late", NULL, 0, "frames", S | A | L | BR, STATS_SUM, C(too_late),
	    "frames the antenna buffer refused: their row was already final (counted lost)"),
	U64("recorded", "recorded", 10, "frames", S | A | L, STATS_SUM, C(recorded),
	    "received frames placed in the antenna buffer (received - not_recorded)"),
	U64("not_recorded", "not-rec", 8, "frames", S | A | L | BR, STATS_SUM, C(not_recorded),
	    "received frames the antenna buffer could not take (by cause below): in no file"),
	{ .name = "not_recorded_by_cause", .unit = "frames",
	  .help = "received frames not recorded, by cause: no-slot (every slot another "
		  "stream's: raise --slots), wrong-size (data bytes more than --data-bytes), "
		  "slot-held, other-clock",
	  .off = C(nr), .type = STATS_ARRAY, .merge = STATS_SUM, .flags = S | A | L,
	  .n = ACCT_NR__COUNT, .elem = nr_name },
	U64("resyncs", NULL, 0, "segments", S | A | L, STATS_SUM, C(resyncs),
	    "segments begun by a resync of the timeline (per stream)"),
	U64("resync_skipped", NULL, 0, "frames", S | A | L, STATS_SUM, C(resync_skipped),
	    "frames a forward resync skipped (not lost)"),
	U64("timeline_resyncs", NULL, 0, "resyncs", A, STATS_SUM, C(timeline_resyncs),
	    "resyncs of the antenna's timeline (each moves all its streams)"),
	U64("new_params", NULL, 0, "segments", S | A, STATS_SUM, C(new_params),
	    "segments begun with new parameters"),
	U64("bytes", "bytes", 14, "bytes", S | A | L, STATS_SUM, C(bytes),
	    "CODIF bytes (header and data) of received frames"),
	U64("packets", NULL, 0, "packets", A, STATS_SUM, C(packets),
	    "packets from the antenna's source address"),
	U64("wire_bytes", NULL, 0, "bytes", A, STATS_SUM, C(wire_bytes),
	    "Ethernet bytes of those packets"),
	{ .name = "first_frame", .head = "first frame (UTC)", .unit = "ns",
	  .help = "CODIF time of the earliest frame", .off = C(first_ns),
	  .type = STATS_TIME, .merge = STATS_MIN, .flags = S | A, .width = 30 },
	{ .name = "last_frame", .head = "last frame (UTC)", .unit = "ns",
	  .help = "CODIF time of the newest frame", .off = C(last_ns),
	  .type = STATS_TIME, .merge = STATS_MAX, .flags = S | A | L, .width = 30 },
	{ .name = "malformed_by_cause", .unit = "packets",
	  .help = "malformed packets by cause", .off = C(mal), .type = STATS_ARRAY,
	  .merge = STATS_SUM, .flags = A, .n = ACCT_M__COUNT, .elem = mal_name },
};

const struct stats_group stats_counts = {
	.name = "counts", .help = "a stream's or an antenna's frames", .prom = "antenna",
	.f = counts_f, .n = DIM(counts_f), .size = sizeof(struct acct_counts),
};

const struct stats_group stats_stream = {
	.name = "stream", .help = "a stream's frames (the counts a stream has)",
	.prom = "stream", .scope = STATS_STREAM,
	.f = counts_f, .n = DIM(counts_f), .size = sizeof(struct acct_counts),
};

#define B(f) offsetof(struct antbuf, f)

static const char *
refused_name(unsigned int i)
{
	return antbuf_result_name((enum antbuf_result)i);
}

static const struct stats_field buffer_f[] = {
	U64("placed", "placed", 10, "frames", A | L, STATS_SUM, B(placed),
	    "frames placed in the ring"),
	U64("backfilled", "backfilled", 10, "frames", A, STATS_SUM, B(late_placed),
	    "placed in a row behind the newest (another stream had moved on)"),
	{ .name = "refused", .unit = "frames",
	  .help = "frames the buffer refused, by reason (too-late: counted lost)",
	  .off = B(result), .type = STATS_ARRAY, .merge = STATS_SUM, .flags = A,
	  .n = ANTBUF__RESULTS, .first = ANTBUF_DUPLICATE, .elem = refused_name },
	U64("gap_zeroed", "gap-zeroed", 10, "frames", A, STATS_SUM, B(zero_filled),
	    "slots of final rows whose frame never came: zeroed"),
	U64("gap_beyond_ring", "gap-beyond", 10, "frames", A, STATS_SUM, B(gap_frames),
	    "frames of gaps longer than the ring: never in it (writers fill them)"),
	{ .name = "runs", .unit = "runs", .off = B(nruns), .type = STATS_U32,
	  .help = "runs of rows (one per resync, new parameters or long gap)",
	  .merge = STATS_MAX, .flags = A },
	{ .name = "first_row", .unit = "rows", .help = "first row ever opened (-1 none)",
	  .off = B(first_row), .type = STATS_I64, .merge = STATS_MIN, .flags = A },
	{ .name = "final_row", .unit = "rows", .help = "rows before it are final",
	  .off = B(final_row), .type = STATS_I64, .merge = STATS_MAX, .flags = A | L },
};

const struct stats_group stats_buffer = {
	.name = "buffer", .help = "an antenna buffer's placement", .prom = "buffer",
	.f = buffer_f, .n = DIM(buffer_f), .size = sizeof(struct antbuf),
};

#define W(f) offsetof(struct shm_writer, f)

static const struct stats_field writer_f[] = {
	U64("written", "written", 12, "frames", A | L, STATS_SUM, W(written),
	    "valid frames in its files on disk (not counting what is staged)"),
	U64("placeholders", "placeholders", 12, "frames", A | L, STATS_SUM, W(placeholders),
	    "gap frames in its files where a stream lost frames (codif invalid, raw zeros)"),
	U64("bytes", "bytes", 14, "bytes", A | L, STATS_SUM, W(bytes),
	    "bytes of its files on disk (raw: data, not indexes)"),
	U64("files", "files", 6, "files", A | L, STATS_SUM, W(files), "files completed"),
	U64("overrun", "overrun", 8, "frames", A | L, STATS_SUM, W(overrun),
	    "frames the writer lost: the ring overwrote them first"),
	U64("cut", "cut", 8, "frames", A | L, STATS_SUM, W(cut),
	    "frames taken but not kept: an I/O error (full disk) cut them off its files"),
	U64("files_removed", "removed", 8, "files", A | L, STATS_SUM, W(files_removed),
	    "its own finished files it removed to keep min-free (on-full=remove-oldest)"),
	U64("bytes_removed", "removed-bytes", 14, "bytes", A | L, STATS_SUM, W(bytes_removed),
	    "bytes of those files (raw: data, not indexes, as bytes); bytes - this is on disk"),
	{ .name = "error", .unit = "errno", .help = "errno of a fatal error, 0 none",
	  .off = W(error), .type = STATS_I32, .merge = STATS_MAX, .flags = A | L },
	{ .name = "full", .unit = "", .help = "1: it stopped at its min-free (on-full=stop): its files "
	  "complete", .off = W(full), .type = STATS_U32, .merge = STATS_MAX, .flags = A | L },
	{ .name = "recycles", .unit = "", .help = "1: on-full=remove-oldest: at its min-free it "
	  "removes its own oldest files and goes on (time_left_ns is when it starts to)",
	  .off = W(recycles), .type = STATS_U32, .merge = STATS_MAX, .flags = L },
	{ .name = "active", .unit = "", .help = "1 while the writer runs, 0 once it ended",
	  .off = W(in_use), .type = STATS_U32, .merge = STATS_MAX, .flags = A | L },
	{ .name = "dead", .unit = "", .help = "1: its process died without ending (kill -9, a "
	  "crash): its figures as it last published them; started again under its name it takes "
	  "the entry back", .off = W(dead), .type = STATS_U32, .merge = STATS_MAX,
	  .flags = A | L },
	{ .name = "hung", .unit = "", .help = "1: its process lives but has published nothing for "
	  "3 s (stopped, stuck)", .off = W(hung), .type = STATS_U32, .merge = STATS_MAX,
	  .flags = A | L },
	/* live gauges: telemetry and Prometheus, not the end-of-run summaries */
	U64("lag_frames", NULL, 0, "frames", L, STATS_MAX, W(lag_frames),
	    "live: frames (rows) behind the newest placed, its worst antenna; about "
	    "the reorder window when it keeps up"),
	U64("lag_ns", NULL, 0, "ns", L, STATS_MAX, W(lag_ns),
	    "live: that lag as data time (frames x the antenna's frame duration)"),
	U64("write_rate", NULL, 0, "bytes/s", L, STATS_MAX, W(write_rate),
	    "live: bytes per second handed to its files (staged or written) over the last second"),
	U64("disk_free", NULL, 0, "bytes", L, STATS_MIN, W(disk_free),
	    "live: bytes free to it in its output directory (statvfs)"),
	U64("min_free", NULL, 0, "bytes", L, STATS_MAX, W(min_free),
	    "live: its min-free in bytes, the free space it leaves (0: none)"),
	U64("time_left_ns", NULL, 0, "ns", L, STATS_MIN, W(time_left_ns),
	    "live: recording time left at write_rate: (disk_free - min_free) / write_rate; 0: "
	    "not writing"),
	/* its I/O queue (lib/fio): the summaries keep all but the writes now */
	{ .name = "io_uring", .unit = "", .help = "1: its O_DIRECT files write through io_uring; "
	  "0: one synchronous pwrite at a time (io_why says why)", .off = W(io_uring),
	  .type = STATS_U32, .merge = STATS_MAX, .flags = A | L },
	U64("io_depth", NULL, 0, "writes", A | L, STATS_MAX, W(io_depth),
	    "writes it may have in flight: FIO_INFLIGHT (lib/fio) per io_uring file open; 0 synchronous"),
	U64("io_inflight", NULL, 0, "writes", L, STATS_MAX, W(io_inflight),
	    "live: io_uring writes in flight now, summed over its open files"),
	U64("io_inflight_max", NULL, 0, "writes", A | L, STATS_MAX, W(io_inflight_max),
	    "the most io_uring writes it had in flight at once"),
};

#define RX(f) offsetof(struct stats_rx, f)

/* the capture's own figures (all rx lcores) and one lcore's */
static const struct stats_field capture_f[] = {
	U64("packets", NULL, 0, "packets", A | L, STATS_SUM, RX(pkts),
	    "packets received by the rx lcores"),
	U64("wire_bytes", NULL, 0, "bytes", A | L, STATS_SUM, RX(bytes), "their Ethernet bytes"),
	U64("busy_wait", NULL, 0, "polls", A | L, STATS_SUM, RX(empty_polls),
	    "rx polls that returned nothing"),
	U64("polls", NULL, 0, "polls", A | L, STATS_SUM, RX(polls), "rx polls"),
	U64("misdirected", NULL, 0, "packets", A | L, STATS_SUM, RX(misdirected),
	    "an antenna's packets on another antenna's queue"),
	U64("busy_cycles", NULL, 0, "cycles", A | L, STATS_SUM, RX(busy_cycles),
	    "TSC cycles of the rx polls that brought packets: the PMD's burst and all done "
	    "with its packets"),
};

const struct stats_group stats_capture = {
	.name = "capture", .help = "the capture's packets and polls", .prom = "",
	.f = capture_f, .n = DIM(capture_f), .size = sizeof(struct stats_rx),
};

static const struct stats_field lcore_f[] = {
	U64("packets", NULL, 0, "packets", A, STATS_SUM, RX(pkts), "packets this lcore received"),
	U64("wire_bytes", NULL, 0, "bytes", A, STATS_SUM, RX(bytes), "their Ethernet bytes"),
	U64("polls", NULL, 0, "polls", A, STATS_SUM, RX(polls), "rx polls"),
	U64("busy_wait", NULL, 0, "polls", A, STATS_SUM, RX(empty_polls),
	    "rx polls that returned nothing"),
	U64("multi_segment", NULL, 0, "packets", A, STATS_SUM, RX(segmented),
	    "packets in several segments (copied to be read)"),
	U64("held", NULL, 0, "mbufs", A, STATS_MAX, RX(held), "mbufs held now for suspect frames"),
	U64("busy_cycles", NULL, 0, "cycles", A, STATS_SUM, RX(busy_cycles),
	    "TSC cycles of the polls that brought packets"),
};

const struct stats_group stats_lcore = {
	.name = "lcore", .help = "one rx lcore's packets and polls (not exported)",
	.f = lcore_f, .n = DIM(lcore_f), .size = sizeof(struct stats_rx),
};

const struct stats_group stats_writer = {
	.name = "writer", .help = "a writer's files", .prom = "writer",
	.f = writer_f, .n = DIM(writer_f), .size = sizeof(struct shm_writer),
};

/* ---- walkers --------------------------------------------------------------- */

uint64_t
stats_get(const struct stats_field *f, const void *rec, unsigned int i)
{
	const uint8_t *p = (const uint8_t *)rec + f->off;

	switch (f->type) {
	case STATS_U64:
		return *(const uint64_t *)p;
	case STATS_ARRAY:
		return ((const uint64_t *)p)[i];
	case STATS_U32:
		return *(const uint32_t *)p;
	case STATS_I32:
		return (uint64_t)(int64_t)*(const int32_t *)p;
	case STATS_F64: /* its bits: see stats_get_f64 */
		return *(const uint64_t *)p;
	default: /* I64, TIME */
		return (uint64_t)*(const int64_t *)p;
	}
}

double
stats_get_f64(const struct stats_field *f, const void *rec)
{
	double v;

	memcpy(&v, (const uint8_t *)rec + f->off, sizeof(v));
	return v;
}

bool
stats_tel_fixed(const struct stats_field *f, const void *rec, int64_t *v)
{
	double x = stats_get_f64(f, rec) * (double)f->tel_scale;

	if (!isfinite(x))
		return false;
	/* beyond int64: the telemetry's types end there (never in practice) */
	*v = x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : llround(x);
	return true;
}

void
stats_text_value(const struct stats_field *f, const void *rec, char *buf, size_t len)
{
	uint64_t v = stats_get(f, rec, 0);

	if (f->type == STATS_F64)
		snprintf(buf, len, "%.10g", stats_get_f64(f, rec));
	else if (f->type == STATS_TIME && !stats_time_set(f, rec))
		snprintf(buf, len, "%s", "");
	else if (stats_signed(f))
		snprintf(buf, len, "%" PRId64, (int64_t)v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void
set(const struct stats_field *f, void *rec, unsigned int i, uint64_t v)
{
	uint8_t *p = (uint8_t *)rec + f->off;

	switch (f->type) {
	case STATS_U64:
		*(uint64_t *)p = v;
		break;
	case STATS_ARRAY:
		((uint64_t *)p)[i] = v;
		break;
	case STATS_U32:
		*(uint32_t *)p = (uint32_t)v;
		break;
	case STATS_I32:
		*(int32_t *)p = (int32_t)(int64_t)v;
		break;
	default:
		*(int64_t *)p = (int64_t)v;
		break;
	}
}

bool
stats_time_set(const struct stats_field *f, const void *rec)
{
	int64_t t = (int64_t)stats_get(f, rec, 0);

	return t != INT64_MAX && t != INT64_MIN;
}

void
stats_zero(const struct stats_group *g, void *rec)
{
	unsigned int k;

	memset(rec, 0, g->size);
	for (k = 0; k < g->n; k++)
		if (g->f[k].type == STATS_TIME)
			set(&g->f[k], rec, 0, (uint64_t)(g->f[k].merge == STATS_MIN ?
							  INT64_MAX : INT64_MIN));
}

void
stats_merge(const struct stats_group *g, void *dst, const void *src)
{
	unsigned int k, i;

	for (k = 0; k < g->n; k++) {
		const struct stats_field *f = &g->f[k];
		unsigned int n = f->type == STATS_ARRAY ? f->n : 1;

		if (f->type == STATS_F64) {
			double a = stats_get_f64(f, dst), b = stats_get_f64(f, src), v;

			v = f->merge == STATS_SUM ? a + b :
			    (f->merge == STATS_MIN) == (b < a) ? b : a;
			memcpy((uint8_t *)dst + f->off, &v, sizeof(v));
			continue;
		}
		for (i = 0; i < n; i++) {
			uint64_t a = stats_get(f, dst, i), b = stats_get(f, src, i), v;

			if (f->merge == STATS_SUM)
				v = a + b;
			else if (stats_signed(f))
				v = (f->merge == STATS_MIN) == ((int64_t)b < (int64_t)a) ? b : a;
			else
				v = (f->merge == STATS_MIN) == (b < a) ? b : a;
			set(f, dst, i, v);
		}
	}
}

const struct stats_field *
stats_find(const struct stats_group *g, const char *name)
{
	unsigned int k;

	for (k = 0; k < g->n; k++)
		if (strcmp(g->f[k].name, name) == 0)
			return &g->f[k];
	return NULL;
}

void
stats_writer_json(const struct shm_writer *w, json_t *o)
{
	js_str(o, "name", w->name);
	js_str(o, "format", w->format);
	js_i64(o, "pid", w->pid);
	if (w->lcore >= 0) /* its lcore in the primary: --write, --consumer */
		js_i64(o, "lcore", w->lcore);
	stats_json(&stats_writer, w, STATS_ANTENNA, o);
	js_str(o, "io", w->io_uring ? "uring" : "sync");
	js_str(o, "io_why", w->io_why);
}

void
stats_json(const struct stats_group *g, const void *rec, unsigned int scope, json_t *o)
{
	char key[64], ts[CODIF_TIMESTR_LEN];
	unsigned int k, i;

	for (k = 0; k < g->n; k++) {
		const struct stats_field *f = &g->f[k];
		uint64_t v = stats_get(f, rec, 0);

		if (!stats_in(f, scope))
			continue;
		switch (f->type) {
		case STATS_TIME:
			snprintf(key, sizeof(key), "%s_ns", f->name);
			if (stats_time_set(f, rec))
				js_i64(o, key, (int64_t)v);
			else
				js_null(o, key);
			snprintf(key, sizeof(key), "%s_utc", f->name);
			js_str(o, key, stats_time_set(f, rec) ?
				       codif_time_str((int64_t)v, ts, sizeof(ts)) : NULL);
			break;
		case STATS_ARRAY: {
			json_t *a = js_obj(o, f->name);

			for (i = f->first; i < f->n; i++)
				js_u64(a, f->elem(i), stats_get(f, rec, i));
			break;
		}
		case STATS_F64:
			js_dbl(o, f->name, stats_get_f64(f, rec));
			break;
		default:
			if (stats_signed(f))
				js_i64(o, f->name, (int64_t)v);
			else
				js_u64(o, f->name, v);
			break;
		}
	}
}

json_t *
stats_describe(const struct stats_group *g, unsigned int scope)
{
	json_t *o = json_object();
	unsigned int k;

	for (k = 0; k < g->n; k++) {
		const struct stats_field *f = &g->f[k];
		json_t *d;

		if (!stats_in(f, scope))
			continue;
		d = js_obj(o, f->name);
		js_str(d, "unit", f->unit);
		js_str(d, "kind", f->merge == STATS_SUM ? "counter" : "gauge");
		js_str(d, "help", f->help);
	}
	return o;
}

/* Whether field k has a column in scope. */
static bool
has_col(const struct stats_group *g, unsigned int k, unsigned int scope)
{
	return g->f[k].head != NULL && stats_in(&g->f[k], scope);
}

/* The next field from k with a column (g->n: none). */
static unsigned int
next_col(const struct stats_group *g, unsigned int k, unsigned int scope)
{
	while (k < g->n && !has_col(g, k, scope))
		k++;
	return k;
}

/* The headings of the fields [k0, k1) with a column. */
static void
text_head(const struct stats_group *g, unsigned int scope, unsigned int k0, unsigned int k1,
	  FILE *out)
{
	unsigned int k;

	for (k = k0; k < k1; k++) {
		const struct stats_field *f = &g->f[k];

		if (!has_col(g, k, scope))
			continue;
		if (f->type == STATS_TIME)
			fprintf(out, " %-*s", f->width, f->head);
		else
			fprintf(out, " %*s", f->width, f->head);
	}
}

/* The values of rec under text_head's headings of [k0, k1). */
static void
text_row(const struct stats_group *g, const void *rec, unsigned int scope, unsigned int k0,
	 unsigned int k1, FILE *out)
{
	char ts[CODIF_TIMESTR_LEN];
	unsigned int k;

	for (k = k0; k < k1; k++) {
		const struct stats_field *f = &g->f[k];
		uint64_t v = stats_get(f, rec, 0);

		if (!has_col(g, k, scope))
			continue;
		if (f->type == STATS_TIME)
			fprintf(out, " %-*s", f->width, stats_time_set(f, rec) ?
				codif_time_str((int64_t)v, ts, sizeof(ts)) : "-");
		else if (f->type == STATS_F64)
			fprintf(out, " %*.4g", f->width, stats_get_f64(f, rec));
		else if (stats_signed(f))
			fprintf(out, " %*" PRId64, f->width, (int64_t)v);
		else
			fprintf(out, " %*" PRIu64, f->width, v);
	}
}

void
stats_text_head(const struct stats_group *g, unsigned int scope, FILE *out)
{
	text_head(g, scope, 0, g->n, out);
}

void
stats_text_row(const struct stats_group *g, const void *rec, unsigned int scope, FILE *out)
{
	text_row(g, rec, scope, 0, g->n, out);
}

unsigned int
stats_text_columns(FILE *f)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long v;

	if (c != NULL && *c != '\0') {
		v = strtol(c, &end, 10);
		if (*end == '\0' && v >= STATS_MIN_COLUMNS && v <= 10000)
			return (unsigned int)v;
	}
	if (isatty(fileno(f)) && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col >= STATS_MIN_COLUMNS)
		return ws.ws_col;
	return 0;
}

/* The end (exclusive) of the block of columns that starts at k0: as many
 * as fit width after the lead's lw columns, one at least. */
static unsigned int
block_end(const struct stats_table *t, unsigned int k0, size_t lw)
{
	size_t used = lw;
	unsigned int k, nf = 0;

	for (k = k0; k < t->g->n; k++) {
		if (!has_col(t->g, k, t->scope))
			continue;
		if (t->width != 0 && nf > 0 && used + 1 + t->g->f[k].width > t->width)
			break;
		used += 1 + t->g->f[k].width;
		nf++;
	}
	return k;
}

void
stats_text_table(const struct stats_table *t, FILE *out)
{
	unsigned int k0 = next_col(t->g, 0, t->scope), k1, i;
	size_t lw = strlen(t->lead_head);

	while (k0 < t->g->n) {
		bool last;

		k1 = block_end(t, k0, lw);
		last = next_col(t->g, k1, t->scope) >= t->g->n;
		fputs(t->lead_head, out);
		text_head(t->g, t->scope, k0, k1, out);
		fputc('\n', out);
		for (i = 0; i < t->n; i++) {
			fputs(t->lead[i], out);
			text_row(t->g, t->rec[i], t->scope, k0, k1, out);
			if (last && t->tail != NULL && t->tail[i] != NULL)
				fputs(t->tail[i], out);
			fputc('\n', out);
			if (last && t->after != NULL)
				t->after(t->ctx, i, out);
		}
		if (!last)
			fputc('\n', out);
		k0 = next_col(t->g, k1, t->scope);
	}
}

bool
stats_text_rest(const struct stats_group *g, const void *rec, unsigned int scope,
		const char *lead, FILE *out)
{
	unsigned int k, i, n = 0;

	for (k = 0; k < g->n; k++) {
		const struct stats_field *f = &g->f[k];

		if (f->head != NULL || f->merge != STATS_SUM || f->type == STATS_TIME ||
		    f->type == STATS_F64 ||
		    !stats_in(f, scope))
			continue;
		for (i = f->type == STATS_ARRAY ? f->first : 0;
		     i < (f->type == STATS_ARRAY ? f->n : 1u); i++) {
			uint64_t v = stats_get(f, rec, i);

			if (v == 0)
				continue;
			fprintf(out, "%s%s%s%s ", n++ ? ", " : lead,
				f->type == STATS_ARRAY ? f->name : "",
				f->type == STATS_ARRAY ? ":" : "",
				f->type == STATS_ARRAY ? f->elem(i) : f->name);
			if (stats_signed(f))
				fprintf(out, "%" PRId64, (int64_t)v);
			else
				fprintf(out, "%" PRIu64, v);
		}
	}
	if (n)
		fputc('\n', out);
	return n != 0;
}

void
stats_stream_json(const struct acct_layout *l, unsigned int ant, const struct acct_stream *s,
		  json_t *o)
{
	struct acct_counts one;
	char ip[16], st[16];

	stats_zero(&stats_counts, &one);
	acct_stream_add(s, &one);
	js_u64(o, "antenna", ant);
	js_str(o, "src", ipv4_str(l->ant_ip[ant], ip, sizeof(ip)));
	js_str(o, "dst", ipv4_str(s->dst_ip, ip, sizeof(ip)));
	js_u64(o, "port", s->dport);
	codif_station_str(s->stationid, st);
	js_str(o, "station", st);
	js_u64(o, "groupid", s->groupid);
	js_u64(o, "secondaryid", s->secondaryid);
	js_u64(o, "threadid", s->threadid);
	stats_json(&stats_counts, &one, STATS_STREAM, o);
}

const char *
stats_merge_name(enum stats_merge m)
{
	return m == STATS_MIN ? "min" : m == STATS_MAX ? "max" : "sum";
}

/* append text to buf (used of len), -ENOSPC when it does not fit */
static int
put(char *buf, size_t len, size_t *used, const char *text, size_t n)
{
	if (*used + n >= len)
		return -ENOSPC;
	memcpy(buf + *used, text, n);
	*used += n;
	buf[*used] = '\0';
	return 0;
}

/* A telemetry integer's fixed-point unit -> its base unit and the factor to
 * it (the bstate table's integers, a double's tel_unit). */
static const struct {
	const char *fixed, *base;
	double scale;
} fixed_units[] = {
	{ "ns", "seconds", 1e-9 }, { "ppm", "ratio", 1e-6 }, { "milli-steps", "steps", 1e-3 },
	{ "micro-steps^2", "steps^2", 1e-6 }, { "milli-dB", "dB", 1e-3 },
};

/* the unit a figure is exported in and the factor from the value telemetry gives */
static const char *
base_unit(const struct stats_field *f, double *scale)
{
	const char *u = f->type == STATS_F64 ? f->tel_unit : f->unit;
	unsigned int i;

	*scale = 1;
	if (u == NULL)
		return "";
	for (i = 0; i < DIM(fixed_units); i++)
		if (strcmp(u, fixed_units[i].fixed) == 0) {
			*scale = fixed_units[i].scale;
			return fixed_units[i].base;
		}
	return u;
}

int
stats_prom_name(const struct stats_group *g, const struct stats_field *f, char *buf,
		size_t len, double *scale)
{
	const char *u = base_unit(f, scale);
	size_t ul = strlen(u), used = 0, nl = strlen(f->name);
	char red[32];
	size_t i, r = 0;
	int rc;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	if (g->prom == NULL)
		return -ENOENT;
	rc = put(buf, len, &used, "ibvcap_", 7);
	if (rc == 0 && g->prom[0] != '\0') {
		rc = put(buf, len, &used, g->prom, strlen(g->prom));
		rc = rc != 0 ? rc : put(buf, len, &used, "_", 1);
	}
	if (rc != 0)
		return rc;
	if (strcmp(u, "seconds") == 0) {
		/* a time in ns, or a figure in seconds: NAME_seconds */
		if (nl > 3 && strcmp(f->name + nl - 3, "_ns") == 0)
			nl -= 3;
		rc = put(buf, len, &used, f->name, nl);
		if (rc == 0 && !(nl >= 8 && strncmp(f->name + nl - 8, "_seconds", 8) == 0))
			rc = put(buf, len, &used, "_seconds", 8);
	} else {
		rc = put(buf, len, &used, f->name, nl);
		if (rc == 0 && ul > 2 && strcmp(u + ul - 2, "/s") == 0) {
			rc = put(buf, len, &used, "_", 1);
			rc = rc != 0 ? rc : put(buf, len, &used, u, ul - 2);
			rc = rc != 0 ? rc : put(buf, len, &used, "_per_second", 11);
		} else if (rc == 0 && ul > 0 && strcmp(u, "errno") != 0) {
			/* metric names are [a-z0-9_]: steps^2 is steps2, dB db */
			for (i = 0; i < ul && r + 1 < sizeof(red); i++) {
				char c = u[i] >= 'A' && u[i] <= 'Z' ? (char)(u[i] - 'A' + 'a') : u[i];

				if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
					red[r++] = c;
			}
			red[r] = '\0';
			if (strstr(buf, red) == NULL) {
				rc = put(buf, len, &used, "_", 1);
				rc = rc != 0 ? rc : put(buf, len, &used, red, r);
			}
		}
	}
	if (rc == 0 && f->merge == STATS_SUM)
		rc = put(buf, len, &used, "_total", 6);
	return rc;
}
