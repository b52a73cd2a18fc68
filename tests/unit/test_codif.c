/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/codif: fields, validation, time, index, sequence tracker. */

#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "codif.h"
#include "codif_pattern.h"

static uint64_t
word(const uint8_t *b, int i)
{
	uint64_t v = 0;
	int k;

	for (k = 7; k >= 0; k--)
		v = v << 8 | b[8 * i + k];
	return v;
}

static void
set_word(uint8_t *b, int i, uint64_t v)
{
	int k;

	for (k = 0; k < 8; k++) {
		b[8 * i + k] = (uint8_t)v;
		v >>= 8;
	}
}

/* A field of n bits at bit lo of word w: all ones there and nothing else
 * must encode to exactly that word, and decode back; the neighbours' bits
 * all set must decode the field as zero. */
#define FIELD(fname, w, lo, n)                                               \
	do {                                                                 \
		struct codif_hdr h_, d_;                                     \
		uint8_t b_[64];                                              \
		uint64_t mask_ = ((n) == 64 ? ~0ULL : ((1ULL << (n)) - 1));  \
		int i_;                                                      \
		memset(&h_, 0, sizeof(h_));                                  \
		h_.fname = (__typeof__(h_.fname))mask_;                      \
		codif_encode(&h_, b_);                                       \
		for (i_ = 0; i_ < 8; i_++)                                   \
			CHECK_EQ_U(word(b_, i_), i_ == (w) ? mask_ << (lo) : 0); \
		CHECK(codif_decode(b_, 64, &d_, NULL, 0) == 0);              \
		CHECK_EQ_U(d_.fname, mask_);                                 \
		memset(b_, 0, sizeof(b_));                                   \
		set_word(b_, (w), ~(mask_ << (lo)));                         \
		codif_decode(b_, 64, &d_, NULL, 0);                          \
		CHECK_EQ_U(d_.fname, 0);                                     \
	} while (0)

static void
test_fields(void)
{
	struct codif_hdr h, d;
	uint8_t b[64];
	int i;

	FIELD(frame, 0, 0, 32);
	FIELD(seconds, 0, 32, 32);
	FIELD(epoch, 1, 0, 8);
	FIELD(nbits, 1, 8, 8);
	FIELD(atypical, 1, 16, 1);
	FIELD(invalid, 1, 17, 1);
	FIELD(complex, 1, 18, 1);
	FIELD(cal, 1, 19, 1);
	FIELD(representation, 1, 20, 4);
	FIELD(version, 1, 24, 5);
	FIELD(protocol, 1, 29, 3);
	FIELD(reserved, 1, 32, 16);
	FIELD(period, 1, 48, 16);
	FIELD(threadid, 2, 0, 16);
	FIELD(groupid, 2, 16, 16);
	FIELD(secondaryid, 2, 32, 16);
	FIELD(stationid, 2, 48, 16);
	FIELD(nchan, 3, 0, 16);
	FIELD(blocklength, 3, 16, 16);
	FIELD(framelength8, 3, 32, 32);
	FIELD(totalsamples, 4, 0, 64);
	FIELD(sync, 5, 0, 32);
	FIELD(metaid, 5, 32, 16);

	/* metadata: word 5 bits 48-63 and words 6, 7, in wire byte order */
	memset(&h, 0, sizeof(h));
	for (i = 0; i < 18; i++)
		h.metadata[i] = (uint8_t)(0xA0 + i);
	codif_encode(&h, b);
	CHECK_EQ_U(word(b, 5), 0xA1A0ULL << 48);
	CHECK_EQ_U(b[46], 0xA0);
	CHECK_EQ_U(b[63], 0xA0 + 17);
	codif_decode(b, 64, &d, NULL, 0);
	CHECK(memcmp(d.metadata, h.metadata, 18) == 0);

	/* little-endian on the wire: byte 0 is the frame's low byte */
	memset(&h, 0, sizeof(h));
	h.frame = 0x04030201;
	h.seconds = 0x08070605;
	codif_encode(&h, b);
	for (i = 0; i < 8; i++)
		CHECK_EQ_U(b[i], i + 1);
}

static struct codif_hdr
example(void)
{
	struct codif_hdr h;

	memset(&h, 0, sizeof(h));
	h.epoch = 50;
	h.seconds = 5918400;
	h.period = 27;
	h.nchan = 4;
	h.nbits = 16;
	h.complex = true;
	h.representation = 1;
	h.version = 3;
	h.protocol = 7;
	h.framelength8 = 1024;
	h.totalsamples = 32000000;
	h.frame = 31250;
	h.sync = CODIF_SYNC;
	h.stationid = 'A' << 8 | 'K';
	return h;
}

static void
test_worked_example(void)
{
	struct codif_hdr h = example(), p;
	char ts[CODIF_TIMESTR_LEN];
	int64_t t;

	CHECK(codif_validate(&h, 8192, NULL, 0) == 0);
	CHECK_EQ_U(codif_data_bytes(&h), 8192);
	CHECK_EQ_U(codif_bits_per_sample(&h), 128);
	CHECK_EQ_U(codif_samples_per_frame(&h), 512);
	CHECK_EQ_U(codif_frames_per_period(&h), 62500);
	CHECK_EQ_U(codif_frame_ns(&h), 432000);
	CHECK_EQ_I(codif_epoch_unix(50), 1735689600); /* 2025-01-01 */
	CHECK_EQ_I(codif_epoch_unix(51), 1751328000); /* 2025-07-01 */
	CHECK_EQ_I(codif_epoch_unix(0), CODIF_Y2K_UNIX);
	p = h;
	p.frame = 0;
	CHECK_STR(codif_time_str(codif_frame_time_ns(&p), ts, sizeof(ts)),
		  "2025-03-10T12:00:00.000000000Z");
	t = codif_frame_time_ns(&h);
	CHECK_STR(codif_time_str(t, ts, sizeof(ts)),
		  "2025-03-10T12:00:13.500000000Z");
	CHECK_EQ_I(t, 1741608013500000000LL);
	/* a frame whose start is not a whole ns: floor */
	h.frame = 1;
	CHECK_EQ_I(codif_frame_time_ns(&h) - codif_frame_time_ns(&p), 432000);
	h.totalsamples = 3 * 512;
	h.period = 1;
	h.frame = 1;
	p = h;
	p.frame = 0;
	CHECK_EQ_I(codif_frame_time_ns(&h) - codif_frame_time_ns(&p), 333333333);
	/* huge period * frame must not overflow 64 bits */
	h = example();
	h.period = 65535;
	h.totalsamples = 512ULL * 4000000000ULL;
	h.frame = 3999999999u;
	CHECK(codif_validate(&h, SIZE_MAX, NULL, 0) == 0);
	p = h;
	p.frame = 0;
	CHECK_EQ_I(codif_frame_time_ns(&h) - codif_frame_time_ns(&p),
		   (int64_t)((unsigned __int128)3999999999ULL * 65535000000000ULL /
			     4000000000ULL));
}

