/* SPDX-License-Identifier: BSD-3-Clause */
/* Test tools: an acct instance's counts as JSON, in the ground truth's schema. */

#ifndef TESTS_COUNTJSON_H
#define TESTS_COUNTJSON_H

#include <stdint.h>
#include <stdio.h>

#include "acct.h"

/** Streams, antennas (with malformed causes) and unattributed packets. */
void count_json(FILE *f, struct acct *a, uint64_t pkts, uint64_t bad_payload,
		uint64_t caplen_short, const char *tsprec);

#endif
