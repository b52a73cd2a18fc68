/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/fmt and lib/fio: each format written and read back
 * (pcap, pcapng, codif, raw + index), files cut at whole records when the disk
 * fills (RLIMIT_FSIZE stands in for ENOSPC), NAME.part and never replacing,
 * and the index reader refusing bad input with clear messages. */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "codif_pattern.h"
#include "fmt_codif.h"
#include "fmt_name.h"
#include "fmt_pcap.h"
#include "fmt_pcapng.h"
#include "fmt_raw.h"
#include "json.h"
#include "parse.h"
#include "pkt.h"
#include "testhdr.h"

#define D 256            /* data bytes of the test frames */
#define S 3              /* streams (slots) */
#define ROWS 40
#define L2 42

static char tmp[] = "/tmp/test_fmt.XXXXXX";

static const struct fmt_opts plain = { .bufsize = 64 * 1024 };

static void
path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", tmp, name);
}

static uint64_t
size_of(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : UINT64_MAX;
}

static bool
is_fifo(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0 && S_ISFIFO(st.st_mode);
}

static bool
exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Frame n of stream k: header (invalid every 7th) and pattern data. */
static void
frame_of(int64_t n, unsigned int k, uint8_t hdr[CODIF_HDR_LEN], uint8_t data[D])
{
	struct codif_hdr h = test_hdr(n, (uint16_t)k, D);

	h.invalid = n % 7 == 3;
	codif_encode(&h, hdr);
	codif_pattern_fill(&h, data, D);
}

/* Row n missing in stream k? (a few gaps) */
static bool
missing(int64_t n, unsigned int k)
{
	return (n == 5 && k == 1) || (n >= 20 && n < 23 && k == 2);
}

/* The rows of the test into s: frames, gaps as placeholders; row 30 is
 * lost by the writer (overrun), row 31 taken back and written again.
 * Frame n is frame index 100000 + n of clk (test_hdr). @return 0 or the
 * first error. */
static int64_t rows_ended; /* rows write_rows ended (fmt_row_end called) */

