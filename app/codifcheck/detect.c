/* SPDX-License-Identifier: BSD-3-Clause */
/* Format detection: magic numbers, CODIF/VDIF header shapes, raw by name. */

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "codif.h"
#include "detect.h"
#include "names.h"

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

const char *
cc_fmt_name(enum cc_fmt f)
{
	static const char *const names[CC_FMT__COUNT] = {
		[CC_FMT_UNKNOWN] = "unknown",
		[CC_FMT_EMPTY] = "empty",
		[CC_FMT_CODIF] = "codif",
		[CC_FMT_RAW] = "raw",
		[CC_FMT_RAW_INDEX] = "raw-index",
		[CC_FMT_PCAP] = "pcap",
		[CC_FMT_PCAPNG] = "pcapng",
		[CC_FMT_VDIF] = "vdif",
		[CC_FMT_LEGACY_CODIF] = "legacy-codif",
		[CC_FMT_SHORT_CODIF] = "truncated-codif",
	};

	return (unsigned int)f < CC_FMT__COUNT ? names[f] : "?";
}

enum cc_fmt
cc_fmt_of_kind(enum fmt_kind k)
{
	switch (k) {
	case FMT_RAW: return CC_FMT_RAW;
	case FMT_CODIF: return CC_FMT_CODIF;
	case FMT_PCAP: return CC_FMT_PCAP;
	case FMT_PCAPNG: return CC_FMT_PCAPNG;
	}
	return CC_FMT_UNKNOWN;
}

int
cc_fmt_readable(enum cc_fmt f)
{
	return f == CC_FMT_CODIF || f == CC_FMT_RAW || f == CC_FMT_RAW_INDEX ||
	       f == CC_FMT_PCAP || f == CC_FMT_PCAPNG;
}

void
cc_describe_bytes(const uint8_t *p, size_t n, char *out, size_t len)
{
	size_t i, o;

	if (n > 16)
		n = 16;
	o = (size_t)snprintf(out, len, "first bytes:");
	for (i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(out + o, len - o, " %02x", p[i]);
	if (o < len)
		o += (size_t)snprintf(out + o, len - o, " |");
	for (i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%c",
				      isprint(p[i]) ? p[i] : '.');
	if (o < len)
		snprintf(out + o, len - o, "|");
}

static int
detect_pcap(const uint8_t *h, size_t n, struct cc_detect *d)
{
	static const struct {
		uint32_t magic;
		const char *what;
	} m[] = {
		{ 0xa1b2c3d4u, "microsecond timestamps, little-endian" },
		{ 0xd4c3b2a1u, "microsecond timestamps, big-endian" },
		{ 0xa1b23c4du, "nanosecond timestamps, little-endian" },
		{ 0x4d3cb2a1u, "nanosecond timestamps, big-endian" },
	};
	unsigned int i;

	if (n < 4)
		return 0;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (le32(h) == m[i].magic) {
			d->fmt = CC_FMT_PCAP;
			snprintf(d->desc, sizeof(d->desc), "%s", m[i].what);
			return 1;
		}
	}
	if (le32(h) == 0x0a0d0d0au) {
		d->fmt = CC_FMT_PCAPNG;
		snprintf(d->desc, sizeof(d->desc), "pcapng");
		return 1;
	}
	return 0;
}

static int
detect_index(const uint8_t *h, size_t n, struct cc_detect *d)
{
	size_t i = 0;

	while (i < n && isspace(h[i]))
		i++;
	if (i == n || h[i] != '{')
		return 0;
	if (memmem(h, n, "\"dpdk-ibvcap-raw\"", 17) == NULL)
		return 0;
	d->fmt = CC_FMT_RAW_INDEX;
	snprintf(d->desc, sizeof(d->desc), "raw index (JSON)");
	return 1;
}

/* VDIF: version 0/1 in byte 11 and a plausible frame length L that the
 * file confirms: a whole number of frames, or a second header at L with
 * the same length and station. Random bytes rarely pass. */
static int
detect_vdif(const uint8_t *h, size_t n, uint64_t size, struct cc_detect *d)
{
	unsigned int ver = h[11] >> 5;
	uint64_t len = (uint64_t)(le32(h + 8) & 0xffffff) * 8;
	int ok;

	if (ver > 1 || len < 32)
		return 0;
	ok = size % len == 0;
	if (n >= len + 16)
		ok = (le32(h + len + 8) & 0xffffff) * 8 == len &&
		     (le32(h + len + 12) & 0xffff) == (le32(h + 12) & 0xffff) &&
		     h[len + 11] >> 5 == ver;
	if (!ok)
		return 0;
	d->fmt = CC_FMT_VDIF;
	snprintf(d->desc, sizeof(d->desc),
		 "VDIF, not CODIF (VDIF version %u, %" PRIu64 "-byte frames, "
		 "station 0x%04x); codifcheck reads CODIF v3 only", ver, len,
		 le32(h + 12) & 0xffff);
	return 1;
}

