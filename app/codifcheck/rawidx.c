/* SPDX-License-Identifier: BSD-3-Clause */
/* Raw index: JSON to a checked struct (pure), runs lookup, and JSON out. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jsonr.h"
#include "jsonw.h"
#include "parse.h"
#include "rawidx.h"

static int
ri_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
ri_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

void
cc_ri_init(struct cc_raw_index *ri)
{
	memset(ri, 0, sizeof(*ri));
}

static void
runs_free(struct cc_ri_runs *r)
{
	free(r->v);
	free(r->begin);
	free(r->last);
	memset(r, 0, sizeof(*r));
}

void
cc_ri_free(struct cc_raw_index *ri)
{
	free(ri->st);
	runs_free(&ri->gaps);
	runs_free(&ri->invalid);
	cc_ri_init(ri);
}

/* An unsigned integer member in [min, max]. */
static int
get_u64(const struct cc_jr *o, const char *ctx, const char *key, uint64_t min,
	uint64_t max, uint64_t *out, char *err, size_t errlen)
{
	const struct cc_jr *v = cc_jr_get(o, key);

	if (v == NULL)
		return ri_fail(err, errlen, "%s%s: missing", ctx, key);
	if (v->t != CC_JR_NUM || !v->is_uint || v->u < min || v->u > max)
		return ri_fail(err, errlen,
			       "%s%s: expected an integer between %" PRIu64
			       " and %" PRIu64, ctx, key, min, max);
	*out = v->u;
	return 0;
}

static const char *
get_str(const struct cc_jr *o, const char *ctx, const char *key, char *err,
	size_t errlen)
{
	const struct cc_jr *v = cc_jr_get(o, key);

	if (v == NULL || v->t != CC_JR_STR) {
		ri_fail(err, errlen, "%s%s: expected a string", ctx, key);
		return NULL;
	}
	return v->s;
}

static int
get_ipv4(const struct cc_jr *o, const char *ctx, const char *key,
	 uint32_t *ip, char *err, size_t errlen)
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
		unsigned int v;
		char two[3] = { s[2 * i], s[2 * i + 1], '\0' };
		char *end;

		if (two[0] == '+' || two[0] == '-' || two[0] == ' ')
			return -EINVAL;
		v = (unsigned int)strtoul(two, &end, 16);
		if (*end != '\0')
			return -EINVAL;
		out[i] = (uint8_t)v;
	}
	return 0;
}

static int
parse_antenna(const struct cc_jr *root, struct cc_raw_index *ri, char *err,
	      size_t errlen)
{
	const struct cc_jr *a = cc_jr_get(root, "antenna");
	const char *name;

	if (a == NULL || a->t != CC_JR_OBJ)
		return ri_fail(err, errlen, "antenna: expected an object");
	if (get_u64(a, "antenna.", "index", 0, UINT32_MAX, &ri->ant_index, err,
		    errlen) != 0)
		return -EINVAL;
	name = get_str(a, "antenna.", "name", err, errlen);
	if (name == NULL)
		return -EINVAL;
	if (strlen(name) >= sizeof(ri->ant_name) || name[0] == '\0' ||
	    strchr(name, '/') != NULL)
		return ri_fail(err, errlen,
			       "antenna.name: '%s': expected 1..%zu characters, no '/'",
			       name, sizeof(ri->ant_name) - 1);
	snprintf(ri->ant_name, sizeof(ri->ant_name), "%s", name);
	return get_ipv4(a, "antenna.", "src", &ri->src, err, errlen);
}

