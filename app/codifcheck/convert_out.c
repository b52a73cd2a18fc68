/* SPDX-License-Identifier: BSD-3-Clause */
/* One output file of a conversion: rows of frames handed to the output
 * format's sink (lib/fmt), with what a raw output's index and a pcap's
 * addresses need. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "convert.h"
#include "err.h"
#include "convert_priv.h"
#include "fmt_codif.h"
#include "fmt_name.h"
#include "fmt_pcap.h"
#include "fmt_raw.h"
#include "inspect.h"
#include "names.h"
#include "parse.h"
#include "pkt.h"
#include "report.h"

/*
 * Open the output: kind at path, rows of nslot frames of fb bytes each;
 * raw: ri (streams, time) says what its index will.
 */
int
cc_cout_open(struct cout *c, const char *path, uint32_t nslot, size_t fb,
	  const struct fmt_raw_index *ri, char *err, size_t errlen)
{
	size_t row = fmt_row_bytes_max(nslot, (uint32_t)(fb - CODIF_HDR_LEN));
	struct fmt_opts fo = {
		.bufsize = CC_OUT_BUF > 2 * row + 2 * FIO_ALIGN ? CC_OUT_BUF : 2 * row + 2 * FIO_ALIGN,
		.fio_flags = c->o->force ? FIO_REPLACE : 0,
		.snaplen = CC_PCAP_SNAPLEN,
		.ifaces = &c->ifc,
		.nifaces = 1,
		.app = "codifcheck " IBVCAP_VERSION,
	};
	int rc;

	rc = fmt_open(&c->s, c->kind, path, &fo, ri, err, errlen);
	if (rc == -EEXIST)
		err_append(err, errlen, " (give --force to replace it)");
	if (rc != 0)
		return -1;
	c->open = true;
	c->nslot = nslot;
	return 0;
}

/* Ethernet/IPv4/UDP for a stream: the input's addresses where it has them
 * (a raw index), else --src and --dst, whose destination and port step with
 * secondaryid (codifgen's group index) so streams stay apart. */
static int
udp_spec(const struct cc_conv_opts *o, const struct cframe *fr, struct pkt_udp4_spec *sp,
	 char *err, size_t errlen)
{
	const struct codif_hdr *h = fr->h;
	uint32_t port = fr->port != 0 ? fr->port : (uint32_t)o->port + h->secondaryid;

	if (port > 65535)
		return err_set(err, errlen, -ERANGE,
			       "secondaryid %u: port %u + %u is beyond 65535 "
			       "(give a lower --dst port)", h->secondaryid, o->port,
			       h->secondaryid);
	memset(sp, 0, sizeof(*sp));
	sp->src_ip = fr->src != 0 ? fr->src : o->src;
	sp->src_mac[0] = 0x02;
	sp->src_mac[3] = 0x17;
	sp->src_mac[4] = (uint8_t)(sp->src_ip >> 8);
	sp->src_mac[5] = (uint8_t)sp->src_ip;
	sp->dst_ip = fr->dst != 0 ? fr->dst : o->dst + h->secondaryid;
	if (sp->dst_ip >> 28 == 0xE) {
		pkt_mcast_mac(sp->dst_ip, sp->dst_mac);
	} else {
		sp->dst_mac[0] = 0x02;
		sp->dst_mac[5] = 0x01;
	}
	sp->sport = (uint16_t)port;
	sp->dport = (uint16_t)port;
	sp->ttl = 1;
	sp->ip_id = (uint16_t)fr->index;
	return 0;
}

/* Raw keeps data only: a frame must be what its index rebuilds (its slot's
 * stream, its row's time, its own invalid bit). */
static int
raw_check(const struct cout *c, const struct cframe *fr, uint32_t slot, char *err,
	  size_t errlen)
{
	char name[32], sta[3];
	struct codif_hdr want;
	uint8_t b[CODIF_HDR_LEN];
	unsigned int i;

	if (!cc_same_ids(&c->ri.st[slot].hdr, fr->h)) {
		codif_station_str(fr->h->stationid, sta);
		snprintf(name, sizeof(name), "%s/%u/%u/%u", sta, fr->h->groupid,
			 fr->h->secondaryid, fr->h->threadid);
		return err_set(err, errlen, -EINVAL,
			       "frame at offset %" PRIu64 ": stream %s where row %" PRIu64
			       " has slot %u; a raw file needs whole rows in one slot order "
			       "(formats.md)", fr->off, name, c->rows, slot);
	}
	fmt_raw_frame_hdr(&c->ri, slot, c->rows, fr->h->invalid, &want);
	if (want.seconds != fr->h->seconds || want.frame != fr->h->frame) {
		return err_set(err, errlen, -EINVAL,
			       "frame at offset %" PRIu64 ": seconds %" PRIu32 " frame %"
			       PRIu32 ", row %" PRIu64 " is at seconds %" PRIu32 " frame %" PRIu32
			       "; a raw file needs rows without holes", fr->off, fr->h->seconds,
			       fr->h->frame, c->rows, want.seconds, want.frame);
	}
	codif_encode(&want, b);
	for (i = 0; i < CODIF_HDR_LEN; i++)
		if (b[i] != fr->codif[i]) {
			return err_set(err, errlen, -EINVAL,
				       "frame at offset %" PRIu64 ": header byte %u differs "
				       "from its stream's first header in more than time and the "
				       "invalid bit; raw + index cannot keep it", fr->off, i);
		}
	return 0;
}

