/* SPDX-License-Identifier: BSD-3-Clause */
/* The DPDK side of the counter tables: the port table (struct
 * rte_eth_stats) and the walkers into telemetry replies. */

#ifndef STATS_TEL_H
#define STATS_TEL_H

#include <rte_ethdev.h>
#include <rte_telemetry.h>

#include "stats.h"

/** A port's figures: struct rte_eth_stats (rte_eth_stats_get). */
extern const struct stats_group stats_port;

/** Every counter group, in /ibvcap/counters' order (docs/counters.md). */
extern const struct stats_group *const stats_groups[];
/** How many stats_groups has. */
extern const unsigned int stats_ngroups;

/**
 * Add rec's fields in scope to dictionary d, name -> value (arrays as
 * NAME_ELEMENT, '-' as '_'; times as NAME_ns, 0 when none; doubles as
 * integers in their tel_unit, left out when not finite; a negative value
 * as a 32-bit int, clamped).
 * @return 0, or -ENOSPC when d is full.
 */
int stats_tel_dict(const struct stats_group *g, const void *rec, unsigned int scope,
		   struct rte_tel_data *d);

/**
 * Start array d as the names of the fields in scope, in table order (the
 * order of stats_tel_row's values); an array field gives one name per
 * element, NAME_ELEMENT ('-' as '_'), as stats_tel_dict does.
 */
void stats_tel_names(const struct stats_group *g, unsigned int scope,
		     struct rte_tel_data *d);

/** Start array d as rec's fields in scope (stats_tel_names' order). */
void stats_tel_row(const struct stats_group *g, const void *rec, unsigned int scope,
		   struct rte_tel_data *d);

/**
 * Fill dictionary d with the group's fields in scope: name -> [unit, kind,
 * help, merge, Prometheus name, scale] (unit: that of the value telemetry
 * gives, a double's tel_unit; kind "counter" or "gauge"; merge "sum",
 * "min" or "max"; the name and scale of stats_prom_name, the scale as a
 * decimal string); an array's element names follow:
 * [unit, kind, help, merge, prometheus, scale, element...].
 * @return 0, or -ENOMEM.
 */
int stats_tel_describe(const struct stats_group *g, unsigned int scope,
		       struct rte_tel_data *d);

#endif /* STATS_TEL_H */
