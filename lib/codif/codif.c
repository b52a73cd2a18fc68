/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF v3 header codec, validation, time arithmetic and stream tracking. */

#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codif.h"
#include "wire.h"

static void
seterr(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
seterr(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errbuf == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#define BITS(w, lo, n) (((w) >> (lo)) & ((n) == 64 ? ~0ULL : ((1ULL << (n)) - 1)))

int
codif_decode(const void *buf, size_t len, struct codif_hdr *h, char *errbuf,
	     size_t errlen)
{
	const uint8_t *p = buf;
	uint64_t w[8];
	int i;

	if (buf == NULL || len < CODIF_HDR_LEN) {
		seterr(errbuf, errlen,
		       "truncated: %zu bytes, a CODIF header needs %d", len,
		       CODIF_HDR_LEN);
		return -EINVAL;
	}
	for (i = 0; i < 8; i++)
		w[i] = ld_le64(p + 8 * i);

	h->frame = (uint32_t)BITS(w[0], 0, 32);
	h->seconds = (uint32_t)BITS(w[0], 32, 32);
	h->epoch = (uint8_t)BITS(w[1], 0, 8);
	h->nbits = (uint8_t)BITS(w[1], 8, 8);
	h->atypical = BITS(w[1], 16, 1);
	h->invalid = BITS(w[1], 17, 1);
	h->complex = BITS(w[1], 18, 1);
	h->cal = BITS(w[1], 19, 1);
	h->representation = (uint8_t)BITS(w[1], 20, 4);
	h->version = (uint8_t)BITS(w[1], 24, 5);
	h->protocol = (uint8_t)BITS(w[1], 29, 3);
	h->reserved = (uint16_t)BITS(w[1], 32, 16);
	h->period = (uint16_t)BITS(w[1], 48, 16);
	h->threadid = (uint16_t)BITS(w[2], 0, 16);
	h->groupid = (uint16_t)BITS(w[2], 16, 16);
	h->secondaryid = (uint16_t)BITS(w[2], 32, 16);
	h->stationid = (uint16_t)BITS(w[2], 48, 16);
	h->nchan = (uint16_t)BITS(w[3], 0, 16);
	h->blocklength = (uint16_t)BITS(w[3], 16, 16);
	h->framelength8 = (uint32_t)BITS(w[3], 32, 32);
	h->totalsamples = w[4];
	h->sync = (uint32_t)BITS(w[5], 0, 32);
	h->metaid = (uint16_t)BITS(w[5], 32, 16);
	/* metadata: bytes 46..63 as they lie on the wire */
	memcpy(h->metadata, p + 46, sizeof(h->metadata));
	return 0;
}

void
codif_encode(const struct codif_hdr *h, void *buf)
{
	uint8_t *p = buf;
	uint64_t w[6];
	int i;

	w[0] = (uint64_t)h->frame | (uint64_t)h->seconds << 32;
	w[1] = (uint64_t)h->epoch | (uint64_t)h->nbits << 8 |
	       (uint64_t)(h->atypical ? 1 : 0) << 16 |
	       (uint64_t)(h->invalid ? 1 : 0) << 17 |
	       (uint64_t)(h->complex ? 1 : 0) << 18 |
	       (uint64_t)(h->cal ? 1 : 0) << 19 |
	       (uint64_t)(h->representation & 0xf) << 20 |
	       (uint64_t)(h->version & 0x1f) << 24 |
	       (uint64_t)(h->protocol & 0x7) << 29 |
	       (uint64_t)h->reserved << 32 | (uint64_t)h->period << 48;
	w[2] = (uint64_t)h->threadid | (uint64_t)h->groupid << 16 |
	       (uint64_t)h->secondaryid << 32 | (uint64_t)h->stationid << 48;
	w[3] = (uint64_t)h->nchan | (uint64_t)h->blocklength << 16 |
	       (uint64_t)h->framelength8 << 32;
	w[4] = h->totalsamples;
	w[5] = (uint64_t)h->sync | (uint64_t)h->metaid << 32;
	for (i = 0; i < 6; i++)
		st_le64(p + 8 * i, w[i]);
	/* word 5 bits 48-63 and words 6, 7: the 18 metadata bytes */
	memcpy(p + 46, h->metadata, sizeof(h->metadata));
}

int
codif_identify(const void *buf, size_t len, char *errbuf, size_t errlen)
{
	const uint8_t *p = buf;
	uint32_t sync;
	unsigned int proto, i;

	if (buf == NULL || len < CODIF_HDR_LEN) {
		seterr(errbuf, errlen,
		       "truncated: %zu bytes, a CODIF header needs %d", len,
		       CODIF_HDR_LEN);
		return -EINVAL;
	}
	sync = ld_le32(p + 40);
	proto = p[11] >> 5;
	if (sync == CODIF_SYNC && proto == CODIF_PROTOCOL)
		return 0;
	for (i = 0; i + 4 <= CODIF_HDR_LEN; i += 4) {
		uint32_t v = ld_le32(p + i);

		if (v == CODIF_SYNC_LEGACY1 || v == CODIF_SYNC_LEGACY2) {
			seterr(errbuf, errlen,
			       "not CODIF v3: legacy CODIF sync word 0x%08" PRIX32
			       " at byte %u (expected 0x%08X at byte 40)",
			       v, i, CODIF_SYNC);
			return -EPROTO;
		}
	}
	if (sync == CODIF_SYNC) {
		seterr(errbuf, errlen,
		       "not CODIF v3: protocol %u, expected %d (CODIF)%s", proto,
		       CODIF_PROTOCOL,
		       proto <= 1 ? " (0/1 is VDIF's version field)" : "");
		return -EPROTO;
	}
	if (proto <= 1) {
		/* VDIF: word 2 bits 0-23 = frame length in 8-byte units, header incl. */
		uint32_t w2 = ld_le32(p + 8);

		seterr(errbuf, errlen,
		       "VDIF version %u, not CODIF (VDIF frame length %u bytes; "
		       "sync 0x%08" PRIX32 ", expected 0x%08X)",
		       proto, (w2 & 0xffffff) * 8, sync, CODIF_SYNC);
		return -EPROTO;
	}
	seterr(errbuf, errlen,
	       "not CODIF v3: sync 0x%08" PRIX32 ", expected 0x%08X", sync,
	       CODIF_SYNC);
	return -EPROTO;
}

uint64_t
codif_data_bytes(const struct codif_hdr *h)
{
	return (uint64_t)h->framelength8 * 8;
}

uint64_t
codif_bits_per_sample(const struct codif_hdr *h)
{
	return (uint64_t)h->nchan * h->nbits * (h->complex ? 2 : 1);
}

uint64_t
codif_samples_per_frame(const struct codif_hdr *h)
{
	uint64_t bps = codif_bits_per_sample(h);
	uint64_t bits = codif_data_bytes(h) * 8;

	if (bps == 0 || bits % bps != 0)
		return 0;
	return bits / bps;
}

uint64_t
codif_frames_per_period(const struct codif_hdr *h)
{
	uint64_t spf = codif_samples_per_frame(h);

	if (spf == 0 || h->totalsamples == 0 || h->totalsamples % spf != 0)
		return 0;
	return h->totalsamples / spf;
}

uint64_t
codif_frame_ns(const struct codif_hdr *h)
{
	uint64_t fpp = codif_frames_per_period(h);

	if (fpp == 0)
		return 0;
	return (uint64_t)h->period * 1000000000ULL / fpp;
}

double
codif_data_rate_bps(const struct codif_hdr *h)
{
	uint64_t fpp = codif_frames_per_period(h);

	if (fpp == 0 || h->period == 0)
		return 0.0;
	return (double)codif_data_bytes(h) * 8.0 * (double)fpp /
	       (double)h->period;
}

static __int128 frame_time_wide(const struct codif_hdr *h, uint64_t fpp);

int
codif_validate(const struct codif_hdr *h, size_t payload_len, char *errbuf,
	       size_t errlen)
{
	uint64_t bps, spf, fpp;

	if (h->sync != CODIF_SYNC) {
		seterr(errbuf, errlen, "sync 0x%08" PRIX32 ", expected 0x%08X",
		       h->sync, CODIF_SYNC);
		return -EPROTO;
	}
	if (h->protocol != CODIF_PROTOCOL) {
		seterr(errbuf, errlen, "protocol %u, expected %d (CODIF)",
		       h->protocol, CODIF_PROTOCOL);
		return -EPROTO;
	}
	if (h->nbits == 0) {
		seterr(errbuf, errlen, "nbits 0, expected 1..255");
		return -EPROTO;
	}
	if (h->nchan == 0) {
		seterr(errbuf, errlen, "nchan 0, expected >= 1");
		return -EPROTO;
	}
	if (h->period == 0) {
		seterr(errbuf, errlen, "period 0, expected >= 1 s");
		return -EPROTO;
	}
	if (h->framelength8 == 0) {
		seterr(errbuf, errlen, "framelength8 0, expected >= 1");
		return -EPROTO;
	}
	bps = codif_bits_per_sample(h);
	spf = codif_samples_per_frame(h);
	if (spf == 0) {
		seterr(errbuf, errlen,
		       "framelength8 %" PRIu32 " (%" PRIu64
		       " data bits), expected a multiple of %" PRIu64
		       "-bit samples (nchan %u x nbits %u x %s)",
		       h->framelength8, codif_data_bytes(h) * 8, bps, h->nchan,
		       h->nbits, h->complex ? "2 complex" : "1 real");
		return -EPROTO;
	}
	fpp = codif_frames_per_period(h);
	if (fpp != 0 && fpp <= UINT32_MAX && frame_time_wide(h, fpp) > CODIF_TIME_MAX) {
		seterr(errbuf, errlen,
		       "seconds %" PRIu32 " of epoch %u: a time after %s, beyond the "
		       "int64-nanosecond range (expected a time up to 2262-04-11)",
		       h->seconds, h->epoch, "2262-04-11T23:47:16.854775807Z");
		return -EPROTO;
	}
	if (fpp == 0 || fpp > UINT32_MAX) {
		seterr(errbuf, errlen,
		       "totalsamples %" PRIu64 ", expected a non-zero multiple "
		       "of %" PRIu64 " samples per frame (at most 2^32 frames per period)",
		       h->totalsamples, spf);
		return -EPROTO;
	}
	if (h->frame >= fpp) {
		seterr(errbuf, errlen,
		       "frame %" PRIu32 ", expected < %" PRIu64
		       " (frames per period)",
		       h->frame, fpp);
		return -EPROTO;
	}
	if (payload_len != SIZE_MAX && payload_len != codif_data_bytes(h)) {
		seterr(errbuf, errlen,
		       "data length %zu bytes, expected framelength8*8 = %" PRIu64,
		       payload_len, codif_data_bytes(h));
		return -EPROTO;
	}
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's method). */
static int64_t
days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, unsigned int *m, unsigned int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (unsigned int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

int64_t
codif_epoch_unix(unsigned int epoch)
{
	return days_from_civil(2000 + epoch / 2, (epoch & 1) ? 7 : 1, 1) * 86400;
}

unsigned int
codif_epoch_for_unix(int64_t t)
{
	int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
	int64_t y;
	unsigned int m, d;
	int64_t e;

	civil_from_days(days, &y, &m, &d);
	e = (y - 2000) * 2 + (m >= 7 ? 1 : 0);
	if (e < 0)
		return 0;
	if (e > 255)
		return 255;
	return (unsigned int)e;
}

/* The frame time of h as a 128-bit number of ns (never wraps). */
static __int128
frame_time_wide(const struct codif_hdr *h, uint64_t fpp)
{
	/* frame * period * 1e9 / FPP overflows 64 bits for large periods */
	unsigned __int128 off = (unsigned __int128)h->frame * h->period * 1000000000u / fpp;

	return ((__int128)codif_epoch_unix(h->epoch) + h->seconds) * 1000000000 +
	       (__int128)off;
}

int64_t
codif_frame_time_ns(const struct codif_hdr *h)
{
	uint64_t fpp = codif_frames_per_period(h);
	__int128 t;

	if (fpp == 0)
		return INT64_MIN;
	t = frame_time_wide(h, fpp);
	/* beyond 2262-04-11T23:47:16.854775807Z (epoch 255 and a late
	 * seconds field reach 2263): no time, never a wrapped one */
	return t > INT64_MAX ? INT64_MIN : (int64_t)t;
}

int
codif_time_range_check(const char *what, __int128 ns, char *err, size_t len)
{
	char lo[CODIF_TIMESTR_LEN], hi[CODIF_TIMESTR_LEN];

	if (ns >= CODIF_TIME_MIN && ns <= CODIF_TIME_MAX)
		return 0;
	seterr(err, len, "%s is %s the times this program can hold: %s .. %s (int64 ns since "
	       "1970)", what, ns > CODIF_TIME_MAX ? "after" : "before",
	       codif_time_str(CODIF_TIME_MIN, lo, sizeof(lo)),
	       codif_time_str(CODIF_TIME_MAX, hi, sizeof(hi)));
	return -ERANGE;
}

char *
codif_time_str(int64_t unix_ns, char *buf, size_t len)
{
	int64_t sec = unix_ns / 1000000000LL;
	int64_t ns = unix_ns % 1000000000LL;
	int64_t days, rem, y;
	unsigned int m, d;

	if (ns < 0) {
		ns += 1000000000LL;
		sec--;
	}
	days = sec >= 0 ? sec / 86400 : (sec - 86399) / 86400;
	rem = sec - days * 86400;
	civil_from_days(days, &y, &m, &d);
	snprintf(buf, len, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%09" PRId64 "Z",
		 y, m, d, (unsigned int)(rem / 3600),
		 (unsigned int)(rem / 60 % 60), (unsigned int)(rem % 60), ns);
	return buf;
}

static int
parse_uint(const char **sp, int ndig, unsigned int *out)
{
	const char *s = *sp;
	unsigned int v = 0;
	int i;

	for (i = 0; i < ndig; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	*sp = s + ndig;
	*out = v;
	return 0;
}

static int
parse_frac_ns(const char **sp, int64_t *ns)
{
	const char *s = *sp;
	int64_t v = 0;
	int n = 0;

	if (*s != '.') {
		*ns = 0;
		return 0;
	}
	s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		if (n < 9) {
			v = v * 10 + (*s - '0');
			n++;
		} else if (*s != '0') {
			return -1; /* finer than 1 ns */
		}
		s++;
	}
	while (n++ < 9)
		v *= 10;
	*ns = v;
	*sp = s;
	return 0;
}

int
codif_parse_time(const char *s, int64_t *unix_ns)
{
	unsigned int y, mo, d, hh, mi, ss;
	int64_t ns, sec;
	const char *p = s;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	if (*p == '@')
		p++;
	if (strchr(p, '-') == NULL || p != s) {
		/* seconds since the Unix epoch, optional fraction */
		int64_t v = 0;

		bool big = false;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		while (isdigit((unsigned char)*p)) {
			if (v > INT64_MAX / 10 - 9)
				big = true; /* read on: a bad tail is -EINVAL */
			else
				v = v * 10 + (*p - '0');
			p++;
		}
		if (parse_frac_ns(&p, &ns) != 0 || *p != '\0')
			return -EINVAL;
		if (big || (__int128)v * 1000000000 + ns > CODIF_TIME_MAX)
			return -ERANGE;
		*unix_ns = v * 1000000000LL + ns;
		return 0;
	}
	if (parse_uint(&p, 4, &y) || *p++ != '-' || parse_uint(&p, 2, &mo) ||
	    *p++ != '-' || parse_uint(&p, 2, &d))
		return -EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > 31)
		return -EINVAL;
	hh = mi = ss = 0;
	ns = 0;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (parse_uint(&p, 2, &hh) || *p++ != ':' ||
		    parse_uint(&p, 2, &mi))
			return -EINVAL;
		if (*p == ':') {
			p++;
			if (parse_uint(&p, 2, &ss) || parse_frac_ns(&p, &ns))
				return -EINVAL;
		}
	}
	if (*p == 'Z')
		p++;
	if (*p != '\0' || hh > 23 || mi > 59 || ss > 60)
		return -EINVAL;
	/* reject dates such as Feb 30 by round-tripping the day number */
	{
		int64_t days = days_from_civil(y, mo, d), yy;
		unsigned int mm, dd;

		civil_from_days(days, &yy, &mm, &dd);
		if (yy != (int64_t)y || mm != mo || dd != d)
			return -EINVAL;
		sec = days * 86400 + hh * 3600 + mi * 60 + ss;
	}
	/* 1677-09-21 .. 2262-04-11: beyond, int64 ns would wrap */
	if ((__int128)sec * 1000000000 + ns > CODIF_TIME_MAX ||
	    (__int128)sec * 1000000000 + ns < CODIF_TIME_MIN)
		return -ERANGE;
	/* in 128 bits: the edge seconds times 1e9 alone is beyond int64 */
	*unix_ns = (int64_t)((__int128)sec * 1000000000 + ns);
	return 0;
}

void
codif_station_str(uint16_t stationid, char out[3])
{
	char c0 = (char)(stationid >> 8), c1 = (char)(stationid & 0xff);

	out[0] = isprint((unsigned char)c0) ? c0 : '.';
	out[1] = isprint((unsigned char)c1) ? c1 : '.';
	out[2] = '\0';
}

const char *
codif_seq_class_name(enum codif_seq_class c)
{
	static const char *const names[CODIF_SEQ__COUNT] = {
		[CODIF_SEQ_FIRST] = "first",
		[CODIF_SEQ_IN_ORDER] = "in-order",
		[CODIF_SEQ_GAP] = "gap",
		[CODIF_SEQ_LATE] = "late",
		[CODIF_SEQ_DUPLICATE] = "duplicate",
		[CODIF_SEQ_TOO_LATE] = "too-late",
		[CODIF_SEQ_SUSPECT] = "suspect",
		[CODIF_SEQ_MALFORMED] = "malformed",
	};

	if ((unsigned int)c >= CODIF_SEQ__COUNT)
		return "?";
	return names[c];
}

/* ---- clock ---------------------------------------------------------------- */

int
codif_clock_init(struct codif_clock *c, const struct codif_hdr *h)
{
	uint64_t fpp = codif_frames_per_period(h);

	memset(c, 0, sizeof(*c));
	if (fpp == 0 || h->period == 0)
		return -EINVAL;
	c->fpp = fpp;
	c->period = h->period;
	c->epoch = h->epoch;
	c->period_ns = (uint64_t)h->period * 1000000000ULL;
	c->step_q = c->period_ns / fpp;
	c->step_r = c->period_ns % fpp;
	c->epoch_ns = codif_epoch_unix(h->epoch) * 1000000000LL;
	c->phase = h->seconds % h->period;
	return 0;
}

bool
codif_clock_equal(const struct codif_clock *a, const struct codif_clock *b)
{
	return a->fpp == b->fpp && a->period == b->period && a->epoch == b->epoch &&
	       a->phase == b->phase;
}

bool
codif_clock_index(const struct codif_clock *c, uint32_t seconds, uint32_t frame,
		  int64_t *n)
{
	unsigned __int128 v;
	uint32_t ds;

	if (c->period == 0 || seconds < c->phase)
		return false;
	ds = seconds - c->phase;
	if (ds % c->period != 0)
		return false;
	v = (unsigned __int128)(ds / c->period) * c->fpp + frame;
	if (v > INT64_MAX)
		return false;
	*n = (int64_t)v;
	return true;
}

/* Period and frame within it of index n (floor division: n may be < 0). */
static inline void
clock_split(const struct codif_clock *c, int64_t n, int64_t *p, uint64_t *f)
{
	int64_t fpp = (int64_t)c->fpp;

	*p = n >= 0 ? n / fpp : -((-n + fpp - 1) / fpp);
	*f = (uint64_t)(n - *p * fpp);
}

int64_t
codif_clock_time_ns(const struct codif_clock *c, int64_t n)
{
	int64_t p;
	uint64_t f;

	__int128 t;

	if (c->fpp == 0)
		return INT64_MIN;
	clock_split(c, n, &p, &f);
	t = (__int128)c->epoch_ns + ((__int128)c->phase + (__int128)p * c->period) * 1000000000 +
	    (__int128)((unsigned __int128)f * c->period_ns / c->fpp);
	/* an index beyond the int64-ns range (never a validated frame's):
	 * the nearest end, not a wrapped time */
	return t > INT64_MAX ? INT64_MAX : t < CODIF_TIME_MIN ? CODIF_TIME_MIN : (int64_t)t;
}

void
codif_clock_hdr_time(const struct codif_clock *c, int64_t n, uint32_t *seconds,
		     uint32_t *frame)
{
	int64_t p;
	uint64_t f;

	if (c->fpp == 0) {
		*seconds = c->phase;
		*frame = 0;
		return;
	}
	clock_split(c, n, &p, &f);
	*seconds = (uint32_t)((int64_t)c->phase + p * c->period);
	*frame = (uint32_t)f;
}

uint64_t
codif_clock_frames_in(const struct codif_clock *c, uint64_t ns)
{
	if (c->period_ns == 0)
		return 0;
	return (uint64_t)((unsigned __int128)ns * c->fpp / c->period_ns);
}

/* ---- timeline and stream trackers ------------------------------------------ */

void
codif_tl_cfg_defaults(struct codif_tl_cfg *c)
{
	c->window = CODIF_SEQ_WINDOW_DEFAULT;
	c->ahead = CODIF_AHEAD_DEFAULT;
	c->confirm = CODIF_CONFIRM_DEFAULT;
	c->max_gap_ns = CODIF_MAX_GAP_NS_DEFAULT;
}

int
codif_tl_cfg_check(const struct codif_tl_cfg *c, char *err, size_t len)
{
	if (c->window < 64 || c->window > (1u << 30) || (c->window & (c->window - 1)) != 0) {
		seterr(err, len, "window of %" PRIu32 " frames, expected a power of two 64..2^30",
		       c->window);
		return -EINVAL;
	}
	if (c->ahead < 1 || c->ahead > c->window) {
		seterr(err, len, "reorder window of %" PRIu32 " frames, expected 1..%" PRIu32
		       " (the window)", c->ahead, c->window);
		return -EINVAL;
	}
	if (c->confirm < 2 || c->confirm > CODIF_MAX_CONFIRM) {
		seterr(err, len, "confirm %" PRIu32 ", expected 2..%d agreeing frames",
		       c->confirm, CODIF_MAX_CONFIRM);
		return -EINVAL;
	}
	if (c->max_gap_ns < 1000) {
		seterr(err, len, "max gap %" PRIu64 " ns, expected at least 1 us",
		       c->max_gap_ns);
		return -EINVAL;
	}
	return 0;
}

int
codif_tl_init(struct codif_tl *t, const struct codif_tl_cfg *cfg)
{
	struct codif_tl_cfg d;

	memset(t, 0, sizeof(*t));
	codif_tl_cfg_defaults(&d);
	t->cfg = d;
	if (cfg != NULL) {
		/* a field left 0 takes its default */
		if (cfg->window)
			t->cfg.window = cfg->window;
		if (cfg->ahead)
			t->cfg.ahead = cfg->ahead;
		if (cfg->confirm)
			t->cfg.confirm = cfg->confirm;
		if (cfg->max_gap_ns)
			t->cfg.max_gap_ns = cfg->max_gap_ns;
	}
	if (codif_tl_cfg_check(&t->cfg, NULL, 0) != 0)
		return -EINVAL;
	return 0;
}

void
codif_tl_free(struct codif_tl *t)
{
	free(t->act);
	t->act = NULL;
	t->clist = NULL;
	t->nact = t->iact = t->capact = 0;
}

int
codif_seq_init(struct codif_seq *s, const struct codif_tl *t)
{
	uint32_t w = t->cfg.window ? t->cfg.window : CODIF_SEQ_WINDOW_DEFAULT;

	memset(s, 0, sizeof(*s));
	s->window = w;
	s->seen = calloc(w / 64, sizeof(uint64_t));
	if (s->seen == NULL)
		return -ENOMEM;
	return 0;
}

void
codif_seq_free(struct codif_seq *s)
{
	free(s->seen);
	free(s->cand[0]);
	free(s->cand[1]);
	s->seen = NULL;
	s->cand[0] = s->cand[1] = NULL;
}

bool
codif_params_equal(const struct codif_hdr *ref, const struct codif_hdr *h,
		   char *errbuf, size_t errlen)
{
#define CHK(f, fmt)                                                         \
	do {                                                                \
		if (ref->f != h->f) {                                       \
			seterr(errbuf, errlen,                              \
			       "parameter change: " #f " %" fmt             \
			       ", expected %" fmt " (the stream's first frame)", \
			       h->f, ref->f);                               \
			return false;                                       \
		}                                                           \
	} while (0)
	CHK(nchan, "u");
	CHK(nbits, "u");
	CHK(complex, "d");
	CHK(representation, "u");
	CHK(period, "u");
	CHK(totalsamples, PRIu64);
	CHK(epoch, "u");
	CHK(framelength8, PRIu32);
#undef CHK
	return true;
}

uint64_t
codif_seq_expected(const struct codif_seq *s)
{
	return s->closed + (s->started ? (uint64_t)(s->end - s->first + 1) : 0);
}

void
codif_seq_malformed(struct codif_seq *s)
{
	s->st.malformed++;
}

void
codif_seq_unreceive(struct codif_seq *s, enum codif_seq_class cls, bool invalid,
		    uint32_t frame_bytes)
{
	if (s->st.received == 0)
		return;
	s->st.received--;
	s->st.lost++;
	s->st.too_late++;
	s->st.bytes -= frame_bytes;
	if (invalid && s->st.invalid > 0)
		s->st.invalid--;
	if (cls == CODIF_SEQ_LATE && s->st.late > 0)
		s->st.late--;
}

static inline bool
seen_test(const struct codif_seq *s, int64_t n)
{
	uint64_t i = (uint64_t)n & (s->window - 1);

	return (s->seen[i / 64] >> (i % 64)) & 1;
}

static inline void
seen_set(struct codif_seq *s, int64_t n)
{
	uint64_t i = (uint64_t)n & (s->window - 1);

	s->seen[i / 64] |= 1ULL << (i % 64);
}

/* Clear the bits of indices (from, to]: they now map fresh frames. */
static void
seen_clear_range(struct codif_seq *s, int64_t from, int64_t to)
{
	int64_t n;

	if (to - from >= (int64_t)s->window) {
		memset(s->seen, 0, s->window / 8);
		return;
	}
	for (n = from + 1; n <= to; n++) {
		uint64_t i = (uint64_t)n & (s->window - 1);

		if ((i & 63) == 0 && n + 63 <= to) {
			s->seen[i / 64] = 0;
			n += 63;
			continue;
		}
		s->seen[i / 64] &= ~(1ULL << (i % 64));
	}
}

/* Exact start time of frame (seconds, frame) and the remainder of
 * frame * period_ns / FPP (for stepping). */
static int64_t
clk_time(const struct codif_clock *c, uint32_t seconds, uint32_t frame, uint64_t *rem)
{
	unsigned __int128 x = (unsigned __int128)frame * c->period_ns;

	*rem = (uint64_t)(x % c->fpp);
	return c->epoch_ns + (int64_t)seconds * 1000000000LL + (int64_t)(x / c->fpp);
}

/* Make frame n (header h) the stream's newest: its time by one exact step
 * from the previous newest when consecutive (no division), else anew. */
static void
set_newest(const struct codif_clock *c, struct codif_seq *s, const struct codif_hdr *h,
	   int64_t n)
{
	if (n == s->newest + 1 && h->seconds == s->newest_sec && h->frame != 0) {
		s->newest_time_ns += (int64_t)c->step_q;
		s->newest_rem += c->step_r;
		if (s->newest_rem >= c->fpp) {
			s->newest_rem -= c->fpp;
			s->newest_time_ns++;
		}
	} else {
		s->newest_time_ns = clk_time(c, h->seconds, h->frame, &s->newest_rem);
	}
	s->newest = n;
	s->newest_sec = h->seconds;
}

/* ---- actions ---- */

static struct codif_act *
act_push(struct codif_tl *t)
{
	if (t->iact == t->nact)
		t->iact = t->nact = 0;
	if (t->nact == t->capact) {
		uint32_t nc = t->capact ? t->capact * 2 : 2 * CODIF_MAX_CONFIRM;
		struct codif_act *v = realloc(t->act, nc * sizeof(*v));

		if (v == NULL)
			return NULL;
		t->act = v;
		t->capact = nc;
	}
	return &t->act[t->nact++];
}

static void
drop_hold(struct codif_tl *t, const struct codif_hold *k, enum codif_drop why)
{
	struct codif_act *a;

	if (why == CODIF_DROP_PARAMS)
		k->s->st.param_change++;
	else
		k->s->st.implausible++;
	a = act_push(t);
	if (a == NULL) {
		t->err = -ENOMEM; /* the caller keeps the frame: it leaks, counted */
		return;
	}
	memset(a, 0, sizeof(*a));
	a->handle = k->handle;
	a->aux = k->aux;
	a->s = k->s;
	a->drop = true;
	a->why = why;
	a->h = k->h;
}

static void
cand_drop(struct codif_tl *t, struct codif_cand *c)
{
	uint32_t i;

	if (c == NULL || c->n == 0)
		return;
	for (i = 0; i < c->n; i++)
		drop_hold(t, &c->hold[i], c->kind);
	c->n = 0;
	if (t->pending == c)
		t->pending = NULL;
}

/* Whether stream s holds timeline suspects (then it is on t's list). */
static bool
has_tl_cand(const struct codif_seq *s)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (s->cand[i] != NULL && s->cand[i]->n > 0 && s->cand[i]->timeline)
			return true;
	return false;
}

static void
list_add(struct codif_tl *t, struct codif_seq *s)
{
	if (s->listed)
		return;
	s->listed = true;
	s->cnext = t->clist;
	t->clist = s;
}

/* ---- taking a frame into its stream ---- */

/* The stream's first frame in a new segment (of the timeline, or its own
 * with new parameters): the old one is closed first. */
static void
seg_start(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h, int64_t n,
	  uint32_t bytes, struct codif_out *o)
{
	uint8_t flags = CODIF_OUT_SEG_START;

	s->renew = false;
	if (s->started) {
		int64_t end = s->end;

		if (s->seg != t->seg) {
			/* its timeline resynced: the segment ran to the
			 * timeline's newest there; what it lacked is lost */
			if (s->seg + 1 == t->seg && t->prev_newest > end) {
				o->tail = (uint64_t)(t->prev_newest - end);
				s->st.lost += o->tail;
				end = t->prev_newest;
			}
			flags |= CODIF_OUT_RESYNC;
			s->st.resyncs++;
			if (t->last.skipped > 0 && t->last.seg == t->seg && n > end)
				s->st.resync_skipped += (uint64_t)(n - end - 1);
		} else if (n > end + 1) {
			/* new parameters on the same clock: the frames between
			 * were expected and did not come */
			s->st.lost += (uint64_t)(n - end - 1);
			s->closed += (uint64_t)(n - end - 1);
			s->st.gaps++;
		}
		s->closed += (uint64_t)(end - s->first + 1);
		if (!codif_params_equal(&s->ref, h, NULL, 0)) {
			flags |= CODIF_OUT_NEW_PARAMS;
			s->st.new_params++;
		}
	}
	s->started = true;
	s->have_ref = true;
	s->seg = t->seg;
	s->ref = *h;
	s->ref_gen++;
	s->fpp = t->clk.fpp;
	s->first = n;
	s->end = n;
	memset(s->seen, 0, s->window / 8);
	s->newest = n - 2; /* not consecutive: time computed anew */
	set_newest(&t->clk, s, h, n);
	if (s->st.received == 0 && s->closed == 0 && !(flags & CODIF_OUT_RESYNC))
		s->first_time_ns = s->newest_time_ns;
	seen_set(s, n);
	s->st.received++;
	s->st.bytes += bytes;
	if (h->invalid)
		s->st.invalid++;
	o->cls = CODIF_SEQ_FIRST;
	o->flags = flags;
}

/* The timeline advanced: timeline suspects grow older; those that have seen
 * `confirm` advances since their first frame lose (the old timeline lives). */
static void
age_timeline(struct codif_tl *t)
{
	struct codif_seq **pp = &t->clist;

	while (*pp != NULL) {
		struct codif_seq *s = *pp;
		unsigned int i;

		for (i = 0; i < 2; i++) {
			struct codif_cand *c = s->cand[i];

			if (c != NULL && c->n > 0 && c->timeline && ++c->age >= t->cfg.confirm)
				cand_drop(t, c);
		}
		if (!has_tl_cand(s)) {
			*pp = s->cnext;
			s->listed = false;
			s->cnext = NULL;
		} else {
			pp = &s->cnext;
		}
	}
}

/* The stream advanced: its own suspects (new parameters) grow older. */
static void
age_stream(struct codif_tl *t, struct codif_seq *s)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct codif_cand *c = s->cand[i];

		if (c != NULL && c->n > 0 && !c->timeline && ++c->age >= t->cfg.confirm)
			cand_drop(t, c);
	}
}