static void
test_time(void)
{
	int64_t t;
	char ts[CODIF_TIMESTR_LEN];

	CHECK(codif_parse_time("2025-03-10T12:00:13.5Z", &t) == 0);
	CHECK_EQ_I(t, 1741608013500000000LL);
	CHECK(codif_parse_time("2025-03-10 12:00:13.000000001", &t) == 0);
	CHECK_EQ_I(t, 1741608013000000001LL);
	CHECK(codif_parse_time("@1741608013", &t) == 0);
	CHECK_EQ_I(t, 1741608013000000000LL);
	CHECK(codif_parse_time("1741608013.25", &t) == 0);
	CHECK_EQ_I(t, 1741608013250000000LL);
	CHECK(codif_parse_time("2025-02-29T00:00:00Z", &t) == -EINVAL);
	CHECK(codif_parse_time("2024-02-29", &t) == 0);
	CHECK(codif_parse_time("2025-13-01", &t) == -EINVAL);
	CHECK(codif_parse_time("2025-03-10T25:00:00", &t) == -EINVAL);
	CHECK(codif_parse_time("yesterday", &t) == -EINVAL);
	CHECK(codif_parse_time("", &t) == -EINVAL);
	CHECK(codif_parse_time("2025-03-10T12:00:00.0000000001", &t) == -EINVAL);
	CHECK_STR(codif_time_str(0, ts, sizeof(ts)), "1970-01-01T00:00:00.000000000Z");
	CHECK_STR(codif_time_str(-1, ts, sizeof(ts)), "1969-12-31T23:59:59.999999999Z");
	CHECK_EQ_U(codif_epoch_for_unix(1735689600), 50);
	CHECK_EQ_U(codif_epoch_for_unix(1735689599), 49);
	CHECK_EQ_U(codif_epoch_for_unix(1751328000), 51);
	CHECK_EQ_U(codif_epoch_for_unix(0), 0);

	/* the int64-ns range: its ends taken, beyond refused (never wrapped:
	 * 9999-01-01 once read as 1816-03-30) */
	CHECK(codif_parse_time("2262-04-11T23:47:16.854775807Z", &t) == 0);
	CHECK_EQ_I(t, INT64_MAX);
	CHECK(codif_parse_time("2262-04-11T23:47:16.854775808Z", &t) == -ERANGE);
	CHECK(codif_parse_time("9999-01-01T00:00:00Z", &t) == -ERANGE);
	CHECK(codif_parse_time("1677-09-21T00:12:43.145224193Z", &t) == 0);
	CHECK_EQ_I(t, INT64_MIN + 1);
	CHECK(codif_parse_time("1677-09-21T00:12:43.145224192Z", &t) == -ERANGE);
	CHECK(codif_parse_time("0001-01-01T00:00:00Z", &t) == -ERANGE);
	CHECK(codif_parse_time("@9223372036", &t) == 0);
	CHECK(codif_parse_time("@9223372037", &t) == -ERANGE);
	CHECK(codif_parse_time("@99999999999999999999999", &t) == -ERANGE);
	CHECK(codif_parse_time("@99999999999999999999999x", &t) == -EINVAL);
	CHECK_STR(codif_time_str(INT64_MAX, ts, sizeof(ts)), "2262-04-11T23:47:16.854775807Z");
	{
		char err[256];

		CHECK(codif_time_range_check("T0", (__int128)INT64_MAX + 1, err, sizeof(err)) ==
		      -ERANGE);
		CHECK_HAS(err, "T0 is after the times this program can hold: "
			  "1677-09-21T00:12:43.145224193Z .. 2262-04-11T23:47:16.854775807Z");
		CHECK(codif_time_range_check("T0", 0, err, sizeof(err)) == 0);
	}
	/* an epoch-255 frame after 2262-04-11: no time, and refused by
	 * codif_validate with the reason (not named 1679) */
	{
		struct codif_hdr h = example();
		char err[256];

		h.epoch = 255;                 /* 2127-07-01 */
		h.seconds = 4290000000u;       /* + 135.9 years: 2263 */
		h.seconds -= h.seconds % 27;
		CHECK_EQ_I(codif_frame_time_ns(&h), INT64_MIN);
		CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
		CHECK_HAS(err, "beyond the int64-nanosecond range");
		h.seconds = 27 * 1000;         /* 2127: fine */
		CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == 0);
		CHECK(codif_frame_time_ns(&h) > 0);
	}
}

