/* SPDX-License-Identifier: BSD-3-Clause */
/* dpdk-ibvcap-dump's summary: the line it ends with on stderr and the
 * --summary-json file, for either source. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "json.h"
#include "stats.h"

/* The lines on stderr: what it wrote, then an I/O error and the files it
 * removed at min-free, if any. */
static void
summary_lines(const struct dopts *o, const struct dump_result *r)
{
	const struct wr_stats *st = r->st;

	if (o->pdump)
		fprintf(stderr,
			"dpdk-ibvcap-dump %s: %s, %" PRIu64 " packets written in %" PRIu64 " files, %"
			PRIu64 " bytes in %.2f s; tap drops (ring full + no mbuf): %" PRIu64 "; cut "
			"off by an I/O error: %" PRIu64 "%s\n", o->name, r->why, st->written,
			st->files, st->bytes, r->elapsed, r->tap_drops, st->cut,
			r->error ? " [I/O error]" : "");
	else
		fprintf(stderr,
			"dpdk-ibvcap-dump %s: %s, %" PRIu64 " frames written (%" PRIu64 " placeholders)"
			" in %" PRIu64 " files, %" PRIu64 " bytes in %.2f s; overrun: %" PRIu64
			" frames; cut off by an I/O error: %" PRIu64 " frames%s\n", o->name, r->why,
			st->written, st->placeholders, st->files, st->bytes, r->elapsed, st->overrun,
			st->cut, r->error ? " [I/O error]" : "");
	if (r->error)
		fprintf(stderr, "dpdk-ibvcap-dump %s: %s\n", o->name, r->errtext);
	if (st->files_removed)
		fprintf(stderr, "dpdk-ibvcap-dump %s: min-free: removed %" PRIu64 " of its files (%"
			PRIu64 " bytes)\n", o->name, st->files_removed, st->bytes_removed);
}

/* The figures a writer table entry holds (the primary's writers' names),
 * into root. */
static void
summary_writer_figures(const struct dopts *o, const struct dump_result *r, json_t *root)
{
	struct shm_writer rec;

	memset(&rec, 0, sizeof(rec));
	snprintf(rec.name, sizeof(rec.name), "%s", o->name);
	snprintf(rec.format, sizeof(rec.format), "%s", r->format);
	rec.pid = (int32_t)getpid();
	wr_figures(r->st, r->error, &rec);
	if (r->w != NULL) {
		wr_io_figures(r->w, &rec);
	} else if (r->tap != NULL && r->tap->on) { /* the tap: one pcap file at a time */
		rec.io_uring = r->tap->uring;
		rec.io_depth = r->tap->uring ? FIO_INFLIGHT : 0;
		rec.io_inflight_max = r->tap->depth.peak;
		snprintf(rec.io_why, sizeof(rec.io_why), "%s", r->tap->why);
	}
	rec.full = strcmp(r->why, wr_end_name(WR_END_DISK_FULL)) == 0;
	stats_writer_json(&rec, root);
}

/* The buffers' writer: each antenna's figures and the scans it recorded. */
static void
summary_antennas(const struct dopts *o, struct wr_writer *w, json_t *root)
{
	json_t *arr = js_arr(root, "antennas"), *a;
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		const struct wr_src *sr = &w->src[i];

		if (!sr->on)
			continue;
		a = js_obj(arr, NULL);
		js_str(a, "name", sr->b->name);
		js_u64(a, "rows", sr->cur.rows);
		js_u64(a, "taken", sr->cur.frames);
		js_u64(a, "overrun_rows", sr->cur.lost_rows);
		js_u64(a, "overrun", sr->cur.lost_frames);
		/* the producer's running total at the cursor: the valid frames
		 * placed in the rows this writer went through */
		if (sr->cur.cum_next != UINT64_MAX)
			js_u64(a, "placed", sr->cur.cum_next);
		else
			js_null(a, "placed");
		js_i64(a, "next_row", sr->cur.next);
	}
	/* the primary's scans it recorded, as the --write writers' in
	 * dpdk-ibvcap's summary ("recording") */
	js_str(root, "record", o->record_always ? "always" : "follow");
	js_u64(root, "rows_not_recorded", wr_gate_skipped(w));
	wr_gate_json(w, js_arr(root, "scans"));
}

void
dump_summary(const struct dopts *o, const struct dump_result *r)
{
	const struct wr_stats *st = r->st;
	char err[DUMP_ERRLEN];
	json_t *root;

	summary_lines(o, r);
	if (o->summary[0] == '\0')
		return;
	root = json_object();
	if (root == NULL) {
		fprintf(stderr, "dpdk-ibvcap-dump %s: --summary-json %s: out of memory\n", o->name,
			o->summary);
		return;
	}
	js_str(root, "program", "dpdk-ibvcap-dump");
	summary_writer_figures(o, r, root);
	js_str(root, "name", o->name); /* whole (the registry keeps 31 bytes) */
	js_str(root, "source", o->pdump ? "pdump" : "buffers");
	js_i64(root, "cpu", r->cpu);
	js_str(root, "stop_reason", r->why);
	js_u64(root, "overrun_placeholders", st->overrun_placeholders);
	js_u64(root, "taken", st->taken);
	js_u64(root, "rows", st->rows);
	js_u64(root, "overrun_rows", st->lost_rows);
	js_u64(root, "torn_rows", st->torn_rows);
	js_u64(root, "discontinuities", st->discontinuities);
	js_u64(root, "run_files", st->run_files);
	js_u64(root, "tap_drops", r->tap_drops);
	js_str(root, "error_text", r->error ? r->errtext : "");
	/* a stop at min-free: the directory, free space and threshold */
	js_str(root, "stop_text",
	       strcmp(r->why, wr_end_name(WR_END_DISK_FULL)) == 0 ? r->errtext : "");
	js_dbl(root, "duration_s", r->elapsed);
	if (r->w != NULL)
		summary_antennas(o, r->w, root);
	if (js_write_file(root, o->summary, err, sizeof(err)) != 0)
		fprintf(stderr, "dpdk-ibvcap-dump %s: --summary-json: %s\n", o->name, err);
	json_decref(root);
}