static void
accept(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h, int64_t n,
       uint32_t bytes, int64_t arr, struct codif_out *o)
{
	int64_t d;

	o->index = n;
	o->seg = t->seg;
	o->nlost = 0;
	o->tail = 0;
	o->flags = 0;
	if (!s->started || s->seg != t->seg || s->renew) {
		seg_start(t, s, h, n, bytes, o);
		goto advanced;
	}
	d = n - s->newest;
	if (d > 0) {
		o->cls = CODIF_SEQ_IN_ORDER;
		if (d > 1) {
			o->nlost = (uint64_t)(d - 1);
			s->st.lost += o->nlost;
			s->st.gaps++;
			o->cls = CODIF_SEQ_GAP;
		}
		seen_clear_range(s, s->newest, n);
		set_newest(&t->clk, s, h, n);
		if (n > s->end)
			s->end = n;
		seen_set(s, n);
		s->st.received++;
		s->st.bytes += bytes;
		if (h->invalid)
			s->st.invalid++;
		if (unlikely(s->cand[0] != NULL || s->cand[1] != NULL))
			age_stream(t, s);
		goto advanced;
	}
	if (-d >= (int64_t)s->window) {
		s->st.too_late++;
		o->cls = CODIF_SEQ_TOO_LATE;
		return;
	}
	if (d == 0 || seen_test(s, n)) {
		s->st.duplicate++;
		o->cls = CODIF_SEQ_DUPLICATE;
		return;
	}
	if (n < s->first) {
		/* older than anything so far yet within the window: the
		 * stream started earlier than its first arrival said, and the
		 * frames between it and the old first are now lost */
		uint64_t rem;

		o->nlost = (uint64_t)(s->first - n - 1);
		s->st.lost += o->nlost;
		s->first = n;
		if (s->closed == 0 && s->st.resyncs == 0 && s->st.new_params == 0)
			s->first_time_ns = clk_time(&t->clk, h->seconds, h->frame, &rem);
	} else {
		s->st.lost--;
	}
	seen_set(s, n);
	s->st.late++;
	s->st.received++;
	s->st.bytes += bytes;
	if (h->invalid)
		s->st.invalid++;
	o->cls = CODIF_SEQ_LATE;
	return;
advanced:
	if (n > t->newest) {
		t->newest = n;
		t->newest_arr = arr;
		if (h->seconds != t->hint_sec) {
			t->hint_sec = h->seconds;
			t->hint_base = n - (int64_t)h->frame;
		}
		if (unlikely(t->clist != NULL))
			age_timeline(t);
	}
}

