/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of codifcheck's pure parts: names, histogram, gap runs, the
 * JSON and raw index readers it uses (lib/util, lib/fmt), format
 * detection, and the codif scan over memory. */

#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "codif.h"
#include "detect.h"
#include "gaps.h"
#include "hist.h"
#include "json.h"
#include "fmt_name.h"
#include "names.h"
#include "fmt_raw.h"
#include "rd.h"
#include "scan.h"

static void
test_names(void)
{
	char buf[FMT_NAME_UTC_LEN];
	struct cc_name n;
	int64_t t, back;

	CHECK(codif_parse_time("2025-03-10T12:00:13.5Z", &t) == 0);
	CHECK_STR(fmt_name_utc(t, buf, sizeof(buf)), "20250310T120013.500000000Z");
	CHECK(fmt_parse_name_utc(buf, &back) == 0);
	CHECK_EQ_I(back, t);
	CHECK(fmt_parse_name_utc("20250310T120013.5Z", &back) == -EINVAL);
	CHECK(fmt_parse_name_utc("20251310T120013.500000000Z", &back) == -EINVAL);

	CHECK(cc_parse_name("/d/ibvcap_ant0_20250310T120013.500000000Z.codif", &n) == 0);
	CHECK_STR(n.prefix, "ibvcap");
	CHECK_STR(n.antenna, "ant0");
	CHECK_STR(n.ext, "codif");
	CHECK_EQ_I(n.utc_ns, t);
	CHECK(!n.part);
	CHECK(cc_parse_name("my_run_ant3_20250310T120013.500000000Z.raw.json.part", &n) == 0);
	CHECK_STR(n.prefix, "my_run");
	CHECK_STR(n.antenna, "ant3");
	CHECK_STR(n.ext, "raw.json");
	CHECK(n.part);
	CHECK(cc_parse_name("ant0_20250310T120013.500000000Z.codif", &n) == -EINVAL);
	CHECK(cc_parse_name("x_ant0_20250310T1200.codif", &n) == -EINVAL);
	CHECK(cc_parse_name("x_ant0_20250310T120013.500000000Z", &n) == -EINVAL);
	CHECK(cc_ends_with("a.raw.json", ".raw.json"));
	CHECK(!cc_ends_with("json", ".raw.json"));
}

static void
test_hist(void)
{
	struct cc_hist *h = malloc(sizeof(*h));
	uint64_t lo, hi;
	unsigned int b;
	int64_t v, m;

	/* buckets: exact below 16, then contiguous, each <= 1/16 of its edge */
	for (b = 0; b < CC_HIST_NB - 1; b++) {
		uint64_t lo2, hi2;

		cc_hist_bucket_range(b, &lo, &hi);
		cc_hist_bucket_range(b + 1, &lo2, &hi2);
		if (lo2 != hi + 1 || cc_hist_bucket(lo) != b || cc_hist_bucket(hi) != b ||
		    (b >= CC_HIST_SUB && (hi - lo + 1) * CC_HIST_SUB > lo))
			break;
	}
	CHECK_EQ_U(b, CC_HIST_NB - 1);
	CHECK_EQ_U(cc_hist_bucket(UINT64_MAX), CC_HIST_NB - 1);
	CHECK_EQ_U(cc_hist_bucket(15), 15);
	CHECK_EQ_U(cc_hist_bucket(16), 16);

	cc_hist_init(h);
	CHECK_EQ_I(cc_hist_quantile(h, 0.5), 0);
	for (v = 1; v <= 1000; v++)
		cc_hist_add(h, v);
	CHECK_EQ_U(h->n, 1000);
	CHECK_EQ_I(h->min, 1);
	CHECK_EQ_I(h->max, 1000);
	m = cc_hist_quantile(h, 0.5);
	CHECK(m >= 500 - 16 && m <= 500 + 16); /* within 3.2 % */
	m = cc_hist_quantile(h, 0.99);
	CHECK(m >= 990 - 32 && m <= 990 + 32);
	CHECK_EQ_I(cc_hist_quantile(h, 1.0), 1000);

	/* negative values sort below positive ones */
	cc_hist_init(h);
	cc_hist_add(h, -1000000);
	cc_hist_add(h, -5);
	cc_hist_add(h, 7);
	CHECK_EQ_I(cc_hist_quantile(h, 0.5), -5);
	m = cc_hist_quantile(h, 0.1); /* the bucket of -1e6, within 3.2 % */
	CHECK(m >= -1000000 && m <= -968000);
	CHECK_EQ_I(cc_hist_quantile(h, 0.99), 7);
	cc_hist_add(h, INT64_MIN);
	cc_hist_add(h, INT64_MAX);
	CHECK_EQ_I(h->min, INT64_MIN);
	CHECK_EQ_I(cc_hist_quantile(h, 1.0), INT64_MAX);
	free(h);
}

