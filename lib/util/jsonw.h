/* SPDX-License-Identifier: BSD-3-Clause */
/* A small streaming JSON writer: nesting, commas and string escaping. */

#ifndef UTIL_JSONW_H
#define UTIL_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 16

struct jsonw {
	FILE *f;
	int depth;
	bool first[JSONW_MAX_DEPTH];
	bool pretty;
};

void jsonw_init(struct jsonw *w, FILE *f, bool pretty);
/** Begin an object/array; key is NULL inside arrays and at top level. */
void jsonw_obj_begin(struct jsonw *w, const char *key);
void jsonw_obj_end(struct jsonw *w);
void jsonw_arr_begin(struct jsonw *w, const char *key);
void jsonw_arr_end(struct jsonw *w);
void jsonw_str(struct jsonw *w, const char *key, const char *v);
void jsonw_u64(struct jsonw *w, const char *key, uint64_t v);
void jsonw_i64(struct jsonw *w, const char *key, int64_t v);
void jsonw_dbl(struct jsonw *w, const char *key, double v);
void jsonw_bool(struct jsonw *w, const char *key, bool v);
void jsonw_null(struct jsonw *w, const char *key);
/** Finish: newline after the top-level value; returns ferror state. */
int jsonw_finish(struct jsonw *w);

#endif /* UTIL_JSONW_H */