/* One stream: ids given beside the header must agree with it. */
static int
parse_stream(const struct cc_jr *o, struct cc_raw_index *ri, uint32_t i,
	     char *err, size_t errlen)
{
	char ctx[48], why[200], st[3];
	struct cc_ri_stream *s;
	uint64_t slot, v;
	const char *hex, *station;

	snprintf(ctx, sizeof(ctx), "streams[%u].", i);
	if (o->t != CC_JR_OBJ)
		return ri_fail(err, errlen, "streams[%u]: expected an object", i);
	if (get_u64(o, ctx, "slot", 0, ri->nstream - 1, &slot, err, errlen) != 0)
		return -EINVAL;
	s = &ri->st[slot];
	if (s->hdr.sync != 0)
		return ri_fail(err, errlen, "%sslot: %" PRIu64 " given twice", ctx, slot);
	hex = get_str(o, ctx, "header", err, errlen);
	if (hex == NULL)
		return -EINVAL;
	if (hex_header(hex, s->raw_hdr) != 0)
		return ri_fail(err, errlen, "%sheader: expected %d hex digits",
			       ctx, 2 * CODIF_HDR_LEN);
	if (codif_identify(s->raw_hdr, CODIF_HDR_LEN, why, sizeof(why)) != 0)
		return ri_fail(err, errlen, "%sheader: %s", ctx, why);
	codif_decode(s->raw_hdr, CODIF_HDR_LEN, &s->hdr, NULL, 0);
	if (codif_validate(&s->hdr, ri->data_bytes, why, sizeof(why)) != 0)
		return ri_fail(err, errlen, "%sheader: %s (data_bytes %" PRIu64 ")",
			       ctx, why, ri->data_bytes);
	if (get_ipv4(o, ctx, "dst", &s->dst, err, errlen) != 0 ||
	    get_u64(o, ctx, "port", 0, 65535, &v, err, errlen) != 0)
		return -EINVAL;
	s->port = (uint16_t)v;
	station = get_str(o, ctx, "station", err, errlen);
	if (station == NULL)
		return -EINVAL;
	codif_station_str(s->hdr.stationid, st);
	if (strcmp(station, st) != 0)
		return ri_fail(err, errlen, "%sstation: '%s', the header says '%s'",
			       ctx, station, st);
#define SAME_ID(f)                                                            \
	do {                                                                  \
		if (get_u64(o, ctx, #f, 0, 65535, &v, err, errlen) != 0)     \
			return -EINVAL;                                       \
		if (v != s->hdr.f)                                            \
			return ri_fail(err, errlen,                           \
				       "%s" #f ": %" PRIu64 ", the header says %u", \
				       ctx, v, s->hdr.f);                     \
	} while (0)
	SAME_ID(groupid);
	SAME_ID(secondaryid);
	SAME_ID(threadid);
#undef SAME_ID
	return 0;
}

static int
parse_streams(const struct cc_jr *root, struct cc_raw_index *ri, char *err,
	      size_t errlen)
{
	const struct cc_jr *a = cc_jr_get(root, "streams");
	char why[200];
	uint32_t i;

	if (a == NULL || a->t != CC_JR_ARR || a->n == 0 || a->n > CC_RI_MAX_STREAMS)
		return ri_fail(err, errlen, "streams: expected an array of 1..%d streams",
			       CC_RI_MAX_STREAMS);
	ri->nstream = (uint32_t)a->n;
	ri->st = calloc(ri->nstream, sizeof(*ri->st));
	if (ri->st == NULL)
		return -ENOMEM;
	for (i = 0; i < ri->nstream; i++)
		if (parse_stream(&a->v[i], ri, i, err, errlen) != 0)
			return -EINVAL;
	/* rows hold one frame of every slot: one clock and one frame size for
	 * all (other parameters, such as the representation, are each
	 * stream's own: its header says them) */
	for (i = 1; i < ri->nstream; i++) {
		struct codif_clock c0, ci;
		struct codif_hdr a0 = ri->st[0].hdr, ai = ri->st[i].hdr;

		a0.seconds = ai.seconds = 0;
		if (codif_clock_init(&c0, &a0) != 0 || codif_clock_init(&ci, &ai) != 0 ||
		    !codif_clock_equal(&c0, &ci) ||
		    codif_data_bytes(&a0) != codif_data_bytes(&ai)) {
			codif_params_equal(&ri->st[0].hdr, &ri->st[i].hdr, why, sizeof(why));
			return ri_fail(err, errlen, "streams: slot %u: %s: rows need one clock "
				       "(period, epoch, frames per period) and one frame size",
				       i, why);
		}
	}
	return 0;
}

/* "params" repeats what the headers say; a disagreement is an error. */
static int
check_params(const struct cc_jr *root, struct cc_raw_index *ri, char *err,
	     size_t errlen)
{
	const struct cc_jr *p = cc_jr_get(root, "params"), *c;
	const struct codif_hdr *h = &ri->st[0].hdr;
	struct {
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

	if (p == NULL || p->t != CC_JR_OBJ)
		return ri_fail(err, errlen, "params: expected an object");
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (get_u64(p, "params.", f[i].key, 0, UINT64_MAX, &v, err, errlen) != 0)
			return -EINVAL;
		if (v != f[i].want)
			return ri_fail(err, errlen,
				       "params.%s: %" PRIu64 ", the headers say %" PRIu64,
				       f[i].key, v, f[i].want);
	}
	c = cc_jr_get(p, "complex");
	if (c == NULL || c->t != CC_JR_BOOL || c->b != h->complex)
		return ri_fail(err, errlen, "params.complex: expected %s (as the headers)",
			       h->complex ? "true" : "false");
	ri->fpp = codif_frames_per_period(h);
	ri->frame_ns = codif_frame_ns(h);
	return 0;
}

static int
parse_first_frame(const struct cc_jr *root, struct cc_raw_index *ri, char *err,
		  size_t errlen)
{
	const struct cc_jr *f = cc_jr_get(root, "first_frame");
	char want[CODIF_TIMESTR_LEN];
	struct codif_hdr h;
	const char *utc;
	uint64_t v;

	if (f == NULL || f->t != CC_JR_OBJ)
		return ri_fail(err, errlen, "first_frame: expected an object");
	if (get_u64(f, "first_frame.", "seconds", 0, UINT32_MAX, &v, err, errlen) != 0)
		return -EINVAL;
	ri->first_seconds = (uint32_t)v;
	if (get_u64(f, "first_frame.", "frame", 0, ri->fpp - 1, &v, err, errlen) != 0)
		return -EINVAL;
	h = ri->st[0].hdr;
	h.seconds = ri->first_seconds;
	h.frame = (uint32_t)v;
	cc_ri_set_first(ri, &h);
	cc_ri_frame_hdr(ri, 0, 0, false, &h);
	codif_time_str(codif_frame_time_ns(&h), want, sizeof(want));
	utc = get_str(f, "first_frame.", "utc", err, errlen);
	if (utc == NULL)
		return -EINVAL;
	if (strcmp(utc, want) != 0)
		return ri_fail(err, errlen,
			       "first_frame.utc: '%s', seconds and frame say '%s'",
			       utc, want);
	return 0;
}

static int
run_cmp(const void *a, const void *b)
{
	const struct cc_ri_run *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return 0;
}

int
cc_ri_runs_index(struct cc_ri_runs *r, uint32_t nslot)
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

static int
push_run(struct cc_ri_runs *r, const struct cc_ri_run *run)
{
	if (r->n == r->cap) {
		size_t nc = r->cap != 0 ? r->cap * 2 : 16;
		struct cc_ri_run *v = realloc(r->v, nc * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		r->v = v;
		r->cap = nc;
	}
	r->v[r->n++] = *run;
	return 0;
}

static int
parse_runs(const struct cc_jr *root, const char *key, struct cc_raw_index *ri,
	   struct cc_ri_runs *r, char *err, size_t errlen)
{
	const struct cc_jr *a = cc_jr_get(root, key);
	char ctx[48];
	size_t i;

	if (a == NULL) /* no runs */
		return cc_ri_runs_index(r, ri->nstream);
	if (a->t != CC_JR_ARR)
		return ri_fail(err, errlen, "%s: expected an array", key);
	for (i = 0; i < a->n; i++) {
		struct cc_ri_run run;
		uint64_t v;

		snprintf(ctx, sizeof(ctx), "%s[%zu].", key, i);
		if (a->v[i].t != CC_JR_OBJ)
			return ri_fail(err, errlen, "%s[%zu]: expected an object", key, i);
		if (get_u64(&a->v[i], ctx, "slot", 0, ri->nstream - 1, &v, err, errlen) != 0)
			return -EINVAL;
		run.slot = (uint32_t)v;
		if (ri->rows == 0)
			return ri_fail(err, errlen, "%sfirst: a run, but rows is 0", ctx);
		if (get_u64(&a->v[i], ctx, "first", 0, ri->rows - 1, &run.first, err,
			    errlen) != 0 ||
		    get_u64(&a->v[i], ctx, "count", 1, ri->rows - run.first, &run.count,
			    err, errlen) != 0)
			return -EINVAL;
		if (push_run(r, &run) != 0)
			return -ENOMEM;
	}
	if (cc_ri_runs_index(r, ri->nstream) != 0)
		return -ENOMEM;
	for (i = 1; i < r->n; i++)
		if (r->v[i].slot == r->v[i - 1].slot &&
		    r->v[i].first < r->v[i - 1].first + r->v[i - 1].count)
			return ri_fail(err, errlen,
				       "%s: slot %u: runs at rows %" PRIu64 " and %" PRIu64
				       " overlap", key, r->v[i].slot, r->v[i - 1].first,
				       r->v[i].first);
	return 0;
}

/* A row of a slot cannot have both never arrived and arrived flagged. */
static int
check_disjoint(const struct cc_raw_index *ri, char *err, size_t errlen)
{
	const struct cc_ri_runs *g = &ri->gaps, *v = &ri->invalid;
	size_t i = 0, j = 0;

	while (i < g->n && j < v->n) {
		const struct cc_ri_run *a = &g->v[i], *b = &v->v[j];

		if (a->slot != b->slot) {
			if (a->slot < b->slot)
				i++;
			else
				j++;
			continue;
		}
		if (a->first < b->first + b->count && b->first < a->first + a->count)
			return ri_fail(err, errlen,
				       "slot %u: rows %" PRIu64 "..%" PRIu64
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
cc_ri_parse(const char *text, size_t len, struct cc_raw_index *ri, char *err,
	    size_t errlen)
{
	struct cc_jr root;
	const char *fmt;
	uint64_t v;
	int rc;

	cc_ri_init(ri);
	rc = cc_jr_parse(text, len, &root, err, errlen);
	if (rc != 0)
		return rc;
	rc = -EINVAL;
	if (root.t != CC_JR_OBJ) {
		ri_fail(err, errlen, "expected a JSON object");
		goto out;
	}
	fmt = get_str(&root, "", "format", err, errlen);
	if (fmt == NULL)
		goto out;
	if (strcmp(fmt, CC_RI_FORMAT) != 0) {
		ri_fail(err, errlen, "format: '%s', expected '%s'", fmt, CC_RI_FORMAT);
		goto out;
	}
	if (get_u64(&root, "", "version", CC_RI_VERSION, CC_RI_VERSION, &v, err,
		    errlen) != 0 ||
	    parse_antenna(&root, ri, err, errlen) != 0 ||
	    get_u64(&root, "", "data_bytes", 8, (uint64_t)UINT32_MAX * 8,
		    &ri->data_bytes, err, errlen) != 0 ||
	    get_u64(&root, "", "rows", 0, INT64_MAX / 2, &ri->rows, err, errlen) != 0 ||
	    get_u64(&root, "", "first_index", 0, INT64_MAX / 2, &ri->first_index,
		    err, errlen) != 0)
		goto out;
	rc = parse_streams(&root, ri, err, errlen);
	if (rc != 0)
		goto out;
	rc = -EINVAL;
	if (check_params(&root, ri, err, errlen) != 0 ||
	    parse_first_frame(&root, ri, err, errlen) != 0)
		goto out;
	if (cc_ri_raw_size(ri) == 0 && ri->rows != 0) {
		ri_fail(err, errlen, "rows %" PRIu64 " x %u streams x %" PRIu64
			" bytes: too large", ri->rows, ri->nstream, ri->data_bytes);
		goto out;
	}
	rc = parse_runs(&root, "gaps", ri, &ri->gaps, err, errlen);
	if (rc == 0)
		rc = parse_runs(&root, "invalid", ri, &ri->invalid, err, errlen);
	if (rc == 0)
		rc = check_disjoint(ri, err, errlen);
out:
	if (rc == -ENOMEM)
		ri_fail(err, errlen, "out of memory");
	cc_jr_free(&root);
	if (rc != 0)
		cc_ri_free(ri);
	return rc;
}

uint64_t
cc_ri_raw_size(const struct cc_raw_index *ri)
{
	unsigned __int128 n = (unsigned __int128)ri->rows * ri->nstream * ri->data_bytes;

	return n > INT64_MAX ? 0 : (uint64_t)n;
}

bool
cc_ri_in_run(const struct cc_ri_runs *r, uint32_t slot, uint64_t row,
	     size_t *cursor)
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

void
cc_ri_set_first(struct cc_raw_index *ri, const struct codif_hdr *h)
{
	ri->first_seconds = h->seconds;
	ri->first_frame = h->frame;
	if (codif_clock_init(&ri->clk, h) != 0 ||
	    !codif_clock_index(&ri->clk, h->seconds, h->frame, &ri->idx0))
		ri->idx0 = 0;
}

void
cc_ri_frame_hdr(const struct cc_raw_index *ri, uint32_t slot, uint64_t row,
		bool invalid, struct codif_hdr *h)
{
	*h = ri->st[slot].hdr;
	codif_clock_hdr_time(&ri->clk, ri->idx0 + (int64_t)row, &h->seconds, &h->frame);
	h->invalid = invalid;
}

int
cc_ri_runs_add(struct cc_ri_runs *r, uint32_t nslot, uint32_t slot, uint64_t row)
{
	struct cc_ri_run run = { slot, row, 1 };

	if (r->last == NULL) {
		r->last = calloc(nslot, sizeof(*r->last));
		if (r->last == NULL)
			return -ENOMEM;
		r->nslot = nslot;
	}
	if (r->last[slot] != 0) {
		struct cc_ri_run *p = &r->v[r->last[slot] - 1];

		if (p->first + p->count == row) {
			p->count++;
			return 0;
		}
	}
	if (push_run(r, &run) != 0)
		return -ENOMEM;
	r->last[slot] = r->n;
	return 0;
}

static void
write_runs(struct jsonw *w, const char *key, const struct cc_raw_index *ri,
	   const struct cc_ri_runs *r)
{
	char ts[CODIF_TIMESTR_LEN];
	struct codif_hdr h;
	size_t i;

	jsonw_arr_begin(w, key);
	for (i = 0; i < r->n; i++) {
		cc_ri_frame_hdr(ri, r->v[i].slot, r->v[i].first, false, &h);
		jsonw_obj_begin(w, NULL);
		jsonw_u64(w, "slot", r->v[i].slot);
		jsonw_u64(w, "first", r->v[i].first);
		jsonw_u64(w, "count", r->v[i].count);
		jsonw_str(w, "utc", codif_time_str(codif_frame_time_ns(&h), ts, sizeof(ts)));
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

int
cc_ri_write(FILE *f, const struct cc_raw_index *ri)
{
	const struct codif_hdr *h0 = &ri->st[0].hdr;
	char ip[16], st[3], hex[2 * CODIF_HDR_LEN + 1], ts[CODIF_TIMESTR_LEN];
	struct codif_hdr h;
	struct jsonw w;
	uint32_t i;

	jsonw_init(&w, f, true);
	jsonw_obj_begin(&w, NULL);
	jsonw_str(&w, "format", CC_RI_FORMAT);
	jsonw_u64(&w, "version", CC_RI_VERSION);
	jsonw_obj_begin(&w, "antenna");
	jsonw_u64(&w, "index", ri->ant_index);
	jsonw_str(&w, "name", ri->ant_name);
	jsonw_str(&w, "src", ipv4_str(ri->src, ip, sizeof(ip)));
	jsonw_obj_end(&w);
	jsonw_u64(&w, "data_bytes", ri->data_bytes);
	jsonw_u64(&w, "rows", ri->rows);
	jsonw_u64(&w, "first_index", ri->first_index);
	jsonw_arr_begin(&w, "streams");
	for (i = 0; i < ri->nstream; i++) {
		const struct cc_ri_stream *s = &ri->st[i];

		str_hex(s->raw_hdr, CODIF_HDR_LEN, hex);
		jsonw_obj_begin(&w, NULL);
		jsonw_u64(&w, "slot", i);
		jsonw_str(&w, "dst", ipv4_str(s->dst, ip, sizeof(ip)));
		jsonw_u64(&w, "port", s->port);
		codif_station_str(s->hdr.stationid, st);
		jsonw_str(&w, "station", st);
		jsonw_u64(&w, "groupid", s->hdr.groupid);
		jsonw_u64(&w, "secondaryid", s->hdr.secondaryid);
		jsonw_u64(&w, "threadid", s->hdr.threadid);
		jsonw_str(&w, "header", hex);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_obj_begin(&w, "params");
	jsonw_u64(&w, "nchan", h0->nchan);
	jsonw_u64(&w, "nbits", h0->nbits);
	jsonw_bool(&w, "complex", h0->complex);
	jsonw_u64(&w, "representation", h0->representation);
	jsonw_u64(&w, "period", h0->period);
	jsonw_u64(&w, "totalsamples", h0->totalsamples);
	jsonw_u64(&w, "frames_per_period", codif_frames_per_period(h0));
	jsonw_u64(&w, "frame_ns", codif_frame_ns(h0));
	jsonw_u64(&w, "epoch", h0->epoch);
	jsonw_obj_end(&w);
	cc_ri_frame_hdr(ri, 0, 0, false, &h);
	jsonw_obj_begin(&w, "first_frame");
	jsonw_u64(&w, "seconds", ri->first_seconds);
	jsonw_u64(&w, "frame", ri->first_frame);
	jsonw_str(&w, "utc", codif_time_str(codif_frame_time_ns(&h), ts, sizeof(ts)));
	jsonw_obj_end(&w);
	write_runs(&w, "gaps", ri, &ri->gaps);
	write_runs(&w, "invalid", ri, &ri->invalid);
	jsonw_obj_end(&w);
	return jsonw_finish(&w) == 0 ? 0 : -EIO;
}