static void
test_gaps(void)
{
	struct cc_gaps g;

	cc_gaps_init(&g);
	CHECK(cc_gaps_add(&g, 10, 12, CC_GAP_MISSING) == 0);
	CHECK(cc_gaps_add(&g, 13, 13, CC_GAP_MISSING) == 0); /* merges */
	CHECK_EQ_U(g.n, 1);
	CHECK_EQ_I(g.v[0].last, 13);
	CHECK(cc_gaps_add(&g, 14, 14, CC_GAP_FILLED) == 0);  /* other kind */
	CHECK_EQ_U(g.n, 2);
	CHECK(cc_gaps_add(&g, 2, 3, CC_GAP_MISSING) == 0);   /* insert first */
	CHECK_EQ_I(g.v[0].first, 2);
	CHECK(cc_gaps_add(&g, 3, 5, CC_GAP_MISSING) == -EINVAL); /* overlap */
	CHECK(cc_gaps_add(&g, 5, 4, CC_GAP_MISSING) == -EINVAL); /* empty */
	CHECK(cc_gaps_add(&g, 4, 9, CC_GAP_MISSING) == 0);   /* joins both sides */
	CHECK_EQ_U(g.n, 2);
	CHECK_EQ_I(g.v[0].first, 2);
	CHECK_EQ_I(g.v[0].last, 13);
	CHECK_EQ_U(g.frames[CC_GAP_MISSING], 12);
	CHECK_EQ_U(cc_gaps_total(&g), 13);

	CHECK(cc_gaps_fill(&g, 7) == 0);                     /* split */
	CHECK_EQ_U(g.n, 3);
	CHECK_EQ_I(g.v[0].last, 6);
	CHECK_EQ_I(g.v[1].first, 8);
	CHECK(cc_gaps_fill(&g, 2) == 0);                     /* shrink front */
	CHECK(cc_gaps_fill(&g, 13) == 0);                    /* shrink back */
	CHECK(cc_gaps_fill(&g, 13) == -ENOENT);
	CHECK(cc_gaps_fill(&g, 14) == -ENOENT);              /* filled: not missing */
	CHECK(cc_gaps_fill(&g, 100) == -ENOENT);
	CHECK_EQ_U(g.frames[CC_GAP_MISSING], 9);
	CHECK(cc_gaps_add(&g, 20, 20, CC_GAP_MISSING) == 0);
	CHECK(cc_gaps_fill(&g, 20) == 0);                    /* removes the run */
	CHECK_EQ_U(g.n, 3);
	CHECK_EQ_U(cc_gaps_total(&g), 10);
	cc_gaps_free(&g);
	CHECK_EQ_U(g.n, 0);
}

/* The index reader's JSON (jansson, lib/util/json.h): values, escapes,
 * and errors that say where. */