/* Release held frames, in frame order (equal indices of several streams
 * keep their arrival order), as if they had just arrived. */
static void
release(struct codif_tl *t, struct codif_hold *v, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n; i++) {
		struct codif_hold k = v[i];

		for (j = i; j > 0 && v[j - 1].index > k.index; j--)
			v[j] = v[j - 1];
		v[j] = k;
	}
	for (i = 0; i < n; i++) {
		struct codif_act *a = act_push(t);
		struct codif_out o;

		memset(&o, 0, sizeof(o));
		accept(t, v[i].s, &v[i].h, v[i].index, v[i].bytes, v[i].arrival_ns, &o);
		if (a == NULL) {
			t->err = -ENOMEM;
			continue;
		}
		memset(a, 0, sizeof(*a));
		a->handle = v[i].handle;
		a->aux = v[i].aux;
		a->s = v[i].s;
		a->h = v[i].h;
		a->out = o;
	}
}

/* After the timeline moved: the held frames of every stream that fit it
 * now (its clock, within the windows) are taken out of their sets and
 * appended to *v (n of cap, grown). */
static void
gather(struct codif_tl *t, struct codif_hold **v, uint32_t *n, uint32_t *cap)
{
	struct codif_seq *s;

	for (s = t->clist; s != NULL; s = s->cnext) {
		unsigned int i;

		for (i = 0; i < 2; i++) {
			struct codif_cand *c = s->cand[i];
			uint32_t k, keep = 0;

			if (c == NULL || c->n == 0 || !c->timeline ||
			    !codif_clock_equal(&c->clk, &t->clk))
				continue;
			for (k = 0; k < c->n; k++) {
				int64_t d = c->hold[k].index - t->newest;

				if (d > (int64_t)t->cfg.ahead || d <= -(int64_t)t->cfg.window) {
					c->hold[keep++] = c->hold[k];
					continue;
				}
				if (*n == *cap) {
					uint32_t nc = *cap * 2;
					struct codif_hold *x = realloc(*v, nc * sizeof(*x));

					if (x == NULL) {
						/* no room: it stays held (and ages out) */
						t->err = -ENOMEM;
						c->hold[keep++] = c->hold[k];
						continue;
					}
					*v = x;
					*cap = nc;
				}
				(*v)[(*n)++] = c->hold[k];
			}
			c->n = keep;
			if (c->n == 0 && t->pending == c)
				t->pending = NULL;
		}
	}
}

