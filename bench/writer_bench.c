/* SPDX-License-Identifier: BSD-3-Clause */
/* Benchmark (not a test): lib/writer's output to a directory, from a full
 * antenna buffer in memory, in bytes per second (compared with fio's
 * io_uring O_DIRECT writes of the same block size in the same directory by
 * bench/writer_vs_fio.sh). Checks its own counts: every frame of every pass
 * written once, none a gap or an overrun, and the files on disk as large as
 * the writer says. Also the CPU it took (getrusage: user + system seconds
 * per GB written), and for raw whether its rows went from the ring
 * straight to the file (no copy) or through staging (MODE staged forces
 * the copy path, for a comparison in the same run).
 *
 *   writer_bench DIR [BYTES (2G)] [FORMAT (codif)] [KEYS (e.g. io=sync)] [MODE (staged)] */

#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "antbuf.h"
#include "codif_pattern.h"
#include "testfd.h"
#include "fio.h"
#include "writer.h"
#include "tconv.h"


/* Bytes of the finished files of one pass (prefix benchN_) in dir. */
static uint64_t
dir_bytes(const char *dir, unsigned int pass)
{
	char pre[32], path[PATH_MAX];
	uint64_t sum = 0;
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	snprintf(pre, sizeof(pre), "bench%u_", pass);
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, pre, strlen(pre)) != 0 || strstr(e->d_name, ".part") ||
		    strstr(e->d_name, ".json")) /* raw: the index is not counted */
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0)
			sum += (uint64_t)st.st_size;
	}
	if (d != NULL)
		closedir(d);
	return sum;
}

/* user + system CPU seconds of this process so far */
static double
cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int
main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	uint64_t total = argc > 2 ? strtoull(argv[2], NULL, 0) : 2ULL << 30;
	const char *fmt = argc > 3 ? argv[3] : "codif";
	const char *keys = argc > 4 ? argv[4] : "";
	bool staged = argc > 5 && strcmp(argv[5], "staged") == 0;
	char how[300] = "";
	struct antbuf_geom geom = { 8, 8192, 64, 8192 };
	size_t sz = antbuf_size(&geom, true);
	struct antbuf *b = aligned_alloc(ANTBUF_PAGE, sz);
	struct antbuf_prod prod;
	struct codif_clock clk;
	const struct antbuf *bufs[1] = { b };
	uint64_t written = 0;
	double t0, t, c0, c;
	int64_t n;
	unsigned int s, pass = 0;
	char spec[4096], err[512];

	antbuf_init(b, sz, &geom, true, 0, "bench", 0x0A000001);
	antbuf_prod_init(&prod, b, NULL, false);
	/* a full ring: the rows a writer can take from the first once the
	 * producer is flushed (its final row then lies a window past the
	 * newest, and the oldest row safe to read a window past that) */
	for (n = 0; n < (int64_t)(geom.nrows - 2 * geom.window); n++)
		for (s = 0; s < geom.nslots; s++) {
			struct codif_hdr h;
			uint8_t data[8192], pkt[TEST_L2 + 64 + 8192];
			struct acct_fd fd;

			memset(&h, 0, sizeof(h));
			h.epoch = 50;
			h.nbits = 16;
			h.nchan = 4;
			h.complex = true;
			h.period = 27;
			h.framelength8 = 1024;
			h.totalsamples = 32000000;
			h.protocol = 7;
			h.sync = CODIF_SYNC;
			h.threadid = (uint16_t)s;
			h.frame = (uint32_t)n;
			codif_pattern_fill(&h, data, sizeof(data));
			if (n == 0 && s == 0)
				codif_clock_init(&clk, &h);
			test_fd(&fd, pkt, &h, data, sizeof(data), &clk, (uint16_t)s, 0, 0, n);
			antbuf_place(&prod, &fd);
		}
	antbuf_flush(&prod);
	t0 = mono_s();
	c0 = cpu_s();
	while (written < total) {
		struct wr_writer *w = calloc(1, sizeof(*w));
		struct wr_opts o;

		snprintf(spec, sizeof(spec), "%s:%s,prefix=bench%u%s%s", fmt, dir, pass++,
			 *keys ? "," : "", keys);
		if (w == NULL || wr_opts_parse(&o, "bench", spec, err, sizeof(err)) != 0 ||
		    wr_init(w, &o, bufs, NULL, 1, 1, err, sizeof(err)) != 0) {
			fprintf(stderr, "writer: %s\n", err);
			return 1;
		}
		w->src[0].cur.from_first = true;
		if (staged)
			w->src[0].copy_why = "staged (bench)";
		while (wr_poll(w, 4096) > 0)
			;
		if (wr_finish(w) != 0 || w->error) {
			fprintf(stderr, "writer: %s\n", w->err);
			return 1;
		}
		if (w->st.written != (uint64_t)(geom.nrows - 2 * geom.window) * geom.nslots ||
		    w->st.placeholders + w->st.overrun + w->st.cut != 0 ||
		    w->st.bytes != dir_bytes(dir, pass - 1)) {
			fprintf(stderr, "writer_bench: pass %u: %" PRIu64 " frames written of %u, "
				"%" PRIu64 "/%" PRIu64 "/%" PRIu64 " gaps/overrun/cut, %" PRIu64 " bytes said, %" PRIu64
				" on disk\n", pass - 1, w->st.written, (geom.nrows - 2 * geom.window) * geom.nslots,
				w->st.placeholders, w->st.overrun, w->st.cut, w->st.bytes,
				dir_bytes(dir, pass - 1));
			return 1;
		}
		written += w->st.bytes;
		if (wr_ring_direct(w, how, sizeof(how)) == NULL)
			how[0] = '\0';
		free(w);
	}
	t = mono_s() - t0;
	c = cpu_s() - c0;
	printf("%s writer%s%s (%s): %" PRIu64 " bytes in %.3f s: %.1f MB/s, CPU %.3f s: "
	       "%.3f CPU s/GB%s%s\n", fmt, *keys ? " " : "", keys,
	       fio_sync_reason() != NULL ? fio_sync_reason() :
	       strstr(keys, "io=sync") ? "pwrite" : "io_uring", written, t,
	       (double)written / t / 1e6, c, c / ((double)written / 1e9), *how ? "; " : "", how);
	return 0;
}