static void
test_json(void)
{
	const char *t = " {\"a\": [1, -2, 3.5, 9223372036854775807],"
			"\"s\": \"x\\u00e9\\ud83d\\ude00\\n\", \"o\": {\"t\": true, \"n\": null}} ";
	const json_t *a, *s;
	char err[128], *deep;
	json_t *v;
	int i;

	v = js_parse(t, strlen(t), err, sizeof(err));
	CHECK(v != NULL);
	a = json_object_get(v, "a");
	CHECK(json_is_array(a) && json_array_size(a) == 4);
	if (json_array_size(a) == 4) {
		CHECK(json_is_integer(json_array_get(a, 0)) &&
		      json_integer_value(json_array_get(a, 0)) == 1);
		CHECK(json_integer_value(json_array_get(a, 1)) == -2);
		CHECK(json_is_real(json_array_get(a, 2)) &&
		      json_real_value(json_array_get(a, 2)) == 3.5);
		CHECK(json_integer_value(json_array_get(a, 3)) == INT64_MAX);
	}
	s = json_object_get(v, "s");
	CHECK(json_is_string(s));
	if (json_is_string(s))
		CHECK_STR(json_string_value(s), "x\xc3\xa9\xf0\x9f\x98\x80\n");
	CHECK(json_is_true(json_object_get(json_object_get(v, "o"), "t")));
	CHECK(json_object_get(v, "missing") == NULL);
	json_decref(v);

	CHECK(js_parse("{\"a\" 1}", 7, err, sizeof(err)) == NULL);
	CHECK_STR(err, "byte 6 (line 1 column 6): ':' expected near '1'");
	CHECK(js_parse("[1,]", 4, err, sizeof(err)) == NULL);
	CHECK(js_parse("\"abc", 4, err, sizeof(err)) == NULL);
	CHECK(js_parse("[\"\\ud800\"]", 10, err, sizeof(err)) == NULL);
	CHECK_HAS(err, "invalid Unicode");
	CHECK(js_parse("[01]", 4, err, sizeof(err)) == NULL);
	CHECK(js_parse("{} x", 4, err, sizeof(err)) == NULL);
	CHECK_HAS(err, "end of file expected");
	CHECK(js_parse("", 0, err, sizeof(err)) == NULL);
	/* numbers beyond 64 bits are refused, not rounded */
	CHECK(js_parse("[18446744073709551616]", 22, err, sizeof(err)) == NULL);
	CHECK_HAS(err, "too big");
	CHECK(js_parse("{\"a\": 1, \"a\": 2}", 16, err, sizeof(err)) == NULL);
	CHECK_HAS(err, "duplicate");
	/* nesting is bounded (jansson: 2048 levels) */
	deep = malloc(4096);
	for (i = 0; deep != NULL && i < 4096; i++)
		deep[i] = '[';
	CHECK(deep != NULL && js_parse(deep, 4096, err, sizeof(err)) == NULL);
	CHECK_HAS(err, "depth");
	free(deep);
}

