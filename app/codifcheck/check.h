/* SPDX-License-Identifier: BSD-3-Clause */
/* The info and verify commands: files and directories in, reports and exit status out. */

#ifndef CC_CHECK_H
#define CC_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"

#include "scan.h"

/** Exit statuses of every command. */
#define CC_EXIT_OK 0
#define CC_EXIT_PROBLEMS 1  /**< problems found, or a file unreadable */
#define CC_EXIT_USAGE 2     /**< bad command line */

struct cc_check_opts {
	bool json;
	bool pattern;
	bool strict;
	bool have_since;
	int64_t since_ns;
	uint64_t max_gaps;          /**< gaps listed per stream (0 = all) */
	unsigned int max_problems;  /**< problems listed per file */
	struct codif_tl_cfg tl;     /**< timelines (lib/codif) */
	const struct cc_filter *filter; /**< captures: antennas and groups, or NULL */
};

/** What a command-line argument expands to. */
enum cc_entry_kind {
	CC_E_FILE = 0,   /**< check it */
	CC_E_PART,       /**< NAME.part in a directory: incomplete, not read */
	CC_E_UNKNOWN,    /**< in a directory, not a recognised format: skipped */
	CC_E_SCAN,       /**< a scan's index (PREFIX_scan.FORMAT.json): checked
			      against the scan's files beside it */
};

struct cc_entry {
	char *path;
	enum cc_entry_kind kind;
};

struct cc_entries {
	struct cc_entry *v;
	size_t n, cap;
};

/**
 * Expand arg: a file is itself (a scan index: CC_E_SCAN); a directory gives
 * every recognised file directly inside it (sorted by name), NAME.part
 * files as CC_E_PART, a NAME.raw.json beside its NAME.raw not at all (the
 * raw file stands for both), a scan's index as CC_E_SCAN, and the same of
 * each subdirectory that holds a scan index (a writer's DIR/SCAN/: one
 * level; other subdirectories are not searched).
 * @return 0 or -ENOMEM.
 */
int cc_expand(const char *arg, struct cc_entries *e);
void cc_entries_free(struct cc_entries *e);

/** codifcheck info PATH... @return an exit status. */
int cc_cmd_info(char **paths, int n, const struct cc_check_opts *o);
/** codifcheck verify PATH... @return an exit status. */
int cc_cmd_verify(char **paths, int n, const struct cc_check_opts *o);

#endif /* CC_CHECK_H */
