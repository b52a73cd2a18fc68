/* SPDX-License-Identifier: BSD-3-Clause */
/* The raw format's index: its streams, time and runs (gaps, invalid and
 * overrun rows), as JSON written (jansson, lib/util/json.h) and read back
 * with every field checked. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fmt_codif.h"
#include "fmt_int.h"
#include "fmt_raw.h"
#include "json.h"
#include "parse.h"

/* ---- the index ------------------------------------------------------------ */

void
fmt_raw_index_init(struct fmt_raw_index *ri)
{
	memset(ri, 0, sizeof(*ri));
}

static void
runs_free(struct fmt_raw_runs *r)
{
	free(r->v);
	free(r->begin);
	memset(r, 0, sizeof(*r));
}

void
fmt_raw_index_free(struct fmt_raw_index *ri)
{
	free(ri->st);
	runs_free(&ri->gaps);
	runs_free(&ri->invalid);
	runs_free(&ri->overrun);
	fmt_raw_index_init(ri);
}

int
fmt_raw_index_streams(struct fmt_raw_index *ri, uint32_t n)
{
	if (n == 0 || n > FMT_RAW_MAX_STREAMS)
		return -EINVAL;
	free(ri->st);
	ri->st = calloc(n, sizeof(*ri->st));
	if (ri->st == NULL)
		return -ENOMEM;
	ri->nstream = n;
	return 0;
}

void
fmt_raw_index_set_time(struct fmt_raw_index *ri, const struct codif_clock *clk,
		       int64_t first_index)
{
	ri->clk = *clk;
	ri->first_index = first_index;
	codif_clock_hdr_time(clk, first_index, &ri->first_seconds, &ri->first_frame);
	ri->fpp = clk->fpp;
	ri->frame_ns = clk->fpp ? clk->period_ns / clk->fpp : 0;
}

uint64_t
fmt_raw_data_size(const struct fmt_raw_index *ri)
{
	unsigned __int128 n = (unsigned __int128)ri->rows * ri->nstream * ri->data_bytes;

	return n > INT64_MAX ? 0 : (uint64_t)n;
}

void
fmt_raw_frame_hdr(const struct fmt_raw_index *ri, uint32_t slot, uint64_t row, bool invalid,
		  struct codif_hdr *h)
{
	*h = ri->st[slot].hdr;
	fmt_codif_hdr_at(h, &ri->clk, ri->first_index + (int64_t)row, invalid);
}

/* ---- runs ----------------------------------------------------------------- */

