/* SPDX-License-Identifier: BSD-3-Clause */
/* Strict option parsers: every value checked fully, every error explained. */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

/* The parsers' refusal: "OPT: 'VALUE': expected WHAT". Written here, not
 * through err_set: err.c takes str_copy and str_escape from this file, and
 * the two files must not depend on each other both ways. */
static int
fail(int rc, char *err, size_t errlen, const char *opt, const char *s,
     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int
fail(int rc, char *err, size_t errlen, const char *opt, const char *s,
     const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: '%s': expected %s", opt,
			 s != NULL ? s : "(none)", what);
	return rc;
}

/* Digits only (or 0x + hex digits); returns end pointer or NULL. */
static const char *
scan_u64(const char *s, uint64_t *v)
{
	int base = 10;
	const char *p = s;
	uint64_t x = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!isxdigit((unsigned char)*p) || (base == 10 && !isdigit((unsigned char)*p)))
		return NULL;
	for (; *p; p++) {
		unsigned int d;

		if (isdigit((unsigned char)*p))
			d = (unsigned int)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (unsigned int)(tolower((unsigned char)*p) - 'a' + 10);
		else
			break;
		if (x > (UINT64_MAX - d) / (uint64_t)base)
			return NULL;
		x = x * (uint64_t)base + d;
	}
	*v = x;
	return p;
}

int
parse_choice(const char *opt, const char *s, const char *const *names, unsigned int n,
	     unsigned int *out, char *err, size_t errlen)
{
	char list[256];
	size_t off = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (s != NULL && strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	list[0] = '\0';
	for (i = 0; i < n && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	return fail(-EINVAL, err, errlen, opt, s, "%s", list);
}

int
parse_bool(const char *opt, const char *s, bool *out, char *err, size_t errlen)
{
	static const char *const yes[] = { "yes", "true", "on", "1", "" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; s != NULL && i < sizeof(yes) / sizeof(yes[0]); i++)
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
	for (i = 0; s != NULL && i < sizeof(no) / sizeof(no[0]); i++)
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	return fail(-EINVAL, err, errlen, opt, s, "yes or no");
}

int
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
	  uint64_t *out, char *err, size_t errlen)
{
	uint64_t v;
	const char *e;

	if (s == NULL || *s == '\0' || (e = scan_u64(s, &v)) == NULL || *e != '\0')
		return fail(-EINVAL, err, errlen, opt, s,
			    "an integer between %" PRIu64 " and %" PRIu64, min, max);
	if (v < min || v > max)
		return fail(-ERANGE, err, errlen, opt, s,
			    "an integer between %" PRIu64 " and %" PRIu64, min, max);
	*out = v;
	return 0;
}

int
parse_size(const char *opt, const char *s, uint64_t min, uint64_t max,
	   uint64_t *out, char *err, size_t errlen)
{
	static const struct {
		const char *sfx;
		uint64_t mul;
	} units[] = {
		{"", 1}, {"B", 1},
		{"K", 1ULL << 10}, {"KiB", 1ULL << 10}, {"KB", 1000},
		{"M", 1ULL << 20}, {"MiB", 1ULL << 20}, {"MB", 1000000},
		{"G", 1ULL << 30}, {"GiB", 1ULL << 30}, {"GB", 1000000000},
		{"T", 1ULL << 40}, {"TiB", 1ULL << 40}, {"TB", 1000000000000ULL},
	};
	uint64_t v;
	const char *e;
	size_t i;

	if (s == NULL || *s == '\0' || (e = scan_u64(s, &v)) == NULL)
		goto bad;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(e, units[i].sfx) == 0) {
			if (v != 0 && units[i].mul > UINT64_MAX / v)
				goto bad;
			v *= units[i].mul;
			if (v < min || v > max)
				return fail(-ERANGE, err, errlen, opt, s,
					    "a size between %" PRIu64
					    " and %" PRIu64 " bytes", min, max);
			*out = v;
			return 0;
		}
	}
bad:
	return fail(-EINVAL, err, errlen, opt, s,
		    "a size in bytes with optional K/M/G/T (1024) or KB/MB/GB/TB (1000) suffix, "
		    "between %" PRIu64 " and %" PRIu64, min, max);
}

int
parse_double(const char *opt, const char *s, double min, double max,
	     double *out, char *err, size_t errlen)
{
	char *e;
	double v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		goto bad;
	errno = 0;
	v = strtod(s, &e);
	if (errno != 0 || *e != '\0' || !isfinite(v))
		goto bad;
	if (v < min || v > max)
		return fail(-ERANGE, err, errlen, opt, s,
			    "a number between %g and %g", min, max);
	*out = v;
	return 0;
bad:
	return fail(-EINVAL, err, errlen, opt, s, "a number between %g and %g",
		    min, max);
}