static void
test_clock(void)
{
	struct codif_hdr h = example();
	struct codif_clock c, c2;
	uint32_t s, f;
	int64_t n, k;

	CHECK(codif_clock_init(&c, &h) == 0);
	CHECK_EQ_U(c.fpp, 62500);
	CHECK_EQ_U(c.phase, 5918400 % 27);
	/* the worked example: frame 31250 of the period at 5918400 s */
	CHECK(codif_clock_index(&c, 5918400, 31250, &n));
	CHECK_EQ_I(codif_clock_time_ns(&c, n), codif_frame_time_ns(&h));
	CHECK_EQ_I(n, (int64_t)(5918400 / 27) * 62500 + 31250);
	/* period wrap: the last frame of a period and the first of the next */
	CHECK(codif_clock_index(&c, 5918400, 62499, &n));
	CHECK(codif_clock_index(&c, 5918400 + 27, 0, &k));
	CHECK_EQ_I(k, n + 1);
	CHECK_EQ_I(codif_clock_time_ns(&c, k) - codif_clock_time_ns(&c, n), 432000);
	/* off the grid: seconds not phase + k * period */
	CHECK(!codif_clock_index(&c, 5918400 + 13, 0, &n));
	CHECK(!codif_clock_index(&c, 0, 0, &n) || c.phase == 0);
	/* index <-> (seconds, frame) both ways, times exact */
	for (n = 0; n < 4000000000LL; n += 7919 * 1013) {
		codif_clock_hdr_time(&c, n, &s, &f);
		CHECK(f < 62500);
		CHECK(codif_clock_index(&c, s, f, &k));
		CHECK_EQ_I(k, n);
		h.seconds = s;
		h.frame = f;
		CHECK_EQ_I(codif_clock_time_ns(&c, n), codif_frame_time_ns(&h));
	}
	/* huge seconds, a period of 1 s and 2^31 frames: 63 bits hold it;
	 * 2^32 - 1 frames do not (refused, never wrapped) */
	h = example();
	h.period = 1;
	h.nchan = 1;
	h.nbits = 2;
	h.complex = false;
	h.framelength8 = 1;      /* 32 samples per frame */
	h.totalsamples = 32ULL << 31;
	h.seconds = 0;
	h.frame = 0;
	CHECK(codif_clock_init(&c, &h) == 0);
	CHECK(codif_clock_index(&c, UINT32_MAX, 12345, &n));
	CHECK_EQ_I(n, (int64_t)UINT32_MAX * (1LL << 31) + 12345);
	codif_clock_hdr_time(&c, n, &s, &f);
	CHECK_EQ_U(s, UINT32_MAX);
	CHECK_EQ_U(f, 12345);
	h.totalsamples = 32ULL * 0xFFFFFFFFULL;
	CHECK(codif_clock_init(&c, &h) == 0);
	CHECK(!codif_clock_index(&c, UINT32_MAX, 12345, &n));
	/* every epoch: 0 (2000-01-01), 1 (2000-07-01), 255 */
	h = example();
	h.seconds = 27;
	h.frame = 0;
	h.epoch = 0;
	CHECK(codif_clock_init(&c, &h) == 0);
	CHECK(codif_clock_index(&c, 27, 0, &n));
	CHECK_EQ_I(codif_clock_time_ns(&c, n), (CODIF_Y2K_UNIX + 27) * 1000000000LL);
	h.epoch = 1;
	CHECK(codif_clock_init(&c2, &h) == 0);
	CHECK(!codif_clock_equal(&c, &c2));
	CHECK_EQ_I(codif_clock_time_ns(&c2, n) - codif_clock_time_ns(&c, n),
		   182LL * 86400 * 1000000000LL);
	h.epoch = 255;
	CHECK(codif_clock_init(&c2, &h) == 0);
	CHECK_EQ_I(c2.epoch_ns, codif_epoch_unix(255) * 1000000000LL);
	/* clocks: another grid (phase) or FPP is another clock */
	h = example();
	codif_clock_init(&c, &h);
	h.seconds += 1;
	codif_clock_init(&c2, &h);
	CHECK(!codif_clock_equal(&c, &c2));
	h = example();
	h.seconds += 27 * 1000;
	codif_clock_init(&c2, &h);
	CHECK(codif_clock_equal(&c, &c2));
	/* frames in a span of data time */
	CHECK_EQ_U(codif_clock_frames_in(&c, 1000000000ULL), 2314);
	CHECK_EQ_U(codif_clock_frames_in(&c, 27000000000ULL), 62500);
}

static void
test_identify(void)
{
	uint8_t b[64];
	struct codif_hdr h = example(), d;
	char err[256];

	codif_encode(&h, b);
	CHECK(codif_identify(b, 64, err, sizeof(err)) == 0);
	CHECK(codif_identify(b, 63, err, sizeof(err)) == -EINVAL);
	CHECK_HAS(err, "truncated: 63 bytes");
	CHECK(codif_decode(b, 10, &d, err, sizeof(err)) == -EINVAL);
	CHECK_HAS(err, "truncated: 10 bytes, a CODIF header needs 64");
	CHECK(codif_decode(NULL, 0, &d, err, sizeof(err)) == -EINVAL);

	/* VDIF: 32-bit words, byte 11 bits 5-7 = version 0 or 1 */
	memset(b, 0, sizeof(b));
	b[8] = 0x04; /* frame length 8224/8 = 1028 = 0x404 */
	b[9] = 0x04;
	b[11] = 0x00;
	CHECK(codif_identify(b, 64, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "VDIF version 0, not CODIF");
	CHECK_HAS(err, "8224 bytes");
	b[11] = 1 << 5;
	CHECK(codif_identify(b, 64, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "VDIF version 1, not CODIF");

	/* legacy CODIF sync words, reported by value */
	memset(b, 0, sizeof(b));
	b[11] = 0xE0;
	b[28] = 0xEE; b[29] = 0xDB; b[30] = 0xEA; b[31] = 0xAD;
	CHECK(codif_identify(b, 64, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "legacy CODIF sync word 0xADEADBEE");
	b[28] = 0xED; b[29] = 0xDE; b[30] = 0xAD; b[31] = 0xAB;
	CHECK(codif_identify(b, 64, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "legacy CODIF sync word 0xABADDEED");

	/* a wrong sync word, by value */
	h.sync = 0x12345678;
	codif_encode(&h, b);
	CHECK(codif_identify(b, 64, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "sync 0x12345678, expected 0xFEEDCAFE");
	/* right sync, wrong protocol */
	h = example();
	h.protocol = 5;
	codif_encode(&h, b);
	CHECK(codif_identify(b, 64, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "protocol 5, expected 7");
	/* version 2 is never rejected */
	h = example();
	h.version = 2;
	codif_encode(&h, b);
	CHECK(codif_identify(b, 64, err, sizeof(err)) == 0);
	codif_decode(b, 64, &d, NULL, 0);
	CHECK(codif_validate(&d, 8192, err, sizeof(err)) == 0);
}

static void
test_validate(void)
{
	struct codif_hdr h;
	char err[256];

	h = example();
	h.nchan = 0;
	CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "nchan 0");
	h = example();
	h.nbits = 0;
	CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "nbits 0");
	h = example();
	h.period = 0;
	CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "period 0");
	h = example();
	h.framelength8 = 0;
	CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "framelength8 0");
	h = example();
	h.nbits = 12; /* 4*12*2 = 96 bits: 65536 not a multiple */
	CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "framelength8 1024");
	CHECK_HAS(err, "96-bit samples");
	h = example();
	h.totalsamples = 1000;
	CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "totalsamples 1000");
	h = example();
	h.frame = 62500;
	CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "frame 62500, expected < 62500");
	h = example();
	CHECK(codif_validate(&h, 8000, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "data length 8000 bytes, expected framelength8*8 = 8192");
	h = example();
	h.sync = 0xFEEDCAFF;
	CHECK(codif_validate(&h, SIZE_MAX, err, sizeof(err)) == -EPROTO);
	CHECK_HAS(err, "sync 0xFEEDCAFF");
}