/* A confirmed jump ahead on the timeline's clock: loss when it skips at
 * most max_gap; beyond, an outage (the frames in between lost) when the
 * data time it skips agrees with the time that passed between the
 * arrivals of the newest frame before it and the first held frame after
 * it, within max_gap_ns plus 100 ppm of that time (see struct
 * codif_tl_cfg); else a clock step. Without arrival times the time that
 * passed counts as 0. */
static bool
outage(struct codif_tl *t, const struct codif_cand *c)
{
	const struct codif_hold *k = &c->hold[0]; /* the first to arrive */
	unsigned __int128 data;
	int64_t arr = 0;
	uint64_t tol = t->cfg.max_gap_ns, d;

	/* at most max_gap skipped: loss, whatever the arrival times (a
	 * receiver descheduled for a second must not turn a short gap into a
	 * resync); arrival times only make a longer jump an outage */
	if ((uint64_t)(c->lo - t->newest - 1) <= t->max_gap)
		return true;
	data = (unsigned __int128)(uint64_t)(k->index - t->newest) * t->clk.period_ns /
	       t->clk.fpp;
	if (k->arrival_ns != CODIF_NO_ARRIVAL && t->newest_arr != CODIF_NO_ARRIVAL &&
	    k->arrival_ns > t->newest_arr)
		arr = k->arrival_ns - t->newest_arr;
	tol += (uint64_t)arr / 10000;
	d = data > (unsigned __int128)arr ? (data - (unsigned __int128)arr > UINT64_MAX ?
					       UINT64_MAX : (uint64_t)(data - (unsigned __int128)arr)) :
					    (uint64_t)arr - (uint64_t)data;
	if (d > tol)
		return false;
	{
		/* longer than max_gap: counted as an outage for the log */
		t->outages++;
		t->last_outage.old_ns = codif_clock_time_ns(&t->clk, t->newest);
		t->last_outage.new_ns = codif_clock_time_ns(&t->clk, c->lo);
		t->last_outage.frames = c->lo - t->newest - 1;
		t->last_outage.arrival_gap_ns = arr;
	}
	return true;
}

