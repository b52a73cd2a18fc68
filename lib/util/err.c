/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "parse.h"

int
err_set(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return rc < 0 ? rc : -EINVAL;
}

void
err_append(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (err == NULL || len == 0)
		return;
	n = strnlen(err, len);
	if (n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(err + n, len - n, fmt, ap);
	va_end(ap);
}

int
err_refuse(struct err_refusal *r, const char *input, const char *value, const char *fmt, ...)
{
	va_list ap;

	str_copy(r->input, sizeof(r->input), input);
	str_escape(value != NULL ? value : "", r->value, sizeof(r->value));
	va_start(ap, fmt);
	vsnprintf(r->expected, sizeof(r->expected), fmt, ap);
	va_end(ap);
	return -EINVAL;
}
