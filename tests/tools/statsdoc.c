/* SPDX-License-Identifier: BSD-3-Clause */
/* Test tool: the counter tables of lib/stats as the Markdown of
 * docs/counters.md (a test keeps the page equal to the tables). */

#include <stdio.h>

#include "stats.h"
#include "stats_tel.h"

static const char *
kind(const struct stats_field *f)
{
	return f->merge == STATS_SUM ? "counter" : "gauge";
}

static void
group(const struct stats_group *g, const char *title, const char *where)
{
	unsigned int k, i;

	printf("\n## %s\n\n%s\n\n| name | unit | kind | for | meaning |\n|---|---|---|---|---|\n",
	       title, where);
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
		printf(" |\n");
	}
}

int
main(void)
{
	printf("# Counters\n\n"
	       "Generated from the tables of lib/stats (tests/tools/statsdoc; the test\n"
	       "`docs-counters` fails when this page and the tables differ). Every\n"
	       "figure the tools print, write as JSON, serve by telemetry\n"
	       "(`/ibvcap/counters,GROUP` describes them live) or export to Prometheus\n"
	       "has one of these names; codifgen's ground truth uses the same names.\n"
	       "Prometheus names are\n"
	       "`ibvcap_<antenna|buffer|writer|port|quicklook|bstate>_<name>_<unit>`\n"
	       "(the unit left out where the name has it, reduced to `[a-z0-9_]`:\n"
	       "`steps^2` is `steps2`), with `_total` for counters and `_seconds` for\n"
	       "times; fixed-point units are exported in their base unit (`ppm` as\n"
	       "`_ratio`, `milli-steps` as `_steps`).\n");
	group(&stats_counts, "Frame counts (group `counts`)",
	      "Per stream (summary JSON `streams`, codifcheck, truth) and per antenna "
	      "(`antennas`, `totals`, the summary table, telemetry `/ibvcap/antennas`).");
	group(&stats_buffer, "Antenna buffer (group `buffer`)",
	      "Per antenna buffer (summary JSON `buffers.antennas`, `/ibvcap/buffers`).");
	group(&stats_writer, "Writers (group `writer`)",
	      "Per writer, in the capture or a dpdk-ibvcap-dump (summary JSON "
	      "`buffers.writers`, `/ibvcap/writers`); the `live:` gauges, which the "
	      "writer refreshes a few times a second, in telemetry and Prometheus "
	      "only.");
	group(&stats_port, "Ports (group `port`)",
	      "Per DPDK port, from rte_eth_stats (summary JSON `ports`; "
	      "`/ethdev/stats,N`).");
	group(&stats_quicklook, "Quick look (group `quicklook`)",
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
	group(&stats_bstate, "Sampler statistics (group `bstate`)",
	      "Per antenna, stream and channel group (`/ibvcap/bstate[,ANTENNA]`, "
	      "Prometheus, `dpdk-ibvcap-stat`), over the last `--quicklook-window`: "
	      "the kept frames (`--quicklook-min` M a stream per window, read on the "
	      "main lcore) counted by sampler state as `codifcheck bstate` does "
	      "(docs/codifcheck.md, \"bstate\": the states, the RMS estimate, the "
	      "verdict). Telemetry gives them as JSON integers: shares in parts per "
	      "million, RMS in milli-steps (DPDK 22.11 telemetry has only integers); "
	      "Prometheus in ratios and steps.");
	return 0;
}
