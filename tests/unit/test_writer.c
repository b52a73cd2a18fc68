/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/writer: rows bigger than the staging buffer asked for
 * (the writer grows it rather than dropping rows), a staging buffer
 * (lib/fio) that can always take back a row, files checked frame by
 * frame, and a window of data time (a triggered dump). */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "antbuf.h"
#include "check.h"
#include "testfd.h"
#include "testfile.h"
#include "testhdr.h"
#include "codif_pattern.h"
#include "fio.h"
#include "fmt_raw.h"
#include "writer.h"

#define SLOTS 16
#define D 65536           /* the largest frame a buffer takes */
#define ROWS 8
#define GAP_ROW 3
#define GAP_SLOT 5

static struct codif_hdr
hdr_for(int64_t n, uint16_t thread)
{
	return test_hdr(n, thread, D);
}

/* Streams of the buffer with frames: slots [lo, hi) (an antenna sending to
 * a subset of its groups), the gap at GAP_ROW of slot lo + GAP_SLOT % n. */
static struct antbuf *
make_slots(unsigned int lo, unsigned int hi);

static struct antbuf *
make_full(void)
{
	return make_slots(0, SLOTS);
}

static struct antbuf *
make_slots(unsigned int lo, unsigned int hi)
{
	struct antbuf_geom g = { SLOTS, 2 * ROWS, 2, D };
	size_t sz = antbuf_size(&g, true);
	struct antbuf *b = aligned_alloc(ANTBUF_PAGE, sz);
	static uint8_t data[D], pkt[TEST_L2 + CODIF_HDR_LEN + D];
	static struct codif_clock clk;
	struct antbuf_prod p;
	int64_t n;
	unsigned int s;

	CHECK(b != NULL && antbuf_init(b, sz, &g, true, 0, "ant0", 0x0A1100D3) == 0);
	antbuf_prod_init(&p, b, NULL, false);
	for (n = 0; n < ROWS; n++)
		for (s = lo; s < hi; s++) {
			struct codif_hdr h = hdr_for(n, (uint16_t)s);
			struct acct_fd fd;

			if (n == 0 && s == lo)
				codif_clock_init(&clk, &h);
			if (n == GAP_ROW && s == lo + GAP_SLOT % (hi - lo))
				continue;
			codif_pattern_fill(&h, data, D);
			test_fd(&fd, pkt, &h, data, D, &clk, (uint16_t)s, 0, 0, 1000 + n);
			CHECK(antbuf_place(&p, &fd) == ANTBUF_PLACED);
		}
	antbuf_flush(&p);
	return b;
}

/* the one file in dir (its path into out), or "" */
static void
only_file(const char *dir, const char *ext, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	out[0] = '\0';
	while (d != NULL && (e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name), el = strlen(ext);

		if (l > el && strcmp(e->d_name + l - el, ext) == 0) {
			snprintf(out, len, "%s/%s", dir, e->d_name);
			n++;
		}
	}
	if (d != NULL)
		closedir(d);
	CHECK_EQ_U(n, 1);
}

/* write b in fmt with buffer=1M into dir; the writer's counts */
static void
write_all(struct antbuf *b, const char *fmt, const char *dir, struct wr_stats *st)
{
	struct wr_opts o;
	struct wr_writer *w = calloc(1, sizeof(*w));
	const struct antbuf *bufs[1] = { b };
	char spec[512], err[600];
	int rc, rounds = 0;

	snprintf(spec, sizeof(spec), "%s:%s,buffer=1M,direct=no,oldest=yes%s", fmt, dir,
		 strcmp(fmt, "pcap") == 0 ? ",snaplen=262144" : "");
	CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
	CHECK(w != NULL && wr_init(w, &o, bufs, NULL, 1, 1, err, sizeof(err)) == 0);
	/* staging grown to two whole rows */
	CHECK(w->o.bufsize >= 2 * (size_t)SLOTS * (CODIF_HDR_LEN + D));
	while ((rc = wr_poll(w, 1)) > 0 && rounds++ < 100)
		;
	CHECK_EQ_I(rc, 0);
	CHECK_EQ_I(wr_finish(w), 0);
	CHECK_EQ_I(w->error, 0);
	*st = w->st;
	free(w);
}