static void
confirm(struct codif_tl *t, struct codif_cand *c)
{
	uint32_t n = c->n, cap = 4 * CODIF_MAX_CONFIRM;
	struct codif_hold *v = malloc(cap * sizeof(*v));
	int64_t first = c->lo;

	if (v == NULL) {
		t->err = -ENOMEM;
		return; /* stays held: ages out, counted */
	}
	memcpy(v, c->hold, n * sizeof(v[0]));
	c->n = 0;
	if (!c->timeline) {
		/* a stream's new parameters on the same clock: its next
		 * segment starts at the first of them */
		v[0].s->renew = true;
		release(t, v, n);
		free(v);
		return;
	}
	if (!c->new_clock && first > t->newest && outage(t, c)) {
		/* the same timeline, frames lost in between: a gap; the
		 * timeline stands just before the first of them */
		t->newest = first - 1;
	} else {
		t->last.seg = t->seg + 1;
		t->last.new_clock = c->new_clock;
		t->last.old_ns = codif_clock_time_ns(&t->clk, t->newest);
		t->last.new_ns = codif_clock_time_ns(&c->clk, first);
		t->last.skipped = !c->new_clock && first > t->newest ? first - t->newest - 1 : 0;
		t->prev_newest = t->newest;
		t->seg++;
		t->resyncs++;
		t->clk = c->clk;
		t->max_gap = codif_clock_frames_in(&t->clk, t->cfg.max_gap_ns);
		/* the first released frame advances it (and the hint) */
		t->newest = first - 1;
		t->hint_sec = UINT32_MAX;
	}
	/* the other streams' frames held for the same move go with it: all
	 * released in one batch, in frame order */
	gather(t, &v, &n, &cap);
	release(t, v, n);
	free(v);
}