static int
detect_legacy(const uint8_t *h, size_t n, struct cc_detect *d)
{
	size_t i;

	for (i = 0; i + 4 <= n && i < CODIF_HDR_LEN; i += 4) {
		uint32_t v = le32(h + i);

		if (v == CODIF_SYNC_LEGACY1 || v == CODIF_SYNC_LEGACY2) {
			d->fmt = CC_FMT_LEGACY_CODIF;
			snprintf(d->desc, sizeof(d->desc),
				 "legacy CODIF (sync 0x%08" PRIX32 " at byte %zu), "
				 "not CODIF v3 (sync 0x%08X at byte 40)", v, i,
				 CODIF_SYNC);
			return 1;
		}
	}
	return 0;
}

static bool
valid_at(const uint8_t *h, size_t n, size_t at, struct codif_hdr *c)
{
	return at + CODIF_HDR_LEN <= n &&
	       codif_identify(h + at, CODIF_HDR_LEN, NULL, 0) == 0 &&
	       codif_decode(h + at, CODIF_HDR_LEN, c, NULL, 0) == 0 &&
	       codif_validate(c, SIZE_MAX, NULL, 0) == 0;
}

/* A file whose first header is damaged is still CODIF when, further into
 * its first bytes, at a multiple of 8 (frames are 64 + 8k bytes), a valid
 * header is followed by another one frame on (or by the end of the file).
 * CODIF packets inside another format (a pcap) do not line up so. */
static int
detect_later_codif(const uint8_t *h, size_t n, uint64_t size, struct cc_detect *d)
{
	static const uint8_t sync[4] = { 0xFE, 0xCA, 0xED, 0xFE };
	const uint8_t *m = h + 40;
	struct codif_hdr c, c2;

	while ((m = memmem(m + 1, n - (size_t)(m + 1 - h), sync, 4)) != NULL) {
		size_t at = (size_t)(m - h) - 40, next;

		if (at % 8 != 0 || !valid_at(h, n, at, &c))
			continue;
		next = at + CODIF_HDR_LEN + (size_t)codif_data_bytes(&c);
		if (next == size || valid_at(h, n, next, &c2)) {
			d->fmt = CC_FMT_CODIF;
			snprintf(d->desc, sizeof(d->desc),
				 "CODIF v3 frames, the first valid header at byte %zu", at);
			return 1;
		}
	}
	return 0;
}

enum cc_fmt
cc_detect(const uint8_t *h, size_t n, uint64_t size, const char *name,
	  struct cc_detect *d)
{
	char why[200], bytes[120];

	memset(d, 0, sizeof(*d));
	if (size == 0 || n == 0) {
		d->fmt = CC_FMT_EMPTY;
		snprintf(d->desc, sizeof(d->desc), "empty file (0 bytes)");
		return d->fmt;
	}
	if (detect_pcap(h, n, d) || detect_index(h, n, d))
		return d->fmt;
	if (name != NULL && (cc_ends_with(name, ".raw") || cc_ends_with(name, ".raw.part"))) {
		d->fmt = CC_FMT_RAW;
		snprintf(d->desc, sizeof(d->desc), "data; its index is %s.json",
			 name);
		return d->fmt;
	}
	if (n >= CODIF_HDR_LEN) {
		if (codif_identify(h, n, why, sizeof(why)) == 0) {
			d->fmt = CC_FMT_CODIF;
			snprintf(d->desc, sizeof(d->desc), "CODIF v3 frames");
			return d->fmt;
		}
		if (detect_legacy(h, n, d) || detect_vdif(h, n, size, d) ||
		    detect_later_codif(h, n, size, d))
			return d->fmt;
		if (le32(h + 40) == CODIF_SYNC) {
			snprintf(d->desc, sizeof(d->desc), "CODIF sync word but %s", why);
			return d->fmt;
		}
	} else if (n >= 44 && le32(h + 40) == CODIF_SYNC) {
		d->fmt = CC_FMT_SHORT_CODIF;
		snprintf(d->desc, sizeof(d->desc),
			 "truncated CODIF: %zu bytes, a header needs %d", n,
			 CODIF_HDR_LEN);
		return d->fmt;
	}
	cc_describe_bytes(h, n, bytes, sizeof(bytes));
	snprintf(d->desc, sizeof(d->desc),
		 "not a recognised format (CODIF v3, raw + index, pcap or pcapng)%s; %s",
		 n < CODIF_HDR_LEN ? ", and shorter than one CODIF header" : "", bytes);
	return d->fmt;
}