/* ---- stream trackers and timelines ---------------------------------------- */

/* The header of frame k of the example stream (k = 0: seconds 5918400,
 * frame 0), on the example's clock. */
static struct codif_hdr
fr(int64_t k)
{
	struct codif_hdr h = example();
	int64_t p = k >= 0 ? k / 62500 : -((-k + 62499) / 62500);

	h.seconds = (uint32_t)(5918400 + p * 27);
	h.frame = (uint32_t)(k - p * 62500);
	return h;
}

/* A timeline with streams; frames carry an id (their handle). What the
 * caller would place is recorded in order; dropped frames are counted. */
struct harness {
	struct codif_tl t;
	struct codif_seq s[8];
	unsigned int ns;
	uint64_t *placed;        /* ids, in placement order */
	unsigned int np, cap;
	uint64_t dropped, dropped_time, dropped_params;
	unsigned int seg_starts, resync_flags, newparam_flags;
	struct codif_out out;    /* the last push's */
};

static void
h_init(struct harness *x, unsigned int ns, const struct codif_tl_cfg *cfg)
{
	unsigned int i;

	memset(x, 0, sizeof(*x));
	CHECK(codif_tl_init(&x->t, cfg) == 0);
	x->ns = ns;
	for (i = 0; i < ns; i++)
		CHECK(codif_seq_init(&x->s[i], &x->t) == 0);
	x->cap = 1u << 16;
	x->placed = malloc(x->cap * sizeof(*x->placed));
}

static void
h_free(struct harness *x)
{
	unsigned int i;

	for (i = 0; i < x->ns; i++)
		codif_seq_free(&x->s[i]);
	codif_tl_free(&x->t);
	free(x->placed);
}

static bool
placeable(enum codif_seq_class c)
{
	return c == CODIF_SEQ_FIRST || c == CODIF_SEQ_IN_ORDER || c == CODIF_SEQ_GAP ||
	       c == CODIF_SEQ_LATE;
}

static void
h_place(struct harness *x, uint64_t id, const struct codif_out *o)
{
	if (x->np < x->cap)
		x->placed[x->np++] = id;
	if (o->flags & CODIF_OUT_SEG_START)
		x->seg_starts++;
	if (o->flags & CODIF_OUT_RESYNC)
		x->resync_flags++;
	if (o->flags & CODIF_OUT_NEW_PARAMS)
		x->newparam_flags++;
}

static void
h_actions(struct harness *x)
{
	struct codif_act a;

	while (codif_tl_action(&x->t, &a)) {
		if (a.drop) {
			x->dropped++;
			if (a.why == CODIF_DROP_TIME)
				x->dropped_time++;
			else
				x->dropped_params++;
			continue;
		}
		CHECK(placeable(a.out.cls));
		h_place(x, a.handle, &a.out);
	}
}

static enum codif_seq_class
h_push(struct harness *x, unsigned int si, const struct codif_hdr *h, uint64_t id)
{
	codif_seq_push(&x->t, &x->s[si], h, 8256, &x->out);
	if (placeable(x->out.cls))
		h_place(x, id, &x->out);
	if (x->out.cls == CODIF_SEQ_SUSPECT && x->out.hold != NULL)
		x->out.hold->handle = id;
	h_actions(x);
	return x->out.cls;
}

/* h_push of a frame that arrived at arr ns (the timeline's arrival times) */
static enum codif_seq_class
h_push_at(struct harness *x, unsigned int si, const struct codif_hdr *h, uint64_t id,
	  int64_t arr)
{
	codif_seq_push_at(&x->t, &x->s[si], h, 8256, arr, &x->out);
	if (placeable(x->out.cls))
		h_place(x, id, &x->out);
	if (x->out.cls == CODIF_SEQ_SUSPECT && x->out.hold != NULL)
		x->out.hold->handle = id;
	h_actions(x);
	return x->out.cls;
}

static void
h_flush(struct harness *x)
{
	struct codif_seq *v[8];
	unsigned int i;

	for (i = 0; i < x->ns; i++)
		v[i] = &x->s[i];
	codif_tl_flush(&x->t, v, x->ns);
	h_actions(x);
}

/* Every id 0..n-1 except those in skip[] placed exactly once, in order of
 * placement sorted by id equal to the list. */
static bool
placed_all_but(const struct harness *x, uint64_t n, const uint64_t *skip, unsigned int nskip)
{
	unsigned char *seen = calloc(n, 1);
	unsigned int i, j;
	bool ok = true;

	for (i = 0; i < x->np; i++) {
		if (x->placed[i] >= n || seen[x->placed[i]]) {
			ok = false;
			break;
		}
		seen[x->placed[i]] = 1;
	}
	for (i = 0; ok && i < n; i++) {
		bool skipped = false;

		for (j = 0; j < nskip; j++)
			skipped |= skip[j] == i;
		if (seen[i] == skipped)
			ok = false;
	}
	free(seen);
	return ok;
}

#define INVARIANT(s) CHECK_EQ_U((s).st.received + (s).st.lost, codif_seq_expected(&(s)))