static int
write_rows(struct fmt_sink *s, const struct codif_clock *clk, int64_t rows)
{
	uint8_t hdr[S][CODIF_HDR_LEN], data[S][D], ref[CODIF_HDR_LEN], junk[D];
	int64_t n;
	unsigned int k;
	int rc;

	memset(junk, 0xee, sizeof(junk));
	for (n = 0; n < rows; n++) {
		if ((rc = fmt_row_begin(s, fmt_row_bytes_max(S, D))) != 0)
			return rc;
		if (n == 31) {
			/* a torn row: taken back, nothing of it stays */
			struct fmt_frame fr = { .hdr = hdr[0], .data = junk, .data_bytes = D };

			frame_of(n, 0, hdr[0], data[0]);
			if ((rc = fmt_put(s, &fr)) < 0)
				return rc;
			fmt_row_abort(s);
			if ((rc = fmt_row_begin(s, fmt_row_bytes_max(S, D))) != 0)
				return rc;
		}
		for (k = 0; k < S; k++) {
			struct fmt_frame fr = { .data_bytes = D, .l2len = L2, .t_ns = 1000 + n };
			static const uint8_t l2[L2] = { 1, 2, 3 };

			frame_of(n, k, hdr[k], data[k]);
			fr.l2 = l2;
			if (n == 30 || missing(n, k)) {
				frame_of(0, k, ref, data[k]);
				fmt_codif_placeholder(ref, clk, 100000 + n, hdr[k]);
				fr.hdr = hdr[k];
				fr.flags = n == 30 ? FMT_F_OVERRUN : FMT_F_GAP;
			} else {
				fr.hdr = hdr[k];
				fr.data = data[k];
				fr.flags = n % 7 == 3 ? FMT_F_INVALID : 0;
			}
			if ((rc = fmt_put(s, &fr)) < 0)
				return rc;
		}
		rc = fmt_row_end(s);
		rows_ended = n + 1;
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* What write_rows puts in its first rows rows: frames as received, gap
 * frames, overrun frames. */
static void
rows_hold(int64_t rows, struct fmt_tally *t)
{
	int64_t n;
	unsigned int k;

	memset(t, 0, sizeof(*t));
	for (n = 0; n < rows; n++)
		for (k = 0; k < S; k++) {
			if (n == 30)
				t->overrun++;
			else if (missing(n, k))
				t->gaps++;
			else
				t->frames++;
		}
}

/* A file closed whole: it holds every row written, nothing was cut. */
static void
check_whole(const struct fmt_sink *s, uint64_t size, uint64_t frames, uint64_t gaps,
	    uint64_t overrun)
{
	CHECK_EQ_U(fmt_disk(s)->bytes, size);
	CHECK_EQ_U(fmt_disk(s)->frames, frames);
	CHECK_EQ_U(fmt_disk(s)->gaps, gaps);
	CHECK_EQ_U(fmt_disk(s)->overrun, overrun);
	CHECK_EQ_U(fmt_cut(s)->frames + fmt_cut(s)->gaps + fmt_cut(s)->overrun +
		   fmt_cut(s)->bytes, 0);
}

static void
test_codif(const struct codif_clock *clk)
{
	struct fmt_codif_reader r;
	struct fmt_sink s;
	struct codif_hdr h;
	const uint8_t *fr;
	uint8_t hdr[CODIF_HDR_LEN], data[D];
	char path[300], err[600];
	int64_t n = 0;
	unsigned int k = 0, i = 0;
	static const uint8_t zero[D];
	FILE *f;

	path_of(path, sizeof(path), "a.codif");
	CHECK_EQ_I(fmt_open(&s, FMT_CODIF, path, &plain, NULL, err, sizeof(err)), 0);
	CHECK(exists(fio_part(&s.f)) && !exists(path));
	CHECK_EQ_I(write_rows(&s, clk, ROWS), 0);
	CHECK_EQ_I(fmt_close(&s, true, NULL, err, sizeof(err)), 0);
	CHECK(!exists(fio_part(&s.f)));
	CHECK_EQ_U(size_of(path), (uint64_t)ROWS * S * (CODIF_HDR_LEN + D));
	{
		struct fmt_tally t;

		rows_hold(ROWS, &t);
		check_whole(&s, size_of(path), t.frames, t.gaps, t.overrun);
	}

	/* read back: every frame as written, gaps as placeholders */
	CHECK_EQ_I(fmt_codif_open_read(&r, path, err, sizeof(err)), 0);
	while (fmt_codif_next(&r, &fr, &h, err, sizeof(err)) == 1) {
		bool gap = n == 30 || missing(n, k);

		frame_of(n, k, hdr, data);
		CHECK_EQ_U(h.threadid, k);
		CHECK_EQ_U(h.frame, (uint32_t)(n % 100));
		if (gap) {
			CHECK(h.invalid);
			CHECK(memcmp(fr + CODIF_HDR_LEN, zero, D) == 0);
		} else {
			CHECK(memcmp(fr, hdr, CODIF_HDR_LEN) == 0);
			CHECK(memcmp(fr + CODIF_HDR_LEN, data, D) == 0);
		}
		if (++k == S) {
			k = 0;
			n++;
		}
		i++;
	}
	CHECK_EQ_U(i, ROWS * S);
	fmt_codif_close_read(&r);

	/* the reader says what is wrong, and where */
	f = fopen(path, "r+b");
	CHECK(f != NULL && fseek(f, 2 * (CODIF_HDR_LEN + D) + 40, SEEK_SET) == 0 &&
	      fputc(0x11, f) != EOF);
	fclose(f);
	CHECK_EQ_I(fmt_codif_open_read(&r, path, err, sizeof(err)), 0);
	CHECK_EQ_I(fmt_codif_next(&r, &fr, &h, err, sizeof(err)), 1);
	CHECK_EQ_I(fmt_codif_next(&r, &fr, &h, err, sizeof(err)), 1);
	CHECK_EQ_I(fmt_codif_next(&r, &fr, &h, err, sizeof(err)), -EPROTO);
	CHECK_HAS(err, "a.codif: offset 640: not CODIF v3: sync 0xFEEDCA11, expected 0xFEEDCAFE");
	fmt_codif_close_read(&r);
	f = fopen(path, "r+b");
	CHECK(f != NULL && fseek(f, 2 * (CODIF_HDR_LEN + D) + 40, SEEK_SET) == 0 &&
	      fputc(0xFE, f) != EOF);
	fclose(f);
	CHECK(truncate(path, 3 * (CODIF_HDR_LEN + D) + 100) == 0);
	CHECK_EQ_I(fmt_codif_open_read(&r, path, err, sizeof(err)), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ_I(fmt_codif_next(&r, &fr, &h, err, sizeof(err)), 1);
	CHECK_EQ_I(fmt_codif_next(&r, &fr, &h, err, sizeof(err)), -ENODATA);
	CHECK_HAS(err, "offset 960: the file ends 100 bytes into a frame of 320");
	fmt_codif_close_read(&r);
	CHECK_EQ_I(fmt_codif_open_read(&r, "/nonexistent/x.codif", err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "/nonexistent/x.codif: No such file or directory");
}

static void
test_pcap(const struct codif_clock *clk)
{
	struct fmt_opts o = plain;
	struct fmt_pcap_rec rec;
	struct fmt_sink s;
	uint8_t hdr[CODIF_HDR_LEN], data[D], pkt[600];
	char path[300], err[600];
	int64_t n = 0;
	unsigned int k = 0, i = 0;
	pcap_t *p;
	FILE *f;
	uint32_t magic = 0;

	path_of(path, sizeof(path), "a.pcap");
	o.snaplen = 200; /* records cut: 42 + 64 + 94 of 362 bytes */
	CHECK_EQ_I(fmt_open(&s, FMT_PCAP, path, &o, NULL, err, sizeof(err)), 0);
	CHECK_EQ_I(write_rows(&s, clk, ROWS), 0);
	/* a whole packet, as codifgen and the pdump tap write them */
	memset(pkt, 0x5a, sizeof(pkt));
	CHECK_EQ_I(fmt_pcap_packet(&s, 123456789012345678LL, pkt, 150), 0);
	CHECK_EQ_I(fmt_close(&s, true, NULL, err, sizeof(err)), 0);
	{
		struct fmt_tally t;

		rows_hold(ROWS, &t); /* a packet per frame received, and one more */
		check_whole(&s, size_of(path), t.frames + 1, 0, 0);
	}
	f = fopen(path, "rb");
	CHECK(f != NULL && fread(&magic, 4, 1, f) == 1);
	fclose(f);
	CHECK_EQ_U(magic, FMT_PCAP_MAGIC_NS);

	/* libpcap reads it: one record per frame that arrived, none for gaps */
	p = fmt_pcap_open_read(path, err, sizeof(err));
	CHECK(p != NULL);
	while (p != NULL && fmt_pcap_next(p, &rec, err, sizeof(err)) == 1) {
		while (n < ROWS && (n == 30 || missing(n, k))) {
			if (++k == S) {
				k = 0;
				n++;
			}
		}
		if (n == ROWS) {
			CHECK_EQ_I(rec.t_ns, 123456789012345678LL);
			CHECK_EQ_U(rec.caplen, 150);
			CHECK(memcmp(rec.data, pkt, 150) == 0);
			i++;
			break;
		}
		frame_of(n, k, hdr, data);
		CHECK_EQ_I(rec.t_ns, 1000 + n);
		CHECK_EQ_U(rec.len, L2 + CODIF_HDR_LEN + D);
		CHECK_EQ_U(rec.caplen, 200);
		CHECK(rec.data[0] == 1 && rec.data[2] == 3);
		CHECK(memcmp(rec.data + L2, hdr, CODIF_HDR_LEN) == 0);
		CHECK(memcmp(rec.data + L2 + CODIF_HDR_LEN, data, 200 - L2 - CODIF_HDR_LEN) == 0);
		if (++k == S) {
			k = 0;
			n++;
		}
		i++;
	}
	CHECK_EQ_U(i, (ROWS - 1) * S - 4 + 1);
	CHECK_EQ_I(p != NULL ? fmt_pcap_next(p, &rec, err, sizeof(err)) : -1, 0);
	if (p != NULL)
		pcap_close(p);
	CHECK(fmt_pcap_open_read("/nonexistent/x.pcap", err, sizeof(err)) == NULL);
	CHECK_HAS(err, "/nonexistent/x.pcap");
}

/* A pcapng option of a block's options (at o, n bytes): its value, or NULL. */
static const uint8_t *
ng_opt(const uint8_t *o, size_t n, uint16_t code, uint16_t *len)
{
	size_t i = 0;

	while (i + 4 <= n) {
		uint16_t c, l;

		memcpy(&c, o + i, 2);
		memcpy(&l, o + i + 2, 2);
		if (c == 0)
			return NULL;
		if (c == code) {
			*len = l;
			return o + i + 4;
		}
		i += 4 + ((l + 3u) & ~3u);
	}
	return NULL;
}

/* pcapng: a section header naming the program, with the scan as comment;
 * an interface per antenna (name, address, ns); a packet block per frame
 * that arrived, on its antenna's interface; libpcap reads the packets and
 * their ns times back. */
static void
test_pcapng(const struct codif_clock *clk)
{
	static const struct fmt_iface ifs[2] = { { "ak01", 0x0A1100D3 }, { "ak02", 0x0A1100D4 } };
	struct fmt_opts o = plain;
	struct fmt_pcap_rec rec;
	struct fmt_sink s;
	uint8_t hdr[CODIF_HDR_LEN], data[D], *b;
	static const uint8_t l2[L2] = { 1, 2, 3 };
	char path[300], err[600];
	unsigned int nidb = 0, nepb = 0, per_if[2] = { 0, 0 }, i;
	uint64_t size;
	size_t off;
	pcap_t *p;
	FILE *f;
	int64_t n;

	(void)clk;
	path_of(path, sizeof(path), "a.pcapng");
	o.snaplen = 4000;
	o.ifaces = ifs;
	o.nifaces = 2;
	o.app = "test_fmt 1.0";
	o.comment = "scan s1";
	CHECK_EQ_I(fmt_open(&s, FMT_PCAPNG, path, &o, NULL, err, sizeof(err)), 0);
	for (n = 0; n < 10; n++) {
		CHECK_EQ_I(fmt_row_begin(&s, fmt_row_bytes_max(2, D)), 0);
		for (i = 0; i < 2; i++) {
			struct fmt_frame fr = { .hdr = hdr, .data = data, .data_bytes = D,
						.l2 = l2, .l2len = L2, .iface = i,
						.t_ns = 1700000000123456789LL + n * 1000 + i };

			frame_of(n, i, hdr, data);
			if (n == 4 && i == 1)
				fr.flags = FMT_F_GAP; /* nothing written */
			CHECK_EQ_I(fmt_put(&s, &fr), n == 4 && i == 1 ? 0 : 1);
		}
		CHECK_EQ_I(fmt_row_end(&s), 0);
	}
	{
		/* an interface the file does not describe */
		struct fmt_frame fr = { .hdr = hdr, .data = data, .data_bytes = D, .l2 = l2,
					.l2len = L2, .iface = 2 };

		CHECK_EQ_I(fmt_row_begin(&s, fmt_row_bytes_max(1, D)), 0);
		CHECK_EQ_I(fmt_put(&s, &fr), -EINVAL);
		fmt_row_abort(&s);
	}
	CHECK_EQ_I(fmt_close(&s, true, NULL, err, sizeof(err)), 0);
	CHECK_EQ_U(fmt_disk(&s)->frames, 19);
	size = size_of(path);
	CHECK_EQ_U(fmt_disk(&s)->bytes, size);

	/* the blocks, by the specification */
	b = malloc(size);
	f = fopen(path, "rb");
	CHECK(b != NULL && f != NULL && fread(b, 1, size, f) == size);
	if (f != NULL)
		fclose(f);
	for (off = 0; b != NULL && off + 12 <= size;) {
		uint32_t type, len, tail;
		uint16_t ol;
		const uint8_t *v;

		memcpy(&type, b + off, 4);
		memcpy(&len, b + off + 4, 4);
		CHECK(len % 4 == 0 && len >= 12 && off + len <= size);
		if (len % 4 != 0 || len < 12 || off + len > size)
			break;
		memcpy(&tail, b + off + len - 4, 4);
		CHECK_EQ_U(tail, len);
		if (type == FMT_PCAPNG_SHB) {
			uint32_t bom;

			CHECK_EQ_U(off, 0);
			memcpy(&bom, b + off + 8, 4);
			CHECK_EQ_U(bom, FMT_PCAPNG_BOM);
			v = ng_opt(b + off + 24, len - 28, FMT_PCAPNG_OPT_COMMENT, &ol);
			CHECK(v != NULL && ol == 7 && memcmp(v, "scan s1", 7) == 0);
			v = ng_opt(b + off + 24, len - 28, FMT_PCAPNG_SHB_USERAPPL, &ol);
			CHECK(v != NULL && ol == 12 && memcmp(v, "test_fmt 1.0", 12) == 0);
		} else if (type == FMT_PCAPNG_IDB) {
			uint16_t lt;
			uint32_t snap;

			CHECK(nepb == 0); /* every interface before the packets */
			memcpy(&lt, b + off + 8, 2);
			memcpy(&snap, b + off + 12, 4);
			CHECK_EQ_U(lt, DLT_EN10MB);
			CHECK_EQ_U(snap, 4000);
			v = ng_opt(b + off + 16, len - 20, FMT_PCAPNG_IF_NAME, &ol);
			CHECK(v != NULL && nidb < 2 && ol == 4 &&
			      memcmp(v, ifs[nidb < 2 ? nidb : 0].name, 4) == 0);
			v = ng_opt(b + off + 16, len - 20, FMT_PCAPNG_IF_IPV4, &ol);
			CHECK(v != NULL && ol == 8 && v[0] == 10 && v[1] == 17 && v[2] == 0 &&
			      v[3] == 0xD3 + nidb && v[4] == 255);
			v = ng_opt(b + off + 16, len - 20, FMT_PCAPNG_IF_TSRESOL, &ol);
			CHECK(v != NULL && ol == 1 && v[0] == 9);
			nidb++;
		} else if (type == FMT_PCAPNG_EPB) {
			uint32_t w[5];

			memcpy(w, b + off + 8, sizeof(w));
			CHECK(w[0] < 2);
			if (w[0] < 2)
				per_if[w[0]]++;
			CHECK_EQ_U(len, fmt_pcapng_epb_bytes(L2 + CODIF_HDR_LEN + D));
			CHECK_EQ_U(w[3], L2 + CODIF_HDR_LEN + D);
			CHECK_EQ_U(((uint64_t)w[1] << 32 | w[2]) % 1000,
				   (uint64_t)(1700000000123456789LL % 1000) + w[0]);
			nepb++;
		} else {
			CHECK(false);
		}
		off += len;
	}
	CHECK_EQ_U(off, size);
	CHECK_EQ_U(nidb, 2);
	CHECK_EQ_U(nepb, 19);
	CHECK_EQ_U(per_if[0], 10);
	CHECK_EQ_U(per_if[1], 9);
	free(b);

	/* libpcap reads it: the packets, ns times */
	p = fmt_pcap_open_read(path, err, sizeof(err));
	CHECK(p != NULL);
	i = 0;
	while (p != NULL && fmt_pcap_next(p, &rec, err, sizeof(err)) == 1) {
		CHECK_EQ_U(rec.caplen, L2 + CODIF_HDR_LEN + D);
		CHECK(rec.t_ns >= 1700000000123456789LL &&
		      rec.t_ns <= 1700000000123456789LL + 9001);
		CHECK(memcmp(rec.data + L2 + CODIF_HDR_LEN + D - 4,
			     rec.data + L2 + CODIF_HDR_LEN + D - 4, 4) == 0);
		i++;
	}
	CHECK_EQ_U(i, 19);
	if (p != NULL)
		pcap_close(p);

	/* too many interfaces */
	o.nifaces = FMT_MAX_IFACES + 1;
	path_of(path, sizeof(path), "b.pcapng");
	CHECK_EQ_I(fmt_open(&s, FMT_PCAPNG, path, &o, NULL, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "65 pcapng interfaces, expected 0..64");
	CHECK(!exists(path));
}

/* The index of the test: S streams of antenna 3 "ak03", on clk from frame 0. */
static void
test_index(struct fmt_raw_index *ri, const struct codif_clock *clk)
{
	unsigned int k;

	fmt_raw_index_init(ri);
	CHECK_EQ_I(fmt_raw_index_streams(ri, S), 0);
	ri->ant_index = 3;
	str_copy(ri->ant_name, sizeof(ri->ant_name), "ak03");
	ri->src = 0x0A1100D6;
	ri->data_bytes = D;
	fmt_raw_index_set_time(ri, clk, 100000); /* test_hdr(0): seconds 1000, frame 0 */
	for (k = 0; k < S; k++) {
		struct codif_hdr h = test_hdr(0, (uint16_t)k, D);

		ri->st[k].dst = 0xEF110001 + k;
		ri->st[k].port = (uint16_t)(36001 + k);
		codif_encode(&h, ri->st[k].raw_hdr);
	}
}

static void
test_raw(const struct codif_clock *clk)
{
	struct fmt_raw_index ri, back;
	struct fmt_sink s;
	struct codif_hdr h, want;
	uint8_t hdr[CODIF_HDR_LEN], data[D], *raw;
	char path[300], idx[320], err[600];
	size_t cg[S] = { 0 }, ci[S] = { 0 }, co = 0;
	int64_t n;
	unsigned int k;
	FILE *f;

	test_index(&ri, clk);
	path_of(path, sizeof(path), "a.raw");
	snprintf(idx, sizeof(idx), "%s.json", path);
	CHECK_EQ_I(fmt_open(&s, FMT_RAW, path, &plain, &ri, err, sizeof(err)), 0);
	CHECK_EQ_I(write_rows(&s, clk, ROWS), 0);
	/* a row of raw is the file's streams, no more, no fewer */
	{
		struct fmt_frame fr = { .hdr = hdr, .data = data, .data_bytes = D };

		CHECK_EQ_I(fmt_row_begin(&s, fmt_row_bytes_max(S, D)), 0);
		CHECK_EQ_I(fmt_put(&s, &fr), 1);
		CHECK_EQ_I(fmt_row_end(&s), -EINVAL);
		fr.data_bytes = D + 8; /* rows hold one frame size: the writer says so */
		CHECK_EQ_I(fmt_put(&s, &fr), -EMSGSIZE);
		fmt_row_abort(&s);
	}
	CHECK(!exists(idx));
	CHECK_EQ_I(fmt_close(&s, true, NULL, err, sizeof(err)), 0);
	CHECK_EQ_U(size_of(path), (uint64_t)ROWS * S * D);
	{
		struct fmt_tally t;

		rows_hold(ROWS, &t); /* the row taken back is not counted */
		check_whole(&s, size_of(path), t.frames, t.gaps, t.overrun);
	}
	CHECK(exists(idx) && !exists(fio_part(&s.f)));

	/* the index read back says what was written */
	CHECK_EQ_I(fmt_raw_index_read(idx, &back, err, sizeof(err)), 0);
	CHECK_EQ_U(back.rows, ROWS);
	CHECK_EQ_U(back.nstream, S);
	CHECK_EQ_U(back.ant_index, 3);
	CHECK_STR(back.ant_name, "ak03");
	CHECK_EQ_I(back.first_index, 100000);
	CHECK_EQ_U(back.first_seconds, 1000);
	CHECK_EQ_U(back.st[2].port, 36003);
	CHECK(memcmp(back.st[1].raw_hdr, ri.st[1].raw_hdr, CODIF_HDR_LEN) == 0);
	CHECK_EQ_U(back.gaps.n, 2);        /* (1, 5), (2, 20..22) */
	CHECK_EQ_U(back.overrun.n, 1);     /* row 30 */
	CHECK_EQ_U(back.overrun.v[0].first, 30);
	f = fopen(path, "rb");
	raw = malloc((size_t)ROWS * S * D);
	CHECK(f != NULL && raw != NULL && fread(raw, D, ROWS * S, f) == ROWS * S);
	fclose(f);
	for (n = 0; n < ROWS; n++) {
		bool over = fmt_raw_in_run(&back.overrun, 0, (uint64_t)n, &co);

		CHECK(over == (n == 30));
		for (k = 0; k < S; k++) {
			bool gap = fmt_raw_in_run(&back.gaps, k, (uint64_t)n, &cg[k]);
			bool inv = fmt_raw_in_run(&back.invalid, k, (uint64_t)n, &ci[k]);
			const uint8_t *p = raw + ((size_t)n * S + k) * D;

			CHECK(gap == missing(n, k));
			if (gap || over) {
				CHECK(p[0] == 0 && p[D - 1] == 0);
				continue;
			}
			/* frames as the index rebuilds them: header and data */
			frame_of(n, k, hdr, data);
			CHECK(inv == (n % 7 == 3));
			CHECK(memcmp(p, data, D) == 0);
			fmt_raw_frame_hdr(&back, k, (uint64_t)n, inv, &want);
			h = test_hdr(n, (uint16_t)k, D);
			CHECK_EQ_U(want.seconds, h.seconds);
			CHECK_EQ_U(want.frame, h.frame);
			CHECK_EQ_U(want.threadid, k);
		}
	}
	free(raw);
	fmt_raw_index_free(&back);
	/* never replaced: the file, then its leftover NAME.part */
	CHECK_EQ_I(fmt_open(&s, FMT_RAW, path, &plain, &ri, err, sizeof(err)), -EEXIST);
	CHECK_STR(err + strlen(tmp), "/a.raw: exists");
	fmt_raw_index_free(&ri);
}

/* A full disk (RLIMIT_FSIZE: writes past it fail with EFBIG, the first one
 * short): the file is cut back to its last whole row, kept, and the index
 * says the rows kept; buffered, and O_DIRECT (through io_uring where it is
 * built in: the failed write completes asynchronously). */
static void
test_full_disk(enum fmt_kind kind, uint64_t limit, uint64_t record, unsigned int flags)
{
	struct fmt_raw_index ri;
	struct fmt_opts o = { .bufsize = 16 * 1024 };
	struct codif_clock clk;
	struct codif_hdr h = test_hdr(0, 0, D);
	struct fmt_sink s;
	struct rlimit old, lim;
	char path[300], err[600], name[32];
	bool kept = false;
	/* pcapng: its section header and one interface, no options but
	 * if_tsresol (32 + 32 bytes) */
	uint64_t size, head = kind == FMT_PCAP ? FMT_PCAP_FILE_HDR : kind == FMT_PCAPNG ? 64 : 0;
	struct fmt_tally all, in;
	int rc;

	codif_clock_init(&clk, &h);
	test_index(&ri, &clk);
	snprintf(name, sizeof(name), "full%u_%llu.%s", flags, (unsigned long long)limit, fmt_name(kind));
	path_of(path, sizeof(path), name);
	o.snaplen = 65535;
	o.fio_flags = flags;
	CHECK_EQ_I(fmt_open(&s, kind, path, &o, kind == FMT_RAW ? &ri : NULL, err, sizeof(err)),
		   0);
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = limit;
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	/* more than the limit: it fails on the way */
	CHECK_EQ_I(write_rows(&s, &clk, ROWS * 4), -EFBIG);
	rc = fmt_close(&s, true, &kept, err, sizeof(err));
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
	CHECK_EQ_I(rc, -EFBIG);
	CHECK_HAS(err, ".part: File too large (kept the first");
	CHECK(kept);
	size = size_of(path);
	CHECK(size != UINT64_MAX && size <= limit && size > head);
	CHECK_EQ_U((size - head) % record, 0);
	/* what the sink says it holds is what the file holds; what was handed
	 * to it whole and is not there is cut */
	CHECK_EQ_U(fmt_disk(&s)->bytes, size);
	rows_hold(rows_ended, &all);
	if (fmt_is_packets(kind)) {
		/* a packet per received frame; gaps write nothing */
		CHECK_EQ_U(fmt_disk(&s)->frames, (size - head) / record);
		CHECK_EQ_U(fmt_disk(&s)->gaps + fmt_disk(&s)->overrun, 0);
		CHECK_EQ_U(fmt_disk(&s)->frames + fmt_cut(&s)->frames, all.frames);
	} else {
		rows_hold((int64_t)((size - head) / record), &in);
		CHECK_EQ_U(fmt_disk(&s)->frames, in.frames);
		CHECK_EQ_U(fmt_disk(&s)->gaps, in.gaps);
		CHECK_EQ_U(fmt_disk(&s)->overrun, in.overrun);
		CHECK_EQ_U(fmt_cut(&s)->frames, all.frames - in.frames);
		CHECK_EQ_U(fmt_cut(&s)->gaps, all.gaps - in.gaps);
		CHECK_EQ_U(fmt_cut(&s)->overrun, all.overrun - in.overrun);
		CHECK(fmt_cut(&s)->frames > 0);
	}
	if (kind == FMT_RAW) {
		struct fmt_raw_index back;
		char idx[320];

		snprintf(idx, sizeof(idx), "%s.json", path);
		CHECK_EQ_I(fmt_raw_index_read(idx, &back, err, sizeof(err)), 0);
		CHECK_EQ_U(back.rows * S * D, size);
		fmt_raw_index_free(&back);
	}
	fmt_raw_index_free(&ri);
}

/* Bad indexes: each refused, the message naming the key, the value and
 * what was expected; a file's name in front. */
static void
test_index_errors(void)
{
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		{ "\"version\": 1", "\"version\": 2", "version: expected an integer between 1 and 1" },
		{ "\"rows\": 40", "\"rows\": -1", "rows: expected an integer between 0 and" },
		{ "\"rows\": 40", "\"rows\": \"40\"", "rows: expected an integer" },
		{ "\"name\": \"ak03\"", "\"name\": \"a/b\"", "antenna.name: 'a/b': expected 1..63 characters, no '/'" },
		{ "\"src\": \"10.17.0.214\"", "\"src\": \"10.17.0.300\"", "antenna.src: '10.17.0.300': expected an IPv4 address" },
		{ "\"station\": \"..\"", "\"station\": \"XY\"", "streams[0].station: 'XY', the header says '..'" },
		{ "\"threadid\": 1", "\"threadid\": 7", "streams[1].threadid: 7, the header says 1" },
		{ "\"slot\": 2,", "\"slot\": 1,", "streams[2].slot: 1 given twice" },
		{ "\"frame_ns\": 10000000", "\"frame_ns\": 5", "params.frame_ns: 5, the headers say 10000000" },
		{ "\"complex\": false", "\"complex\": true", "params.complex: expected false (as the headers)" },
		{ "\"utc\": \"2025-01-01T00:16:40.000000000Z\"\n", "\"utc\": \"2025-01-01T00:00:00Z\"\n",
		  "first_frame.utc: '2025-01-01T00:00:00Z', seconds and frame say '2025-01-01T00:16:40.000000000Z'" },
		{ "\"first\": 30,", "\"first\": 45,", "overrun[0].first: expected an integer between 0 and 39" },
		{ "\"gaps\": [", "\"gaps\": [{\"slot\": 9, \"first\": 0, \"count\": 1}, ",
		  "gaps[0].slot: expected an integer between 0 and 2" },
		{ "\"gaps\": [", "\"gaps\": [{\"slot\": 1, \"first\": 3, \"count\": 1}, ",
		  "slot 1: rows 3..3 are both in gaps and invalid" },
		{ "\"format\": \"dpdk-ibvcap-raw\"", "\"format\": \"dpdk-ibvcap-raw\",,", "byte " },
	};
	struct fmt_raw_index ri;
	char path[300], idx[320], bad[320], err[600], *text, *t;
	size_t len, i;
	FILE *f;

	path_of(path, sizeof(path), "a.raw");
	snprintf(idx, sizeof(idx), "%s.json", path);
	path_of(bad, sizeof(bad), "bad.raw.json");
	f = fopen(idx, "rb");
	text = calloc(1, 1 << 16);
	len = f != NULL ? fread(text, 1, (1 << 16) - 1, f) : 0;
	if (f != NULL)
		fclose(f);
	CHECK(len > 0);
	t = malloc(1 << 17);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *at = strstr(text, cases[i].from);

		CHECK(at != NULL);
		if (at == NULL)
			continue;
		snprintf(t, 1 << 17, "%.*s%s%s", (int)(at - text), text, cases[i].to,
			 at + strlen(cases[i].from));
		f = fopen(bad, "wb");
		CHECK(f != NULL && fputs(t, f) >= 0);
		fclose(f);
		CHECK_EQ_I(fmt_raw_index_read(bad, &ri, err, sizeof(err)), -EINVAL);
		CHECK_HAS(err, "bad.raw.json: ");
		CHECK_HAS(err, cases[i].msg);
	}
	CHECK_EQ_I(fmt_raw_index_read("/nonexistent/x.raw.json", &ri, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "/nonexistent/x.raw.json: No such file or directory");
	CHECK_EQ_I(fmt_raw_index_parse("[1]", 3, &ri, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "expected a JSON object");
	/* an index without "overrun" (older writers), first_index 0 (codifcheck's) */
	{
		char *at = strstr(text, ",\n  \"overrun\"");
		char *fi = strstr(text, "\"first_index\": 100000");

		CHECK(at != NULL && fi != NULL);
		if (at != NULL && fi != NULL) {
			memcpy(fi, "\"first_index\": 0     ", 21);
			snprintf(t, 1 << 17, "%.*s\n}\n", (int)(at - text), text);
			CHECK_EQ_I(fmt_raw_index_parse(t, strlen(t), &ri, err, sizeof(err)), 0);
			CHECK_EQ_U(ri.overrun.n, 0);
			CHECK_EQ_I(ri.first_index, 100000); /* from first_frame */
			fmt_raw_index_free(&ri);
		}
	}
	free(t);
	free(text);
}

/* A file of the final name appears while NAME.part is written (another
 * writer, an operator): the close must not replace it (no check-then-rename
 * window), keep ours as NAME.part and say so. */
static void
test_fio_appeared(const char *name)
{
	struct fio_file f;
	char path[300], err[600], got[16] = "";
	uint64_t kept = 1;
	FILE *o;

	path_of(path, sizeof(path), name);
	CHECK_EQ_I(fio_open(&f, path, 0, FIO_DIRECT, err, sizeof(err)), 0);
	CHECK_EQ_I(fio_append(&f, "ours", 4), 0);
	fio_record_end(&f);
	o = fopen(path, "wx"); /* after the open's check, before the close */
	CHECK(o != NULL && fputs("theirs", o) >= 0);
	if (o != NULL)
		fclose(o);
	CHECK_EQ_I(fio_close(&f, true, &kept, err, sizeof(err)), -EEXIST);
	CHECK_HAS(err, ".part: not renamed: ");
	CHECK_HAS(err, "appeared meanwhile");
	CHECK_EQ_U(kept, 0);
	o = fopen(path, "r");
	CHECK(o != NULL && fgets(got, sizeof(got), o) != NULL);
	if (o != NULL)
		fclose(o);
	CHECK_STR(got, "theirs");
	CHECK_EQ_U(size_of(fio_part(&f)), 4); /* ours kept as NAME.part */
	unlink(fio_part(&f));
}

/* lib/fio with O_DIRECT: through io_uring where it is built in (several
 * writes in flight, the staged tail carried to the next buffer), records of
 * odd sizes, rows taken back, the file byte for byte what was appended. */
static void
test_fio_async(void)
{
	enum { TOTAL = 3 << 20 };
	static uint8_t want[TOTAL + 8192];
	struct fio_file f;
	char path[300], err[600];
	uint64_t kept = 0, n = 0, x = 12345;
	unsigned int i;
	uint8_t *got;
	FILE *in;

	path_of(path, sizeof(path), "async.bin");
	CHECK_EQ_I(fio_open(&f, path, 16 * 1024, FIO_DIRECT, err, sizeof(err)), 0);
	CHECK(!fio_async(&f)); /* io_uring comes with the first flush */
	while (n < TOTAL) {
		size_t len = 1 + (size_t)((x = x * 6364136223846793005ULL + 1) >> 33) % 6000;
		uint64_t mark = fio_size(&f);
		uint8_t *d;

		CHECK_EQ_I(fio_ensure(&f, 2 * len), 0);
		mark = fio_size(&f);
		d = fio_reserve(&f, len);
		CHECK(d != NULL);
		if (d == NULL)
			break;
		for (i = 0; i < len; i++)
			d[i] = want[n + i] = (uint8_t)(x >> (i % 56));
		if ((x >> 20) % 7 == 0) { /* a row taken back */
			CHECK_EQ_I(fio_rollback(&f, mark), 0);
			continue;
		}
		n += len;
		fio_record_end(&f);
		CHECK_EQ_I(fio_maybe_flush(&f), 0);
	}
	CHECK_EQ_U(fio_size(&f), n);
	/* /tmp takes O_DIRECT where the suite runs (not tmpfs): io_uring unless
	 * the process may not use it, which fio_sync_reason says */
	if (fio_sync_reason() == NULL)
		CHECK(fio_async(&f));
	else
		fprintf(stderr, "test_fmt: synchronous: %s\n", fio_sync_reason());
	CHECK_EQ_I(fio_close(&f, true, &kept, err, sizeof(err)), 0);
	CHECK_EQ_U(kept, n);
	CHECK_EQ_U(size_of(path), n);
	got = malloc(n);
	in = fopen(path, "rb");
	CHECK(got != NULL && in != NULL && fread(got, 1, n, in) == n);
	if (got != NULL)
		CHECK(memcmp(got, want, n) == 0);
	if (in != NULL)
		fclose(in);
	free(got);
	unlink(path);
}

/* lib/fio: NAME.part, never replacing without FIO_REPLACE, a leftover
 * NAME.part refused, a file not kept leaves nothing. */
static void
test_fio(void)
{
	struct fio_file f;
	char path[300], err[600];
	uint64_t kept = 1;

	path_of(path, sizeof(path), "f.bin");
	CHECK_EQ_I(fio_open(&f, path, 0, FIO_DIRECT, err, sizeof(err)), 0);
	CHECK_EQ_I(fio_append(&f, "abc", 3), 0);
	fio_record_end(&f);
	CHECK_EQ_I(fio_close(&f, true, &kept, err, sizeof(err)), 0);
	CHECK_EQ_U(kept, 3);
	CHECK_EQ_U(size_of(path), 3);
	CHECK_EQ_I(fio_open(&f, path, 0, 0, err, sizeof(err)), -EEXIST);
	CHECK_HAS(err, "f.bin: exists");
	CHECK_EQ_I(fio_open(&f, path, 0, FIO_REPLACE, err, sizeof(err)), 0);
	CHECK_EQ_I(fio_append(&f, "abcdef", 6), 0);
	CHECK_EQ_I(fio_close(&f, true, NULL, err, sizeof(err)), 0);
	CHECK_EQ_U(size_of(path), 6);
	/* FIO_REPLACE replaces a regular file only: never a FIFO or a device
	 * (a pcap renamed over /dev/null), nor a directory; nothing left */
	path_of(path, sizeof(path), "fifo");
	CHECK_EQ_I(mkfifo(path, 0644), 0);
	CHECK_EQ_I(fio_open(&f, path, 0, FIO_REPLACE, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "fifo' is a FIFO: expected a regular file");
	CHECK(is_fifo(path) && !exists(fio_part(&f)));
	unlink(path);
	path_of(path, sizeof(path), "dir");
	CHECK_EQ_I(mkdir(path, 0755), 0);
	CHECK(fio_open(&f, path, 0, FIO_REPLACE, err, sizeof(err)) < 0);
	CHECK_HAS(err, "dir' is a directory: expected a regular file");
	rmdir(path);
	path_of(path, sizeof(path), "g.bin");
	CHECK_EQ_I(fio_open(&f, path, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(fio_open(&(struct fio_file){ 0 }, path, 0, 0, err, sizeof(err)), -EEXIST);
	CHECK_HAS(err, "g.bin.part: exists: another writer, or a cut run");
	CHECK_EQ_I(fio_append(&f, "x", 1), 0);
	CHECK_EQ_I(fio_close(&f, false, &kept, err, sizeof(err)), 0);
	CHECK_EQ_U(kept, 0);
	CHECK(!exists(path) && !exists(fio_part(&f)));
	test_fio_appeared("h.bin");
	test_fio_async();
}

/* The clock of file names: a packet's CODIF frame time, its arrival time
 * only where it carries no frame. */
static void
test_name_time(void)
{
	struct pkt_udp4_spec sp = { .src_ip = 0x0A1100D3, .dst_ip = 0xEF0A0001,
				    .sport = 4000, .dport = 4001, .ttl = 8 };
	struct codif_hdr h = test_hdr(1234, 1, D);
	uint8_t pkt[64 + 4 + CODIF_HDR_LEN + D];
	const int64_t arrival = 1767225600123456789LL; /* 2026-01-01, not the frame's */
	int64_t want = codif_frame_time_ns(&h);
	uint32_t l2, len;
	char utc[FMT_NAME_UTC_LEN];

	memset(pkt, 0, sizeof(pkt));
	l2 = pkt_build_udp4(pkt, &sp, CODIF_HDR_LEN + D);
	codif_encode(&h, pkt + l2);
	len = l2 + CODIF_HDR_LEN + D;
	CHECK(want != arrival && want > 0);
	CHECK_EQ_I(fmt_name_time(pkt, len, len, arrival), want);
	/* 2025-01-01 + 1012 s + frame 34 of 100 a second */
	CHECK_STR(fmt_name_utc(fmt_name_time(pkt, len, len, arrival), utc, sizeof(utc)),
		  "20250101T001652.340000000Z");
	/* only the headers at hand (a snaplen): still the frame's time */
	CHECK_EQ_I(fmt_name_time(pkt, l2 + CODIF_HDR_LEN, len, arrival), want);
	/* the CODIF header cut: no frame time */
	CHECK_EQ_I(fmt_name_time(pkt, l2 + CODIF_HDR_LEN - 1, len, arrival), arrival);
	/* with a VLAN tag */
	sp.vlan = true;
	sp.vlan_tci = 42;
	l2 = pkt_build_udp4(pkt, &sp, CODIF_HDR_LEN + D);
	codif_encode(&h, pkt + l2);
	len = l2 + CODIF_HDR_LEN + D;
	CHECK_EQ_I(fmt_name_time(pkt, len, len, arrival), want);
	/* no frame: a wrong sync word, a datagram cut short, a header with no
	 * frames per period, not IPv4, a runt */
	pkt[l2 + 40] ^= 0xFF;
	CHECK_EQ_I(fmt_name_time(pkt, len, len, arrival), arrival);
	pkt[l2 + 40] ^= 0xFF;
	CHECK_EQ_I(fmt_name_time(pkt, len, len, arrival), want);
	CHECK_EQ_I(fmt_name_time(pkt, len - 8, len - 8, arrival), arrival);
	h.totalsamples = 0;
	codif_encode(&h, pkt + l2);
	CHECK_EQ_I(fmt_name_time(pkt, len, len, arrival), arrival);
	pkt[16] = 0x86; /* the inner ethertype: IPv6 */
	CHECK_EQ_I(fmt_name_time(pkt, len, len, arrival), arrival);
	CHECK_EQ_I(fmt_name_time(pkt, 10, len, arrival), arrival);
}

int
main(void)
{
	struct codif_hdr h = test_hdr(0, 0, D);
	struct codif_clock clk;
	char cmd[300];
	int i;

	if (mkdtemp(tmp) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	signal(SIGXFSZ, SIG_IGN);
	codif_clock_init(&clk, &h);
	test_fio();
	test_name_time();
	test_codif(&clk);
	test_pcap(&clk);
	test_pcapng(&clk);
	test_raw(&clk);
	test_index_errors();
	for (i = 0; i < 2; i++) {
		unsigned int fl = i ? FIO_DIRECT : 0;

		test_full_disk(FMT_CODIF, 10000, S * (CODIF_HDR_LEN + D), fl);
		test_full_disk(FMT_RAW, 10000, S * D, fl);
		test_full_disk(FMT_PCAP, 10000, FMT_PCAP_REC_HDR + L2 + CODIF_HDR_LEN + D, fl);
		test_full_disk(FMT_PCAPNG, 10000, fmt_pcapng_epb_bytes(L2 + CODIF_HDR_LEN + D), fl);
		test_full_disk(FMT_CODIF, 100000, S * (CODIF_HDR_LEN + D), fl);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	return check_report("test_fmt");
}
