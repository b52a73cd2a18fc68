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
}

static void
test_index(void)
{
	struct codif_hdr h = example();
	uint32_t s, f;
	int64_t n;

	h.frame = 62499;
	CHECK_EQ_I(codif_frame_index(&h, 5918400, 62500), 62499);
	h.seconds += 27;
	h.frame = 0;
	CHECK_EQ_I(codif_frame_index(&h, 5918400, 62500), 62500);
	h.seconds -= 54;
	h.frame = 62499;
	CHECK_EQ_I(codif_frame_index(&h, 5918400, 62500), -1);
	for (n = -200000; n < 200000; n += 7919) {
		codif_index_to_time(n, 5918400, 27, 62500, &s, &f);
		h.seconds = s;
		h.frame = f;
		CHECK_EQ_I(codif_frame_index(&h, 5918400, 62500), n);
		CHECK(f < 62500);
	}
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

/* Push frame (seconds offset in periods, frame) into s. */
static enum codif_seq_class
push(struct codif_seq *s, int periods, uint32_t frame, bool invalid)
{
	struct codif_hdr h = example();
	int64_t idx;
	uint64_t nl;

	h.seconds = (uint32_t)(5918400 + periods * 27);
	h.frame = frame;
	h.invalid = invalid;
	return codif_seq_push(s, &h, 8256, &idx, &nl, NULL, 0);
}

#define INVARIANT(s) CHECK_EQ_U((s).st.received + (s).st.lost, codif_seq_expected(&(s)))

static void
test_sequence(void)
{
	struct codif_seq s;
	struct codif_hdr h;
	int64_t idx;
	uint64_t nl;
	char err[256];
	uint32_t i;

	CHECK(codif_seq_init(&s, 0) == 0);
	CHECK_EQ_U(s.window, CODIF_SEQ_WINDOW_DEFAULT);

	/* in order */
	CHECK(push(&s, 0, 0, false) == CODIF_SEQ_FIRST);
	for (i = 1; i < 10; i++)
		CHECK(push(&s, 0, i, false) == CODIF_SEQ_IN_ORDER);
	CHECK_EQ_U(s.st.received, 10);
	CHECK_EQ_U(s.st.lost, 0);
	CHECK_EQ_U(s.st.bytes, 10 * 8256);
	INVARIANT(s);

	/* period wrap: 62498, 62499, then the next period's 0, 1 */
	codif_seq_reset(&s);
	CHECK(push(&s, 0, 62498, false) == CODIF_SEQ_FIRST);
	CHECK(push(&s, 0, 62499, false) == CODIF_SEQ_IN_ORDER);
	CHECK(push(&s, 1, 0, false) == CODIF_SEQ_IN_ORDER);
	CHECK(push(&s, 1, 1, false) == CODIF_SEQ_IN_ORDER);
	CHECK_EQ_U(s.st.lost, 0);
	CHECK_EQ_U(s.st.received, 4);
	INVARIANT(s);

	/* a gap across the wrap: 62498 then next period's 1 = 2 lost */
	codif_seq_reset(&s);
	push(&s, 0, 62498, false);
	h = example();
	h.seconds = 5918400 + 27;
	h.frame = 1;
	CHECK(codif_seq_push(&s, &h, 8256, &idx, &nl, NULL, 0) == CODIF_SEQ_GAP);
	CHECK_EQ_U(nl, 2);
	CHECK_EQ_I(idx, 62501);
	CHECK_EQ_U(s.st.lost, 2);
	CHECK_EQ_U(s.st.gaps, 1);
	INVARIANT(s);
	/* ... one of them arrives late */
	CHECK(push(&s, 1, 0, false) == CODIF_SEQ_LATE);
	CHECK_EQ_U(s.st.lost, 1);
	CHECK_EQ_U(s.st.late, 1);
	INVARIANT(s);

	/* a swapped pair: 0 lost, 1 late (not "3 mismatches") */
	codif_seq_reset(&s);
	push(&s, 0, 0, false);
	CHECK(push(&s, 0, 2, false) == CODIF_SEQ_GAP);
	CHECK(push(&s, 0, 1, false) == CODIF_SEQ_LATE);
	CHECK(push(&s, 0, 3, false) == CODIF_SEQ_IN_ORDER);
	CHECK_EQ_U(s.st.lost, 0);
	CHECK_EQ_U(s.st.late, 1);
	CHECK_EQ_U(s.st.duplicate, 0);
	CHECK_EQ_U(s.st.received, 4);
	INVARIANT(s);

	/* reordering deeper: 0 4 1 3 2 5 */
	codif_seq_reset(&s);
	push(&s, 0, 0, false);
	push(&s, 0, 4, false);
	CHECK_EQ_U(s.st.lost, 3);
	push(&s, 0, 1, false);
	push(&s, 0, 3, false);
	push(&s, 0, 2, false);
	push(&s, 0, 5, false);
	CHECK_EQ_U(s.st.lost, 0);
	CHECK_EQ_U(s.st.late, 3);
	CHECK_EQ_U(s.st.received, 6);
	INVARIANT(s);

	/* duplicates: in order and of a late frame */
	codif_seq_reset(&s);
	push(&s, 0, 0, false);
	push(&s, 0, 1, false);
	CHECK(push(&s, 0, 1, false) == CODIF_SEQ_DUPLICATE);
	CHECK(push(&s, 0, 0, false) == CODIF_SEQ_DUPLICATE);
	push(&s, 0, 3, false);
	CHECK(push(&s, 0, 2, false) == CODIF_SEQ_LATE);
	CHECK(push(&s, 0, 2, false) == CODIF_SEQ_DUPLICATE);
	CHECK_EQ_U(s.st.duplicate, 3);
	CHECK_EQ_U(s.st.received, 4);
	CHECK_EQ_U(s.st.bytes, 4 * 8256);
	INVARIANT(s);

	/* invalid-flagged: received, not lost, counted apart */
	codif_seq_reset(&s);
	push(&s, 0, 0, false);
	CHECK(push(&s, 0, 1, true) == CODIF_SEQ_IN_ORDER);
	push(&s, 0, 2, false);
	CHECK_EQ_U(s.st.received, 3);
	CHECK_EQ_U(s.st.invalid, 1);
	CHECK_EQ_U(s.st.lost, 0);

	/* a frame older than the first, within the window */
	codif_seq_reset(&s);
	push(&s, 0, 5, false);
	h = example();
	h.seconds = 5918400;
	h.frame = 3;
	CHECK(codif_seq_push(&s, &h, 8256, &idx, &nl, NULL, 0) == CODIF_SEQ_LATE);
	CHECK_EQ_U(nl, 1);
	codif_seq_reset(&s);
	push(&s, 0, 5, false);
	CHECK(push(&s, 0, 3, false) == CODIF_SEQ_LATE);
	CHECK_EQ_U(s.st.lost, 1);
	CHECK_EQ_U(codif_seq_expected(&s), 3);
	CHECK(push(&s, 0, 4, false) == CODIF_SEQ_LATE);
	CHECK_EQ_U(s.st.lost, 0);
	INVARIANT(s);

	/* parameter change: counted, not placed */
	codif_seq_reset(&s);
	push(&s, 0, 0, false);
	h = example();
	h.frame = 1;
	h.nchan = 8;
	h.totalsamples = 16000000;
	CHECK(codif_seq_push(&s, &h, 8256, &idx, &nl, err, sizeof(err)) ==
	      CODIF_SEQ_PARAM_CHANGE);
	CHECK_HAS(err, "parameter change: nchan 8, expected 4");
	CHECK_EQ_U(s.st.param_change, 1);
	CHECK_EQ_U(s.st.received, 1);

	/* seconds not on a period boundary from the first */
	h = example();
	h.seconds += 13;
	CHECK(codif_seq_push(&s, &h, 8256, &idx, &nl, err, sizeof(err)) ==
	      CODIF_SEQ_MALFORMED);
	CHECK_HAS(err, "plus a multiple of the period 27");
	codif_seq_free(&s);

	/* too old for the window */
	CHECK(codif_seq_init(&s, 64) == 0);
	push(&s, 0, 0, false);
	push(&s, 0, 200, false);
	CHECK(push(&s, 0, 100, false) == CODIF_SEQ_TOO_OLD);
	CHECK(push(&s, 0, 137, false) == CODIF_SEQ_LATE);
	CHECK(push(&s, 0, 136, false) == CODIF_SEQ_TOO_OLD);
	CHECK_EQ_U(s.st.too_old, 2);
	/* the window bits are recycled correctly after big jumps */
	push(&s, 0, 100000, false);
	CHECK(push(&s, 0, 99990, false) == CODIF_SEQ_LATE);
	CHECK(push(&s, 0, 99990, false) == CODIF_SEQ_DUPLICATE);
	INVARIANT(s);
	codif_seq_free(&s);
}

/* The newest frame's time is stepped without division: it must equal the
 * exact time of every frame, across period wraps, gaps and odd durations. */
static void
test_sequence_times(void)
{
	struct codif_seq s;
	struct codif_hdr h = example();
	unsigned int i;
	int64_t idx;
	uint64_t nl;

	h.period = 1;
	h.totalsamples = 7 * 512; /* FPP 7: 142857142.857 ns frames */
	CHECK(codif_seq_init(&s, 0) == 0);
	h.seconds = 1000;
	h.frame = 5;
	for (i = 0; i < 40; i++) {
		codif_seq_push(&s, &h, 8256, &idx, &nl, NULL, 0);
		CHECK_EQ_I(s.newest_time_ns, codif_frame_time_ns(&h));
		/* next: usually +1, sometimes a gap of 3 */
		h.frame += (i % 5 == 4) ? 3 : 1;
		while (h.frame >= 7) {
			h.frame -= 7;
			h.seconds += 1;
		}
	}
	CHECK_EQ_I(s.first_time_ns, 1000 * 1000000000LL + 5 * 1000000000LL / 7 +
		   codif_epoch_unix(50) * 1000000000LL);
	codif_seq_free(&s);
}

/* Random arrivals against a model that remembers every frame. */
static void
test_sequence_model(void)
{
	struct codif_seq s;
	unsigned int seed = 12345, round;

	for (round = 0; round < 50; round++) {
		enum { N = 3000 };
		static unsigned char seen[N];
		uint64_t late = 0, dup = 0, recv = 0;
		int64_t newest = -1, first = -1;
		int i;

		memset(seen, 0, sizeof(seen));
		CHECK(codif_seq_init(&s, 1024) == 0);
		for (i = 0; i < N * 2; i++) {
			int64_t base = i / 2, f;
			uint32_t r;

			seed = seed * 1103515245 + 12345;
			r = seed >> 8;
			f = base - (int64_t)(r % 64);
			if (r % 7 == 0)
				continue; /* not sent */
			if (f < 0 || f >= N)
				continue;
			push(&s, (int)(f / 62500), (uint32_t)(f % 62500), false);
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
		CHECK_EQ_U(s.st.received, recv);
		CHECK_EQ_U(s.st.late, late);
		CHECK_EQ_U(s.st.duplicate, dup);
		CHECK_EQ_U(codif_seq_expected(&s), (uint64_t)(newest - first + 1));
		CHECK_EQ_U(s.st.lost, (uint64_t)(newest - first + 1) - recv);
		codif_seq_free(&s);
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
	test_index();
	test_identify();
	test_validate();
	test_sequence();
	test_sequence_times();
	test_sequence_model();
	test_pattern();
	test_station();
	return check_report("test_codif");
}
