/* SPDX-License-Identifier: BSD-3-Clause */
/* The port table and the telemetry walkers: values, names, descriptions. */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "stats_tel.h"

#define E(f) offsetof(struct rte_eth_stats, f)

static const struct stats_field port_f[] = {
	STATS_FIELD_U64("ipackets", "ipackets", 12, "packets", STATS_ANTENNA | STATS_LIVE,
			STATS_SUM, E(ipackets), "packets the port received"),
	STATS_FIELD_U64("ibytes", "ibytes", 14, "bytes", STATS_ANTENNA, STATS_SUM, E(ibytes),
			"bytes the port received"),
	STATS_FIELD_U64("imissed", "imissed", 10, "packets", STATS_ANTENNA | STATS_LIVE,
			STATS_SUM, E(imissed),
			"packets the NIC dropped: no free rx descriptor (rx cores too slow)"),
	STATS_FIELD_U64("ierrors", "ierrors", 10, "packets", STATS_ANTENNA | STATS_LIVE,
			STATS_SUM, E(ierrors), "erroneous packets the NIC received"),
	STATS_FIELD_U64("rx_nombuf", "rx_nombuf", 10, "packets", STATS_ANTENNA | STATS_LIVE,
			STATS_SUM, E(rx_nombuf), "receive mbuf allocation failures"),
};

const struct stats_group stats_port = {
	.name = "port", .help = "a DPDK port's receive figures", .prom = "port",
	.f = port_f, .n = sizeof(port_f) / sizeof(port_f[0]),
	.size = sizeof(struct rte_eth_stats),
};

const struct stats_group *const stats_groups[] = {
	&stats_counts, &stats_buffer, &stats_writer, &stats_port, &stats_capture, &stats_lcore,
	&stats_quicklook, &stats_bstate, &stats_stream,
};
const unsigned int stats_ngroups = sizeof(stats_groups) / sizeof(stats_groups[0]);

/* telemetry names: letters, digits and '_' */
static const char *
tel_key(char *buf, size_t len, const char *a, const char *b)
{
	char *p;

	snprintf(buf, len, "%s%s%s", a, b != NULL ? "_" : "", b != NULL ? b : "");
	for (p = buf; *p != '\0'; p++)
		if (*p == '-')
			*p = '_';
	return buf;
}

static uint64_t
scalar(const struct stats_field *f, const void *rec)
{
	uint64_t v = stats_get(f, rec, 0);

	if (f->type == STATS_TIME)
		return stats_time_set(f, rec) ? v : 0;
	return v;
}

/* The next field of g from *k on that scope shows, or NULL at the end;
 * *k is then past it. */
static const struct stats_field *
next_field(const struct stats_group *g, unsigned int scope, unsigned int *k)
{
	while (*k < g->n) {
		const struct stats_field *f = &g->f[(*k)++];

		if (stats_in(f, scope))
			return f;
	}
	return NULL;
}

int
stats_tel_dict(const struct stats_group *g, const void *rec, unsigned int scope,
	       struct rte_tel_data *d)
{
	const struct stats_field *f;
	char key[96];
	unsigned int k = 0, i;

	while ((f = next_field(g, scope, &k)) != NULL) {
		int rc = 0;

		if (f->type == STATS_ARRAY) {
			for (i = f->first; i < f->n && rc == 0; i++)
				rc = rte_tel_data_add_dict_u64(d, tel_key(key, sizeof(key), f->name,
									  f->elem(i)),
							       stats_get(f, rec, i));
		} else if (f->type == STATS_F64) {
			int64_t v;

			/* fixed point; a value that is not finite is left out */
			if (!stats_tel_fixed(f, rec, &v))
				continue;
			rc = v >= 0 ? rte_tel_data_add_dict_u64(d, f->name, (uint64_t)v) :
				      rte_tel_data_add_dict_int(d, f->name,
								v < INT32_MIN ? INT32_MIN : (int)v);
		} else if (f->type == STATS_TIME) {
			rc = rte_tel_data_add_dict_u64(d, tel_key(key, sizeof(key), f->name, "ns"),
						       scalar(f, rec));
		} else if (stats_signed(f)) {
			rc = rte_tel_data_add_dict_int(d, f->name, (int)(int64_t)scalar(f, rec));
		} else {
			rc = rte_tel_data_add_dict_u64(d, f->name, scalar(f, rec));
		}
		if (rc != 0)
			return -ENOSPC;
	}
	return 0;
}

