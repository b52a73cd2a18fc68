/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: CODIF decode + validate + sequence tracker, and lib/acct
 * over the same bytes as Ethernet frames. Input: records of a 2-byte
 * little-endian length and that many bytes (the last record takes the rest). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "codif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acct_layout l = { .learn = true, .window = 64 };
	struct codif_seq seq;
	struct acct *a;
	char err[256], ts[CODIF_TIMESTR_LEN];
	size_t off = 0;

	if (codif_seq_init(&seq, 64) != 0)
		return 0;
	a = acct_create(&l);
	while (off < size && a != NULL) {
		size_t n = size - off;
		struct codif_hdr h;
		struct acct_result r;
		const uint8_t *rec;
		char *str;

		if (n >= 2) {
			size_t want = (size_t)data[off] | (size_t)data[off + 1] << 8;

			off += 2;
			n = size - off;
			if (want < n)
				n = want;
		}
		rec = data + off;
		off += n;

		codif_identify(rec, n, err, sizeof(err));
		if (codif_decode(rec, n, &h, err, sizeof(err)) == 0) {
			int64_t idx;
			uint64_t nl;

			codif_encode(&h, err); /* round trip through a buffer */
			if (codif_validate(&h, n - CODIF_HDR_LEN, err, sizeof(err)) == 0 ||
			    codif_validate(&h, SIZE_MAX, err, sizeof(err)) == 0) {
				codif_seq_push(&seq, &h, n, &idx, &nl, err, sizeof(err));
				codif_time_str(codif_frame_time_ns(&h), ts, sizeof(ts));
				if (seq.st.received + seq.st.lost != codif_seq_expected(&seq))
					abort(); /* the accounting invariant */
			}
			codif_frame_index(&h, seq.seconds_first, codif_frames_per_period(&h));
			codif_data_rate_bps(&h);
		}
		acct_frame(a, 0, rec, (uint32_t)n, &r);

		str = malloc(n + 1);
		if (str != NULL) {
			int64_t t;

			memcpy(str, rec, n);
			str[n] = '\0';
			codif_parse_time(str, &t);
			free(str);
		}
	}
	acct_free(a);
	codif_seq_free(&seq);
	return 0;
}