/* b written as fmt into tmp/fmt: the one file's bytes (free them) */
static uint8_t *
written(struct antbuf *b, const char *tmp, const char *fmt, size_t *len)
{
	char dir[300], path[600], ext[16];
	struct wr_stats st;
	uint8_t *p;

	snprintf(dir, sizeof(dir), "%s/%s", tmp, fmt);
	snprintf(ext, sizeof(ext), ".%s", fmt);
	CHECK(mkdir(dir, 0755) == 0);
	write_all(b, fmt, dir, &st);
	CHECK_EQ_U(st.written, ROWS * SLOTS - 1);
	CHECK_EQ_U(st.rows, ROWS);
	/* the gap: an invalid frame (codif), zeros listed as a gap (raw),
	 * nothing (pcap) */
	CHECK_EQ_U(st.placeholders, strcmp(fmt, "pcap") == 0 ? 0 : 1);
	CHECK_EQ_U(st.files, 1);
	CHECK_EQ_U(st.cut + st.overrun, 0);
	only_file(dir, ext, path, sizeof(path));
	p = test_slurp(path, len);
	CHECK_EQ_U(st.bytes, *len); /* the file's bytes (raw: data, not index) */
	return p;
}

static void
test_big_rows(const char *tmp)
{
	struct antbuf *b = make_full();
	static uint8_t want[D];
	static const uint8_t zero[D];
	uint8_t *f;
	size_t len, off, i;
	int64_t n;
	unsigned int s;

	/* codif: every frame, the gap as an invalid zero frame */
	f = written(b, tmp, "codif", &len);
	CHECK_EQ_U(len, (size_t)ROWS * SLOTS * (CODIF_HDR_LEN + D));
	for (n = 0, off = 0; f != NULL && n < ROWS; n++)
		for (s = 0; s < SLOTS && off + CODIF_HDR_LEN + D <= len; s++) {
			struct codif_hdr h = hdr_for(n, (uint16_t)s), got;

			CHECK(codif_decode(f + off, CODIF_HDR_LEN, &got, NULL, 0) == 0);
			CHECK_EQ_U(got.frame, h.frame);
			CHECK_EQ_U(got.threadid, s);
			if (n == GAP_ROW && s == GAP_SLOT) {
				CHECK(got.invalid);
				CHECK(memcmp(f + off + CODIF_HDR_LEN, zero, D) == 0);
			} else {
				CHECK(!got.invalid);
				codif_pattern_fill(&h, want, D);
				CHECK(memcmp(f + off + CODIF_HDR_LEN, want, D) == 0);
			}
			off += CODIF_HDR_LEN + D;
		}
	free(f);

	/* raw: payload only, zeros for the gap */
	f = written(b, tmp, "raw", &len);
	CHECK_EQ_U(len, (size_t)ROWS * SLOTS * D);
	for (i = 0; f != NULL && i < (size_t)ROWS * SLOTS && (i + 1) * D <= len; i++) {
		struct codif_hdr h = hdr_for((int64_t)(i / SLOTS), (uint16_t)(i % SLOTS));

		if (i / SLOTS == GAP_ROW && i % SLOTS == GAP_SLOT) {
			CHECK(memcmp(f + i * D, zero, D) == 0);
		} else {
			codif_pattern_fill(&h, want, D);
			CHECK(memcmp(f + i * D, want, D) == 0);
		}
	}
	free(f);

	/* pcap: a record per frame, none for the gap */
	f = written(b, tmp, "pcap", &len);
	CHECK_EQ_U(len, 24 + (size_t)(ROWS * SLOTS - 1) * (16 + 42 + CODIF_HDR_LEN + D));
	free(f);
	free(b);
}

/* An antenna whose streams are slots 8..11 of its buffer (it sends to one
 * of four groups): the raw index numbers them 0..3 (formats.md), its gap
 * run and the writer's placeholder count agree, and the index rebuilds each
 * frame's header (what codifcheck convert does). */
