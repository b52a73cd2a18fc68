/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: CODIF decode + validate + a timeline and stream tracker
 * (suspects held, released, dropped; resyncs), and lib/acct over the same
 * bytes as Ethernet frames. Input: records of a 2-byte little-endian length
 * and that many bytes (the last record takes the rest). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "codif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct acct_layout l = {
		.learn = true, .nthread = 2,
		.tl = { .window = 64, .ahead = 8, .confirm = 3, .max_gap_ns = 1000000 },
	};
	struct codif_seq seq, *sp = &seq;
	struct codif_tl tl;
	struct codif_act act;
	struct acct_action aa;
	struct acct *a;
	char err[256], ts[CODIF_TIMESTR_LEN];
	uint64_t held = 0;
	size_t off = 0;
	int i;

	if (codif_tl_init(&tl, &l.tl) != 0 || codif_seq_init(&seq, &tl) != 0)
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
			struct codif_clock c;
			struct codif_out o;
			int64_t idx;

			codif_encode(&h, err); /* round trip through a buffer */
			if (codif_validate(&h, n - CODIF_HDR_LEN, err, sizeof(err)) == 0 ||
			    codif_validate(&h, SIZE_MAX, err, sizeof(err)) == 0) {
				codif_seq_push(&tl, &seq, &h, (uint32_t)n, &o);
				if (o.cls == CODIF_SEQ_SUSPECT && o.hold != NULL) {
					o.hold->handle = 1;
					held++;
				}
				while (codif_tl_action(&tl, &act))
					held -= act.handle == 1;
				codif_time_str(codif_frame_time_ns(&h), ts, sizeof(ts));
				if (seq.st.received + seq.st.lost != codif_seq_expected(&seq))
					abort(); /* the accounting invariant */
				if (codif_clock_init(&c, &h) == 0 &&
				    codif_clock_index(&c, h.seconds, h.frame, &idx)) {
					uint32_t s2, f2;

					codif_clock_hdr_time(&c, idx, &s2, &f2);
					if (s2 != h.seconds || f2 != h.frame)
						abort(); /* the clock is its own inverse */
				}
			}
			codif_data_rate_bps(&h);
		}
		acct_frame(a, 0, rec, (uint32_t)n, &r);
		if (r.fd.cls == CODIF_SEQ_SUSPECT && r.hold != NULL)
			r.hold->handle = 2;
		while (acct_busy(a, r.ant) && acct_action(a, r.ant, &aa))
			;

		str = malloc(n + 1);
		if (str != NULL) {
			int64_t t;

			memcpy(str, rec, n);
			str[n] = '\0';
			codif_parse_time(str, &t);
			free(str);
		}
	}
	/* the end: nothing held stays held, the invariant holds after closing */
	codif_tl_flush(&tl, &sp, 1);
	while (codif_tl_action(&tl, &act))
		held -= act.handle == 1;
	if (held != 0 || seq.st.received + seq.st.lost != codif_seq_expected(&seq))
		abort();
	acct_flush(a);
	for (i = 0; i < ACCT_MAX_ANTENNAS; i++)
		while (acct_action(a, i, &aa))
			;
	acct_free(a);
	codif_seq_free(&seq);
	codif_tl_free(&tl);
	return 0;
}