static void
test_sequence(void)
{
	struct codif_tl_cfg cfg;
	struct harness x;
	struct codif_hdr h;
	uint32_t i;

	codif_tl_cfg_defaults(&cfg);
	CHECK_EQ_U(cfg.window, CODIF_SEQ_WINDOW_DEFAULT);
	/* in order */
	h_init(&x, 1, &cfg);
	h = fr(0);
	CHECK(h_push(&x, 0, &h, 0) == CODIF_SEQ_FIRST);
	CHECK(x.out.flags & CODIF_OUT_SEG_START);
	for (i = 1; i < 10; i++) {
		h = fr(i);
		CHECK(h_push(&x, 0, &h, i) == CODIF_SEQ_IN_ORDER);
	}
	CHECK_EQ_U(x.s[0].st.received, 10);
	CHECK_EQ_U(x.s[0].st.lost, 0);
	CHECK_EQ_U(x.s[0].st.bytes, 10 * 8256);
	INVARIANT(x.s[0]);
	h_free(&x);

	/* period wrap: 62498, 62499, then the next period's 0, 1 */
	h_init(&x, 1, &cfg);
	for (i = 62498; i < 62502; i++) {
		h = fr(i);
		CHECK(h_push(&x, 0, &h, i) == (i == 62498 ? CODIF_SEQ_FIRST : CODIF_SEQ_IN_ORDER));
	}
	CHECK_EQ_U(x.s[0].st.lost, 0);
	CHECK_EQ_U(x.s[0].st.received, 4);
	INVARIANT(x.s[0]);
	h_free(&x);

	/* a gap across the wrap: 62498 then next period's 1 = 2 lost; one of
	 * them arrives late */
	h_init(&x, 1, &cfg);
	h = fr(62498);
	h_push(&x, 0, &h, 0);
	h = fr(62501);
	CHECK(h_push(&x, 0, &h, 1) == CODIF_SEQ_GAP);
	CHECK_EQ_U(x.out.nlost, 2);
	CHECK_EQ_U(x.s[0].st.lost, 2);
	CHECK_EQ_U(x.s[0].st.gaps, 1);
	INVARIANT(x.s[0]);
	h = fr(62500);
	CHECK(h_push(&x, 0, &h, 2) == CODIF_SEQ_LATE);
	CHECK_EQ_U(x.s[0].st.lost, 1);
	CHECK_EQ_U(x.s[0].st.late, 1);
	INVARIANT(x.s[0]);
	h_free(&x);

	/* a swapped pair: 0 lost, 1 late (not "3 mismatches") */
	h_init(&x, 1, &cfg);
	{
		static const int order[] = { 0, 2, 1, 3 };

		for (i = 0; i < 4; i++) {
			h = fr(order[i]);
			h_push(&x, 0, &h, (uint64_t)order[i]);
		}
	}
	CHECK_EQ_U(x.s[0].st.lost, 0);
	CHECK_EQ_U(x.s[0].st.late, 1);
	CHECK_EQ_U(x.s[0].st.duplicate, 0);
	CHECK_EQ_U(x.s[0].st.received, 4);
	INVARIANT(x.s[0]);
	h_free(&x);

	/* duplicates: in order, and of a late frame */
	h_init(&x, 1, &cfg);
	{
		static const int order[] = { 0, 1, 1, 0, 3, 2, 2 };
		static const enum codif_seq_class want[] = {
			CODIF_SEQ_FIRST, CODIF_SEQ_IN_ORDER, CODIF_SEQ_DUPLICATE,
			CODIF_SEQ_DUPLICATE, CODIF_SEQ_GAP, CODIF_SEQ_LATE, CODIF_SEQ_DUPLICATE };

		for (i = 0; i < 7; i++) {
			h = fr(order[i]);
			CHECK(h_push(&x, 0, &h, i) == want[i]);
		}
	}
	CHECK_EQ_U(x.s[0].st.duplicate, 3);
	CHECK_EQ_U(x.s[0].st.received, 4);
	CHECK_EQ_U(x.s[0].st.bytes, 4 * 8256);
	INVARIANT(x.s[0]);
	h_free(&x);

	/* invalid-flagged: received, not lost, counted apart */
	h_init(&x, 1, &cfg);
	for (i = 0; i < 3; i++) {
		h = fr(i);
		h.invalid = i == 1;
		h_push(&x, 0, &h, i);
	}
	CHECK_EQ_U(x.s[0].st.received, 3);
	CHECK_EQ_U(x.s[0].st.invalid, 1);
	CHECK_EQ_U(x.s[0].st.lost, 0);
	h_free(&x);

	/* a frame older than the first, within the window */
	h_init(&x, 1, &cfg);
	h = fr(5);
	h_push(&x, 0, &h, 5);
	h = fr(3);
	CHECK(h_push(&x, 0, &h, 3) == CODIF_SEQ_LATE);
	CHECK_EQ_U(x.out.nlost, 1);
	CHECK_EQ_U(x.s[0].st.lost, 1);
	CHECK_EQ_U(codif_seq_expected(&x.s[0]), 3);
	h = fr(4);
	CHECK(h_push(&x, 0, &h, 4) == CODIF_SEQ_LATE);
	CHECK_EQ_U(x.s[0].st.lost, 0);
	INVARIANT(x.s[0]);
	h_free(&x);

	/* the window bits are recycled correctly as the stream moves on */
	cfg.window = 64;
	h_init(&x, 1, &cfg);
	for (i = 0; i <= 100000; i += 50) {
		h = fr(i);
		h_push(&x, 0, &h, i);
	}
	h = fr(99990);
	CHECK(h_push(&x, 0, &h, 1) == CODIF_SEQ_LATE);
	CHECK(h_push(&x, 0, &h, 2) == CODIF_SEQ_DUPLICATE);
	INVARIANT(x.s[0]);
	/* a frame the buffer refused after all: too late, lost again */
	codif_seq_unreceive(&x.s[0], CODIF_SEQ_LATE, false, 8256);
	CHECK_EQ_U(x.s[0].st.too_late, 1);
	CHECK_EQ_U(x.s[0].st.late, 0);
	INVARIANT(x.s[0]);
	h_free(&x);
}

/* The newest frame's time is stepped without division: it must equal the
 * exact time of every frame, across period wraps, gaps and odd durations. */
static void
test_sequence_times(void)
{
	struct harness x;
	struct codif_hdr h = example();
	unsigned int i;

	h.period = 1;
	h.totalsamples = 7 * 512; /* FPP 7: 142857142.857 ns frames */
	h_init(&x, 1, NULL);
	h.seconds = 1000;
	h.frame = 5;
	for (i = 0; i < 40; i++) {
		h_push(&x, 0, &h, i);
		CHECK_EQ_I(x.s[0].newest_time_ns, codif_frame_time_ns(&h));
		/* next: usually +1, sometimes a gap of 3 */
		h.frame += (i % 5 == 4) ? 3 : 1;
		while (h.frame >= 7) {
			h.frame -= 7;
			h.seconds += 1;
		}
	}
	CHECK_EQ_I(x.s[0].first_time_ns, 1000 * 1000000000LL + 5 * 1000000000LL / 7 +
		   codif_epoch_unix(50) * 1000000000LL);
	h_free(&x);
}

