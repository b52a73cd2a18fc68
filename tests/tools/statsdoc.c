/* SPDX-License-Identifier: BSD-3-Clause */
/* The counter tables of lib/stats as the Markdown of docs/counters.md (a
 * test keeps the page equal to the tables), or with --json as the rows
 * /ibvcap/counters serves, for the Python tools without a capture
 * (counters.json, installed beside their module). */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "stats.h"
#include "stats_tel.h"

static const char *
kind(const struct stats_field *f)
{
	return f->merge == STATS_SUM ? "counter" : "gauge";
}

static unsigned int
group(const struct stats_group *g, const char *title, const char *where)
{
	char prom[128];
	double scale;
	unsigned int k, i;

	printf("\n## %s\n\n%s\n\n| name | unit | kind | for | meaning | Prometheus |\n"
	       "|---|---|---|---|---|---|\n", title, where);
	for (k = 0; k < g->n; k++) {
		const struct stats_field *f = &g->f[k];
		const char *scope = (f->flags & STATS_ALL) == STATS_ALL ? "stream, antenna" :
				    f->flags & STATS_STREAM ? "stream" : "antenna";

		if (g != &stats_counts)
			scope = g->name;
		if (f->type == STATS_TIME)
			printf("| `%s_utc`, `%s_ns` | UTC, ns | %s | %s | %s (as text; as Unix ns)",
			       f->name, f->name, kind(f), scope, f->help);
		else if (f->type == STATS_F64)
			printf("| `%s` | %s | %s | %s | %s; telemetry: %s", f->name, f->unit,
			       kind(f), scope, f->help, f->tel_unit);
		else
			printf("| `%s` | %s | %s | %s | %s", f->name, f->unit, kind(f), scope, f->help);
		if (f->type == STATS_ARRAY) {
			printf(":");
			for (i = f->first; i < f->n; i++)
				printf(" `%s`", f->elem(i));
		}
		if (stats_prom_name(g, f, prom, sizeof(prom), &scale) == 0)
			printf(" | `%s`%s |\n", prom, f->type == STATS_ARRAY ? " (label `cause`)" : "");
		else
			printf(" | not exported |\n");
	}
	return 1;
}

/* the rows of stats_tel_describe, as JSON: group -> {help, fields: name ->
 * [unit, kind, help, merge, prometheus, scale, element...]} */
