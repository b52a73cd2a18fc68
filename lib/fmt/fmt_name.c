/* SPDX-License-Identifier: BSD-3-Clause */
/* File names of docs/formats.md and their UTC stamps, both ways. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "codif.h"
#include "fmt_name.h"
#include "pkt.h"

char *
fmt_name_utc(int64_t unix_ns, char *buf, size_t len)
{
	char iso[CODIF_TIMESTR_LEN];
	size_t i, o = 0;

	/* the ISO form without its '-' and ':' separators:
	 * 2025-03-10T12:00:13.500000000Z -> 20250310T120013.500000000Z */
	codif_time_str(unix_ns, iso, sizeof(iso));
	for (i = 0; iso[i] != '\0' && o + 1 < len; i++)
		if (iso[i] != '-' && iso[i] != ':')
			buf[o++] = iso[i];
	if (len > 0)
		buf[o] = '\0';
	return buf;
}

static bool
all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

int
fmt_parse_name_utc(const char *s, int64_t *unix_ns)
{
	char iso[CODIF_TIMESTR_LEN];

	/* YYYYMMDD T HHMMSS . nnnnnnnnn Z */
	if (strlen(s) != FMT_NAME_UTC_LEN - 1 || !all_digits(s, 8) || s[8] != 'T' ||
	    !all_digits(s + 9, 6) || s[15] != '.' || !all_digits(s + 16, 9) ||
	    s[25] != 'Z')
		return -EINVAL;
	snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s.%.9sZ", s, s + 4,
		 s + 6, s + 9, s + 11, s + 13, s + 16);
	return codif_parse_time(iso, unix_ns) == 0 ? 0 : -EINVAL;
}

int
fmt_file_name(char *out, size_t len, const char *dir, const char *prefix,
	      const char *antenna, int64_t t_ns, const char *ext)
{
	char utc[FMT_NAME_UTC_LEN];
	int n;

	n = snprintf(out, len, "%s/%s_%s_%s.%s", dir, prefix, antenna,
		     fmt_name_utc(t_ns, utc, sizeof(utc)), ext);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int64_t
fmt_name_time(const uint8_t *pkt, uint32_t caplen, uint32_t wirelen, int64_t arrival_ns)
{
	struct codif_hdr h;
	struct pkt_info pi;
	const uint8_t *c;
	int64_t t;

	if (pkt_parse_len(pkt, caplen, wirelen, &pi) != PKT_OK ||
	    pi.payload_len < CODIF_HDR_LEN || pi.payload_off + CODIF_HDR_LEN > caplen)
		return arrival_ns;
	c = pkt + pi.payload_off;
	if (codif_identify(c, CODIF_HDR_LEN, NULL, 0) != 0 ||
	    codif_decode(c, CODIF_HDR_LEN, &h, NULL, 0) != 0 ||
	    codif_validate(&h, pi.payload_len - CODIF_HDR_LEN, NULL, 0) != 0)
		return arrival_ns;
	t = codif_frame_time_ns(&h);
	return t != INT64_MIN ? t : arrival_ns;
}