static void
test_raw_subset(const char *tmp)
{
	enum { LO = 8, HI = 12, NS = HI - LO };
	struct antbuf *b = make_slots(LO, HI);
	struct fmt_raw_index ri;
	char dir[300], path[600], idx[700], err[800];
	struct wr_stats st;
	static uint8_t want[D];
	static const uint8_t zero[D];
	uint8_t *f;
	size_t len, i, k, gaps = 0;

	snprintf(dir, sizeof(dir), "%s/subset", tmp);
	CHECK(mkdir(dir, 0755) == 0);
	write_all(b, "raw", dir, &st);
	CHECK_EQ_U(st.written, ROWS * NS - 1);
	CHECK_EQ_U(st.placeholders, 1);
	only_file(dir, ".raw", path, sizeof(path));
	f = test_slurp(path, &len);
	CHECK_EQ_U(len, (size_t)ROWS * NS * D);
	CHECK_EQ_U(st.bytes, len);
	snprintf(idx, sizeof(idx), "%s.json", path);
	fmt_raw_index_init(&ri);
	CHECK(fmt_raw_index_read(idx, &ri, err, sizeof(err)) == 0);
	CHECK_EQ_U(ri.nstream, NS);
	CHECK_EQ_U(ri.rows, ROWS);
	for (k = 0; k < ri.gaps.n; k++) {
		CHECK(ri.gaps.v[k].slot < NS);
		gaps += ri.gaps.v[k].count;
	}
	CHECK_EQ_U(gaps, st.placeholders); /* the counter = the index's gaps */
	CHECK_EQ_U(ri.gaps.n, 1);
	if (ri.gaps.n == 1) {
		CHECK_EQ_U(ri.gaps.v[0].slot, GAP_SLOT % NS);
		CHECK_EQ_U(ri.gaps.v[0].first, GAP_ROW);
	}
	for (i = 0; f != NULL && i < (size_t)ROWS * NS && (i + 1) * D <= len; i++) {
		uint32_t slot = (uint32_t)(i % NS);
		struct codif_hdr h = hdr_for((int64_t)(i / NS), (uint16_t)(LO + slot)), got;
		bool gap = i / NS == GAP_ROW && slot == GAP_SLOT % NS;

		/* slot s of the file is the buffer's stream LO + s */
		fmt_raw_frame_hdr(&ri, slot, i / NS, gap, &got);
		CHECK_EQ_U(got.threadid, LO + slot);
		CHECK_EQ_U(got.frame, h.frame);
		CHECK_EQ_U(got.seconds, h.seconds);
		if (gap) {
			CHECK(memcmp(f + i * D, zero, D) == 0);
		} else {
			codif_pattern_fill(&h, want, D);
			CHECK(memcmp(f + i * D, want, D) == 0);
		}
	}
	fmt_raw_index_free(&ri);
	free(f);
	free(b);
}

static void
test_fio_rollback(const char *tmp)
{
	struct fio_file f;
	char path[600], err[700];
	static uint8_t chunk[600 * 1024];
	uint64_t mark;
	struct stat sb;

	memset(&f, 0, sizeof(f));
	snprintf(path, sizeof(path), "%s/roll.bin", tmp);
	CHECK(fio_open(&f, path, 1u << 20, 0, err, sizeof(err)) == 0);
	memset(chunk, 1, sizeof(chunk));
	CHECK(fio_append(&f, chunk, sizeof(chunk)) == 0);
	fio_record_end(&f);
	/* 600 KiB more do not fit the 1 MiB buffer: ensure flushes first, so
	 * the row appended next can be taken back */
	CHECK(fio_ensure(&f, sizeof(chunk)) == 0);
	mark = fio_size(&f);
	memset(chunk, 2, sizeof(chunk));
	CHECK(fio_append(&f, chunk, sizeof(chunk)) == 0);
	CHECK(fio_rollback(&f, mark) == 0);
	CHECK_EQ_U(fio_size(&f), sizeof(chunk));
	CHECK_EQ_I(fio_ensure(&f, 2u << 20), -E2BIG);
	CHECK(fio_close(&f, true, NULL, err, sizeof(err)) == 0);
	CHECK(stat(path, &sb) == 0 && (size_t)sb.st_size == sizeof(chunk));
}

/* min-free= and on-full=: sizes and shares taken, bad values named with
 * what was expected */
