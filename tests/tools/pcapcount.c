/* SPDX-License-Identifier: BSD-3-Clause */
/* Test tool: count a CODIF capture with lib/acct and print JSON (as the truth). */

#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "codif_pattern.h"
#include "countjson.h"

int
main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct acct_layout l;
	struct pcap_pkthdr *h;
	const u_char *data;
	struct acct *a;
	pcap_t *p;
	uint64_t pkts = 0, bad_payload = 0, caplen_short = 0;
	int rc, prec;

	if (argc != 2) {
		fprintf(stderr, "usage: pcapcount FILE.pcap  (JSON counts on stdout)\n");
		return 2;
	}
	p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO,
						    errbuf);
	if (p == NULL) {
		fprintf(stderr, "pcapcount: %s: %s\n", argv[1], errbuf);
		return 1;
	}
	prec = pcap_get_tstamp_precision(p);
	memset(&l, 0, sizeof(l));
	l.learn = true;
	a = acct_create(&l);
	if (a == NULL)
		return 1;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		struct acct_result r;

		pkts++;
		if (h->caplen < h->len)
			caplen_short++;
		count_frame(a, data, h->caplen, &r);
		if (acct_placeable(r.fd.cls)) {
			size_t off;

			if (!codif_pattern_check(&r.hdr, data + r.fd.codif_off + 64,
						 r.fd.codif_len - 64, &off))
				bad_payload++;
		}
	}
	count_finish(a);
	if (rc == -1) {
		fprintf(stderr, "pcapcount: %s: %s\n", argv[1], pcap_geterr(p));
		return 1;
	}
	count_json(stdout, a, pkts, bad_payload, caplen_short, prec == PCAP_TSTAMP_PRECISION_NANO ? "nano" : "micro");
	acct_free(a);
	pcap_close(p);
	return 0;
}
