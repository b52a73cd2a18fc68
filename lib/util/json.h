/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON through jansson (Debian's libjansson): setters that take C types,
 * and whole documents read and written (atomically) to files. */

#ifndef UTIL_JSON_H
#define UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* Members of object o (key) or, with key NULL, elements appended to array
 * o. Values above INT64_MAX (jansson's integer) are written as reals. */
void js_u64(json_t *o, const char *key, uint64_t v);
void js_i64(json_t *o, const char *key, int64_t v);
/** Non-finite values are written as null (JSON has no NaN). */
void js_dbl(json_t *o, const char *key, double v);
/** NULL v is written as null. */
void js_str(json_t *o, const char *key, const char *v);
void js_bool(json_t *o, const char *key, bool v);
void js_null(json_t *o, const char *key);
/** A new object or array, as member key of o (or appended, key NULL). */
json_t *js_obj(json_t *o, const char *key);
json_t *js_arr(json_t *o, const char *key);

/**
 * Write root to f, indented (pretty) or on one line, with a final newline.
 * @return 0, or -EIO.
 */
int js_write(const json_t *root, FILE *f, bool pretty);

/**
 * Write root to path as a whole: to PATH.part, then renamed, so a reader
 * never sees half a document.
 * @return 0, or a negative errno with the reason (naming the file) in err.
 */
int js_write_file(const json_t *root, const char *path, char *err, size_t errlen);

/**
 * Parse len bytes of text (need not be NUL-terminated) as one JSON value.
 * @return the value (json_decref it), or NULL with "byte B (line L column
 *   C): what" in err.
 */
json_t *js_parse(const char *text, size_t len, char *err, size_t errlen);

#endif /* UTIL_JSON_H */