static void
test_budget_keys(void)
{
	struct wr_opts o;
	char err[600];

	CHECK(wr_opts_parse(&o, "--write", "codif:/tmp,min-free=2G", err, sizeof(err)) == 0);
	CHECK(o.budget && o.min_free == 2ULL << 30 && o.on_full == WR_FULL_STOP);
	CHECK_EQ_U(wr_min_free_bytes(&o, 1ULL << 40), 2ULL << 30);
	CHECK(wr_opts_parse(&o, "--write", "raw:/tmp,min-free=5%,on-full=remove-oldest", err,
			    sizeof(err)) == 0);
	CHECK(o.budget && o.min_free == 0 && o.min_free_bp == 500);
	CHECK(o.on_full == WR_FULL_REMOVE_OLDEST);
	CHECK_EQ_U(wr_min_free_bytes(&o, 1000000), 50000);
	CHECK(wr_opts_parse(&o, "--write", "codif:/tmp,min-free=0", err, sizeof(err)) == 0);
	CHECK(o.budget && o.min_free == 0 && o.min_free_bp == 0);
	CHECK(wr_opts_parse(&o, "--write", "codif:/tmp", err, sizeof(err)) == 0);
	CHECK(!o.budget && wr_min_free_bytes(&o, 1000000) == 0);
	/* more than the filesystem holds: refused before anything starts */
	CHECK(wr_opts_parse(&o, "--write", "codif:/tmp,min-free=1000T", err, sizeof(err)) == 0);
	CHECK_EQ_I(wr_budget_check(&o, err, sizeof(err)), -ENOSPC);
	CHECK_HAS(err, "the filesystem of '/tmp' holds only");

	CHECK(wr_opts_parse(&o, "--write", "codif:/tmp,min-free=abc", err, sizeof(err)) ==
	      -EINVAL);
	CHECK_HAS(err, "--write min-free: 'abc': expected a size");
	CHECK_HAS(err, "5%");
	CHECK(wr_opts_parse(&o, "--write", "codif:/tmp,min-free=150%", err, sizeof(err)) ==
	      -EINVAL);
	CHECK_HAS(err, "'150%'");
	CHECK(wr_opts_parse(&o, "--write", "codif:/tmp,min-free=1G,on-full=xyz", err,
			    sizeof(err)) == -EINVAL);
	CHECK_HAS(err, "--write on-full: 'xyz': expected stop");
	CHECK_HAS(err, "remove-oldest");
	CHECK(wr_opts_parse(&o, "--write", "codif:/tmp,on-full=stop", err, sizeof(err)) ==
	      -EINVAL);
	CHECK_HAS(err, "on-full needs min-free");
}

/* A min-free the disk cannot give: the writer writes nothing, ends
 * full (not an error), saying the directory, free space and threshold;
 * with remove-oldest and no file of its own, the same. */
static void
test_budget_stop(const char *tmp)
{
	const char *const ways[] = { "stop", "remove-oldest" };
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct antbuf *b = make_full();
		struct wr_writer *w = calloc(1, sizeof(*w));
		const struct antbuf *bufs[1] = { b };
		char spec[512], err[600], dir[300];
		struct wr_opts o;
		uint64_t avail, total;
		DIR *d;
		struct dirent *e;
		int n = 0, rounds = 0;

		snprintf(dir, sizeof(dir), "%s/budget%u", tmp, k);
		CHECK(mkdir(dir, 0755) == 0);
		CHECK(wr_dir_space(dir, &avail, &total) == 0 && total > avail);
		/* more than is free, less than the filesystem */
		snprintf(spec, sizeof(spec), "codif:%s,buffer=1M,direct=no,oldest=yes,"
			 "min-free=%llu,on-full=%s", dir,
			 (unsigned long long)(avail + (total - avail) / 2 + 1), ways[k]);
		CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
		CHECK(w != NULL && wr_init(w, &o, bufs, NULL, 1, 1, err, sizeof(err)) == 0);
		while (wr_poll(w, ROWS) > 0 && ++rounds < 100)
			; /* rows of nothing before the first frame are passed over */
		CHECK(w->full && w->error == 0);
		CHECK_HAS(w->err, dir);
		CHECK_HAS(w->err, "for its open files to finish, min-free");
		CHECK_EQ_I(wr_finish(w), 0);
		CHECK_EQ_U(w->st.files + w->st.written + w->st.files_removed, 0);
		d = opendir(dir);
		while (d != NULL && (e = readdir(d)) != NULL)
			n += e->d_name[0] != '.';
		if (d != NULL)
			closedir(d);
		CHECK_EQ_I(n, 0);
		free(w);
		free(b);
	}
}

