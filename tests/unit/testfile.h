/* SPDX-License-Identifier: BSD-3-Clause */
/* A whole file read into memory, for tests that compare files. */

#ifndef TESTS_TESTFILE_H
#define TESTS_TESTFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/** path's bytes (free them), *len their count; NULL (and *len 0) when it
 * cannot be opened. */
static inline uint8_t *
test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	*len = 0;
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(n > 0 ? (size_t)n : 1);
	if (p != NULL && fread(p, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	fclose(f);
	return p;
}

#endif