static int
json_rows(void)
{
	json_t *root = json_object();
	unsigned int k, j, i;

	for (k = 0; k < stats_ngroups; k++) {
		const struct stats_group *g = stats_groups[k];
		json_t *o = json_object(), *fields = json_object();

		json_object_set_new(o, "help", json_string(g->help));
		for (j = 0; j < g->n; j++) {
			const struct stats_field *f = &g->f[j];
			char prom[128], sc[32], key[96];
			double scale;
			json_t *row;

			if (!stats_in(f, g->scope))
				continue;
			if (stats_prom_name(g, f, prom, sizeof(prom), &scale) == -ENOSPC) {
				json_decref(fields);
				json_decref(o);
				json_decref(root);
				return 1;
			}
			row = json_array();
			snprintf(sc, sizeof(sc), "%g", scale);
			/* the unit of the value telemetry gives, as /ibvcap/counters */
			json_array_append_new(row, json_string(f->type == STATS_F64 ? f->tel_unit :
								f->unit));
			json_array_append_new(row, json_string(f->merge == STATS_SUM ? "counter" :
								"gauge"));
			json_array_append_new(row, json_string(f->help));
			json_array_append_new(row, json_string(stats_merge_name(f->merge)));
			json_array_append_new(row, json_string(prom));
			json_array_append_new(row, json_string(sc));
			for (i = f->first; f->type == STATS_ARRAY && i < f->n; i++)
				json_array_append_new(row, json_string(f->elem(i)));
			snprintf(key, sizeof(key), "%s%s", f->name, f->type == STATS_TIME ? "_ns" : "");
			json_object_set_new(fields, key, row);
		}
		json_object_set_new(o, "fields", fields);
		json_object_set_new(root, g->name, o);
	}
	json_dumpf(root, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	printf("\n");
	json_decref(root);
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned int n = 0;

	if (argc == 2 && strcmp(argv[1], "--json") == 0)
		return json_rows();
	if (argc != 1) {
		fprintf(stderr, "usage: statsdoc [--json]\n");
		return 2;
	}
	printf("# Counters\n\n"
	       "Generated from the tables of lib/stats (tests/tools/statsdoc; the test\n"
	       "`docs-counters` fails when this page and the tables differ, or a table\n"
	       "is not on it). Every figure the tools print, write as JSON, serve by\n"
	       "telemetry (`/ibvcap/counters,GROUP` describes them live: unit, kind,\n"
	       "merge rule, Prometheus name and scale) or export to Prometheus has one\n"
	       "of these names; codifgen's ground truth uses the same names. The\n"
	       "Python tools read these rows, from the capture or, without one, from\n"
	       "`counters.json` (`statsdoc --json`, installed beside their module).\n"
	       "Prometheus names (the last column, lib/stats `stats_prom_name`) are\n"
	       "`ibvcap_<group>_<name>_<unit>` (the unit left out where the name has\n"
	       "it, reduced to `[a-z0-9_]`: `steps^2` is `steps2`), with `_total` for\n"
	       "counters and `_seconds` for times; fixed-point units are exported in\n"
	       "their base unit (`ppm` as `_ratio`, `milli-steps` as `_steps`). A\n"
	       "stream's figures (group `stream`: the frame counts a stream has) are\n"
	       "`ibvcap_stream_<name>_<unit>`, labelled by the stream's identity.\n");
	n += group(&stats_counts, "Frame counts (group `counts`)",
	      "Per stream (summary JSON `streams`, codifcheck, truth) and per antenna "
	      "(`antennas`, `totals`, the summary table, telemetry `/ibvcap/antennas`).");
	n += group(&stats_buffer, "Antenna buffer (group `buffer`)",
	      "Per antenna buffer (summary JSON `buffers.antennas`, `/ibvcap/buffers`).");
	n += group(&stats_writer, "Writers (group `writer`)",
	      "Per writer, in the capture or a dpdk-ibvcap-dump (summary JSON "
	      "`buffers.writers`, `/ibvcap/writers`); the `live:` gauges, which the "
	      "writer refreshes a few times a second, in telemetry and Prometheus "
	      "only.");
	n += group(&stats_port, "Ports (group `port`)",
	      "Per DPDK port, from rte_eth_stats (summary JSON `ports`; "
	      "`/ethdev/stats,N`).");
	n += group(&stats_capture, "The capture (group `capture`)",
		   "The capture's own figures, all rx lcores (summary JSON `totals`, "
		   "telemetry `/ibvcap/stats`): every packet the rx lcores took, an "
		   "antenna's or not.");
	n += group(&stats_lcore, "Rx lcores (group `lcore`)",
		   "Per rx lcore (summary JSON `lcores`).");
	n += group(&stats_quicklook, "Quick look (group `quicklook`)",
	      "Per antenna and stream, sample statistics of sampled frames (`--quicklook "
	      "N`: each stream's first frame, then one in N). Counters over the run; "
	      "figures over `window`: the last `--quicklook-window` in telemetry "
	      "`/ibvcap/quicklook` and Prometheus, the whole run in "
	      "`/ibvcap/quicklook/run` and the summary JSON `quicklook`. Telemetry "
	      "gives each figure as an integer in a fixed-point unit (DPDK 22.11 "
	      "telemetry has no floating-point value; its unit follows `telemetry:` "
	      "below) "
	      "and leaves out a figure that is not finite (`power_db` of zeros; NaN in "
	      "Prometheus). "
	      "Figures are in steps of the encoding (docs/formats.md, "
	      "\"Quick look\"); a sample is one component (I and Q are two).");
	n += group(&stats_bstate, "Sampler statistics (group `bstate`)",
	      "Per antenna, stream and channel group (`/ibvcap/bstate[,ANTENNA]`, "
	      "Prometheus, `dpdk-ibvcap-stat`), over the last `--quicklook-window`: "
	      "the kept frames (`--quicklook-min` M a stream per window, read on the "
	      "main lcore) counted by sampler state as `codifcheck bstate` does "
	      "(docs/codifcheck.md, \"bstate\": the states, the RMS estimate, the "
	      "verdict). Telemetry gives them as JSON integers: shares in parts per "
	      "million, RMS in milli-steps (DPDK 22.11 telemetry has only integers); "
	      "Prometheus in ratios and steps.");
	/* every table but the stream's (the counts table's stream fields) */
	if (n + 1 != stats_ngroups) {
		fprintf(stderr, "statsdoc: %u of the %u tables of lib/stats printed\n", n + 1,
			stats_ngroups);
		return 1;
	}
	return 0;
}
