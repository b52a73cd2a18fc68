/* SPDX-License-Identifier: BSD-3-Clause */
/* JSON through jansson: typed setters, indented output, atomic files. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "json.h"

/* a member of an object, or an element of an array; takes v */
static void
put(json_t *o, const char *key, json_t *v)
{
	if (v == NULL)
		return;
	if (key != NULL)
		json_object_set_new(o, key, v);
	else
		json_array_append_new(o, v);
}

void
js_u64(json_t *o, const char *key, uint64_t v)
{
	put(o, key, v <= INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v));
}

void
js_i64(json_t *o, const char *key, int64_t v)
{
	put(o, key, json_integer((json_int_t)v));
}

void
js_dbl(json_t *o, const char *key, double v)
{
	put(o, key, isfinite(v) ? json_real(v) : json_null());
}

void
js_str(json_t *o, const char *key, const char *v)
{
	put(o, key, v != NULL ? json_string(v) : json_null());
}

void
js_bool(json_t *o, const char *key, bool v)
{
	put(o, key, json_boolean(v));
}

void
js_null(json_t *o, const char *key)
{
	put(o, key, json_null());
}

json_t *
js_obj(json_t *o, const char *key)
{
	json_t *v = json_object();

	put(o, key, v);
	return v;
}

json_t *
js_arr(json_t *o, const char *key)
{
	json_t *v = json_array();

	put(o, key, v);
	return v;
}

int
js_write(const json_t *root, FILE *f, bool pretty)
{
	size_t flags = JSON_REAL_PRECISION(10) | (pretty ? JSON_INDENT(2) : JSON_COMPACT);

	if (json_dumpf(root, f, flags) != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
		return -EIO;
	return ferror(f) ? -EIO : 0;
}

int
js_write_file(const json_t *root, const char *path, char *err, size_t errlen)
{
	char tmp[4096];
	FILE *f;
	int rc, e;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.part", path) >= sizeof(tmp)) {
		return err_set(err, errlen, -ENAMETOOLONG, "'%s': name too long", path);
	}
	f = fopen(tmp, "w");
	if (f == NULL) {
		e = errno;
		return err_set(err, errlen, -e, "'%s': %s", tmp, strerror(e));
	}
	rc = js_write(root, f, true);
	e = errno;
	if (fclose(f) != 0 && rc == 0) {
		rc = -EIO;
		e = errno;
	}
	if (rc != 0) {
		unlink(tmp);
		return err_set(err, errlen, -(e ? e : EIO), "'%s': write failed: %s", tmp,
			       strerror(e ? e : EIO));
	}
	if (rename(tmp, path) != 0) {
		e = errno;
		unlink(tmp);
		return err_set(err, errlen, -e, "rename '%s' to '%s': %s", tmp, path, strerror(e));
	}
	return 0;
}

json_t *
js_parse(const char *text, size_t len, char *err, size_t errlen)
{
	json_error_t je;
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);

	if (v == NULL)
		err_set(err, errlen, -EINVAL, "byte %d (line %d column %d): %s", je.position,
			je.line, je.column, je.text);
	return v;
}
