/* SPDX-License-Identifier: BSD-3-Clause */
/* Test tools: an acct instance's counts as JSON, in the ground truth's schema. */

#include <inttypes.h>

#include "codif.h"
#include "countjson.h"
#include "json.h"
#include "parse.h"
#include "stats.h"

void
count_frame(struct acct *a, const uint8_t *f, uint32_t len, struct acct_result *r)
{
	struct acct_action act;

	acct_frame(a, 0, f, len, r);
	if (r->fd.cls == CODIF_SEQ_SUSPECT && r->hold != NULL)
		r->hold->handle = 1; /* kept: nothing to keep but its fate */
	while (acct_busy(a, r->ant) && acct_action(a, r->ant, &act))
		;
}

void
count_finish(struct acct *a)
{
	struct acct_action act;
	int i;

	acct_flush(a);
	for (i = 0; i < ACCT_MAX_ANTENNAS; i++)
		while (acct_action(a, i, &act))
			;
}

void
count_json(FILE *f, struct acct *a, uint64_t pkts, uint64_t bad_payload,
	   uint64_t caplen_short, const char *tsprec)
{
	const struct acct_layout *l = acct_layout_of(a);
	json_t *root = json_object(), *arr, *u;
	char ip[16];
	unsigned int i, k, c;

	js_u64(root, "packets", pkts);
	js_u64(root, "payload_mismatch", bad_payload);
	js_u64(root, "caplen_short", caplen_short);
	if (tsprec != NULL)
		js_str(root, "tstamp_precision", tsprec);
	arr = js_arr(root, "streams");
	for (i = 0; i < l->nant; i++) {
		for (k = 0; k < a->ant[i].nstream; k++) {
			const struct acct_stream *s = &a->ant[i].stream[k];
			json_t *o = js_obj(arr, NULL);

			stats_stream_json(l, i, s, o);
			js_u64(o, "nchan", s->seq.ref.nchan);
			js_u64(o, "nbits", s->seq.ref.nbits);
			js_bool(o, "complex", s->seq.ref.complex);
			js_u64(o, "period", s->seq.ref.period);
			js_u64(o, "totalsamples", s->seq.ref.totalsamples);
			js_u64(o, "data_bytes", codif_data_bytes(&s->seq.ref));
			js_u64(o, "epoch", s->seq.ref.epoch);
		}
	}
	arr = js_arr(root, "antennas");
	for (i = 0; i < l->nant; i++) {
		struct acct_counts t;
		json_t *o = js_obj(arr, NULL);

		stats_zero(&stats_counts, &t);
		acct_ant_add(a, i, &t);
		js_str(o, "src", ipv4_str(l->ant_ip[i], ip, sizeof(ip)));
		stats_json(&stats_counts, &t, STATS_ANTENNA, o);
	}
	u = js_obj(root, "unattributed");
	for (c = 1; c < ACCT_C__COUNT; c++)
		js_u64(u, acct_cause_name((enum acct_cause)c), a->port[0].cause[c]);
	js_write(root, f, true);
	json_decref(root);
}
