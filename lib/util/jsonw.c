/* SPDX-License-Identifier: BSD-3-Clause */
/* Streaming JSON writer used by every machine-readable summary. */

#include <inttypes.h>
#include <math.h>

#include "jsonw.h"

void
jsonw_init(struct jsonw *w, FILE *f, bool pretty)
{
	w->f = f;
	w->depth = 0;
	w->first[0] = true;
	w->pretty = pretty;
}

static void
put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void
indent(struct jsonw *w)
{
	int i;

	if (!w->pretty)
		return;
	fputc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void
member(struct jsonw *w, const char *key)
{
	if (w->depth > 0) {
		if (!w->first[w->depth])
			fputc(',', w->f);
		indent(w);
	}
	w->first[w->depth] = false;
	if (key != NULL) {
		put_string(w->f, key);
		fputs(w->pretty ? ": " : ":", w->f);
	}
}

static void
open_(struct jsonw *w, const char *key, char c)
{
	member(w, key);
	fputc(c, w->f);
	if (w->depth + 1 < JSONW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

static void
close_(struct jsonw *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (!empty)
		indent(w);
	fputc(c, w->f);
}

void jsonw_obj_begin(struct jsonw *w, const char *key) { open_(w, key, '{'); }
void jsonw_obj_end(struct jsonw *w) { close_(w, '}'); }
void jsonw_arr_begin(struct jsonw *w, const char *key) { open_(w, key, '['); }
void jsonw_arr_end(struct jsonw *w) { close_(w, ']'); }

void
jsonw_str(struct jsonw *w, const char *key, const char *v)
{
	member(w, key);
	if (v == NULL)
		fputs("null", w->f);
	else
		put_string(w->f, v);
}

void
jsonw_u64(struct jsonw *w, const char *key, uint64_t v)
{
	member(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void
jsonw_i64(struct jsonw *w, const char *key, int64_t v)
{
	member(w, key);
	fprintf(w->f, "%" PRId64, v);
}

void
jsonw_dbl(struct jsonw *w, const char *key, double v)
{
	member(w, key);
	if (isfinite(v))
		fprintf(w->f, "%.10g", v);
	else
		fputs("null", w->f);
}

void
jsonw_bool(struct jsonw *w, const char *key, bool v)
{
	member(w, key);
	fputs(v ? "true" : "false", w->f);
}

void
jsonw_null(struct jsonw *w, const char *key)
{
	member(w, key);
	fputs("null", w->f);
}

int
jsonw_finish(struct jsonw *w)
{
	fputc('\n', w->f);
	fflush(w->f);
	return ferror(w->f) ? -1 : 0;
}