int
fmt_raw_runs_add(struct fmt_raw_runs *r, uint32_t slot, uint64_t first, uint64_t count)
{
	struct fmt_raw_run *last = r->n > 0 ? &r->v[r->n - 1] : NULL;

	if (last != NULL && last->slot == slot && last->first + last->count == first) {
		last->count += count;
		return 0;
	}
	if (r->n == r->cap) {
		size_t nc = r->cap != 0 ? r->cap * 2 : 16;
		struct fmt_raw_run *v = realloc(r->v, nc * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		r->v = v;
		r->cap = nc;
	}
	r->v[r->n].slot = slot;
	r->v[r->n].first = first;
	r->v[r->n].count = count;
	r->n++;
	return 0;
}

static int
run_cmp(const void *a, const void *b)
{
	const struct fmt_raw_run *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return 0;
}

int
fmt_raw_runs_index(struct fmt_raw_runs *r, uint32_t nslot)
{
	size_t i;
	uint32_t s;

	if (r->n > 1)
		qsort(r->v, r->n, sizeof(r->v[0]), run_cmp);
	free(r->begin);
	r->begin = malloc(((size_t)nslot + 1) * sizeof(size_t));
	if (r->begin == NULL)
		return -ENOMEM;
	r->nslot = nslot;
	for (s = 0, i = 0; s <= nslot; s++) {
		while (i < r->n && r->v[i].slot < s)
			i++;
		r->begin[s] = i;
	}
	return 0;
}

bool
fmt_raw_in_run(const struct fmt_raw_runs *r, uint32_t slot, uint64_t row, size_t *cursor)
{
	size_t b, e;

	if (r->begin == NULL || slot >= r->nslot)
		return false;
	b = r->begin[slot];
	e = r->begin[slot + 1];
	if (*cursor < b)
		*cursor = b;
	while (*cursor < e && r->v[*cursor].first + r->v[*cursor].count <= row)
		(*cursor)++;
	return *cursor < e && r->v[*cursor].first <= row;
}

/* ---- JSON out ------------------------------------------------------------- */

static void
runs_json(json_t *o, const char *key, const struct fmt_raw_index *ri,
	  const struct fmt_raw_runs *r)
{
	json_t *a = js_arr(o, key);
	char ts[CODIF_TIMESTR_LEN];
	size_t i;

	for (i = 0; i < r->n; i++) {
		uint64_t c = r->v[i].count;
		json_t *e;

		if (r->v[i].first >= ri->rows)
			continue; /* cut off by a truncation */
		if (r->v[i].first + c > ri->rows)
			c = ri->rows - r->v[i].first;
		e = js_obj(a, NULL);
		js_u64(e, "slot", r->v[i].slot);
		js_u64(e, "first", r->v[i].first);
		js_u64(e, "count", c);
		js_str(e, "utc", codif_time_str(codif_clock_time_ns(&ri->clk, ri->first_index +
									(int64_t)r->v[i].first),
						ts, sizeof(ts)));
	}
}

json_t *
fmt_raw_index_json(const struct fmt_raw_index *ri)
{
	char ip[16], st[3], hex[2 * CODIF_HDR_LEN + 1], ts[CODIF_TIMESTR_LEN];
	json_t *root = json_object(), *o, *a;
	uint32_t i;

	if (root == NULL)
		return NULL;
	js_str(root, "format", FMT_RAW_MAGIC);
	js_u64(root, "version", FMT_RAW_VERSION);
	o = js_obj(root, "antenna");
	js_u64(o, "index", ri->ant_index);
	js_str(o, "name", ri->ant_name);
	js_str(o, "src", ipv4_str(ri->src, ip, sizeof(ip)));
	js_u64(root, "data_bytes", ri->data_bytes);
	js_u64(root, "rows", ri->rows);
	js_i64(root, "first_index", ri->first_index);
	a = js_arr(root, "streams");
	for (i = 0; i < ri->nstream; i++) {
		const struct fmt_raw_stream *s = &ri->st[i];

		o = js_obj(a, NULL);
		js_u64(o, "slot", i);
		js_str(o, "dst", ipv4_str(s->dst, ip, sizeof(ip)));
		js_u64(o, "port", s->port);
		codif_station_str(s->hdr.stationid, st);
		js_str(o, "station", st);
		js_u64(o, "groupid", s->hdr.groupid);
		js_u64(o, "secondaryid", s->hdr.secondaryid);
		js_u64(o, "threadid", s->hdr.threadid);
		str_hex(s->raw_hdr, CODIF_HDR_LEN, hex);
		js_str(o, "header", hex);
	}
	if (ri->nstream > 0) {
		const struct codif_hdr *h = &ri->st[0].hdr;

		fmt_params_json(root, "params", h);
	}
	o = js_obj(root, "first_frame");
	js_u64(o, "seconds", ri->first_seconds);
	js_u64(o, "frame", ri->first_frame);
	js_str(o, "utc", codif_time_str(codif_clock_time_ns(&ri->clk, ri->first_index), ts,
					sizeof(ts)));
	runs_json(root, "gaps", ri, &ri->gaps);
	runs_json(root, "invalid", ri, &ri->invalid);
	runs_json(root, "overrun", ri, &ri->overrun);
	if (ri->ovr_rows > 0) {
		o = js_obj(root, "overrun_after");
		js_i64(o, "first_index", ri->ovr_index);
		js_u64(o, "rows", ri->ovr_rows);
		js_u64(o, "frames", ri->ovr_frames);
		js_str(o, "utc", codif_time_str(codif_clock_time_ns(&ri->clk, ri->ovr_index), ts,
						sizeof(ts)));
	}
	return root;
}

/* ---- JSON in -------------------------------------------------------------- */

/* An unsigned integer member in [min, max]. */
static int
get_u64(const json_t *o, const char *ctx, const char *key, uint64_t min, uint64_t max,
	uint64_t *out, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);
	json_int_t n;

	if (v == NULL)
		return err_set(err, errlen, -EINVAL, "%s%s: missing", ctx, key);
	n = json_is_integer(v) ? json_integer_value(v) : -1;
	if (n < 0 || (uint64_t)n < min || (uint64_t)n > max)
		return err_set(err, errlen, -EINVAL,
			       "%s%s: expected an integer between %" PRIu64 " and %" PRIu64,
			       ctx, key, min, max);
	*out = (uint64_t)n;
	return 0;
}