void
codif_tl_run(struct codif_tl *t)
{
	struct codif_cand *c = t->pending;

	if (c == NULL)
		return;
	t->pending = NULL;
	if (c->n >= t->cfg.confirm)
		confirm(t, c);
}

bool
codif_tl_action(struct codif_tl *t, struct codif_act *a)
{
	codif_tl_run(t);
	if (t->iact >= t->nact) {
		t->iact = t->nact = 0;
		return false;
	}
	*a = t->act[t->iact++];
	return true;
}

/* Whether stream s already holds frame n in c. */
static bool
cand_holds(const struct codif_cand *c, int64_t n)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		if (c->hold[i].index == n)
			return true;
	return false;
}

/* Does a suspect (clock clk, index n, header h) agree with candidate c?
 * It must go on from the set's newest frame, at most `confirm` frames on:
 * a stream really on another timeline sends its frames in order there;
 * stragglers (reordering beyond the window) and bit flips do not. */
static bool
cand_agrees(const struct codif_tl *t, const struct codif_cand *c, bool timeline,
	    const struct codif_clock *clk, const struct codif_hdr *h, int64_t n)
{
	return c != NULL && c->n > 0 && c->timeline == timeline &&
	       codif_clock_equal(&c->clk, clk) && codif_params_equal(&c->hold[0].h, h, NULL, 0) &&
	       n > c->hi && n <= c->hi + (int64_t)t->cfg.confirm;
}

