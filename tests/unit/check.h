/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal assertion helpers for the unit tests: count, report, exit status. */

#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                          \
	do {                                                                 \
		check_count++;                                               \
		if (!(cond)) {                                               \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                            \
		}                                                            \
	} while (0)

#define CHECK_EQ_U(a, b)                                                     \
	do {                                                                 \
		uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);           \
		check_count++;                                               \
		if (va_ != vb_) {                                            \
			check_failures++;                                    \
			fprintf(stderr,                                      \
				"%s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 \
				"\n", __FILE__, __LINE__, #a, #b, va_, vb_); \
		}                                                            \
	} while (0)

#define CHECK_EQ_I(a, b)                                                     \
	do {                                                                 \
		int64_t va_ = (int64_t)(a), vb_ = (int64_t)(b);              \
		check_count++;                                               \
		if (va_ != vb_) {                                            \
			check_failures++;                                    \
			fprintf(stderr,                                      \
				"%s:%d: %s == %s failed: %" PRId64 " != %" PRId64 \
				"\n", __FILE__, __LINE__, #a, #b, va_, vb_); \
		}                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                      \
	do {                                                                 \
		const char *sa_ = (a), *sb_ = (b);                           \
		check_count++;                                               \
		if (sa_ == NULL || sb_ == NULL || strcmp(sa_, sb_) != 0) {   \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: %s == \"%s\" failed: got \"%s\"\n", \
				__FILE__, __LINE__, #a, sb_ ? sb_ : "(null)", \
				sa_ ? sa_ : "(null)");                       \
		}                                                            \
	} while (0)

/* substring */
#define CHECK_HAS(hay, needle)                                               \
	do {                                                                 \
		const char *h_ = (hay), *n_ = (needle);                      \
		check_count++;                                               \
		if (h_ == NULL || strstr(h_, n_) == NULL) {                  \
			check_failures++;                                    \
			fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", \
				__FILE__, __LINE__, h_ ? h_ : "(null)", n_); \
		}                                                            \
	} while (0)

static inline int
check_report(const char *name)
{
	if (check_failures != 0) {
		fprintf(stderr, "%s: %d of %d checks failed\n", name,
			check_failures, check_count);
		return 1;
	}
	printf("%s: all %d checks passed\n", name, check_count);
	return 0;
}

#endif /* TESTS_CHECK_H */