int
parse_duration_ns(const char *opt, const char *s, uint64_t min_ns,
		  uint64_t max_ns, uint64_t *out, char *err, size_t errlen)
{
	static const struct {
		const char *sfx;
		double mul;
	} units[] = {
		{"", 1e9}, {"s", 1e9}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6},
		{"m", 60e9}, {"min", 60e9}, {"h", 3600e9}, {"d", 86400e9},
	};
	char *e;
	double v;
	size_t i;

	if (s == NULL || !isdigit((unsigned char)*s))
		goto bad;
	errno = 0;
	v = strtod(s, &e);
	if (errno != 0 || !isfinite(v))
		goto bad;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(e, units[i].sfx) == 0) {
			double ns = v * units[i].mul;

			if (ns < (double)min_ns || ns > (double)max_ns)
				return fail(-ERANGE, err, errlen, opt, s,
					    "a duration between %.9g s and %.9g s",
					    (double)min_ns / 1e9, (double)max_ns / 1e9);
			*out = (uint64_t)llround(ns);
			return 0;
		}
	}
bad:
	return fail(-EINVAL, err, errlen, opt, s,
		    "a duration: a number with optional unit ns, us, ms, s, m, h or d");
}

int
parse_ipv4(const char *opt, const char *s, uint32_t *out, char *err,
	   size_t errlen)
{
	struct in_addr a;

	if (s == NULL || inet_pton(AF_INET, s, &a) != 1)
		return fail(-EINVAL, err, errlen, opt, s,
			    "an IPv4 address such as 10.0.0.1");
	*out = ntohl(a.s_addr);
	return 0;
}

const char *
ipv4_source_why(uint32_t ip)
{
	if (ip == 0xffffffffu)
		return "255.255.255.255 is the limited broadcast address, never a sender's";
	if ((ip >> 28) == 0xF)
		return "240.0.0.0/4 is reserved (RFC 1112), never a sender's address";
	if ((ip >> 28) == 0xE)
		return "224.0.0.0/4 is multicast: a group, never a sender's address";
	if ((ip >> 24) == 127)
		return "127.0.0.0/8 is loopback: it never reaches a port";
	if ((ip >> 24) == 0)
		return "0.0.0.0/8 is 'this network' (RFC 1122), never a sender's address";
	return NULL;
}

int
parse_ipv4_port(const char *opt, const char *s, uint32_t *ip, uint16_t *port,
		char *err, size_t errlen)
{
	char buf[64];
	const char *colon;
	uint64_t p;
	uint32_t a;
	struct in_addr ia;

	colon = s != NULL ? strrchr(s, ':') : NULL;
	if (colon == NULL || (size_t)(colon - s) >= sizeof(buf))
		goto bad;
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = '\0';
	if (inet_pton(AF_INET, buf, &ia) != 1)
		goto bad;
	a = ntohl(ia.s_addr);
	if (scan_u64(colon + 1, &p) == NULL || p == 0 || p > 65535)
		goto bad;
	{
		uint64_t chk;
		const char *e = scan_u64(colon + 1, &chk);

		if (e == NULL || *e != '\0')
			goto bad;
	}
	*ip = a;
	*port = (uint16_t)p;
	return 0;
bad:
	return fail(-EINVAL, err, errlen, opt, s,
		    "IPV4:PORT such as 239.17.0.1:36001 (port 1..65535)");
}

void
str_copy(char *dst, size_t len, const char *src)
{
	size_t n;

	if (len == 0)
		return;
	n = strnlen(src, len - 1);
	memmove(dst, src, n);
	dst[n] = '\0';
}

char *
str_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (len == 0)
		return buf;
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		char e[8];
		size_t n;

		if (c == '\n')
			n = (size_t)snprintf(e, sizeof(e), "\\n");
		else if (c == '\r')
			n = (size_t)snprintf(e, sizeof(e), "\\r");
		else if (c == '\t')
			n = (size_t)snprintf(e, sizeof(e), "\\t");
		else if (c == '\\')
			n = (size_t)snprintf(e, sizeof(e), "\\\\");
		else if (c < 0x20 || c == 0x7f)
			n = (size_t)snprintf(e, sizeof(e), "\\x%02x", c);
		else {
			e[0] = (char)c;
			e[1] = '\0';
			n = 1;
		}
		if (o + n + 1 > len) {
			/* what fits, and "..." to say that more was there */
			while (o > 0 && o + 4 > len)
				o--;
			if (o + 4 <= len) {
				memcpy(buf + o, "...", 3);
				o += 3;
			}
			break;
		}
		memcpy(buf + o, e, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
}

char *
parse_name_expected(size_t maxlen, char *buf, size_t len)
{
	snprintf(buf, len, "a name of 1 to %zu characters, without control characters or '/'",
		 maxlen);
	return buf;
}

int
parse_name(const char *opt, const char *s, size_t maxlen, char *err, size_t errlen)
{
	const unsigned char *p;
	char v[96], x[96];

	if (s == NULL)
		s = "";
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '/')
			break;
	if (*s != '\0' && *p == '\0' && strlen(s) <= maxlen)
		return 0;
	return fail(-EINVAL, err, errlen, opt, str_escape(s, v, sizeof(v)), "%s",
		    parse_name_expected(maxlen, x, sizeof(x)));
}