/* Random arrivals against a model that remembers every frame. */
static void
test_sequence_model(void)
{
	struct codif_tl_cfg cfg;
	unsigned int seed = 12345, round;

	codif_tl_cfg_defaults(&cfg);
	cfg.window = 1024;
	for (round = 0; round < 50; round++) {
		enum { N = 3000 };
		static unsigned char seen[N];
		uint64_t late = 0, dup = 0, recv = 0;
		int64_t newest = -1, first = -1;
		struct harness x;
		int i;

		memset(seen, 0, sizeof(seen));
		h_init(&x, 1, &cfg);
		for (i = 0; i < N * 2; i++) {
			int64_t base = i / 2, f;
			struct codif_hdr h;
			uint32_t r;

			seed = seed * 1103515245 + 12345;
			r = seed >> 8;
			f = base - (int64_t)(r % 64);
			if (r % 7 == 0)
				continue; /* not sent */
			if (f < 0 || f >= N)
				continue;
			h = fr(f);
			h_push(&x, 0, &h, (uint64_t)f);
			if (first < 0) {
				first = newest = f;
				seen[f] = 1;
				recv++;
				continue;
			}
			if (seen[f]) {
				dup++;
			} else {
				seen[f] = 1;
				recv++;
				if (f < newest)
					late++;
				if (f < first)
					first = f;
			}
			if (f > newest)
				newest = f;
		}
		CHECK_EQ_U(x.s[0].st.received, recv);
		CHECK_EQ_U(x.s[0].st.late, late);
		CHECK_EQ_U(x.s[0].st.duplicate, dup);
		CHECK_EQ_U(codif_seq_expected(&x.s[0]), (uint64_t)(newest - first + 1));
		CHECK_EQ_U(x.s[0].st.lost, (uint64_t)(newest - first + 1) - recv);
		CHECK_EQ_U(x.np, recv);
		h_free(&x);
	}
}

/* 2000 good frames of one stream, frame `at` replaced (replace) or
 * followed (extra) by the header h_bad. */
static void
one_outlier(const struct codif_hdr *bad, bool replace, const char *what)
{
	struct harness x;
	uint64_t skip = 1000;
	int64_t k;

	h_init(&x, 1, NULL);
	for (k = 0; k < 2000; k++) {
		struct codif_hdr h = fr(k);

		if (k == 1000) {
			CHECK(h_push(&x, 0, bad, 1000000) == CODIF_SEQ_SUSPECT);
			if (replace)
				continue;
		}
		h_push(&x, 0, &h, (uint64_t)k);
	}
	h_flush(&x);
	if (x.s[0].st.received != (replace ? 1999 : 2000))
		fprintf(stderr, "outlier %s (%s)\n", what, replace ? "replace" : "extra");
	CHECK_EQ_U(x.s[0].st.received, replace ? 1999 : 2000);
	CHECK_EQ_U(x.s[0].st.lost, replace ? 1 : 0);
	CHECK_EQ_U(x.s[0].st.implausible + x.s[0].st.param_change, 1);
	CHECK_EQ_U(x.dropped, 1);
	CHECK_EQ_U(x.s[0].st.resyncs, 0);
	CHECK_EQ_U(x.t.resyncs, 0);
	CHECK(placed_all_but(&x, 2000, &skip, replace ? 1 : 0));
	INVARIANT(x.s[0]);
	h_free(&x);
}

