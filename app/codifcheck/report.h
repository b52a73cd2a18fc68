/* SPDX-License-Identifier: BSD-3-Clause */
/* What info and verify print about a scanned file: text for people, JSON for machines. */

#ifndef CC_REPORT_H
#define CC_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "inspect.h"
#include "json.h"

/** The --strict issues of a file: counts that are problems only then. */
struct cc_notes {
	uint64_t lost, gaps, invalid, late, duplicate, too_late, resyncs, new_params,
		 unattributed;
};

/** Sum the notes of every stream (and unattributed packets) of f. */
void cc_notes_of(const struct cc_file *f, struct cc_notes *n);
/** Number of note kinds that are non-zero: the --strict problem count. */
unsigned int cc_notes_count(const struct cc_notes *n);

/** info: every stream (and antenna, for pcap) with counts, gaps, timing. */
void cc_info_text(FILE *out, const struct cc_file *f, uint64_t max_gaps);
/** info --json: one object for the file appended to arr (streams and
 * antennas as compare.py reads). */
void cc_info_json(json_t *arr, const struct cc_file *f, uint64_t max_gaps);

/** verify: one line for the file, then its problems (and notes). */
void cc_verify_text(FILE *out, const struct cc_file *f, bool strict);
/** verify --json: one object for the file appended to arr. */
void cc_verify_json(json_t *arr, const struct cc_file *f, bool strict);

/** Problems of a scan, one line each (at most the kept ones). */
void cc_problems_text(FILE *out, const struct cc_scan *s, const char *indent);
/** The problems of a scan as members of o. */
void cc_problems_json(json_t *o, const struct cc_scan *s);

/**
 * A stream's heading in a per-stream report (bstate, spectrum): with json,
 * a new object {"stream": NAME} appended to arr, returned; else the text
 * line " stream NAME" on stdout, and NULL.
 */
json_t *cc_stream_head(bool json, json_t *arr, const char *name);

#endif /* CC_REPORT_H */