/* One frame into the row in progress (begun and ended here). */
int
cc_cout_put(struct cout *c, const struct cframe *fr, char *err, size_t errlen)
{
	uint8_t l2[PKT_HDRS_LEN + 8];
	struct pkt_udp4_spec sp;
	struct fmt_frame ff;
	int rc;

	memset(&ff, 0, sizeof(ff));
	ff.hdr = fr->codif;
	ff.data = fr->codif + CODIF_HDR_LEN;
	ff.data_bytes = (uint32_t)(fr->len - CODIF_HDR_LEN);
	ff.flags = fr->gap ? FMT_F_GAP : fr->h->invalid ? FMT_F_INVALID : 0;
	if (c->kind == FMT_RAW && raw_check(c, fr, c->k, err, errlen) != 0)
		return -1;
	if (fmt_is_packets(c->kind) && !fr->gap) {
		if (fr->len > CC_PCAP_SNAPLEN - PKT_HDRS_LEN)
			return err_set(err, errlen, -EINVAL,
				       "frame at offset %" PRIu64 ": %zu bytes do not fit "
				       "one UDP datagram", fr->off, fr->len);
		if (udp_spec(c->o, fr, &sp, err, errlen) != 0)
			return -1;
		ff.l2 = l2;
		ff.l2len = pkt_build_udp4(l2, &sp, (uint32_t)fr->len);
		ff.t_ns = codif_frame_time_ns(fr->h);
	}
	rc = c->k == 0 ? fmt_row_begin(&c->s, fmt_row_bytes_max(c->nslot, ff.data_bytes)) : 0;
	if (rc == 0)
		rc = fmt_put(&c->s, &ff);
	if (rc >= 0 && ++c->k == c->nslot) {
		rc = fmt_row_end(&c->s);
		c->k = 0;
		c->rows++;
	}
	if (rc < 0)
		return err_set(err, errlen, rc, "%s: %s", fio_part(&c->s.f), strerror(-rc));
	if (fr->gap)
		c->gaps++;
	else
		c->frames++;
	if (!fr->gap && fr->h->invalid)
		c->invalid++;
	return 0;
}

/* Finish the output: kept (renamed, with its index) when ok. */
int
cc_cout_close(struct cout *c, bool ok, char *err, size_t errlen)
{
	char e2[ERRLEN];
	int rc;

	if (!c->open)
		return ok ? 0 : -1;
	c->open = false;
	if (ok && c->k != 0) {
		err_set(err, errlen, -EINVAL, "the file ends inside a row (%u of %u frames); raw "
			"rows must be whole", c->k, c->nslot);
		ok = false;
	}
	rc = fmt_close(&c->s, ok, NULL, ok ? err : e2, ok ? errlen : sizeof(e2));
	return ok && rc == 0 ? 0 : -1;
}

void
cc_cout_report(const struct cout *c, const char *what)
{
	const char *path = fio_path(&c->s.f);

	if (c->kind == FMT_RAW)
		printf("codifcheck: wrote %s and %s.json (%s%u streams, %" PRIu64 " rows, %" PRIu64
		       " lost written as zeros, %" PRIu64 " invalid)\n", path, path, what,
		       c->nslot, c->rows, c->gaps, c->invalid);
	else if (c->kind == FMT_CODIF)
		printf("codifcheck: wrote %s (%s%" PRIu64 " frames, %" PRIu64 " lost written as "
		       "invalid)\n", path, what, c->frames, c->gaps);
	else
		printf("codifcheck: wrote %s (%s%" PRIu64 " frames; %" PRIu64 " placeholder "
		       "frames of gaps left out)\n", path, what, c->frames, c->gaps);
}

/* Output name: -o, or <outdir>/<prefix>_<antenna>_<UTC>.<ext>. */
int
cc_out_name(const struct cc_conv_opts *o, const char *prefix, const char *ant,
	 int64_t utc_ns, const char *ext, char *buf, size_t len)
{
	int n;

	if (o->output == NULL)
		return fmt_file_name(buf, len, o->outdir, prefix, ant, utc_ns, ext);
	n = snprintf(buf, len, "%s", o->output);
	return n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* Prefix and antenna for outputs of one input: options, else the input's
 * formats.md name, else the defaults. */
void
cc_names_of(const struct cc_conv_opts *o, const char *in, const char *ant_default,
	 char *prefix, char *ant)
{
	struct cc_name nm;
	bool named = cc_parse_name(in, &nm) == 0;

	snprintf(prefix, CC_NAME_PART_LEN, "%s", o->prefix != NULL ? o->prefix :
		 named ? nm.prefix : CC_DEFAULT_PREFIX);
	snprintf(ant, CC_NAME_PART_LEN, "%s", o->antenna != NULL ? o->antenna :
		 ant_default != NULL ? ant_default : named ? nm.antenna : "ant0");
}

/* Input problems are reported; the outputs hold every good frame. */
int
cc_input_problems(const struct cc_file *f)
{
	if (f->scan == NULL || f->scan->problems == 0)
		return CC_EXIT_OK;
	fprintf(stderr, "codifcheck: convert: %s: %" PRIu64 " problem%s in the input "
		"(frames that could not be read are not in the output):\n", f->path,
		f->scan->problems, f->scan->problems == 1 ? "" : "s");
	cc_problems_text(stderr, f->scan, "  ");
	return CC_EXIT_PROBLEMS;
}
