/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fmt inside: what fmt.c calls in each format's file (not for users). */

#ifndef FMT_INT_H
#define FMT_INT_H

#include "fmt.h"

/* pcap (fmt_pcap.c) */
int fmt_pcap_start(struct fmt_sink *s);
int fmt_pcap_put(struct fmt_sink *s, const struct fmt_frame *fr);

/* codif (fmt_codif.c) */
int fmt_codif_put(struct fmt_sink *s, const struct fmt_frame *fr);

/* raw (fmt_raw.c) */
int fmt_raw_start(struct fmt_sink *s, const struct fmt_raw_index *idx, char *err,
		  size_t errlen);
int fmt_raw_put(struct fmt_sink *s, const struct fmt_frame *fr);
int fmt_raw_row_end(struct fmt_sink *s);
/* the index of the rows kept in bytes of raw data, beside the file */
int fmt_raw_finish(struct fmt_sink *s, uint64_t bytes, char *err, size_t errlen);
void fmt_raw_free(struct fmt_sink *s);

#endif /* FMT_INT_H */