/* Hold a frame of stream s aside. timeline: a suspect of the timeline
 * (time, clock); else of the stream alone (new parameters, same clock). A
 * stream keeps two sets of agreeing suspects; a third kind pushes out the
 * weaker set (dropped, counted). */
static void
suspect(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h, uint32_t bytes,
	int64_t arr, const struct codif_clock *clk, int64_t n, enum codif_drop kind,
	bool timeline, struct codif_out *o)
{
	struct codif_cand *c = NULL;
	struct codif_hold *k;
	unsigned int i;

	o->cls = CODIF_SEQ_SUSPECT;
	o->index = n;
	o->seg = t->seg;
	for (i = 0; i < 2 && c == NULL; i++)
		if (cand_agrees(t, s->cand[i], timeline, clk, h, n))
			c = s->cand[i];
	if (c == NULL) {
		for (i = 0; i < 2 && c == NULL; i++) {
			if (s->cand[i] == NULL)
				s->cand[i] = calloc(1, sizeof(*s->cand[i]));
			if (s->cand[i] != NULL && s->cand[i]->n == 0)
				c = s->cand[i];
		}
		if (c == NULL && s->cand[0] != NULL && s->cand[1] != NULL) {
			struct codif_cand *x = s->cand[0], *y = s->cand[1];

			c = x->n < y->n || (x->n == y->n && x->age >= y->age) ? x : y;
			cand_drop(t, c);
		}
		if (c == NULL)
			goto nomem;
		c->n = 0;
		c->age = 0;
		c->kind = kind;
		c->timeline = timeline;
		c->clk = *clk;
		c->new_clock = timeline && !codif_clock_equal(clk, &t->clk);
	}
	if (cand_holds(c, n)) {
		/* a second copy of a held frame */
		s->st.duplicate++;
		o->cls = CODIF_SEQ_DUPLICATE;
		return;
	}
	k = &c->hold[c->n++];
	memset(k, 0, sizeof(*k));
	k->s = s;
	k->h = *h;
	k->index = n;
	k->arrival_ns = arr;
	k->bytes = bytes;
	if (c->n == 1 || n < c->lo)
		c->lo = n;
	if (c->n == 1 || n > c->hi)
		c->hi = n;
	/* age counts from the set's first frame, not its latest: when the
	 * timeline really moved its old frames stop; while they keep coming
	 * (reordering, a stray) the set cannot win */
	if (timeline)
		list_add(t, s);
	o->hold = k;
	if (c->n >= t->cfg.confirm) {
		/* confirmed: done when the caller has stored this frame's
		 * handle, at its next codif_tl_action */
		t->pending = c;
	}
	return;
nomem:
	/* cannot hold it: dropped at once (hold NULL), counted */
	t->err = -ENOMEM;
	if (kind == CODIF_DROP_PARAMS)
		s->st.param_change++;
	else
		s->st.implausible++;
}

