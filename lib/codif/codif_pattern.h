/* SPDX-License-Identifier: BSD-3-Clause */
/* Deterministic CODIF payload: a function of the stream ids and frame time. */

#ifndef CODIF_PATTERN_H
#define CODIF_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"

/**
 * Seed of the payload of the frame h describes: a hash of stationid,
 * groupid, secondaryid, threadid, seconds and frame. Any stage that has
 * the header can regenerate the payload and compare it byte for byte.
 */
uint64_t codif_pattern_seed(const struct codif_hdr *h);

/** Fill len bytes (any length) with the payload of the frame h describes. */
void codif_pattern_fill(const struct codif_hdr *h, void *buf, size_t len);

/**
 * Check len bytes against the payload of frame h.
 * @return true when equal; else false and *bad_off = first differing byte.
 */
bool codif_pattern_check(const struct codif_hdr *h, const void *buf, size_t len,
			 size_t *bad_off);

#endif /* CODIF_PATTERN_H */