static void
test_timeline(void)
{
	struct codif_hdr bad;
	struct harness x;
	uint64_t three_h = 3ULL * 3600 / 27 * 62500, month = 30ULL * 86400 / 27 * 62500;
	int64_t k, skip[600];
	unsigned int i;
	bool replace;

	/* one bad header moves nothing: bit flips and lone far frames */
	for (replace = false; ; replace = true) {
		bad = fr(1000);
		bad.frame ^= 1u << 14;
		one_outlier(&bad, replace, "frame bit 14");
		bad = fr(1000);
		bad.seconds ^= 1u << 20;
		one_outlier(&bad, replace, "seconds bit 20");
		bad = fr(1000);
		bad.seconds ^= 1u << 3; /* on the grid? 8 s: no; still one outlier */
		one_outlier(&bad, replace, "seconds bit 3");
		bad = fr(1000);
		bad.epoch ^= 1;
		one_outlier(&bad, replace, "epoch");
		bad = fr(1000);
		bad.period ^= 1u << 3;
		bad.totalsamples = 32000000; /* still valid: FPP follows */
		one_outlier(&bad, replace, "period");
		bad = fr(1000 + (int64_t)month);
		one_outlier(&bad, replace, "+1 month");
		bad = fr(1000 - (int64_t)three_h);
		one_outlier(&bad, replace, "-3 h");
		bad = fr(1000);
		bad.nchan = 8;
		bad.totalsamples = 16000000;
		one_outlier(&bad, replace, "lone nchan");
		if (replace)
			break;
	}

	/* a burst of 500 lost frames (longer than the reorder window) is
	 * loss, every other frame placed */
	h_init(&x, 1, NULL);
	for (k = 0; k < 2000; k++) {
		struct codif_hdr h = fr(k);

		if (k >= 1000 && k < 1500) {
			skip[k - 1000] = k;
			continue;
		}
		h_push(&x, 0, &h, (uint64_t)k);
	}
	h_flush(&x);
	CHECK_EQ_U(x.s[0].st.lost, 500);
	CHECK_EQ_U(x.s[0].st.received, 1500);
	CHECK_EQ_U(x.s[0].st.implausible, 0);
	CHECK_EQ_U(x.t.resyncs, 0);
	CHECK(placed_all_but(&x, 2000, (uint64_t *)skip, 500));
	INVARIANT(x.s[0]);
	h_free(&x);

	/* permanent clock steps of +3 h and -3 h: one resync each, every
	 * frame placed (the confirming ones too), nothing lost */
	for (i = 0; i < 2; i++) {
		int64_t step = i == 0 ? (int64_t)three_h : -(int64_t)three_h;

		h_init(&x, 1, NULL);
		for (k = 0; k < 2000; k++) {
			struct codif_hdr h = fr(k >= 1000 ? k + step : k);

			h_push(&x, 0, &h, (uint64_t)k);
		}
		h_flush(&x);
		CHECK_EQ_U(x.t.resyncs, 1);
		CHECK_EQ_U(x.s[0].st.resyncs, 1);
		CHECK_EQ_U(x.resync_flags, 1);
		CHECK_EQ_U(x.s[0].st.received, 2000);
		CHECK_EQ_U(x.s[0].st.lost, 0);
		CHECK_EQ_U(x.s[0].st.implausible, 0);
		CHECK_EQ_U(x.s[0].st.resync_skipped, i == 0 ? three_h : 0);
		CHECK_EQ_U(x.t.last.skipped, i == 0 ? three_h : 0);
		CHECK_EQ_I(x.t.last.new_ns - x.t.last.old_ns,
			   (step + 1) * 432000LL);
		CHECK_EQ_U(codif_seq_expected(&x.s[0]), 2000);
		CHECK(placed_all_but(&x, 2000, NULL, 0));
		/* placed in frame order, the step frames in theirs */
		for (k = 1; k < 2000; k++)
			CHECK(x.placed[k] == (uint64_t)k);
		h_free(&x);
	}

	/* without arrival times (a file; a fast replay) a gap longer than
	 * --max-gap is a resync: skipped, not lost */
	h_init(&x, 1, NULL);
	for (k = 0; k < 6000; k++) {
		struct codif_hdr h = fr(k);

		if (k >= 1000 && k < 4000)
			continue; /* 3000 frames = 1.3 s > 1 s */
		h_push(&x, 0, &h, (uint64_t)k);
	}
	h_flush(&x);
	CHECK_EQ_U(x.t.resyncs, 1);
	CHECK_EQ_U(x.s[0].st.resync_skipped, 3000);
	CHECK_EQ_U(x.s[0].st.lost, 0);
	CHECK_EQ_U(x.s[0].st.received, 3000);
	h_free(&x);

	/* outage vs clock step by arrival times (432 us frames, arrival at
	 * 1e9 + the frame's place in time as the sender sends it): a silence
	 * whose data time agrees with the arrival gap is loss however long
	 * (skip frames of silence, the data jumping jump frames) */
	{
		static const struct {
			int64_t skip, jump;  /* frames: silence, data jump */
			bool resync;
			const char *what;
		} c[] = {
			{ 3000, 3000, false, "1.3 s outage" },
			{ 50000, 50000, false, "21.6 s outage" },
			{ 4630, 4630 + 3472, true, "2 s outage and a 1.5 s clock step" },
			{ 4630, 4630 - 3472, false, "2 s silence, data 0.5 s on: <= --max-gap, loss" },
			{ 11574, 4630, true, "5 s silence, data 2 s on: the clock behind" },
			{ 11574, 11574 + 3LL * 3600 / 27 * 62500, true, "5 s outage and a 3 h step" },
			{ 0, 2000, false, "0.86 s step, no silence: <= --max-gap, loss" },
			{ 0, 3000, true, "1.3 s step, no silence: a clock step" },
		};

		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			int64_t sent = 0;

			h_init(&x, 1, NULL);
			for (k = 0; k < 4000; k++, sent++) {
				int64_t idx = k < 1000 ? k : k + c[i].jump;
				struct codif_hdr h = fr(idx);

				if (k == 1000)
					sent += c[i].skip;
				h_push_at(&x, 0, &h, (uint64_t)k, 1000000000LL + sent * 432000);
			}
			h_flush(&x);
			if (x.t.resyncs != (c[i].resync ? 1u : 0u) ||
			    x.s[0].st.lost != (c[i].resync ? 0u : (uint64_t)c[i].jump) ||
			    x.s[0].st.received != 4000 ||
			    x.s[0].st.resync_skipped != (c[i].resync ? (uint64_t)c[i].jump : 0u))
				fprintf(stderr, "outage case '%s': resyncs %" PRIu64 " lost %" PRIu64
					" received %" PRIu64 " skipped %" PRIu64 "\n", c[i].what,
					x.t.resyncs, x.s[0].st.lost, x.s[0].st.received,
					x.s[0].st.resync_skipped);
			CHECK_EQ_U(x.t.resyncs, c[i].resync ? 1 : 0);
			CHECK_EQ_U(x.s[0].st.lost, c[i].resync ? 0 : (uint64_t)c[i].jump);
			CHECK_EQ_U(x.s[0].st.resync_skipped, c[i].resync && c[i].jump > 0 ?
					(uint64_t)c[i].jump : 0);
			CHECK_EQ_U(x.s[0].st.received, 4000);
			CHECK_EQ_U(x.t.outages, !c[i].resync && c[i].jump > 2314 ? 1 : 0);
			if (!c[i].resync && c[i].jump > 2314) {
				CHECK_EQ_I(x.t.last_outage.frames, c[i].jump);
				CHECK_EQ_I(x.t.last_outage.arrival_gap_ns, (c[i].skip + 1) * 432000);
			}
			CHECK(placed_all_but(&x, 4000, NULL, 0));
			INVARIANT(x.s[0]);
			h_free(&x);
		}
	}

	/* a parameter change that changes the clock (nchan 4 -> 8 with the
	 * same totalsamples: FPP 62500 -> 125000): a resync with new
	 * parameters after K frames, time going on */
	h_init(&x, 1, NULL);
	for (k = 0; k < 2000; k++) {
		struct codif_hdr h = fr(k);

		if (k >= 1000) {
			int64_t j = 2000 + (k - 1000);

			h.nchan = 8;
			h.seconds = 5918400 + 27 * (uint32_t)(j / 125000);
			h.frame = (uint32_t)(j % 125000);
		}
		h_push(&x, 0, &h, (uint64_t)k);
	}
	h_flush(&x);
	CHECK_EQ_U(x.t.resyncs, 1);
	CHECK(x.t.last.new_clock);
	CHECK_EQ_I(x.t.last.new_ns - x.t.last.old_ns, 432000);
	CHECK_EQ_U(x.s[0].st.resync_skipped, 0);
	CHECK_EQ_U(x.s[0].st.new_params, 1);
	CHECK_EQ_U(x.newparam_flags, 1);
	CHECK_EQ_U(x.s[0].st.received, 2000);
	CHECK_EQ_U(x.s[0].st.param_change, 0);
	CHECK_EQ_U(x.s[0].ref.nchan, 8);
	CHECK(placed_all_but(&x, 2000, NULL, 0));
	h_free(&x);

	/* new parameters on the same clock (representation 1 -> 0): the
	 * stream's own new segment, no resync of the timeline */
	h_init(&x, 2, NULL);
	for (k = 0; k < 200; k++) {
		struct codif_hdr h = fr(k);

		h.threadid = 1;
		h_push(&x, 1, &h, 10000 + (uint64_t)k);
		h = fr(k);
		if (k >= 100)
			h.representation = 0;
		h_push(&x, 0, &h, (uint64_t)k);
	}
	h_flush(&x);
	CHECK_EQ_U(x.t.resyncs, 0);
	CHECK_EQ_U(x.s[0].st.new_params, 1);
	CHECK_EQ_U(x.s[1].st.new_params, 0);
	CHECK_EQ_U(x.s[0].st.received, 200);
	CHECK_EQ_U(x.s[0].st.lost, 0);
	CHECK_EQ_U(codif_seq_expected(&x.s[0]), 200);
	CHECK_EQ_U(x.np, 400);
	h_free(&x);

	/* eight streams of one antenna step together (+3 h): the timeline
	 * resyncs once, every stream starts a new segment, nothing lost; and
	 * a lone stray frame of one stream among them moves nothing */
	h_init(&x, 8, NULL);
	for (k = 0; k < 400; k++) {
		unsigned int si;

		for (si = 0; si < 8; si++) {
			struct codif_hdr h = fr(k >= 200 ? k + (int64_t)three_h : k);

			h.threadid = (uint16_t)si;
			h_push(&x, si, &h, (uint64_t)(k * 8 + si));
		}
		if (k == 100) {
			struct codif_hdr h = fr(k + (int64_t)month);

			h.threadid = 3;
			CHECK(h_push(&x, 3, &h, 100000) == CODIF_SEQ_SUSPECT);
		}
	}
	h_flush(&x);
	CHECK_EQ_U(x.t.resyncs, 1);
	for (i = 0; i < 8; i++) {
		CHECK_EQ_U(x.s[i].st.resyncs, 1);
		CHECK_EQ_U(x.s[i].st.received, 400);
		CHECK_EQ_U(x.s[i].st.lost, 0);
		CHECK_EQ_U(x.s[i].st.resync_skipped, three_h);
		INVARIANT(x.s[i]);
	}
	CHECK_EQ_U(x.s[3].st.implausible, 1);
	CHECK_EQ_U(x.dropped, 1);
	CHECK(placed_all_but(&x, 3200, NULL, 0));
	h_free(&x);

	/* a stray among the step's frames does not cost a good frame */
	h_init(&x, 1, NULL);
	for (k = 0; k < 400; k++) {
		struct codif_hdr h = fr(k >= 200 ? k + (int64_t)three_h : k);

		h_push(&x, 0, &h, (uint64_t)k);
		if (k == 201) {
			h = fr(k + (int64_t)month);
			h_push(&x, 0, &h, 100000);
		}
	}
	h_flush(&x);
	CHECK_EQ_U(x.t.resyncs, 1);
	CHECK_EQ_U(x.s[0].st.received, 400);
	CHECK_EQ_U(x.s[0].st.implausible, 1);
	CHECK(placed_all_but(&x, 400, NULL, 0));
	h_free(&x);

	/* a stream that stops while its antenna goes on: at the end its
	 * missing frames are lost (its buffer slot holds gaps there) */
	h_init(&x, 2, NULL);
	for (k = 0; k < 100; k++) {
		struct codif_hdr h = fr(k);

		h_push(&x, 0, &h, (uint64_t)k);
		if (k < 60) {
			h.threadid = 1;
			h_push(&x, 1, &h, 1000 + (uint64_t)k);
		}
	}
	h_flush(&x);
	CHECK_EQ_U(x.s[1].st.lost, 40);
	CHECK_EQ_U(codif_seq_expected(&x.s[1]), 100);
	INVARIANT(x.s[1]);
	h_flush(&x); /* twice: nothing more */
	CHECK_EQ_U(x.s[1].st.lost, 40);
	h_free(&x);

	/* configuration checks */
	{
		struct codif_tl_cfg c;
		char err[200];

		codif_tl_cfg_defaults(&c);
		CHECK(codif_tl_cfg_check(&c, err, sizeof(err)) == 0);
		c.confirm = 1;
		CHECK(codif_tl_cfg_check(&c, err, sizeof(err)) == -EINVAL);
		CHECK_HAS(err, "confirm 1, expected 2..16");
		codif_tl_cfg_defaults(&c);
		c.window = 1000;
		CHECK(codif_tl_cfg_check(&c, err, sizeof(err)) == -EINVAL);
		CHECK_HAS(err, "power of two");
		codif_tl_cfg_defaults(&c);
		c.ahead = 5000;
		CHECK(codif_tl_cfg_check(&c, err, sizeof(err)) == -EINVAL);
	}
}

