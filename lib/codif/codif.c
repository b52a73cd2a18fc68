/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF v3 header codec, validation, time arithmetic and the clock (a
 * stream's frame index and time); codif_seq.c tracks streams with them. */

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
#include "codif_int.h"
#include "wire.h"

void
codif_seterr(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errbuf == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

#define BITS(w, lo, n) (((w) >> (lo)) & ((n) == 64 ? ~0ULL : ((1ULL << (n)) - 1)))

int
codif_decode(const void *buf, size_t len, struct codif_hdr *h, char *errbuf,
	     size_t errlen)
{
	const uint8_t *p = buf;
	uint64_t w[8];
	int i;

	if (buf == NULL || len < CODIF_HDR_LEN) {
		codif_seterr(errbuf, errlen,
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
		codif_seterr(errbuf, errlen,
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
			codif_seterr(errbuf, errlen,
			       "not CODIF v3: legacy CODIF sync word 0x%08" PRIX32
			       " at byte %u (expected 0x%08X at byte 40)",
			       v, i, CODIF_SYNC);
			return -EPROTO;
		}
	}
	if (sync == CODIF_SYNC) {
		codif_seterr(errbuf, errlen,
		       "not CODIF v3: protocol %u, expected %d (CODIF)%s", proto,
		       CODIF_PROTOCOL,
		       proto <= 1 ? " (0/1 is VDIF's version field)" : "");
		return -EPROTO;
	}
	if (proto <= 1) {
		/* VDIF: word 2 bits 0-23 = frame length in 8-byte units, header incl. */
		uint32_t w2 = ld_le32(p + 8);

		codif_seterr(errbuf, errlen,
		       "VDIF version %u, not CODIF (VDIF frame length %u bytes; "
		       "sync 0x%08" PRIX32 ", expected 0x%08X)",
		       proto, (w2 & 0xffffff) * 8, sync, CODIF_SYNC);
		return -EPROTO;
	}
	codif_seterr(errbuf, errlen,
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
		codif_seterr(errbuf, errlen, "sync 0x%08" PRIX32 ", expected 0x%08X",
		       h->sync, CODIF_SYNC);
		return -EPROTO;
	}
	if (h->protocol != CODIF_PROTOCOL) {
		codif_seterr(errbuf, errlen, "protocol %u, expected %d (CODIF)",
		       h->protocol, CODIF_PROTOCOL);
		return -EPROTO;
	}
	if (h->nbits == 0) {
		codif_seterr(errbuf, errlen, "nbits 0, expected 1..255");
		return -EPROTO;
	}
	if (h->nchan == 0) {
		codif_seterr(errbuf, errlen, "nchan 0, expected >= 1");
		return -EPROTO;
	}
	if (h->period == 0) {
		codif_seterr(errbuf, errlen, "period 0, expected >= 1 s");
		return -EPROTO;
	}
	if (h->framelength8 == 0) {
		codif_seterr(errbuf, errlen, "framelength8 0, expected >= 1");
		return -EPROTO;
	}
	bps = codif_bits_per_sample(h);
	spf = codif_samples_per_frame(h);
	if (spf == 0) {
		codif_seterr(errbuf, errlen,
		       "framelength8 %" PRIu32 " (%" PRIu64
		       " data bits), expected a multiple of %" PRIu64
		       "-bit samples (nchan %u x nbits %u x %s)",
		       h->framelength8, codif_data_bytes(h) * 8, bps, h->nchan,
		       h->nbits, h->complex ? "2 complex" : "1 real");
		return -EPROTO;
	}
	fpp = codif_frames_per_period(h);
	if (fpp != 0 && fpp <= UINT32_MAX && frame_time_wide(h, fpp) > CODIF_TIME_MAX) {
		codif_seterr(errbuf, errlen,
		       "seconds %" PRIu32 " of epoch %u: a time after %s, beyond the "
		       "int64-nanosecond range (expected a time up to 2262-04-11)",
		       h->seconds, h->epoch, "2262-04-11T23:47:16.854775807Z");
		return -EPROTO;
	}
	if (fpp == 0 || fpp > UINT32_MAX) {
		codif_seterr(errbuf, errlen,
		       "totalsamples %" PRIu64 ", expected a non-zero multiple "
		       "of %" PRIu64 " samples per frame (at most 2^32 frames per period)",
		       h->totalsamples, spf);
		return -EPROTO;
	}
	if (h->frame >= fpp) {
		codif_seterr(errbuf, errlen,
		       "frame %" PRIu32 ", expected < %" PRIu64
		       " (frames per period)",
		       h->frame, fpp);
		return -EPROTO;
	}
	if (payload_len != SIZE_MAX && payload_len != codif_data_bytes(h)) {
		codif_seterr(errbuf, errlen,
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
	codif_seterr(err, len, "%s is %s the times this program can hold: %s .. %s (int64 ns since "
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
