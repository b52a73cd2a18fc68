/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of raw rows written straight from the antenna ring (lib/fio's
 * fio_ref, no staging copy), on a directory that takes O_DIRECT
 * (IBVCAP_DIRECT_DIR, default /var/tmp: tmpfs refuses O_DIRECT): files
 * byte for byte the staging path's (gaps, invalid frames, a subset of the
 * ring's slots, a stream starting late, rotation, the ring wrapping while
 * written); rows the producer overwrites while their writes are in flight
 * end as zeros listed as overrun with exact counts; a full disk
 * (RLIMIT_FSIZE) cuts at the last whole row and the index agrees. */

#define _GNU_SOURCE /* O_DIRECT, O_TMPFILE */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "antbuf.h"
#include "check.h"
#include "codif_pattern.h"
#include "fio.h"
#include "fmt_raw.h"
#include "testfd.h"
#include "testfile.h"
#include "testhdr.h"
#include "writer.h"

#define NSLOTS 8
#define NROWS 16         /* ring rows: the writer's rows wrap it */
#define WIN 2
#define D 8192           /* data bytes: a multiple of 4096 */
#define LO 1             /* streams LO..HI-1 from the start ... */
#define HI 7
#define LATE 7           /* ... and this one from row LATE_ROW: a new file */
#define LATE_ROW 21
#define TOTAL 40         /* rows produced */

/* One antenna fed a few rows at a time, as a capture would. */
struct feed {
	struct antbuf *b;
	struct antbuf_prod p;
	struct codif_clock clk;
	int64_t next;        /* next row to produce */
	uint64_t valid[TOTAL];
};

static bool
is_gap(int64_t n, unsigned int s)
{
	return (n * 7 + s) % 11 == 0;
}

static bool
is_invalid(int64_t n, unsigned int s)
{
	return (n * 5 + s) % 13 == 0;
}

static bool
sends(int64_t n, unsigned int s)
{
	return (s >= LO && s < HI) || (s == LATE && n >= LATE_ROW);
}

static void
feed_init(struct feed *f)
{
	struct antbuf_geom g = { NSLOTS, NROWS, WIN, D };
	size_t sz = antbuf_size(&g, true);

	memset(f, 0, sizeof(*f));
	f->b = aligned_alloc(ANTBUF_PAGE, sz);
	CHECK(f->b != NULL && antbuf_init(f->b, sz, &g, true, 0, "ant0", 0x0A1100D3) == 0);
	antbuf_prod_init(&f->p, f->b, NULL, false);
}

/* Produce rows up to (not including) upto; the last call flushes. */
static void
feed_to(struct feed *f, int64_t upto, bool flush)
{
	static uint8_t data[D], pkt[TEST_L2 + CODIF_HDR_LEN + D];

	for (; f->next < upto; f->next++)
		for (unsigned int s = 0; s < NSLOTS; s++) {
			struct codif_hdr h = test_hdr(f->next, (uint16_t)s, D);
			struct acct_fd fd;

			if (f->next == 0 && s == LO)
				codif_clock_init(&f->clk, &h);
			if (!sends(f->next, s) || is_gap(f->next, s))
				continue;
			h.invalid = is_invalid(f->next, s);
			codif_pattern_fill(&h, data, D);
			test_fd(&fd, pkt, &h, data, D, &f->clk, (uint16_t)s, 0, 0, 1000 + f->next);
			CHECK(antbuf_place(&f->p, &fd) == ANTBUF_PLACED);
			f->valid[f->next]++;
		}
	if (flush)
		antbuf_flush(&f->p);
}

static struct wr_writer *
writer(struct feed *f, const char *dir, const char *keys, bool staged)
{
	struct wr_writer *w = calloc(1, sizeof(*w));
	const struct antbuf *bufs[1] = { f->b };
	struct wr_opts o;
	char spec[600], err[700];

	CHECK(mkdir(dir, 0755) == 0);
	snprintf(spec, sizeof(spec), "raw:%s,buffer=1M,oldest=yes%s%s", dir, *keys ? "," : "",
		 keys);
	CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
	CHECK(w != NULL && wr_init(w, &o, bufs, NULL, 1, 1, err, sizeof(err)) == 0);
	if (staged)
		w->src[0].copy_why = "the test's staged twin"; /* the copy path */
	return w;
}

