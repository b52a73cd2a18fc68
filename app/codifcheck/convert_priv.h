/* SPDX-License-Identifier: BSD-3-Clause */
/* What the convert command's files (convert*.c) share, and no caller sees:
 * an output file and a frame on its way to it, names, the capture unit. */

#ifndef CC_CONVERT_PRIV_H
#define CC_CONVERT_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"
#include "convert.h"
#include "fmt.h"
#include "fmt_raw.h"
#include "inspect.h"

#define ERRLEN (PATH_MAX + 512)
/** Largest Ethernet frame written to a pcap (its snaplen). */
#define CC_PCAP_SNAPLEN 65535
/** Staging of an output file (more when a row needs it). */
#define CC_OUT_BUF (4u << 20)

/* A frame on its way to an output. */
struct cframe {
	const struct codif_hdr *h;
	const uint8_t *codif;       /* header + data */
	size_t len;
	bool gap;                   /* never arrived: a placeholder */
	uint64_t off;               /* where the input has it (messages) */
	int64_t index;              /* pcap: the IPv4 id */
	uint32_t src, dst;          /* pcap: the packet's addresses */
	uint16_t port;
};

struct cout {
	const struct cc_conv_opts *o;
	enum fmt_kind kind;
	struct fmt_sink s;
	bool open;
	uint32_t nslot;             /* frames in a row (raw: its streams) */
	uint32_t k;                 /* frames of the row in progress */
	struct fmt_raw_index ri;    /* raw: what the index says (streams, time) */
	struct fmt_iface ifc;       /* pcapng: the antenna (its name, address) */
	uint64_t rows, frames, gaps, invalid;
};

/* Whether a and b are the same stream (station, group, secondary, thread). */
static inline bool
cc_same_ids(const struct codif_hdr *a, const struct codif_hdr *b)
{
	return a->stationid == b->stationid && a->groupid == b->groupid &&
	       a->secondaryid == b->secondaryid && a->threadid == b->threadid;
}

/* convert_out.c: the outputs' names, the exit status of an input, and one
 * output file. */

/* The output's path: -o, or <outdir>/<prefix>_<antenna>_<UTC>.<ext>.
 * @return 0, or -1 with the message printed. */
int cc_out_name(const struct cc_conv_opts *o, const char *prefix, const char *ant,
		int64_t utc_ns, const char *ext, char *buf, size_t len);
/* The prefix and antenna parts of the outputs' names, from the options, the
 * input's formats.md name, else the defaults. */
void cc_names_of(const struct cc_conv_opts *o, const char *in, const char *ant_default,
		 char *prefix, char *ant);
/* The exit status an input's problems give (CC_EXIT_OK when none). */
int cc_input_problems(const struct cc_file *f);

int cc_cout_open(struct cout *c, const char *path, uint32_t nslot, size_t fb,
		 const struct fmt_raw_index *ri, char *err, size_t errlen);
/* Add frame fr to the output's row in progress (a row: nslot frames).
 * @return 0 or a negative errno with the message in err. */
int cc_cout_put(struct cout *c, const struct cframe *fr, char *err, size_t errlen);
/* Close the output, completing it when ok, else removing it. @return 0 or a
 * negative errno with the message in err. */
int cc_cout_close(struct cout *c, bool ok, char *err, size_t errlen);
/* Say on stdout what was written (what: the conversion's words). */
void cc_cout_report(const struct cout *c, const char *what);

/* convert_capture.c: a pcap or pcapng capture to outputs of kind to, one
 * per antenna and timeline segment; each output written whole is added to
 * x when x is not NULL (its files, frames, placeholders, bytes, streams and
 * the data time written). @return the exit status. */
int cc_convert_capture(const char *in, const struct cc_conv_opts *o,
		       const struct cc_scan_opts *so, enum fmt_kind to, struct cc_xres *x);

#endif /* CC_CONVERT_PRIV_H */