char *
bytes_str(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
	char digits[32], grouped[48];
	size_t n, i, k = 0;
	unsigned int u = 0;
	double v = (double)bytes;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, bytes);
	for (i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			grouped[k++] = ',';
		grouped[k++] = digits[i];
	}
	grouped[k] = '\0';
	while (v >= 1024.0 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%s bytes", grouped);
	else
		snprintf(buf, len, "%s bytes (%.1f %s)", grouped, v, unit[u]);
	return buf;
}

char *
ipv4_str(uint32_t ip, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff,
		 (ip >> 8) & 0xff, ip & 0xff);
	return buf;
}

int
parse_list(const char *opt, const char *s, char sep, char **pieces, int max,
	   char **storage, char *err, size_t errlen)
{
	char *copy, *p, *q;
	int n = 0;

	*storage = NULL;
	if (s == NULL || *s == '\0')
		return fail(-EINVAL, err, errlen, opt, s,
			    "a non-empty '%c'-separated list", sep);
	copy = strdup(s);
	if (copy == NULL)
		return fail(-ENOMEM, err, errlen, opt, s, "memory for a copy");
	for (p = copy;; p = q + 1) {
		q = strchr(p, sep);
		if (q != NULL)
			*q = '\0';
		if (*p == '\0') {
			free(copy);
			return fail(-EINVAL, err, errlen, opt, s,
				    "a '%c'-separated list without empty items", sep);
		}
		if (n == max) {
			free(copy);
			return fail(-E2BIG, err, errlen, opt, s,
				    "at most %d '%c'-separated items", max, sep);
		}
		pieces[n++] = p;
		if (q == NULL)
			break;
	}
	*storage = copy;
	return n;
}

void
str_hex(const uint8_t *p, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int
parse_antenna_ip(const char *opt, const char *s, uint32_t *ip, char *name, size_t namelen,
		 char *err, size_t errlen)
{
	static const char name_chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	const char *eq = s != NULL ? strchr(s, '=') : NULL;
	char addr[64];
	uint32_t v;
	int rc;

	if (s == NULL || (eq != NULL && (size_t)(eq - s) >= sizeof(addr)))
		return fail(-EINVAL, err, errlen, opt, s, "IP or IP=NAME");
	snprintf(addr, sizeof(addr), "%.*s", eq != NULL ? (int)(eq - s) : (int)strlen(s), s);
	rc = parse_ipv4(opt, addr, &v, err, errlen);
	if (rc != 0)
		return rc;
	if (ipv4_source_why(v) != NULL) /* as lib/opt says it of an OPT_F_UCAST row */
		return fail(-EINVAL, err, errlen, opt, addr, "a sender's unicast address: %s",
			    ipv4_source_why(v));
	if (eq != NULL && (eq[1] == '\0' || strlen(eq + 1) >= namelen ||
			   strspn(eq + 1, name_chars) != strlen(eq + 1)))
		/* the name keys DPDK telemetry, whose keys take only these */
		return fail(-EINVAL, err, errlen, opt, eq + 1,
			    "a name of 1..%zu letters, digits or '_'", namelen - 1);
	*ip = v;
	if (namelen > 0)
		snprintf(name, namelen, "%s", eq != NULL ? eq + 1 : "");
	return 0;
}

int
parse_antenna_select(const char *opt, const char *s, const char *const *names,
		     unsigned int n, uint64_t *mask, char *err, size_t errlen)
{
	char *items[64], *store;
	uint64_t m = 0, idx;
	unsigned int a;
	int k, i;

	k = parse_list(opt, s, ',', items, 64, &store, err, errlen);
	if (k < 0)
		return k;
	for (i = 0; i < k; i++) {
		bool found = false;

		for (a = 0; a < n && a < 64; a++)
			if (names != NULL && names[a] != NULL && strcmp(items[i], names[a]) == 0) {
				m |= 1ULL << a;
				found = true;
			}
		if (!found && n > 0 && parse_u64(opt, items[i], 0, n - 1, &idx, NULL, 0) == 0) {
			m |= 1ULL << idx;
			found = true;
		}
		if (!found) {
			size_t off;

			/* built in pieces, as fail() writes (not err_set) */
			if (err != NULL && errlen > 0) {
				off = (size_t)snprintf(err, errlen, "%s: '%s': expected an antenna "
						       "name or index (", opt, items[i]);
				for (a = 0; a < n && a < 64 && off < errlen; a++)
					off += (size_t)snprintf(err + off, errlen - off, "%s%u=%s",
								a ? ", " : "", a,
								names != NULL && names[a] != NULL ?
								names[a] : "-");
				if (n == 0 && off < errlen)
					off += (size_t)snprintf(err + off, errlen - off, "none");
				if (off < errlen)
					snprintf(err + off, errlen - off, ")");
			}
			free(store);
			return -EINVAL;
		}
	}
	free(store);
	*mask = m;
	return 0;
}