struct files_seen {
	unsigned int n;
	int ant;
	struct fmt_tally t;
};

static void
file_done(void *ctx, const char *path, int ant, const struct fmt_tally *t)
{
	struct files_seen *f = ctx;

	(void)path;
	f->n++;
	f->ant = ant;
	f->t = *t;
}

/* A window of data time (a triggered dump): rows before it passed over,
 * the first row at its end ends the antenna; its files hold exactly the
 * rows in it, and say so (file_done) */
static void
test_window(const char *tmp)
{
	struct antbuf *b = make_full();
	const struct antbuf *bufs[1] = { b };
	const struct codif_clock *clk = &b->run[0].clk;
	struct wr_writer *w = calloc(1, sizeof(*w));
	struct files_seen seen = { 0, -2, { 0, 0, 0, 0 } };
	struct wr_opts o;
	char dir[300], spec[400], err[600];
	int64_t i0; /* the clock's index of the rows' frame 0 */
	int rounds = 0;

	CHECK(codif_clock_index(clk, 1000, 0, &i0));
	snprintf(dir, sizeof(dir), "%s/window", tmp);
	CHECK(mkdir(dir, 0755) == 0);
	snprintf(spec, sizeof(spec), "codif:%s,buffer=1M,direct=no,oldest=yes", dir);
	CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
	o.window = true;
	o.from_ns = codif_clock_time_ns(clk, i0 + 2);
	o.to_ns = codif_clock_time_ns(clk, i0 + 6) - 1; /* row 6 starts after: not in it */
	o.file_done = file_done;
	o.file_ctx = &seen;
	CHECK(w != NULL && wr_init(w, &o, bufs, NULL, 1, 1, err, sizeof(err)) == 0);
	CHECK(!wr_window_done(w));
	while (!wr_window_done(w) && wr_poll(w, 1) >= 0 && rounds++ < 100)
		;
	CHECK(wr_window_done(w));
	CHECK_EQ_I(wr_finish(w), 0);
	CHECK_EQ_U(seen.n, 1);
	CHECK_EQ_I(seen.ant, 0);
	/* rows 2..5, the gap of row 3 a placeholder */
	CHECK_EQ_U(seen.t.frames, 4 * SLOTS - 1);
	CHECK_EQ_U(seen.t.gaps, 1);
	CHECK(w->src[0].win.begin_ns == codif_clock_time_ns(clk, i0 + 2));
	CHECK(w->src[0].win.end_ns == codif_clock_time_ns(clk, i0 + 6));
	CHECK(w->src[0].win.past);
	/* before it: rows 0 and 1, and the room before the first frame */
	CHECK_EQ_U(w->src[0].win.before, 2 + b->g.window - 1);
	CHECK(w->src[0].win.first_ns < codif_clock_time_ns(clk, i0 + 0));
	CHECK_EQ_U(w->st.overrun, 0);
	free(w);
	free(b);
}

/* files in dir ending in ext, sorted (names sort by time), at most max */
static unsigned int
list_files(const char *dir, const char *ext, char (*out)[600], unsigned int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0, i, j;
	char t[600];

	while (d != NULL && (e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name), el = strlen(ext);

		if (l > el && strcmp(e->d_name + l - el, ext) == 0 && n < max)
			snprintf(out[n++], 600, "%s/%s", dir, e->d_name);
	}
	if (d != NULL)
		closedir(d);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(out[j - 1], out[j]) > 0; j--) {
			memcpy(t, out[j], 600);
			memcpy(out[j], out[j - 1], 600);
			memcpy(out[j - 1], t, 600);
		}
	return n;
}