static const char *
get_str(const json_t *o, const char *ctx, const char *key, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v)) {
		err_set(err, errlen, -EINVAL, "%s%s: expected a string", ctx, key);
		return NULL;
	}
	return json_string_value(v);
}

static int
get_ipv4(const json_t *o, const char *ctx, const char *key, uint32_t *ip, char *err,
	 size_t errlen)
{
	char opt[64];
	const char *s = get_str(o, ctx, key, err, errlen);

	if (s == NULL)
		return -EINVAL;
	snprintf(opt, sizeof(opt), "%s%s", ctx, key);
	return parse_ipv4(opt, s, ip, err, errlen) == 0 ? 0 : -EINVAL;
}

static int
hex_header(const char *s, uint8_t out[CODIF_HDR_LEN])
{
	unsigned int i;

	if (strlen(s) != 2 * CODIF_HDR_LEN)
		return -EINVAL;
	for (i = 0; i < CODIF_HDR_LEN; i++) {
		char two[3] = { s[2 * i], s[2 * i + 1], '\0' };
		char *end;
		unsigned long v;

		if (two[0] == '+' || two[0] == '-' || two[0] == ' ')
			return -EINVAL;
		v = strtoul(two, &end, 16);
		if (*end != '\0')
			return -EINVAL;
		out[i] = (uint8_t)v;
	}
	return 0;
}

static int
parse_antenna(const json_t *root, struct fmt_raw_index *ri, char *err, size_t errlen)
{
	const json_t *a = json_object_get(root, "antenna");
	const char *name;
	uint64_t v;

	if (!json_is_object(a))
		return err_set(err, errlen, -EINVAL, "antenna: expected an object");
	if (get_u64(a, "antenna.", "index", 0, UINT32_MAX, &v, err, errlen) != 0)
		return -EINVAL;
	ri->ant_index = (uint32_t)v;
	name = get_str(a, "antenna.", "name", err, errlen);
	if (name == NULL)
		return -EINVAL;
	if (strlen(name) >= sizeof(ri->ant_name) || name[0] == '\0' || strchr(name, '/') != NULL)
		return err_set(err, errlen, -EINVAL,
			       "antenna.name: '%s': expected 1..%zu characters, no '/'",
			       name, sizeof(ri->ant_name) - 1);
	str_copy(ri->ant_name, sizeof(ri->ant_name), name);
	return get_ipv4(a, "antenna.", "src", &ri->src, err, errlen);
}

