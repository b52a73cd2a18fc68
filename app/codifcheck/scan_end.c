/* SPDX-License-Identifier: BSD-3-Clause */
/* The end of a scan: every timeline flushed (a capture's antennas, a file's
 * streams), and each stream's last gap. */

#include <errno.h>

#include "scan.h"
#include "scan_priv.h"

/* A stream closed at its timeline's newest frame: the frames it lacks there
 * are a last gap. */
static int
close_tail(struct cc_stream *st)
{
	int64_t n = st->seq->end - st->seq->newest;

	if (n <= 0 || st->nseg == 0)
		return 0;
	if (cc_gaps_add(&st->gaps, st->hi + 1, st->hi + n, CC_GAP_MISSING) == -ENOMEM)
		return -ENOMEM;
	st->hi += n;
	return 0;
}

int
cc_scan_finish(struct cc_scan *s)
{
	unsigned int i, a;
	int rc = 0;

	if (s->acct != NULL) {
		acct_flush(s->acct);
		for (a = 0; a < ACCT_MAX_ANTENNAS && rc == 0; a++)
			if (acct_busy(s->acct, (int)a))
				rc = cc_pcap_actions(s, (int)a);
	} else {
		for (i = 0; i < s->nst && rc == 0; i++) {
			struct cc_stream *st = s->st[i];

			codif_tl_flush(st->tl, &st->seq, 1);
			rc = cc_file_actions(s, st);
		}
	}
	for (i = 0; i < s->nst && rc == 0; i++)
		rc = close_tail(s->st[i]);
	if (rc == -ENOMEM)
		s->err = rc;
	return rc;
}