/* A writer that takes one row for every four the producer places (a disk a
 * quarter of the data rate) falls more than a ring behind again and again:
 * each time it ends its file at its last row, names the rows it lost in
 * that file's index ("overrun_after") and resumes half a ring from the
 * newest row with a new file. No placeholder is written for them; its
 * files hold real frames only, every frame index is in a file or in an
 * overrun span, exactly once, and written + overrun = placed. */
#define OV_SLOTS 4
#define OV_D 1024
#define OV_ROWS 64
#define OV_N 3000
static void
test_overrun(const char *tmp)
{
	struct antbuf_geom g = { OV_SLOTS, OV_ROWS, 2, OV_D };
	size_t sz = antbuf_size(&g, true);
	struct antbuf *b = aligned_alloc(ANTBUF_PAGE, sz);
	const struct antbuf *bufs[1] = { b };
	static uint8_t data[OV_D], pkt[TEST_L2 + CODIF_HDR_LEN + OV_D];
	static char files[400][600];
	struct codif_clock clk;
	struct wr_writer *w = calloc(1, sizeof(*w));
	struct antbuf_prod p;
	struct wr_opts o;
	char dir[300], spec[400], err[600];
	uint64_t rows = 0, named = 0, named_rows = 0;
	int64_t next = -1, i0;
	unsigned int nf, i, s;
	int64_t n;

	snprintf(dir, sizeof(dir), "%s/overrun", tmp);
	CHECK(mkdir(dir, 0755) == 0);
	CHECK(b != NULL && antbuf_init(b, sz, &g, true, 0, "ant0", 0x0A1100D3) == 0);
	antbuf_prod_init(&p, b, NULL, false);
	snprintf(spec, sizeof(spec), "raw:%s,buffer=1M,direct=no", dir);
	CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
	CHECK(w != NULL && wr_init(w, &o, bufs, NULL, 1, 1, err, sizeof(err)) == 0);
	for (n = 0; n < OV_N; n++) {
		for (s = 0; s < OV_SLOTS; s++) {
			struct codif_hdr h = test_hdr(n, (uint16_t)s, OV_D);
			struct acct_fd fd;

			if (n == 0 && s == 0)
				codif_clock_init(&clk, &h);
			codif_pattern_fill(&h, data, OV_D);
			test_fd(&fd, pkt, &h, data, OV_D, &clk, (uint16_t)s, 0, 0, 1000 + n);
			CHECK(antbuf_place(&p, &fd) == ANTBUF_PLACED);
		}
		if (n % 4 == 0)
			CHECK(wr_poll(w, 1) >= 0);
	}
	antbuf_flush(&p);
	while (wr_poll(w, 16) > 0)
		;
	CHECK_EQ_I(wr_finish(w), 0);
	CHECK_EQ_I(w->error, 0);
	CHECK_EQ_U(b->placed, (uint64_t)OV_N * OV_SLOTS);
	CHECK_EQ_U(w->st.written + w->st.overrun + w->st.cut, b->placed);
	CHECK_EQ_U(w->st.placeholders + w->st.overrun_placeholders, 0);
	CHECK(w->st.catchups >= 5);
	CHECK_EQ_U(w->st.files, w->st.catchups + 1);
	/* a quarter of the rows, and the last ones (it drains the ring) */
	CHECK(w->st.written >= b->placed / 5);
	nf = list_files(dir, ".raw", files, 400);
	CHECK_EQ_U(nf, w->st.files);
	CHECK(codif_clock_index(&clk, 1000, 0, &i0));
	for (i = 0; i < nf; i++) {
		struct fmt_raw_index ri;
		char ip[620];
		struct stat st;

		snprintf(ip, sizeof(ip), "%.590s.json", files[i]);
		CHECK(fmt_raw_index_read(ip, &ri, err, sizeof(err)) == 0);
		CHECK(stat(files[i], &st) == 0);
		CHECK_EQ_U((uint64_t)st.st_size, ri.rows * OV_SLOTS * OV_D);
		CHECK_EQ_U(ri.gaps.n + ri.overrun.n, 0);
		/* each file goes on where the one before and its overrun ended */
		if (next >= 0)
			CHECK_EQ_I(ri.first_index, next);
		next = ri.first_index + (int64_t)ri.rows + (int64_t)ri.ovr_rows;
		CHECK((ri.ovr_rows > 0) == (i + 1 < nf));
		CHECK_EQ_U(ri.ovr_frames, ri.ovr_rows * OV_SLOTS);
		rows += ri.rows;
		named += ri.ovr_frames;
		named_rows += ri.ovr_rows;
		fmt_raw_index_free(&ri);
	}
	CHECK_EQ_I(next, i0 + OV_N);
	CHECK_EQ_U(rows * OV_SLOTS, w->st.written);
	CHECK_EQ_U(named, w->st.overrun);
	CHECK_EQ_U(named_rows, w->st.lost_rows);
	printf("overrun: %" PRIu64 " of %" PRIu64 " frames written (%.0f %%), %" PRIu64 " overrun in "
	       "%" PRIu64 " spans, %u files\n", w->st.written, b->placed,
	       100.0 * (double)w->st.written / (double)b->placed, w->st.overrun, w->st.catchups, nf);
	free(w);
	free(b);
}

