/* SPDX-License-Identifier: BSD-3-Clause */
/* What lib/codif's files share and no caller sees. */
#ifndef CODIF_INT_H
#define CODIF_INT_H

#include <stddef.h>

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

/* A message into the caller's buffer (either may be NULL / 0), as
 * lib/util's err_set writes one (lib/codif links nothing but libm). */
void codif_seterr(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