/* One stream: ids given beside the header must agree with it. */
static int
parse_stream(const json_t *o, struct fmt_raw_index *ri, uint32_t i, char *err, size_t errlen)
{
	char ctx[48], why[200], st[3];
	struct fmt_raw_stream *s;
	uint64_t slot, v;
	const char *hex, *station;

	snprintf(ctx, sizeof(ctx), "streams[%u].", i);
	if (!json_is_object(o))
		return err_set(err, errlen, -EINVAL, "streams[%u]: expected an object", i);
	if (get_u64(o, ctx, "slot", 0, ri->nstream - 1, &slot, err, errlen) != 0)
		return -EINVAL;
	s = &ri->st[slot];
	if (s->hdr.sync != 0)
		return err_set(err, errlen, -EINVAL, "%sslot: %" PRIu64 " given twice", ctx, slot);
	hex = get_str(o, ctx, "header", err, errlen);
	if (hex == NULL)
		return -EINVAL;
	if (hex_header(hex, s->raw_hdr) != 0)
		return err_set(err, errlen, -EINVAL,
			       "%sheader: expected %d hex digits", ctx, 2 * CODIF_HDR_LEN);
	if (codif_identify(s->raw_hdr, CODIF_HDR_LEN, why, sizeof(why)) != 0)
		return err_set(err, errlen, -EINVAL, "%sheader: %s", ctx, why);
	codif_decode(s->raw_hdr, CODIF_HDR_LEN, &s->hdr, NULL, 0);
	if (codif_validate(&s->hdr, ri->data_bytes, why, sizeof(why)) != 0)
		return err_set(err, errlen, -EINVAL,
			       "%sheader: %s (data_bytes %" PRIu32 ")", ctx, why,
			       ri->data_bytes);
	if (get_ipv4(o, ctx, "dst", &s->dst, err, errlen) != 0 ||
	    get_u64(o, ctx, "port", 0, 65535, &v, err, errlen) != 0)
		return -EINVAL;
	s->port = (uint16_t)v;
	station = get_str(o, ctx, "station", err, errlen);
	if (station == NULL)
		return -EINVAL;
	codif_station_str(s->hdr.stationid, st);
	if (strcmp(station, st) != 0)
		return err_set(err, errlen, -EINVAL,
			       "%sstation: '%s', the header says '%s'", ctx, station, st);
#define SAME_ID(f)                                                                   \
	do {                                                                         \
		if (get_u64(o, ctx, #f, 0, 65535, &v, err, errlen) != 0)             \
			return -EINVAL;                                              \
		if (v != s->hdr.f)                                                   \
			return err_set(err, errlen, -EINVAL,                         \
				       "%s" #f ": %" PRIu64 ", the header says %u",  \
				       ctx, v, s->hdr.f);                            \
	} while (0)
	SAME_ID(groupid);
	SAME_ID(secondaryid);
	SAME_ID(threadid);
#undef SAME_ID
	return 0;
}

static int
parse_streams(const json_t *root, struct fmt_raw_index *ri, char *err, size_t errlen)
{
	const json_t *a = json_object_get(root, "streams");
	char why[200];
	uint32_t i;

	if (!json_is_array(a) || json_array_size(a) == 0 ||
	    json_array_size(a) > FMT_RAW_MAX_STREAMS)
		return err_set(err, errlen, -EINVAL, "streams: expected an array of 1..%d streams",
			       FMT_RAW_MAX_STREAMS);
	if (fmt_raw_index_streams(ri, (uint32_t)json_array_size(a)) != 0)
		return -ENOMEM;
	for (i = 0; i < ri->nstream; i++)
		if (parse_stream(json_array_get(a, i), ri, i, err, errlen) != 0)
			return -EINVAL;
	/* rows hold one frame of every slot: one clock and one frame size for
	 * all (other parameters, such as the representation, are each
	 * stream's own: its header says them) */
	for (i = 1; i < ri->nstream; i++) {
		struct codif_clock c0, ci;
		struct codif_hdr a0 = ri->st[0].hdr, ai = ri->st[i].hdr;

		a0.seconds = ai.seconds = 0;
		if (codif_clock_init(&c0, &a0) != 0 || codif_clock_init(&ci, &ai) != 0 ||
		    !codif_clock_equal(&c0, &ci) || codif_data_bytes(&a0) != codif_data_bytes(&ai)) {
			codif_params_equal(&ri->st[0].hdr, &ri->st[i].hdr, why, sizeof(why));
			return err_set(err, errlen, -EINVAL,
				       "streams: slot %u: %s: rows need one clock "
				       "(period, epoch, frames per period) and one frame size",
				       i, why);
		}
	}
	return 0;
}

/* "params" repeats what the headers say; a disagreement is an error. */
static int
check_params(const json_t *root, const struct fmt_raw_index *ri, char *err, size_t errlen)
{
	const json_t *p = json_object_get(root, "params"), *c;
	const struct codif_hdr *h = &ri->st[0].hdr;
	const struct {
		const char *key;
		uint64_t want;
	} f[] = {
		{ "nchan", h->nchan }, { "nbits", h->nbits },
		{ "representation", h->representation }, { "period", h->period },
		{ "totalsamples", h->totalsamples },
		{ "frames_per_period", codif_frames_per_period(h) },
		{ "frame_ns", codif_frame_ns(h) }, { "epoch", h->epoch },
	};
	unsigned int i;
	uint64_t v;

	if (!json_is_object(p))
		return err_set(err, errlen, -EINVAL, "params: expected an object");
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (get_u64(p, "params.", f[i].key, 0, INT64_MAX, &v, err, errlen) != 0)
			return -EINVAL;
		if (v != f[i].want)
			return err_set(err, errlen, -EINVAL,
				       "params.%s: %" PRIu64 ", the headers say %" PRIu64,
				       f[i].key, v, f[i].want);
	}
	c = json_object_get(p, "complex");
	if (!json_is_boolean(c) || json_is_true(c) != h->complex)
		return err_set(err, errlen, -EINVAL, "params.complex: expected %s (as the headers)",
			       h->complex ? "true" : "false");
	return 0;
}

/* Row 0's time: first_frame, on the clock of the first stream's header. */
static int
parse_first_frame(const json_t *root, struct fmt_raw_index *ri, char *err, size_t errlen)
{
	const json_t *f = json_object_get(root, "first_frame");
	char want[CODIF_TIMESTR_LEN];
	struct codif_clock clk;
	struct codif_hdr h;
	const char *utc;
	uint64_t v;
	int64_t idx;

	if (!json_is_object(f))
		return err_set(err, errlen, -EINVAL, "first_frame: expected an object");
	h = ri->st[0].hdr;
	if (get_u64(f, "first_frame.", "seconds", 0, UINT32_MAX, &v, err, errlen) != 0)
		return -EINVAL;
	h.seconds = (uint32_t)v;
	if (get_u64(f, "first_frame.", "frame", 0, codif_frames_per_period(&h) - 1, &v, err,
		    errlen) != 0)
		return -EINVAL;
	h.frame = (uint32_t)v;
	if (codif_clock_init(&clk, &h) != 0 || !codif_clock_index(&clk, h.seconds, h.frame, &idx))
		return err_set(err, errlen, -EINVAL,
			       "first_frame: seconds %" PRIu32 " frame %" PRIu32
			       ": not a frame of the headers' clock", h.seconds, h.frame);
	fmt_raw_index_set_time(ri, &clk, idx);
	codif_time_str(codif_clock_time_ns(&clk, idx), want, sizeof(want));
	utc = get_str(f, "first_frame.", "utc", err, errlen);
	if (utc == NULL)
		return -EINVAL;
	if (strcmp(utc, want) != 0)
		return err_set(err, errlen, -EINVAL,
			       "first_frame.utc: '%s', seconds and frame say '%s'", utc,
			       want);
	return 0;
}

static int
parse_runs(const json_t *root, const char *key, struct fmt_raw_index *ri,
	   struct fmt_raw_runs *r, char *err, size_t errlen)
{
	const json_t *a = json_object_get(root, key);
	char ctx[48];
	size_t i;

	if (a == NULL) /* no runs */
		return fmt_raw_runs_index(r, ri->nstream);
	if (!json_is_array(a))
		return err_set(err, errlen, -EINVAL, "%s: expected an array", key);
	for (i = 0; i < json_array_size(a); i++) {
		const json_t *e = json_array_get(a, i);
		struct fmt_raw_run run;
		uint64_t v;

		snprintf(ctx, sizeof(ctx), "%s[%zu].", key, i);
		if (!json_is_object(e))
			return err_set(err, errlen, -EINVAL, "%s[%zu]: expected an object", key, i);
		if (get_u64(e, ctx, "slot", 0, ri->nstream - 1, &v, err, errlen) != 0)
			return -EINVAL;
		run.slot = (uint32_t)v;
		if (ri->rows == 0)
			return err_set(err, errlen, -EINVAL, "%sfirst: a run, but rows is 0", ctx);
		if (get_u64(e, ctx, "first", 0, ri->rows - 1, &run.first, err, errlen) != 0 ||
		    get_u64(e, ctx, "count", 1, ri->rows - run.first, &run.count, err, errlen) != 0)
			return -EINVAL;
		/* (adjacent runs of a slot merge; overlaps are found below) */
		if (fmt_raw_runs_add(r, run.slot, run.first, run.count) != 0)
			return -ENOMEM;
	}
	if (fmt_raw_runs_index(r, ri->nstream) != 0)
		return -ENOMEM;
	for (i = 1; i < r->n; i++)
		if (r->v[i].slot == r->v[i - 1].slot &&
		    r->v[i].first < r->v[i - 1].first + r->v[i - 1].count)
			return err_set(err, errlen, -EINVAL,
				       "%s: slot %u: runs at rows %" PRIu64 " and %" PRIu64
				       " overlap", key, r->v[i].slot, r->v[i - 1].first,
				       r->v[i].first);
	return 0;
}

/* A row of a slot cannot have both never arrived and arrived flagged. */
static int
check_disjoint(const struct fmt_raw_index *ri, char *err, size_t errlen)
{
	const struct fmt_raw_runs *g = &ri->gaps, *v = &ri->invalid;
	size_t i = 0, j = 0;

	while (i < g->n && j < v->n) {
		const struct fmt_raw_run *a = &g->v[i], *b = &v->v[j];

		if (a->slot != b->slot) {
			if (a->slot < b->slot)
				i++;
			else
				j++;
			continue;
		}
		if (a->first < b->first + b->count && b->first < a->first + a->count)
			return err_set(err, errlen, -EINVAL, "slot %u: rows %" PRIu64 "..%" PRIu64
				       " are both in gaps and invalid", a->slot,
				       a->first > b->first ? a->first : b->first,
				       (a->first + a->count < b->first + b->count ?
					a->first + a->count : b->first + b->count) - 1);
		if (a->first + a->count <= b->first)
			i++;
		else
			j++;
	}
	return 0;
}

int
fmt_raw_index_parse(const char *text, size_t len, struct fmt_raw_index *ri, char *err,
		    size_t errlen)
{
	json_t *root;
	const char *fmt;
	uint64_t v;
	int rc = -EINVAL;

	fmt_raw_index_init(ri);
	root = js_parse(text, len, err, errlen);
	if (root == NULL)
		return -EINVAL;
	if (!json_is_object(root)) {
		err_set(err, errlen, -EINVAL, "expected a JSON object");
		goto out;
	}
	fmt = get_str(root, "", "format", err, errlen);
	if (fmt == NULL)
		goto out;
	if (strcmp(fmt, FMT_RAW_MAGIC) != 0) {
		err_set(err, errlen, -EINVAL, "format: '%s', expected '%s'", fmt, FMT_RAW_MAGIC);
		goto out;
	}
	if (get_u64(root, "", "version", FMT_RAW_VERSION, FMT_RAW_VERSION, &v, err, errlen) != 0 ||
	    parse_antenna(root, ri, err, errlen) != 0 ||
	    get_u64(root, "", "data_bytes", 8, (uint64_t)UINT32_MAX / 8 * 8, &v, err,
		    errlen) != 0)
		goto out;
	ri->data_bytes = (uint32_t)v;
	if (get_u64(root, "", "rows", 0, INT64_MAX / 2, &ri->rows, err, errlen) != 0 ||
	    get_u64(root, "", "first_index", 0, INT64_MAX / 2, &v, err, errlen) != 0)
		goto out;
	rc = parse_streams(root, ri, err, errlen);
	if (rc != 0)
		goto out;
	rc = -EINVAL;
	if (check_params(root, ri, err, errlen) != 0 ||
	    parse_first_frame(root, ri, err, errlen) != 0)
		goto out;
	if (fmt_raw_data_size(ri) == 0 && ri->rows != 0) {
		err_set(err, errlen, -EINVAL,
			"rows %" PRIu64 " x %u streams x %" PRIu32 " bytes: too large",
			ri->rows, ri->nstream, ri->data_bytes);
		goto out;
	}
	rc = parse_runs(root, "gaps", ri, &ri->gaps, err, errlen);
	if (rc == 0)
		rc = parse_runs(root, "invalid", ri, &ri->invalid, err, errlen);
	if (rc == 0)
		rc = parse_runs(root, "overrun", ri, &ri->overrun, err, errlen);
	if (rc == 0)
		rc = check_disjoint(ri, err, errlen);
	if (rc == 0 && json_object_get(root, "overrun_after") != NULL) {
		const json_t *o = json_object_get(root, "overrun_after");

		rc = -EINVAL;
		if (!json_is_object(o)) {
			err_set(err, errlen, -EINVAL, "overrun_after: expected an object");
			goto out;
		}
		if (get_u64(o, "overrun_after.", "first_index", 0, INT64_MAX / 2, &v, err,
			    errlen) != 0 ||
		    get_u64(o, "overrun_after.", "rows", 1, INT64_MAX / 2, &ri->ovr_rows, err,
			    errlen) != 0 ||
		    get_u64(o, "overrun_after.", "frames", 0, INT64_MAX / 2, &ri->ovr_frames, err,
			    errlen) != 0)
			goto out;
		ri->ovr_index = (int64_t)v;
		rc = 0;
	}
out:
	if (rc == -ENOMEM)
		err_set(err, errlen, -EINVAL, "out of memory");
	json_decref(root);
	if (rc != 0)
		fmt_raw_index_free(ri);
	return rc;
}

int
fmt_raw_index_read(const char *path, struct fmt_raw_index *ri, char *err, size_t errlen)
{
	char why[512];
	size_t len = 0;
	long size;
	char *text;
	FILE *f;
	int rc;

	fmt_raw_index_init(ri);
	f = fopen(path, "re");
	if (f == NULL) {
		rc = -errno;
		return err_set(err, errlen, rc, "%s: %s", path, strerror(-rc));
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		rc = -(errno ? errno : EIO);
		fclose(f);
		return err_set(err, errlen, rc, "%s: %s", path, strerror(-rc));
	}
	if ((uint64_t)size > FMT_RAW_MAX_INDEX) {
		fclose(f);
		return err_set(err, errlen, -EFBIG, "%s: %ld bytes, more than the %u read", path,
			       size, FMT_RAW_MAX_INDEX);
	}
	text = malloc((size_t)size + 1);
	if (text == NULL) {
		fclose(f);
		return err_set(err, errlen, -ENOMEM, "%s: out of memory", path);
	}
	len = fread(text, 1, (size_t)size, f);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc != 0) {
		free(text);
		return err_set(err, errlen, rc, "%s: %s", path, strerror(-rc));
	}
	rc = fmt_raw_index_parse(text, len, ri, why, sizeof(why));
	free(text);
	if (rc != 0)
		return err_set(err, errlen, rc, "%s: %s", path, why);
	return 0;
}
