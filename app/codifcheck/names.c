/* SPDX-License-Identifier: BSD-3-Clause */
/* File names of formats.md and their UTC stamps, both ways. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fmt_name.h"
#include "names.h"

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
	char stem[256], utc[FMT_NAME_UTC_LEN];
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
	if (u2 == NULL || strlen(u2 + 1) != FMT_NAME_UTC_LEN - 1)
		return -EINVAL;
	memcpy(utc, u2 + 1, FMT_NAME_UTC_LEN);
	if (fmt_parse_name_utc(utc, &n->utc_ns) != 0)
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