static void
drain(struct wr_writer *w)
{
	int rc, rounds = 0;

	while ((rc = wr_poll(w, 3)) > 0 && rounds++ < 1000)
		;
	CHECK(rc >= 0);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names in dir, sorted (free them) */
static unsigned int
names(const char *dir, char **out, unsigned int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	while (d != NULL && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && n < max)
			out[n++] = strdup(e->d_name);
	if (d != NULL)
		closedir(d);
	qsort(out, n, sizeof(*out), name_cmp);
	return n;
}

/* Both directories hold the same names, byte for byte the same files. */
static unsigned int
same_dirs(const char *a, const char *b)
{
	char *na[64], *nb[64], pa[700], pb[700];
	unsigned int n = names(a, na, 64), m = names(b, nb, 64), i;

	CHECK_EQ_U(n, m);
	for (i = 0; i < n && i < m; i++) {
		size_t la, lb;
		uint8_t *fa, *fb;

		CHECK_STR(na[i], nb[i]);
		snprintf(pa, sizeof(pa), "%s/%s", a, na[i]);
		snprintf(pb, sizeof(pb), "%s/%s", b, nb[i]);
		fa = test_slurp(pa, &la);
		fb = test_slurp(pb, &lb);
		CHECK(fa != NULL && fb != NULL);
		CHECK_EQ_U(la, lb);
		if (fa != NULL && fb != NULL && la == lb && memcmp(fa, fb, la) != 0) {
			fprintf(stderr, "%s and %s differ\n", pa, pb);
			CHECK(false);
		}
		free(fa);
		free(fb);
	}
	for (i = 0; i < n; i++)
		free(na[i]);
	for (i = 0; i < m; i++)
		free(nb[i]);
	return n;
}

static void
same_stats(const struct wr_stats *a, const struct wr_stats *b)
{
	CHECK_EQ_U(a->written, b->written);
	CHECK_EQ_U(a->placeholders, b->placeholders);
	CHECK_EQ_U(a->overrun_placeholders, b->overrun_placeholders);
	CHECK_EQ_U(a->bytes, b->bytes);
	CHECK_EQ_U(a->files, b->files);
	CHECK_EQ_U(a->overrun, b->overrun);
	CHECK_EQ_U(a->cut, b->cut);
	CHECK_EQ_U(a->rows, b->rows);
	CHECK_EQ_U(a->taken, b->taken);
	CHECK_EQ_U(a->torn_rows, b->torn_rows);
}

/* The same rows, fed a few at a time so that the writers' rows wrap the
 * ring, written from the ring and through staging: the same files. */
static void
test_same_files(const char *tmp, const char *keys, const char *name)
{
	struct feed fd, fs;
	struct wr_writer *wd, *ws;
	char dd[400], ds[400], text[300];
	uint64_t valid = 0;
	int64_t n;

	snprintf(dd, sizeof(dd), "%s/%s-direct", tmp, name);
	snprintf(ds, sizeof(ds), "%s/%s-staged", tmp, name);
	feed_init(&fd);
	feed_init(&fs);
	wd = writer(&fd, dd, keys, false);
	ws = writer(&fs, ds, keys, true);
	CHECK_STR(wr_ring_direct(wd, text, sizeof(text)), "raw: rows written from the ring (no copy)");
	/* three rows at a time: the rows in flight (a write of 128 KiB, the
	 * eighth of the ring, 2.7 rows; two in flight) are never overwritten */
	for (n = 3;; n += 3) {
		if (n > TOTAL)
			n = TOTAL;
		feed_to(&fd, n, n == TOTAL);
		feed_to(&fs, n, n == TOTAL);
		drain(wd);
		drain(ws);
		if (n == TOTAL)
			break;
	}
	CHECK_EQ_I(wr_finish(wd), 0);
	CHECK_EQ_I(wr_finish(ws), 0);
	CHECK_EQ_I(wd->error, 0);
	/* every file from the ring; the twin's through staging */
	CHECK(wd->ring_files > 0 && wd->copy_files == 0);
	CHECK(ws->ring_files == 0 && ws->copy_files > 0);
	CHECK_STR(wr_ring_direct(wd, text, sizeof(text)), "raw: rows written from the ring (no copy)");
	CHECK_HAS(wr_ring_direct(ws, text, sizeof(text)), "copied through staging: the test's");
	for (n = 0; n < TOTAL; n++)
		valid += fd.valid[n];
	same_stats(&wd->st, &ws->st);
	CHECK_EQ_U(wd->st.written, valid);
	CHECK_EQ_U(wd->st.overrun + wd->st.torn_rows + wd->st.cut, 0);
	CHECK(wd->st.placeholders > 0);
	/* a file per stream layout at least (the late stream), more rotated */
	CHECK(wd->st.files >= 2);
	CHECK_EQ_U(same_dirs(dd, ds), 2 * wd->st.files);
	free(wd);
	free(ws);
	free(fd.b);
	free(fs.b);
}

/* ---- rows overwritten while their writes are in flight ------------------ */

struct scribble {
	struct wr_writer *w;
	struct antbuf *b;
	bool done;
	int64_t first, end;  /* rows of the file overwritten: [first, end) */
	uint64_t frames;     /* their valid frames */
	const uint64_t *valid;
};

/* At the first check: every row taken and not yet checked (in flight, or
 * gathered for the next write) is overwritten by a producer that lapped the
 * writer: a new row number, other bytes. */
static void
scribble(void *ctx, int64_t ring_row)
{
	struct scribble *c = ctx;
	/* the ring row of the file's row 0 (frame 0) */
	int64_t row0 = c->w->src[0].out.first_index + c->b->run[0].delta, r;

	if (c->done)
		return;
	c->done = true;
	c->first = ring_row + 1 - row0;
	c->end = c->w->src[0].cur.next - row0;
	for (r = c->first; r < c->end; r++) {
		uint32_t pos = (uint32_t)((r + row0) % NROWS);

		memset(antbuf_payload(c->b, NULL, pos, 0), 0xEE, (size_t)NSLOTS * D);
		__atomic_store_n(&antbuf_rowp(c->b, pos)->seq, r + row0 + NROWS, __ATOMIC_RELEASE);
		c->frames += c->valid[r];
	}
}

static void
test_torn(const char *tmp)
{
	struct feed fd, fs;
	struct wr_writer *wd, *ws;
	struct scribble sc = { 0 };
	struct fmt_raw_index ri;
	char dd[400], ds[400], path[800], idx[900], err[1000], *nd[8], *ns[8];
	uint8_t *a, *b;
	size_t la, lb, rb = (size_t)(HI - LO) * D, i;
	uint64_t valid = 0, r;
	int64_t n;

	snprintf(dd, sizeof(dd), "%s/torn-direct", tmp);
	snprintf(ds, sizeof(ds), "%s/torn-staged", tmp);
	feed_init(&fd);
	feed_init(&fs);
	/* rows 0..LATE_ROW-1, one file, all in the ring at once */
	feed_to(&fd, LATE_ROW - 8, true);
	feed_to(&fs, LATE_ROW - 8, true);
	wd = writer(&fd, dd, "", false);
	ws = writer(&fs, ds, "", true);
	sc.w = wd;
	sc.b = fd.b;
	sc.valid = fd.valid;
	wd->test_before_check = scribble;
	wd->test_ctx = &sc;
	drain(wd);
	drain(ws);
	CHECK_EQ_I(wr_finish(wd), 0);
	CHECK_EQ_I(wr_finish(ws), 0);
	CHECK(sc.done && sc.end > sc.first);
	fprintf(stderr, "test_wr_direct: rows %lld..%lld overwritten in flight\n",
		(long long)sc.first, (long long)sc.end - 1);
	for (n = 0; n < LATE_ROW - 8; n++)
		valid += fd.valid[n];
	/* exact counts: the rows overwritten are overrun, all else written */
	CHECK_EQ_U(wd->st.torn_rows, (uint64_t)(sc.end - sc.first));
	CHECK_EQ_U(wd->st.overrun, sc.frames);
	CHECK_EQ_U(wd->st.written, valid - sc.frames);
	CHECK_EQ_U(wd->st.written + wd->st.overrun, ws->st.written);
	CHECK_EQ_U(wd->st.overrun_placeholders, (uint64_t)(sc.end - sc.first) * (HI - LO));
	CHECK_EQ_U(wd->st.rows + wd->st.torn_rows, ws->st.rows);
	CHECK_EQ_U(wd->st.taken, valid - sc.frames);
	CHECK_EQ_U(wd->st.bytes, ws->st.bytes);
	CHECK_EQ_U(wd->st.files, 1);
	/* the file: the staged one's bytes, those rows zeros (never 0xEE) */
	CHECK_EQ_U(names(dd, nd, 8), 2);
	CHECK_EQ_U(names(ds, ns, 8), 2);
	snprintf(path, sizeof(path), "%s/%s", dd, nd[0]);
	a = test_slurp(path, &la);
	snprintf(path, sizeof(path), "%s/%s", ds, ns[0]);
	b = test_slurp(path, &lb);
	CHECK(a != NULL && b != NULL);
	CHECK_EQ_U(la, (size_t)(LATE_ROW - 8) * rb);
	CHECK_EQ_U(la, lb);
	for (r = (uint64_t)sc.first; b != NULL && r < (uint64_t)sc.end && (r + 1) * rb <= lb; r++)
		memset(b + r * rb, 0, rb);
	CHECK(a != NULL && b != NULL && la == lb && memcmp(a, b, la) == 0);
	free(a);
	free(b);
	/* the index: those rows one overrun run, no gap or invalid in them */
	snprintf(idx, sizeof(idx), "%s/%s", dd, nd[1]);
	CHECK_HAS(idx, ".raw.json");
	CHECK(fmt_raw_index_read(idx, &ri, err, sizeof(err)) == 0);
	CHECK_EQ_U(ri.rows, (uint64_t)(LATE_ROW - 8));
	CHECK_EQ_U(ri.overrun.n, 1);
	if (ri.overrun.n == 1) {
		CHECK_EQ_U(ri.overrun.v[0].first, (uint64_t)sc.first);
		CHECK_EQ_U(ri.overrun.v[0].count, (uint64_t)(sc.end - sc.first));
	}
	for (i = 0; i < ri.gaps.n; i++)
		CHECK(ri.gaps.v[i].first + ri.gaps.v[i].count <= (uint64_t)sc.first ||
		      ri.gaps.v[i].first >= (uint64_t)sc.end);
	for (i = 0; i < ri.invalid.n; i++)
		CHECK(ri.invalid.v[i].first + ri.invalid.v[i].count <= (uint64_t)sc.first ||
		      ri.invalid.v[i].first >= (uint64_t)sc.end);
	fmt_raw_index_free(&ri);
	for (i = 0; i < 2; i++) {
		free(nd[i]);
		free(ns[i]);
	}
	free(wd);
	free(ws);
	free(fd.b);
	free(fs.b);
}

/* ---- a full disk -------------------------------------------------------- */

/* RLIMIT_FSIZE half-way into a row: the file keeps the whole rows before
 * it, its index says so, the writer fails with EFBIG; from the ring as
 * through staging. */
static void
test_full(const char *tmp)
{
	const size_t rb = (size_t)(HI - LO) * D;
	const unsigned int keep = 9;
	unsigned int k;

	for (k = 0; k < 2; k++) {
		struct feed f;
		struct wr_writer *w;
		struct rlimit old, lim;
		struct fmt_raw_index ri;
		char dir[400], path[800], idx[900], err[1000], *nm[8];
		struct stat st;
		uint64_t valid = 0;
		unsigned int i, nn;

		snprintf(dir, sizeof(dir), "%s/full-%s", tmp, k ? "staged" : "direct");
		feed_init(&f);
		feed_to(&f, LATE_ROW - 8, true);
		w = writer(&f, dir, "", k == 1);
		CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
		lim = old;
		lim.rlim_cur = keep * rb + rb / 2;
		CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
		while (wr_poll(w, 3) > 0)
			;
		wr_finish(w);
		CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
		CHECK_EQ_I(w->error, EFBIG);
		CHECK_EQ_U(k == 0 ? w->ring_files : w->copy_files, 1);
		for (i = 0; i < keep; i++)
			valid += f.valid[i];
		CHECK_EQ_U(w->st.written, valid);
		CHECK_EQ_U(w->st.bytes, keep * rb);
		CHECK_EQ_U(w->st.written + w->st.cut, w->st.taken);
		CHECK(w->st.cut > 0);
		nn = names(dir, nm, 8);
		CHECK_EQ_U(nn, 2);
		if (nn == 2) {
			snprintf(path, sizeof(path), "%s/%s", dir, nm[0]);
			CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size == keep * rb);
			snprintf(idx, sizeof(idx), "%s/%s", dir, nm[1]);
			CHECK(fmt_raw_index_read(idx, &ri, err, sizeof(err)) == 0);
			CHECK_EQ_U(ri.rows, keep);
			fmt_raw_index_free(&ri);
		}
		for (i = 0; i < nn; i++)
			free(nm[i]);
		free(w);
		free(f.b);
	}
}