void
stats_tel_names(const struct stats_group *g, unsigned int scope, struct rte_tel_data *d)
{
	const struct stats_field *f;
	char key[96];
	unsigned int k = 0, i;

	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	while ((f = next_field(g, scope, &k)) != NULL) {
		if (f->type == STATS_ARRAY) {
			/* an array: one value per element, NAME_ELEMENT */
			for (i = f->first; i < f->n; i++)
				rte_tel_data_add_array_string(d, tel_key(key, sizeof(key),
									 f->name, f->elem(i)));
			continue;
		}
		rte_tel_data_add_array_string(d, f->type == STATS_TIME ?
					      tel_key(key, sizeof(key), f->name, "ns") : f->name);
	}
}

void
stats_tel_row(const struct stats_group *g, const void *rec, unsigned int scope,
	      struct rte_tel_data *d)
{
	const struct stats_field *f;
	unsigned int k = 0, i;

	rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
	while ((f = next_field(g, scope, &k)) != NULL) {
		if (f->type == STATS_ARRAY) {
			for (i = f->first; i < f->n; i++)
				rte_tel_data_add_array_u64(d, stats_get(f, rec, i));
			continue;
		}
		/* a negative gauge (a row of -1: none) reads as 0 */
		rte_tel_data_add_array_u64(d, stats_signed(f) && (int64_t)scalar(f, rec) < 0 ?
					      0 : scalar(f, rec));
	}
}

int
stats_tel_describe(const struct stats_group *g, unsigned int scope, struct rte_tel_data *d)
{
	char key[96], prom[RTE_TEL_MAX_STRING_LEN], sc[32];
	unsigned int k, i;
	double scale;

	rte_tel_data_start_dict(d);
	for (k = 0; k < g->n; k++) {
		const struct stats_field *f = &g->f[k];
		struct rte_tel_data *a;

		if (!stats_in(f, scope | g->scope))
			continue;
		a = rte_tel_data_alloc();
		if (a == NULL)
			return -ENOMEM;
		rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		/* the unit of the telemetry's value (a double's fixed point) */
		rte_tel_data_add_array_string(a, f->type == STATS_F64 ? f->tel_unit : f->unit);
		rte_tel_data_add_array_string(a, f->merge == STATS_SUM ? "counter" : "gauge");
		rte_tel_data_add_array_string(a, f->help);
		rte_tel_data_add_array_string(a, stats_merge_name((enum stats_merge)f->merge));
		if (stats_prom_name(g, f, prom, sizeof(prom), &scale) == -ENOSPC) {
			rte_tel_data_free(a);
			return -ENOSPC;
		}
		rte_tel_data_add_array_string(a, prom);
		snprintf(sc, sizeof(sc), "%g", scale);
		rte_tel_data_add_array_string(a, sc);
		/* an array: its element names follow (its values are
		 * NAME_ELEMENT in the rows, '-' as '_') */
		for (i = f->first; f->type == STATS_ARRAY && i < f->n; i++)
			rte_tel_data_add_array_string(a, f->elem(i));
		if (rte_tel_data_add_dict_container(d, f->type == STATS_TIME ?
						    tel_key(key, sizeof(key), f->name, "ns") :
						    f->name, a, 0) != 0) {
			rte_tel_data_free(a);
			return -ENOSPC;
		}
	}
	return 0;
}
