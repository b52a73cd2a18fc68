/* SPDX-License-Identifier: BSD-3-Clause */
/* File names of formats.md and their UTC stamps, both ways. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "codif.h"
#include "names.h"

char *
cc_name_utc(int64_t unix_ns, char *buf, size_t len)
{
	char iso[CODIF_TIMESTR_LEN];
	size_t i, o = 0;

	/* the ISO form without its '-' and ':' separators */
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
cc_parse_name_utc(const char *s, int64_t *unix_ns)
{
	char iso[CODIF_TIMESTR_LEN];

	/* YYYYMMDD T HHMMSS . nnnnnnnnn Z */
	if (strlen(s) != CC_NAME_UTC_LEN - 1 || !all_digits(s, 8) || s[8] != 'T' ||
	    !all_digits(s + 9, 6) || s[15] != '.' || !all_digits(s + 16, 9) ||
	    s[25] != 'Z')
		return -EINVAL;
	snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s.%.9sZ", s, s + 4,
		 s + 6, s + 9, s + 11, s + 13, s + 16);
	return codif_parse_time(iso, unix_ns) == 0 ? 0 : -EINVAL;
}

/* Copy a string known to fit (checked by the caller). */
static void
copy(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = '\0';
}

bool
cc_ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n >= k && strcmp(name + n - k, suffix) == 0;
}

int
cc_parse_name(const char *path, struct cc_name *n)
{
	const char *base = strrchr(path, '/');
	char stem[256], utc[CC_NAME_UTC_LEN];
	char *dot, *u2, *u1;
	size_t len;

	base = base != NULL ? base + 1 : path;
	memset(n, 0, sizeof(*n));
	len = strlen(base);
	if (len >= sizeof(stem))
		return -EINVAL;
	memcpy(stem, base, len + 1);
	if (cc_ends_with(stem, ".part")) {
		n->part = true;
		stem[len - 5] = '\0';
	}
	/* the time stamp holds one '.', so the extension starts at the first
	 * '.' after the 'Z' that ends it */
	dot = strstr(stem, "Z.");
	if (dot == NULL || strlen(dot + 2) >= sizeof(n->ext) || dot[2] == '\0')
		return -EINVAL;
	copy(n->ext, dot + 2, strlen(dot + 2));
	dot[1] = '\0';
	u2 = strrchr(stem, '_');
	if (u2 == NULL || strlen(u2 + 1) != CC_NAME_UTC_LEN - 1)
		return -EINVAL;
	memcpy(utc, u2 + 1, CC_NAME_UTC_LEN);
	if (cc_parse_name_utc(utc, &n->utc_ns) != 0)
		return -EINVAL;
	*u2 = '\0';
	u1 = strrchr(stem, '_');
	if (u1 == NULL || u1 == stem || u1[1] == '\0' ||
	    strlen(u1 + 1) >= sizeof(n->antenna) ||
	    (size_t)(u1 - stem) >= sizeof(n->prefix))
		return -EINVAL;
	copy(n->antenna, u1 + 1, strlen(u1 + 1));
	*u1 = '\0';
	copy(n->prefix, stem, strlen(stem));
	return 0;
}