/* Whether dir takes an O_DIRECT file (nothing left behind). */
static bool
takes_direct(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_DIRECT, 0600);

	if (fd < 0)
		return errno != EINVAL;
	close(fd);
	return true;
}

/* Why rows are copied, where they must be. */
static void
test_reasons(const char *tmp)
{
	struct feed f;
	struct wr_writer *w;
	char dir[400], text[300];

	feed_init(&f);
	snprintf(dir, sizeof(dir), "%s/why-sync", tmp);
	w = writer(&f, dir, "io=sync", false);
	CHECK_STR(wr_ring_direct(w, text, sizeof(text)), "raw: rows copied through staging: io=sync");
	free(w);
	snprintf(dir, sizeof(dir), "%s/why-nodirect", tmp);
	w = writer(&f, dir, "direct=no", false);
	CHECK_HAS(wr_ring_direct(w, text, sizeof(text)), "staging: direct=no");
	free(w);
	if (!takes_direct("/dev/shm")) {
		struct wr_opts o;
		const struct antbuf *bufs[1] = { f.b };
		char err[600];

		w = calloc(1, sizeof(*w));
		CHECK(wr_opts_parse(&o, "--write", "raw:/dev/shm", err, sizeof(err)) == 0);
		CHECK(w != NULL && wr_init(w, &o, bufs, NULL, 1, 1, err, sizeof(err)) == 0);
		CHECK_HAS(wr_ring_direct(w, text, sizeof(text)), "refuses O_DIRECT");
		free(w);
	}
	snprintf(dir, sizeof(dir), "%s/why-codif", tmp);
	CHECK(mkdir(dir, 0755) == 0);
	{
		struct wr_opts o;
		const struct antbuf *bufs[1] = { f.b };
		char spec[500], err[600];

		w = calloc(1, sizeof(*w));
		snprintf(spec, sizeof(spec), "codif:%s", dir);
		CHECK(wr_opts_parse(&o, "--write", spec, err, sizeof(err)) == 0);
		CHECK(w != NULL && wr_init(w, &o, bufs, NULL, 1, 1, err, sizeof(err)) == 0);
		CHECK(wr_ring_direct(w, text, sizeof(text)) == NULL);
		free(w);
	}
	f.b->payload_indexed = 1;
	snprintf(dir, sizeof(dir), "%s/why-zc", tmp);
	w = writer(&f, dir, "", false);
	CHECK_HAS(wr_ring_direct(w, text, sizeof(text)), "payload by reference (--zero-copy)");
	free(w);
	free(f.b);
}

