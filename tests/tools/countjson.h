/* SPDX-License-Identifier: BSD-3-Clause */
/* Test tools: an acct instance's counts as JSON, in the ground truth's schema. */

#ifndef TESTS_COUNTJSON_H
#define TESTS_COUNTJSON_H

#include <stdint.h>
#include <stdio.h>

#include "acct.h"

/**
 * Count one frame of a reference counter (no placement): acct_frame, and the
 * actions on held frames (nothing to keep: counting needs only their fate).
 */
void count_frame(struct acct *a, const uint8_t *f, uint32_t len, struct acct_result *r);

/** The end of input: held frames dropped, streams closed. */
void count_finish(struct acct *a);

/** Streams, antennas (with malformed causes) and unattributed packets. */
void count_json(FILE *f, struct acct *a, uint64_t pkts, uint64_t bad_payload,
		uint64_t caplen_short, const char *tsprec);

#endif