static void
test_pattern(void)
{
	struct codif_hdr h = example(), h2;
	uint8_t a[8192], b[8192];
	size_t off;

	codif_pattern_fill(&h, a, sizeof(a));
	codif_pattern_fill(&h, b, sizeof(b));
	CHECK(memcmp(a, b, sizeof(a)) == 0);
	CHECK(codif_pattern_check(&h, a, sizeof(a), &off));
	a[5000] ^= 0x10;
	CHECK(!codif_pattern_check(&h, a, sizeof(a), &off));
	CHECK_EQ_U(off, 5000);
	h2 = h;
	h2.frame++;
	codif_pattern_fill(&h2, b, sizeof(b));
	CHECK(memcmp(a, b, 64) != 0);
	/* odd length tail */
	codif_pattern_fill(&h, a, 13);
	CHECK(codif_pattern_check(&h, a, 13, &off));
	/* same ids and time, invalid flag differs: same payload */
	h2 = h;
	h2.invalid = true;
	CHECK_EQ_U(codif_pattern_seed(&h), codif_pattern_seed(&h2));
}

static void
test_station(void)
{
	char st[3];

	codif_station_str('A' << 8 | 'K', st);
	CHECK_STR(st, "AK");
	codif_station_str(0x0001, st);
	CHECK_STR(st, "..");
	CHECK_STR(codif_seq_class_name(CODIF_SEQ_LATE), "late");
}

int
main(void)
{
	test_fields();
	test_worked_example();
	test_time();
	test_clock();
	test_identify();
	test_validate();
	test_sequence();
	test_sequence_times();
	test_sequence_model();
	test_timeline();
	test_pattern();
	test_station();
	return check_report("test_codif");
}
