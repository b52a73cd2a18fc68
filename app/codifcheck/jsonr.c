/* SPDX-License-Identifier: BSD-3-Clause */
/* Recursive-descent JSON reader with a depth limit; strict RFC 8259 syntax. */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonr.h"

struct jp {
	const char *s;
	size_t len, i;
	int depth;
	char *err;
	size_t errlen;
};

static int
jp_fail(struct jp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
jp_fail(struct jp *p, const char *fmt, ...)
{
	char what[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (p->err != NULL && p->errlen > 0)
		snprintf(p->err, p->errlen, "byte %zu: expected %s", p->i, what);
	return -EINVAL;
}

static void
skip_ws(struct jp *p)
{
	while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
				 p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static int
peek(struct jp *p)
{
	return p->i < p->len ? (unsigned char)p->s[p->i] : -1;
}

static bool
literal(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->i < n || memcmp(p->s + p->i, w, n) != 0)
		return false;
	p->i += n;
	return true;
}

static int
hex4(struct jp *p, unsigned int *cp)
{
	unsigned int v = 0, k;

	if (p->len - p->i < 4)
		return jp_fail(p, "4 hex digits after \\u");
	for (k = 0; k < 4; k++) {
		int c = p->s[p->i + k];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return jp_fail(p, "4 hex digits after \\u");
	}
	p->i += 4;
	*cp = v;
	return 0;
}

static size_t
put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

static int
escape(struct jp *p, char *o, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	unsigned int cp, lo;
	int c = peek(p);

	p->i++;
	if (c > 0 && c != 'u' && (e = strchr(from, c)) != NULL) {
		o[(*n)++] = to[e - from];
		return 0;
	}
	if (c != 'u')
		return jp_fail(p, "an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX");
	if (hex4(p, &cp) != 0)
		return -EINVAL;
	if (cp >= 0xD800 && cp < 0xDC00) {
		if (!literal(p, "\\u") || hex4(p, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF)
			return jp_fail(p, "a low surrogate \\uDC00..\\uDFFF");
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	} else if (cp >= 0xDC00 && cp < 0xE000) {
		return jp_fail(p, "a high surrogate before a low one");
	}
	if (cp == 0)
		return jp_fail(p, "no NUL character in a string");
	*n += put_utf8(o + *n, cp);
	return 0;
}

/* The decoded string is never longer than its JSON form. */
static int
parse_string(struct jp *p, char **out)
{
	size_t start, n = 0;
	char *o;

	if (peek(p) != '"')
		return jp_fail(p, "a string");
	start = ++p->i;
	while (p->i < p->len && p->s[p->i] != '"')
		p->i += p->s[p->i] == '\\' ? 2 : 1;
	if (p->i >= p->len)
		return jp_fail(p, "the string's closing '\"'");
	o = malloc(p->i - start + 1);
	if (o == NULL)
		return -ENOMEM;
	p->i = start;
	while (p->s[p->i] != '"') {
		unsigned char c = (unsigned char)p->s[p->i];

		if (c < 0x20 || c == 0) {
			free(o);
			return jp_fail(p, "no control character in a string");
		}
		if (c == '\\') {
			p->i++;
			if (escape(p, o, &n) != 0) {
				free(o);
				return -EINVAL;
			}
			continue;
		}
		o[n++] = (char)c;
		p->i++;
	}
	p->i++;
	o[n] = '\0';
	*out = o;
	return 0;
}

static int
parse_number(struct jp *p, struct cc_jr *v)
{
	size_t start = p->i;
	bool plain = true, neg = false;
	uint64_t u = 0;
	char buf[64];

	if (peek(p) == '-') {
		neg = true;
		p->i++;
	}
	if (peek(p) == '0') {
		p->i++;
	} else if (peek(p) >= '1' && peek(p) <= '9') {
		while (peek(p) >= '0' && peek(p) <= '9') {
			unsigned int d = (unsigned int)(peek(p) - '0');

			if (u > (UINT64_MAX - d) / 10)
				plain = false;
			else
				u = u * 10 + d;
			p->i++;
		}
	} else {
		return jp_fail(p, "a value");
	}
	if (peek(p) == '.') {
		plain = false;
		p->i++;
		if (!(peek(p) >= '0' && peek(p) <= '9'))
			return jp_fail(p, "a digit after '.'");
		while (peek(p) >= '0' && peek(p) <= '9')
			p->i++;
	}
	if (peek(p) == 'e' || peek(p) == 'E') {
		plain = false;
		p->i++;
		if (peek(p) == '+' || peek(p) == '-')
			p->i++;
		if (!(peek(p) >= '0' && peek(p) <= '9'))
			return jp_fail(p, "a digit in the exponent");
		while (peek(p) >= '0' && peek(p) <= '9')
			p->i++;
	}
	if (p->i - start >= sizeof(buf))
		return jp_fail(p, "a number of at most %zu characters", sizeof(buf) - 1);
	memcpy(buf, p->s + start, p->i - start);
	buf[p->i - start] = '\0';
	v->t = CC_JR_NUM;
	v->d = strtod(buf, NULL);
	v->is_uint = plain && !neg;
	v->u = v->is_uint ? u : 0;
	return 0;
}

static int parse_value(struct jp *p, struct cc_jr *v);

static int
grow(struct cc_jr *v, size_t *cap, bool keys)
{
	size_t nc = *cap != 0 ? *cap * 2 : 4;
	struct cc_jr *nv;

	if (v->n < *cap)
		return 0;
	nv = realloc(v->v, nc * sizeof(*nv));
	if (nv == NULL)
		return -ENOMEM;
	v->v = nv;
	if (keys) {
		char **nk = realloc(v->k, nc * sizeof(*nk));

		if (nk == NULL)
			return -ENOMEM;
		v->k = nk;
	}
	*cap = nc;
	return 0;
}

static int
parse_container(struct jp *p, struct cc_jr *v, bool obj)
{
	size_t cap = 0;
	int rc;

	v->t = obj ? CC_JR_OBJ : CC_JR_ARR;
	p->i++;
	if (++p->depth > CC_JR_MAX_DEPTH)
		return jp_fail(p, "nesting of at most %d levels", CC_JR_MAX_DEPTH);
	skip_ws(p);
	if (peek(p) == (obj ? '}' : ']')) {
		p->i++;
		p->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		skip_ws(p);
		if (obj) {
			rc = parse_string(p, &key);
			if (rc != 0)
				return rc;
			skip_ws(p);
			if (peek(p) != ':') {
				free(key);
				return jp_fail(p, "':' after an object key");
			}
			p->i++;
		}
		rc = grow(v, &cap, obj);
		if (rc != 0) {
			free(key);
			return rc;
		}
		memset(&v->v[v->n], 0, sizeof(v->v[0]));
		if (obj)
			v->k[v->n] = key;
		v->n++;
		rc = parse_value(p, &v->v[v->n - 1]);
		if (rc != 0)
			return rc;
		skip_ws(p);
		if (peek(p) == ',') {
			p->i++;
			continue;
		}
		if (peek(p) == (obj ? '}' : ']')) {
			p->i++;
			p->depth--;
			return 0;
		}
		return jp_fail(p, obj ? "',' or '}'" : "',' or ']'");
	}
}

static int
parse_value(struct jp *p, struct cc_jr *v)
{
	skip_ws(p);
	switch (peek(p)) {
	case '{':
		return parse_container(p, v, true);
	case '[':
		return parse_container(p, v, false);
	case '"':
		v->t = CC_JR_STR;
		return parse_string(p, &v->s);
	case 't':
	case 'f':
		v->t = CC_JR_BOOL;
		v->b = peek(p) == 't';
		if (literal(p, v->b ? "true" : "false"))
			return 0;
		return jp_fail(p, "a value");
	case 'n':
		v->t = CC_JR_NULL;
		if (literal(p, "null"))
			return 0;
		return jp_fail(p, "a value");
	default:
		return parse_number(p, v);
	}
}

int
cc_jr_parse(const char *text, size_t len, struct cc_jr *out, char *err,
	    size_t errlen)
{
	struct jp p = { text, len, 0, 0, err, errlen };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = parse_value(&p, out);
	if (rc == 0) {
		skip_ws(&p);
		if (p.i != len)
			rc = jp_fail(&p, "the end of the text after the value");
	}
	if (rc == -ENOMEM && err != NULL && errlen > 0)
		snprintf(err, errlen, "out of memory");
	if (rc != 0)
		cc_jr_free(out);
	return rc;
}

void
cc_jr_free(struct cc_jr *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		cc_jr_free(&v->v[i]);
		if (v->k != NULL)
			free(v->k[i]);
	}
	free(v->v);
	free(v->k);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

const struct cc_jr *
cc_jr_get(const struct cc_jr *v, const char *key)
{
	size_t i;

	if (v == NULL || v->t != CC_JR_OBJ)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (strcmp(v->k[i], key) == 0)
			return &v->v[i];
	return NULL;
}