/* The --write grammar: every key taken and stored, each refusal naming the
 * input, the value and what was expected, one boolean parser (parse_bool's
 * words: direct=on is taken as --buffers on is). */
static void
test_write_keys(void)
{
	struct wr_opts o;
	char err[600], names[512];
	const char *bools[] = { "yes", "on", "true", "1", "YES", "On" };
	const char *nots[] = { "no", "off", "false", "0", "NO", "Off" };
	unsigned int i;

	CHECK(wr_opts_parse(&o, "--write", "pcapng:/tmp/x,prefix=p1,rotate-size=1G,"
			    "rotate-time=90s,snaplen=128,all=yes,direct=off,io=sync,oldest=on,"
			    "count=7,buffer=2M,min-free=5%,on-full=remove-oldest", err,
			    sizeof(err)) == 0);
	CHECK(o.format == WR_PCAPNG);
	CHECK_STR(o.dir, "/tmp/x");
	CHECK_STR(o.prefix, "p1");
	CHECK_EQ_U(o.rotate_bytes, 1ULL << 30);
	CHECK_EQ_U(o.rotate_ns, 90ULL * 1000000000ULL);
	CHECK_EQ_U(o.snaplen, 128);
	CHECK(o.all && !o.direct && o.sync && o.from_oldest);
	CHECK_EQ_U(o.count, 7);
	CHECK_EQ_U(o.bufsize, 2u << 20);
	CHECK(o.budget && o.min_free == 0 && o.min_free_bp == 500);
	CHECK(o.on_full == WR_FULL_REMOVE_OLDEST);
	CHECK_EQ_U(o.lcores, 1);
	CHECK(wr_opts_parse(&o, "--write", "raw:/d,lcores=3,io=uring", err, sizeof(err)) == 0);
	CHECK(o.format == WR_RAW && o.lcores == 3 && !o.sync);
	/* defaults where no key is given */
	CHECK(wr_opts_parse(&o, "--write", "codif:/d", err, sizeof(err)) == 0);
	CHECK(o.format == WR_CODIF && o.direct && !o.sync && !o.all && !o.from_oldest);
	CHECK_STR(o.prefix, "ibvcap");
	CHECK(o.snaplen == 65535 && o.bufsize == 8u << 20 && o.lcores == 1 && o.count == 0);
	CHECK(o.rotate_bytes == 0 && o.rotate_ns == 0 && !o.budget);

	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		char spec[64];

		snprintf(spec, sizeof(spec), "codif:/d,direct=no,oldest=%s", bools[i]);
		CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
		CHECK(o.from_oldest && !o.direct);
		snprintf(spec, sizeof(spec), "codif:/d,direct=%s", nots[i]);
		CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
		CHECK(!o.direct);
		snprintf(spec, sizeof(spec), "codif:/d,direct=%s", bools[i]);
		CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
		CHECK(o.direct);
	}

	/* a bad value of each kind: the input, the value, what was expected */
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "codif:/d,direct=maybe", err, sizeof(err)),
		   -EINVAL);
	CHECK_STR(err, "--write direct: 'maybe': expected yes or no");
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "pcap:/d,snaplen=10", err, sizeof(err)),
		   -ERANGE);
	CHECK_HAS(err, "--write snaplen: '10': expected an integer between 64 and 262144");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,rotate-size=1Q", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write rotate-size: '1Q': expected a size");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,rotate-time=soon", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write rotate-time: 'soon': expected a duration");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,count=0", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write count: '0': expected an integer between 1 and");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,buffer=4K", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write buffer: '4K': expected a size");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,io=async", err, sizeof(err)) < 0);
	CHECK_STR(err, "--write io: 'async': expected uring or sync");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,lcores=65", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write lcores: '65': expected an integer between 1 and 64");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,prefix=a/b", err, sizeof(err)) < 0);
	CHECK_STR(err, "--write prefix: 'a/b': expected a file name prefix: a name of 1 to 63 "
		  "characters, without control characters or '/'");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,prefix=a\nb", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write prefix: 'a\\nb': expected a file name prefix");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,prefix=", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write prefix: '': expected a file name prefix");

	/* an unknown key: the keys listed from the table, every one of them */
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "codif:/d,colour=red", err, sizeof(err)),
		   -EINVAL);
	opt_kv_names(&wr_opts_kv, names, sizeof(names));
	CHECK_HAS(err, "--write: 'colour': unknown key, expected prefix, rotate-size");
	CHECK_HAS(err, names);
	CHECK_HAS(names, "min-free, on-full or lcores");
	/* an item that is no key=value */
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "codif:/d,direct", err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "--write: 'direct': expected KEY=VALUE, KEY one of prefix");
	/* a key given twice: refused, naming both values */
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "codif:/d,prefix=a,count=2,prefix=b", err,
				 sizeof(err)), -EINVAL);
	CHECK_STR(err, "--write prefix: 'b': given twice (first 'a'): expected each key once");
	/* the head */
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "tar:/d", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--write: 'tar:/d': format 'tar', expected raw, codif, pcap or pcapng");
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "codif", err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "--write: 'codif': expected FORMAT:DIR");
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "codif:", err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "--write: 'codif:': expected FORMAT:DIR");
	CHECK_EQ_I(wr_opts_parse(&o, "--write", "codif:prefix=x", err, sizeof(err)), -EINVAL);
	/* what the keys allow only together */
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,all=yes", err, sizeof(err)) < 0);
	CHECK_HAS(err, "all=yes is for pcap and pcapng");
	CHECK(wr_opts_parse(&o, "--write", "pcap:/d,all=yes,lcores=2", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write lcores: '2': all=yes writes every antenna into one file");
	CHECK(wr_opts_parse(&o, "--write", "codif:/d,count=5,lcores=2", err, sizeof(err)) < 0);
	CHECK_HAS(err, "--write lcores: '2': count=5 stops the writer");
	/* the format names and the prefix check that a trigger shares */
	{
		enum wr_format f = WR_RAW;

		CHECK(wr_format_parse("pcapng", &f) == 0 && f == WR_PCAPNG);
		CHECK(wr_format_parse("codif", &f) == 0 && f == WR_CODIF);
		CHECK_EQ_I(wr_format_parse("vdif", &f), -EINVAL);
		CHECK_EQ_I(wr_format_parse(NULL, &f), -EINVAL);
		CHECK(f == WR_CODIF);
		CHECK_EQ_I(wr_prefix_check("prefix", "ok_1", err, sizeof(err)), 0);
		CHECK_EQ_I(wr_prefix_check("prefix", "a/b", err, sizeof(err)), -EINVAL);
		CHECK_STR(err, "prefix: 'a/b': expected a file name prefix: a name of 1 to 63 "
			  "characters, without control characters or '/'");
	}
	/* the table itself passes lib/opt's check */
	CHECK_EQ_I(opt_kv_check(&wr_opts_kv, err, sizeof(err)), 0);
}

int
main(void)
{
	char tmp[] = "/tmp/test_writer.XXXXXX";
	char cmd[300];

	if (mkdtemp(tmp) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_big_rows(tmp);
	test_raw_subset(tmp);
	test_fio_rollback(tmp);
	test_window(tmp);
	test_overrun(tmp);
	test_budget_keys();
	test_write_keys();
	test_budget_stop(tmp);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	return check_report("test_writer");
}
