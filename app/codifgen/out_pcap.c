/* SPDX-License-Identifier: BSD-3-Clause */
/* codifgen --pcap: the frames as a nanosecond pcap, through lib/fmt. */

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "codifgen.h"
#include "fmt_pcap.h"

/* --pcap FILE: the pcap sink (lib/fmt), written as FILE.part and renamed;
 * an existing FILE is replaced, as a generator's output always was. */
int
pcap_out_open(struct fmt_sink *op, const char *path)
{
	struct fmt_opts fo = { .bufsize = 4u << 20, .fio_flags = FIO_REPLACE, .snaplen = 65535 };
	char err[PATH_MAX + 256];

	if (fmt_open(op, FMT_PCAP, path, &fo, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "codifgen: --pcap: '%s': %s\n", path, err);
		return -1;
	}
	return 0;
}

/* Every packet whole (the largest, 64 KiB of data, is longer than the
 * file's snaplen 65535: kept whole, as libpcap's dumper did). */
int
pcap_out_write(struct fmt_sink *op, const char *path, int64_t ts, const uint8_t *buf,
	       uint32_t len)
{
	uint8_t *p = fmt_pcap_record(op, ts, len, len);
	int rc = -E2BIG;

	if (p != NULL) {
		memcpy(p, buf, len);
		rc = fmt_pcap_record_end(op);
	} else if (fio_error(&op->f) != 0) {
		rc = -fio_error(&op->f);
	}
	if (rc != 0)
		fprintf(stderr, "codifgen: --pcap: '%s': write failed: %s\n", path, strerror(-rc));
	return rc;
}

int
pcap_out_close(struct fmt_sink *op, const char *path)
{
	char err[PATH_MAX + 256];

	if (fmt_close(op, true, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "codifgen: --pcap: '%s': write failed: %s\n", path, err);
		return -1;
	}
	return 0;
}