/* The example of formats.md, with a real header (4 ch, 16 bit, complex). */
static char *
index_text(const char *gaps, const char *params_nchan)
{
	struct codif_hdr h;
	uint8_t b[64];
	char hex[129], *t = malloc(4096);
	int i;

	memset(&h, 0, sizeof(h));
	h.seconds = 5918400;
	h.frame = 31250;
	h.epoch = 50;
	h.nbits = 16;
	h.complex = true;
	h.representation = 1;
	h.version = 3;
	h.protocol = CODIF_PROTOCOL;
	h.period = 27;
	h.groupid = 257;
	h.stationid = 'A' << 8 | 'K';
	h.nchan = 4;
	h.framelength8 = 1024;
	h.totalsamples = 32000000;
	h.sync = CODIF_SYNC;
	codif_encode(&h, b);
	for (i = 0; i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	snprintf(t, 4096,
		 "{\"format\": \"dpdk-ibvcap-raw\", \"version\": 1,"
		 " \"antenna\": {\"index\": 0, \"name\": \"ant0\", \"src\": \"10.17.0.211\"},"
		 " \"data_bytes\": 8192, \"rows\": 1000, \"first_index\": 0,"
		 " \"streams\": [{\"slot\": 0, \"dst\": \"239.17.0.1\", \"port\": 36001,"
		 " \"station\": \"AK\", \"groupid\": 257, \"secondaryid\": 0, \"threadid\": 0,"
		 " \"header\": \"%s\"}],"
		 " \"params\": {\"nchan\": %s, \"nbits\": 16, \"complex\": true,"
		 " \"representation\": 1, \"period\": 27, \"totalsamples\": 32000000,"
		 " \"frames_per_period\": 62500, \"frame_ns\": 432000, \"epoch\": 50},"
		 " \"first_frame\": {\"seconds\": 5918400, \"frame\": 31250,"
		 " \"utc\": \"2025-03-10T12:00:13.500000000Z\"},"
		 " \"gaps\": [%s], \"invalid\": [{\"slot\": 0, \"first\": 40, \"count\": 1}]}",
		 hex, params_nchan, gaps);
	return t;
}

static void
test_rawidx(void)
{
	struct fmt_raw_index ri, back;
	struct codif_hdr h;
	char err[256], *t, *w;
	size_t cur = 0, wlen;
	json_t *j;
	FILE *f;

	t = index_text("{\"slot\": 0, \"first\": 17, \"count\": 2, \"utc\": \"x\"},"
		       "{\"slot\": 0, \"first\": 5, \"count\": 1}", "4");
	CHECK(fmt_raw_index_parse(t, strlen(t), &ri, err, sizeof(err)) == 0);
	CHECK_EQ_U(ri.nstream, 1);
	CHECK_EQ_U(ri.rows, 1000);
	CHECK_EQ_U(fmt_raw_data_size(&ri), 1000ULL * 8192);
	CHECK_EQ_U(ri.fpp, 62500);
	CHECK_EQ_U(ri.gaps.n, 2);
	CHECK_EQ_U(ri.gaps.v[0].first, 5); /* sorted */
	CHECK(!fmt_raw_in_run(&ri.gaps, 0, 4, &cur));
	CHECK(fmt_raw_in_run(&ri.gaps, 0, 5, &cur));
	CHECK(!fmt_raw_in_run(&ri.gaps, 0, 6, &cur));
	CHECK(fmt_raw_in_run(&ri.gaps, 0, 18, &cur));
	CHECK(!fmt_raw_in_run(&ri.gaps, 0, 19, &cur));
	/* row 62500 - 31250 is the next period's frame 0 */
	fmt_raw_frame_hdr(&ri, 0, 31250, true, &h);
	CHECK_EQ_U(h.seconds, 5918427);
	CHECK_EQ_U(h.frame, 0);
	CHECK(h.invalid);

	/* write, parse back: the same index */
	j = fmt_raw_index_json(&ri);
	f = open_memstream(&w, &wlen);
	CHECK(j != NULL && js_write(j, f, true) == 0);
	fclose(f);
	json_decref(j);
	CHECK(fmt_raw_index_parse(w, wlen, &back, err, sizeof(err)) == 0);
	CHECK_EQ_U(back.gaps.n, 2);
	CHECK_EQ_U(back.invalid.n, 1);
	CHECK(memcmp(back.st[0].raw_hdr, ri.st[0].raw_hdr, 64) == 0);
	CHECK_EQ_U(back.first_frame, 31250);
	fmt_raw_index_free(&back);
	free(w);
	fmt_raw_index_free(&ri);
	free(t);

	t = index_text("{\"slot\": 0, \"first\": 17, \"count\": 2}, "
		       "{\"slot\": 0, \"first\": 18, \"count\": 1}", "4");
	CHECK(fmt_raw_index_parse(t, strlen(t), &ri, err, sizeof(err)) == -EINVAL);
	CHECK_HAS(err, "overlap");
	free(t);
	t = index_text("{\"slot\": 0, \"first\": 999, \"count\": 2}", "4");
	CHECK(fmt_raw_index_parse(t, strlen(t), &ri, err, sizeof(err)) == -EINVAL);
	CHECK_HAS(err, "gaps[0].count: expected an integer between 1 and 1");
	free(t);
	t = index_text("{\"slot\": 0, \"first\": 40, \"count\": 1}", "4");
	CHECK(fmt_raw_index_parse(t, strlen(t), &ri, err, sizeof(err)) == -EINVAL);
	CHECK_HAS(err, "both in gaps and invalid");
	free(t);
	t = index_text("", "8");
	CHECK(fmt_raw_index_parse(t, strlen(t), &ri, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "params.nchan: 8, the headers say 4");
	free(t);
	CHECK(fmt_raw_index_parse("{\"format\": \"x\"}", 15, &ri, err, sizeof(err)) == -EINVAL);
	CHECK_STR(err, "format: 'x', expected 'dpdk-ibvcap-raw'");
}

static void
test_detect(void)
{
	uint8_t b[256];
	struct cc_detect d;
	struct codif_hdr h;

	memset(b, 0, sizeof(b));
	CHECK(cc_detect(b, 0, 0, "x", &d) == CC_FMT_EMPTY);
	CHECK_STR(d.desc, "empty file (0 bytes)");
	memcpy(b, "\x4d\x3c\xb2\xa1", 4);
	CHECK(cc_detect(b, 24, 24, "x", &d) == CC_FMT_PCAP);
	CHECK_HAS(d.desc, "nanosecond");
	memcpy(b, "\xd4\xc3\xb2\xa1", 4);
	CHECK(cc_detect(b, 24, 24, "x", &d) == CC_FMT_PCAP);
	CHECK_HAS(d.desc, "microsecond");
	memcpy(b, "\x0a\x0d\x0d\x0a", 4);
	CHECK(cc_detect(b, 28, 28, "x", &d) == CC_FMT_PCAPNG);
	CHECK(cc_detect((const uint8_t *)" {\"format\": \"dpdk-ibvcap-raw\"}", 30, 30, "x",
			&d) == CC_FMT_RAW_INDEX);
	memset(b, 0x55, sizeof(b));
	CHECK(cc_detect(b, 100, 100, "d/a.raw", &d) == CC_FMT_RAW);

	memset(&h, 0, sizeof(h));
	h.nbits = 8;
	h.nchan = 1;
	h.period = 1;
	h.framelength8 = 4;
	h.totalsamples = 32;
	h.protocol = CODIF_PROTOCOL;
	h.sync = CODIF_SYNC;
	codif_encode(&h, b);
	CHECK(cc_detect(b, 96, 96, "x", &d) == CC_FMT_CODIF);
	CHECK(cc_detect(b, 50, 50, "x", &d) == CC_FMT_SHORT_CODIF);
	CHECK_HAS(d.desc, "50 bytes, a header needs 64");
	/* a damaged first header, whole frames after it: still CODIF */
	codif_encode(&h, b + 96);
	codif_encode(&h, b + 192);
	b[40] ^= 0xff;
	CHECK(cc_detect(b, 256, 288, "x", &d) == CC_FMT_CODIF);
	CHECK_HAS(d.desc, "the first valid header at byte 96");
	/* one header off the 8-byte grid (as in a pcap record): not CODIF */
	memset(b, 0, sizeof(b));
	codif_encode(&h, b + 82);
	CHECK(cc_detect(b, 256, 1000, "x", &d) == CC_FMT_UNKNOWN);
	memset(b, 0, sizeof(b));
	codif_encode(&h, b);
	h.protocol = 0;  /* VDIF's version 0 in those bits */
	codif_encode(&h, b);
	CHECK(cc_detect(b, 96, 96, "x", &d) == CC_FMT_UNKNOWN);
	CHECK_HAS(d.desc, "protocol 0");

	/* VDIF: 32-byte header, length in word 2, two frames of 64 bytes */
	memset(b, 0, sizeof(b));
	b[8] = 8;
	b[72] = 8;
	b[12] = b[76] = 0x4B;
	CHECK(cc_detect(b, 128, 128, "x", &d) == CC_FMT_VDIF);
	CHECK_HAS(d.desc, "VDIF, not CODIF");
	memset(b, 0, sizeof(b));
	b[28] = 0xEE;
	b[29] = 0xDB;
	b[30] = 0xEA;
	b[31] = 0xAD;
	CHECK(cc_detect(b, 96, 96, "x", &d) == CC_FMT_LEGACY_CODIF);
	CHECK_HAS(d.desc, "0xADEADBEE at byte 28");
	memcpy(b, "\x7f" "ELF", 4);
	CHECK(cc_detect(b, 4, 4, "x", &d) == CC_FMT_UNKNOWN);
	CHECK_HAS(d.desc, "first bytes: 7f 45 4c 46 |.ELF|");
}

/* Frames of 32 data bytes, FPP 1000, streams by threadid. */
static size_t
put_frame(uint8_t *p, uint32_t frame, uint16_t thread, bool invalid, uint8_t fill)
{
	struct codif_hdr h;

	memset(&h, 0, sizeof(h));
	h.seconds = 100;
	h.frame = frame;
	h.epoch = 50;
	h.nbits = 8;
	h.nchan = 1;
	h.period = 1;
	h.framelength8 = 4;
	h.totalsamples = 32000;
	h.threadid = thread;
	h.invalid = invalid;
	h.protocol = CODIF_PROTOCOL;
	h.version = 3;
	h.sync = CODIF_SYNC;
	codif_encode(&h, p);
	memset(p + 64, fill, 32);
	return 96;
}

static struct cc_scan *
scan_mem(const uint8_t *b, size_t n)
{
	struct cc_scan_opts o = {
		.max_problems = 16,
		.tl = { .window = 64, .ahead = 64, .confirm = 4, .max_gap_ns = 1000000000 },
	};
	struct cc_scan *s = cc_scan_new(&o);
	struct cc_rd rd;

	cc_rd_open_mem(&rd, b, n, 128, 1 << 20);
	CHECK(cc_scan_codif(s, &rd) == 0);
	CHECK(cc_scan_finish(s) == 0);
	cc_rd_close(&rd);
	return s;
}

static void
test_scan(void)
{
	uint8_t b[96 * 16];
	struct cc_scan *s;
	size_t n = 0;

	/* thread 0: 0, 1, (2 placeholder), 4 (3 missing), 5 late-less;
	 * thread 1: 0, 1, 1 again (backwards) */
	n += put_frame(b + n, 0, 0, false, 1);
	n += put_frame(b + n, 0, 1, false, 1);
	n += put_frame(b + n, 1, 0, true, 1);   /* invalid, with data */
	n += put_frame(b + n, 1, 1, false, 1);
	n += put_frame(b + n, 2, 0, true, 0);   /* placeholder */
	n += put_frame(b + n, 4, 0, false, 1);
	n += put_frame(b + n, 1, 1, false, 1);  /* repeat */
	s = scan_mem(b, n);
	CHECK_EQ_U(s->nst, 2);
	CHECK_EQ_U(s->records, 7);
	CHECK_EQ_U(s->problems, 1);
	CHECK_EQ_U(s->nprob[CC_P_BACKWARDS], 1);
	CHECK(!s->damaged);
	cc_scan_sort(s);
	CHECK_EQ_U(codif_seq_expected(s->st[0]->seq), 5);
	CHECK_EQ_U(cc_stream_received(s->st[0]), 3);
	CHECK_EQ_U(cc_stream_lost(s->st[0]), 2);
	CHECK_EQ_U(cc_stream_invalid(s->st[0]), 1);
	CHECK_EQ_U(s->st[0]->filled, 1);
	CHECK_EQ_U(s->st[0]->gaps.n, 2);
	CHECK_EQ_U(s->st[0]->gaps.v[0].kind, CC_GAP_FILLED);
	CHECK_EQ_I(s->st[0]->gaps.v[1].first, 3);
	CHECK_EQ_U(s->st[1]->seq->st.duplicate, 1);
	CHECK_EQ_U(s->pr[0].off, 6 * 96);
	cc_scan_free(s);

	/* bad sync in frame 1: skipped as one frame; truncated last frame */
	n = 0;
	n += put_frame(b + n, 0, 0, false, 1);
	n += put_frame(b + n, 1, 0, false, 1);
	n += put_frame(b + n, 2, 0, false, 1);
	b[96 + 40] ^= 0xff;
	s = scan_mem(b, n - 10);
	CHECK_EQ_U(s->nprob[CC_P_SYNC], 1);
	CHECK_EQ_U(s->nprob[CC_P_TRUNCATED], 1);
	CHECK_EQ_U(s->pr[0].off, 96);
	CHECK_HAS(s->pr[0].msg, "a frame of 96 bytes skipped");
	CHECK_EQ_U(s->pr[1].off, 192);
	CHECK_HAS(s->pr[1].msg, "86 of 96 bytes");
	CHECK(s->damaged);
	CHECK_EQ_U(s->records, 1);
	cc_scan_free(s);

	/* a frame 16 bytes short: wrong length, the next one still read */
	n = 0;
	n += put_frame(b + n, 0, 0, false, 1);
	n += put_frame(b + n, 1, 0, false, 1) - 16;
	n += put_frame(b + n, 2, 0, false, 1);
	s = scan_mem(b, n);
	CHECK_EQ_U(s->nprob[CC_P_LENGTH], 1);
	CHECK_HAS(s->pr[0].msg, "the frame is 80 bytes, its header says 96");
	CHECK_EQ_U(s->records, 2);
	cc_scan_free(s);

	/* garbage between frames: resynchronised at the next header */
	n = 0;
	n += put_frame(b + n, 0, 0, false, 1);
	memset(b + n, 0xAB, 200);
	n += 200;
	n += put_frame(b + n, 3, 0, false, 1);
	s = scan_mem(b, n);
	CHECK_EQ_U(s->nprob[CC_P_SYNC], 1);
	CHECK_HAS(s->pr[0].msg, "200 bytes skipped to the next CODIF header at offset 296");
	CHECK_EQ_U(s->records, 2);
	CHECK_EQ_U(cc_stream_lost(s->st[0]), 2);
	cc_scan_free(s);
}

int
main(void)
{
	test_names();
	test_hist();
	test_gaps();
	test_json();
	test_rawidx();
	test_detect();
	test_scan();
	return check_report("test_codifcheck");
}
