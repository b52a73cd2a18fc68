/* SPDX-License-Identifier: BSD-3-Clause */
/* A small JSON reader (whole text to a tree), enough for the raw index. */

#ifndef CC_JSONR_H
#define CC_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Nesting deeper than this is refused (the index needs 3 levels). */
#define CC_JR_MAX_DEPTH 32

enum cc_jr_type { CC_JR_NULL, CC_JR_BOOL, CC_JR_NUM, CC_JR_STR, CC_JR_ARR, CC_JR_OBJ };

struct cc_jr {
	enum cc_jr_type t;
	bool b;
	/** Numbers: is_uint when a plain non-negative integer that fits
	 * 64 bits (u exact); d always holds the value. */
	bool is_uint;
	uint64_t u;
	double d;
	char *s;            /**< strings, NUL-terminated (no embedded NUL) */
	size_t n;           /**< children of arrays and objects */
	struct cc_jr *v;
	char **k;           /**< object keys */
};

/**
 * Parse text (len bytes; need not be NUL-terminated) into *out.
 * @return 0, or -EINVAL ("byte N: expected ..." in err) / -ENOMEM.
 */
int cc_jr_parse(const char *text, size_t len, struct cc_jr *out, char *err,
		size_t errlen);
void cc_jr_free(struct cc_jr *v);

/** Member key of an object, or NULL (also when v is not an object). */
const struct cc_jr *cc_jr_get(const struct cc_jr *v, const char *key);

#endif /* CC_JSONR_H */