int
main(void)
{
	const char *base = getenv("IBVCAP_DIRECT_DIR") ? getenv("IBVCAP_DIRECT_DIR") : "/var/tmp";
	char tmp[256], probe[300], cmd[300];
	int fd;

	signal(SIGXFSZ, SIG_IGN);
	snprintf(tmp, sizeof(tmp), "%s/test_wr_direct.XXXXXX", base);
	if (mkdtemp(tmp) == NULL) {
		fprintf(stderr, "test_wr_direct: SKIP: cannot make a directory in %s: %s\n", base,
			strerror(errno));
		return 77;
	}
	snprintf(probe, sizeof(probe), "%s/probe", tmp);
	fd = open(probe, O_WRONLY | O_CREAT | O_DIRECT, 0600);
	if (fd < 0) {
		fprintf(stderr, "test_wr_direct: SKIP: %s does not take O_DIRECT (%s): set "
			"IBVCAP_DIRECT_DIR to a directory on a disk filesystem\n", base,
			strerror(errno));
		rmdir(tmp);
		return 77;
	}
	close(fd);
	unlink(probe);
	/* io_uring: a file written by reference, or why not */
	{
		struct fio_file f;
		const char *why = NULL;
		char err[800];
		int rc;

		CHECK(fio_open(&f, probe, 1u << 20, FIO_DIRECT, err, sizeof(err)) == 0);
		rc = fio_ref_begin(&f, 1u << 20, &why);
		fio_close(&f, false, NULL, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "test_wr_direct: SKIP: %s: no writes by reference: %s\n",
				base, why ? why : strerror(-rc));
			rmdir(tmp);
			return 77;
		}
	}
	fprintf(stderr, "test_wr_direct: in %s\n", tmp);
	test_reasons(tmp);
	test_same_files(tmp, "", "plain");
	test_same_files(tmp, "rotate-size=200K", "rotated");
	test_torn(tmp);
	test_full(tmp);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	return check_report("test_wr_direct");
}