/* same: 1 h has s->ref's parameters (the caller compared), 0 it has not,
 * -1 unknown */
static inline void
push(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h, uint32_t bytes,
     int same, int64_t arr, struct codif_out *o)
{
	struct codif_clock hc;
	int64_t n, d;

	o->hold = NULL;
	o->flags = 0;
	o->nlost = 0;
	o->tail = 0;
	if (unlikely(t->pending != NULL))
		codif_tl_run(t); /* a confirmation the caller did not take yet */
	if (!t->started) {
		if (codif_clock_init(&t->clk, h) != 0) {
			o->cls = CODIF_SEQ_MALFORMED;
			return;
		}
		if (!codif_clock_index(&t->clk, h->seconds, h->frame, &n)) {
			o->cls = CODIF_SEQ_MALFORMED; /* beyond 63 bits */
			return;
		}
		t->started = true;
		t->newest = n;
		t->prev_newest = n;
		t->max_gap = codif_clock_frames_in(&t->clk, t->cfg.max_gap_ns);
		t->hint_sec = h->seconds;
		t->hint_base = n - (int64_t)h->frame;
		t->newest_arr = arr;
		accept(t, s, h, n, bytes, arr, o);
		return;
	}
	if (same < 0)
		same = s->have_ref && codif_params_equal(&s->ref, h, NULL, 0);
	if (likely(s->started && s->seg == t->seg && same)) {
		/* the common case: the stream's parameters, the timeline's
		 * clock; the index without a division in the newest period
		 * or the next */
		if (h->seconds == t->hint_sec)
			n = t->hint_base + h->frame;
		else if (h->seconds == t->hint_sec + t->clk.period)
			n = t->hint_base + (int64_t)t->clk.fpp + h->frame;
		else if (!codif_clock_index(&t->clk, h->seconds, h->frame, &n))
			goto other_clock; /* off the grid */
	} else {
		if (codif_clock_init(&hc, h) != 0) {
			o->cls = CODIF_SEQ_MALFORMED;
			return;
		}
		if (!codif_clock_equal(&hc, &t->clk) ||
		    !codif_clock_index(&t->clk, h->seconds, h->frame, &n))
			goto other_clock;
		if (s->started && s->seg == t->seg) {
			/* the timeline's clock, other parameters: the stream's
			 * own suspect (a lone odd frame, or new parameters) */
			d = n - t->newest;
			if (d > (int64_t)t->cfg.ahead || d <= -(int64_t)t->cfg.window)
				goto implausible;
			suspect(t, s, h, bytes, arr, &hc, n, CODIF_DROP_PARAMS, false, o);
			return;
		}
	}
	d = n - t->newest;
	if (d > (int64_t)t->cfg.ahead || d <= -(int64_t)t->cfg.window)
		goto implausible;
	accept(t, s, h, n, bytes, arr, o);
	return;
implausible:
	suspect(t, s, h, bytes, arr, &t->clk, n, CODIF_DROP_TIME, true, o);
	return;
other_clock:
	if (codif_clock_init(&hc, h) != 0) {
		o->cls = CODIF_SEQ_MALFORMED;
		return;
	}
	if (!codif_clock_index(&hc, h->seconds, h->frame, &n))
		n = 0; /* beyond 63 bits: agrees with nothing real */
	suspect(t, s, h, bytes, arr, &hc, n,
		s->have_ref && !same ? CODIF_DROP_PARAMS : CODIF_DROP_TIME, true, o);
}

void
codif_seq_push(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
	       uint32_t bytes, struct codif_out *o)
{
	push(t, s, h, bytes, -1, CODIF_NO_ARRIVAL, o);
}

void
codif_seq_push_at(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
		  uint32_t bytes, int64_t arrival_ns, struct codif_out *o)
{
	push(t, s, h, bytes, -1, arrival_ns, o);
}

void
codif_seq_push_same(struct codif_tl *t, struct codif_seq *s, const struct codif_hdr *h,
		    uint32_t bytes, bool same, int64_t arrival_ns, struct codif_out *o)
{
	push(t, s, h, bytes, same ? 1 : 0, arrival_ns, o);
}

void
codif_tl_flush(struct codif_tl *t, struct codif_seq *const *streams, unsigned int n)
{
	unsigned int i, k;

	codif_tl_run(t);
	for (i = 0; i < n; i++) {
		struct codif_seq *s = streams[i];

		for (k = 0; k < 2; k++)
			if (s->cand[k] != NULL && s->cand[k]->n > 0)
				cand_drop(t, s->cand[k]);
		s->listed = false;
		s->cnext = NULL;
		/* the segment runs to the timeline's newest frame: what
		 * the stream lacks there is lost (its buffer slots too) */
		if (s->started && s->seg == t->seg && t->newest > s->end) {
			s->st.lost += (uint64_t)(t->newest - s->end);
			s->end = t->newest;
		}
	}
	t->clist = NULL;
}

const char *
codif_time_expected(int rc)
{
	return rc == -ERANGE ? CODIF_TIME_RANGE_EXPECTED :
	       "a UTC time such as 2025-03-10T12:00:00Z or @1741608000 "
	       "(YYYY-MM-DDThh:mm:ss[.frac]Z, or @unix-seconds[.frac])";
}

int
codif_parse_time_arg(const char *what, const char *s, int64_t *unix_ns, char *err, size_t len)
{
	int rc = codif_parse_time(s, unix_ns);

	if (rc == 0)
		return 0;
	if (err != NULL && len > 0)
		snprintf(err, len, "%s: '%s': expected %s", what, s, codif_time_expected(rc));
	return -EINVAL;
}
