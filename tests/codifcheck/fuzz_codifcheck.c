/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target over codifcheck's readers: format detection, the codif
 * reader, the raw index reader (lib/fmt) and raw scan (input: index text,
 * NUL, raw data), the pcap/pcapng reader (libpcap on fmemopen), file-name
 * parsing and the report writers. Builds as a corpus replay without libFuzzer. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "fmt_name.h"
#include "names.h"
#include "fmt_raw.h"
#include "json.h"
#include "rd.h"
#include "report.h"
#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct cc_scan_opts opts = {
	.pattern = true, .max_problems = 4,
	.tl = { .window = 64, .ahead = 8, .confirm = 3, .max_gap_ns = 1000000 },
};

/* The report code over a finished scan, into /dev/null. */
static void
report(struct cc_scan *s, enum cc_fmt fmt, FILE *null)
{
	struct cc_file f;
	json_t *arr = json_array();

	memset(&f, 0, sizeof(f));
	f.scan = s;
	f.det.fmt = fmt;
	cc_scan_sort(s);
	cc_info_text(null, &f, 2);
	cc_verify_text(null, &f, true);
	cc_info_json(arr, &f, 2);
	cc_verify_json(arr, &f, true);
	js_write(arr, null, false);
	json_decref(arr);
}

static void
fuzz_codif(const uint8_t *data, size_t size, FILE *null)
{
	struct cc_scan *s = cc_scan_new(&opts);
	struct cc_rd rd;

	/* a small buffer makes refills and resyncs cross buffer edges */
	if (s != NULL && cc_rd_open_mem(&rd, data, size, 256, CC_MAX_DATA + 256) == 0) {
		cc_scan_codif(s, &rd);
		cc_scan_finish(s);
		report(s, CC_FMT_CODIF, null);
		cc_rd_close(&rd);
	}
	cc_scan_free(s);
}

/* Input: index text, a NUL, then the raw data it describes. */
static void
fuzz_raw(const uint8_t *data, size_t size, FILE *null)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul != NULL ? (size_t)(nul - data) : size;
	const uint8_t *raw = nul != NULL ? nul + 1 : data + size;
	size_t rlen = size - (size_t)(raw - data);
	struct fmt_raw_index ri;
	struct cc_scan *s;
	struct cc_rd rd;
	char err[256];
	json_t *j;

	if (fmt_raw_index_parse((const char *)data, tlen, &ri, err, sizeof(err)) != 0)
		return;
	/* what parses writes back */
	j = fmt_raw_index_json(&ri);
	if (j != NULL)
		js_write(j, null, true);
	json_decref(j);
	s = cc_scan_new(&opts);
	if (s != NULL && cc_rd_open_mem(&rd, raw, rlen, 256, CC_MAX_DATA + 256) == 0) {
		cc_scan_raw(s, &ri, &rd, rlen);
		cc_scan_finish(s);
		report(s, CC_FMT_RAW, null);
		cc_rd_close(&rd);
	}
	cc_scan_free(s);
	fmt_raw_index_free(&ri);
}

static void
fuzz_pcap(const uint8_t *data, size_t size, enum cc_fmt fmt, FILE *null)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct cc_scan *s;
	FILE *f;
	pcap_t *p;

	if (size == 0)
		return;
	f = fmemopen((void *)(uintptr_t)data, size, "rb");
	if (f == NULL)
		return;
	p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO,
						     errbuf);
	if (p == NULL) {
		fclose(f);
		return;
	}
	s = cc_scan_new(&opts);
	if (s != NULL) {
		s->fmt = fmt;
		cc_scan_pcap(s, p);
		cc_scan_finish(s);
		report(s, fmt, null);
	}
	cc_scan_free(s);
	pcap_close(p); /* closes f */
}

static void
fuzz_names(const uint8_t *data, size_t size)
{
	char *str = malloc(size + 1);
	struct cc_name n;
	int64_t t;

	if (str == NULL)
		return;
	memcpy(str, data, size);
	str[size] = '\0';
	cc_parse_name(str, &n);
	fmt_parse_name_utc(str, &t);
	free(str);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *null = fopen("/dev/null", "w");
	struct cc_detect d;

	if (null == NULL)
		return 0;
	cc_detect(data, size, size, "fuzz.bin", &d);
	fuzz_codif(data, size, null);
	fuzz_raw(data, size, null);
	if (d.fmt == CC_FMT_PCAP || d.fmt == CC_FMT_PCAPNG)
		fuzz_pcap(data, size, d.fmt, null);
	fuzz_names(data, size);
	fclose(null);
	return 0;
}
