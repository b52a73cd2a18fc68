/* SPDX-License-Identifier: BSD-3-Clause */
/* Test tools: an acct instance's counts as JSON, in the ground truth's schema. */

#include <inttypes.h>

#include "codif.h"
#include "countjson.h"
#include "jsonw.h"
#include "parse.h"

static void
totals_json(struct jsonw *w, const struct acct_ant_totals *t)
{
	char ts[CODIF_TIMESTR_LEN];

	jsonw_u64(w, "frames", t->expected);
	jsonw_u64(w, "received", t->received);
	jsonw_u64(w, "lost", t->lost);
	jsonw_u64(w, "late", t->late);
	jsonw_u64(w, "duplicate", t->duplicate);
	jsonw_u64(w, "invalid", t->invalid);
	jsonw_u64(w, "malformed", t->malformed);
	jsonw_u64(w, "implausible", t->implausible);
	jsonw_u64(w, "param_change", t->param_change);
	jsonw_u64(w, "resyncs", t->resyncs);
	jsonw_u64(w, "resync_skipped", t->resync_skipped);
	jsonw_u64(w, "new_params", t->new_params);
	jsonw_u64(w, "too_late", t->too_late);
	jsonw_u64(w, "bytes", t->bytes);
	if (t->first_ns != INT64_MAX) {
		jsonw_str(w, "first_frame_utc", codif_time_str(t->first_ns, ts, sizeof(ts)));
		jsonw_str(w, "last_frame_utc", codif_time_str(t->last_ns, ts, sizeof(ts)));
	}
}

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
	char ip[16], st[3];
	struct jsonw w;
	unsigned int i, k, c;

	jsonw_init(&w, f, true);
	jsonw_obj_begin(&w, NULL);
	jsonw_u64(&w, "packets", pkts);
	jsonw_u64(&w, "payload_mismatch", bad_payload);
	jsonw_u64(&w, "caplen_short", caplen_short);
	if (tsprec != NULL)
		jsonw_str(&w, "tstamp_precision", tsprec);
	jsonw_arr_begin(&w, "streams");
	for (i = 0; i < acct_layout_of(a)->nant; i++) {
		for (k = 0; k < a->ant[i].nstream; k++) {
			const struct acct_stream *s = &a->ant[i].stream[k];
			struct acct_ant_totals t;

			acct_totals_init(&t);
			acct_stream_add(s, &t);
			jsonw_obj_begin(&w, NULL);
			jsonw_u64(&w, "antenna", i);
			jsonw_str(&w, "src", ipv4_str(acct_layout_of(a)->ant_ip[i], ip, sizeof(ip)));
			jsonw_str(&w, "dst", ipv4_str(s->dst_ip, ip, sizeof(ip)));
			jsonw_u64(&w, "port", s->dport);
			codif_station_str(s->stationid, st);
			jsonw_str(&w, "station", st);
			jsonw_u64(&w, "groupid", s->groupid);
			jsonw_u64(&w, "secondaryid", s->secondaryid);
			jsonw_u64(&w, "threadid", s->threadid);
			totals_json(&w, &t);
			jsonw_u64(&w, "stream_malformed", s->seq.st.malformed);
			jsonw_u64(&w, "nchan", s->seq.ref.nchan);
			jsonw_u64(&w, "nbits", s->seq.ref.nbits);
			jsonw_bool(&w, "complex", s->seq.ref.complex);
			jsonw_u64(&w, "period", s->seq.ref.period);
			jsonw_u64(&w, "totalsamples", s->seq.ref.totalsamples);
			jsonw_u64(&w, "data_bytes", codif_data_bytes(&s->seq.ref));
			jsonw_u64(&w, "epoch", s->seq.ref.epoch);
			jsonw_obj_end(&w);
		}
	}
	jsonw_arr_end(&w);
	jsonw_arr_begin(&w, "antennas");
	for (i = 0; i < acct_layout_of(a)->nant; i++) {
		struct acct_ant_totals t;

		acct_totals_init(&t);
		acct_ant_add(a, i, &t);
		jsonw_obj_begin(&w, NULL);
		jsonw_str(&w, "src", ipv4_str(acct_layout_of(a)->ant_ip[i], ip, sizeof(ip)));
		jsonw_u64(&w, "streams", t.streams);
		totals_json(&w, &t);
		jsonw_obj_begin(&w, "malformed_by_cause");
		for (c = 0; c < ACCT_M__COUNT; c++)
			jsonw_u64(&w, acct_malformed_name((enum acct_malformed)c), t.mal[c]);
		jsonw_obj_end(&w);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_obj_begin(&w, "unattributed");
	for (c = 1; c < ACCT_C__COUNT; c++)
		jsonw_u64(&w, acct_cause_name((enum acct_cause)c), a->port[0].cause[c]);
	jsonw_obj_end(&w);
	jsonw_obj_end(&w);
	jsonw_finish(&w);
}
