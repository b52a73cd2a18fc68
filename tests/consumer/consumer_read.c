/* SPDX-License-Identifier: BSD-3-Clause */
/* A test consumer of libibvcap: reads aligned blocks of the chosen
 * antennas until the capture stops and writes every frame of every block
 * (its stream, index, time, valid and flagged bits, and the data of valid
 * frames) to a file for tests/consumer/check_blocks.py, with its figures
 * as JSON on stdout. Checks on its own that the blocks follow each other
 * on the grid of multiples of T (index + T), never overlap, and that the frame times are the
 * clock's.
 *
 *   consumer_read -i PREFIX -n NAME -a ANTMASK -T FRAMES -o FILE
 *                 [--oldest] [--scans] [-s MS_SLEEP_AFTER_EACH_BLOCK] [-k KILL_AFTER_BLOCKS]
 *                 [-d DELAYS]
 *
 * SIGTERM or SIGINT: it stops after the block in hand, closes (its entry
 * released) and prints its figures, "end": "terminated" (a consumer that
 * comes and goes during a capture: bench/consumer_rx_paired.sh).
 *
 * -d: each block's delay, one line each: the ns from the arrival of its
 * newest frame to the block's delivery (CLOCK_REALTIME, as the capture's
 * host clock stamps arrivals), for bench/consumer_delay.sh.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ibvcap.h"

struct __attribute__((packed)) rec {
	uint32_t src_ip;
	uint16_t stationid, groupid, threadid, secondaryid;
	int64_t index;
	int64_t time_ns;
	uint8_t valid, flagged;
	uint16_t pad;
	uint32_t nbytes;         /* data bytes after it (valid frames only) */
};

/* SIGTERM, SIGINT: no more blocks */
static volatile sig_atomic_t term_signal;

static void
on_term(int sig)
{
	term_signal = sig;
}

static int
bit(const uint64_t *m, uint32_t i)
{
	return (int)(m[i / 64] >> (i % 64) & 1);
}

/* The block's records into buf (its frames' data copied), *n bytes. */
static int
block_copy(struct ibvcap *c, const struct ibvcap_block *b, uint8_t **buf, size_t *cap,
	   size_t *n)
{
	uint32_t k, s, i;

	*n = 0;
	for (k = 0; k < b->nants; k++) {
		struct ibvcap_antenna ai;

		ibvcap_antenna_info(c, b->ant[k], &ai);
		for (s = 0; s < b->nstreams[k]; s++) {
			const struct ibvcap_view *v = &b->view[k][s];
			struct ibvcap_stream si;

			if (v->data_bytes == 0)
				continue;
			ibvcap_stream_info(c, b->ant[k], s, &si);
			for (i = 0; i < b->frames; i++) {
				struct rec r = {
					.src_ip = ai.src_ip, .stationid = si.stationid,
					.groupid = si.groupid, .threadid = si.threadid,
					.secondaryid = si.secondaryid, .index = b->index + i,
					.time_ns = ibvcap_frame_time_ns(c, b, i),
					.valid = (uint8_t)bit(v->valid, i),
					.flagged = (uint8_t)bit(v->flagged, i),
				};

				r.nbytes = r.valid ? v->data_bytes : 0;
				if (*n + sizeof(r) + r.nbytes > *cap) {
					*cap = (*cap + sizeof(r) + r.nbytes) * 2;
					*buf = realloc(*buf, *cap);
					if (*buf == NULL)
						return -1;
				}
				if (v->stride != 0 && v->data + i * v->stride != v->frame[i]) {
					fprintf(stderr, "consumer_read: stride disagrees with frame[%u]\n", i);
					return -1;
				}
				memcpy(*buf + *n, &r, sizeof(r));
				memcpy(*buf + *n + sizeof(r), v->frame[i], r.nbytes);
				*n += sizeof(r) + r.nbytes;
			}
		}
	}
	return 0;
}

/* The newest arrival of the block's valid frames; -1 when a valid frame
 * has none (0) or one after now. */
static int64_t
newest_arrival(const struct ibvcap_block *b, int64_t now)
{
	int64_t newest = 0;
	uint32_t k, s, i;

	for (k = 0; k < b->nants; k++)
		for (s = 0; s < b->nstreams[k]; s++)
			for (i = 0; i < b->frames; i++) {
				int64_t t = b->view[k][s].arrival_ns[i];

				if (!bit(b->view[k][s].valid, i))
					continue;
				if (t <= 0 || t > now)
					return -1;
				if (t > newest)
					newest = t;
			}
	return newest;
}

/* Clear the valid bit of records whose frame the check found overwritten:
 * the check cleared their bits in the views; re-read them. */
static void
block_recheck(const struct ibvcap_block *b, uint8_t *buf, size_t n)
{
	size_t off = 0;
	uint32_t k, s;

	/* records are in view order; walk them again against the bits */
	for (k = 0; k < b->nants; k++)
		for (s = 0; s < b->nstreams[k]; s++) {
			const struct ibvcap_view *v = &b->view[k][s];
			uint32_t i;

			if (v->data_bytes == 0)
				continue;
			for (i = 0; i < b->frames && off < n; i++) {
				struct rec *r = (struct rec *)(buf + off);

				if (r->valid && !bit(v->valid, i))
					r->valid = 2; /* torn: its data may be wrong */
				off += sizeof(*r) + r->nbytes;
			}
		}
}

/* What the reading loop keeps between blocks. */
struct reader {
	unsigned int T;
	FILE *f, *df;            /* the records, the delays (or NULL) */
	uint8_t *buf;            /* a block's records */
	size_t cap;
	int64_t expect;          /* the index after the last block */
	uint64_t blocks, partial, jumps, overrun_sum, torn_sum;
	uint32_t scan;           /* the first block's scan id */
};

/* The block's delay from its newest frame's arrival, noted in r->df.
 * @return 0, -1 a valid frame without an arrival time (said). */
static int
note_delay(struct reader *r, const struct ibvcap_block *b)
{
	struct timespec ts;
	int64_t now, newest;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	newest = newest_arrival(b, now);
	if (newest < 0) {
		fprintf(stderr, "consumer_read: block at %" PRId64 ": a valid frame without an "
			"arrival time, or one after now\n", b->index);
		return -1;
	}
	if (r->df != NULL && newest > 0)
		fprintf(r->df, "%" PRId64 "\n", now - newest);
	return 0;
}

/* One block: on the grid after the last, its frames to the records (those
 * overwritten while read marked torn). @return 0, -1 (said). */
static int
take_block(struct ibvcap *c, const struct ibvcap_block *b, struct reader *r)
{
	bool first = r->expect == INT64_MIN;
	size_t n;
	int rc;

	if (b->frames != r->T || b->index % r->T != 0 || (!first && b->index < r->expect) ||
	    (!first && !(b->flags & IBVCAP_BLOCK_FIRST) && b->index != r->expect)) {
		fprintf(stderr, "consumer_read: block at %" PRId64 " after one ending at %" PRId64
			" (T %u, flags 0x%x)\n", b->index, r->expect, r->T, b->flags);
		return -1;
	}
	if (note_delay(r, b) != 0)
		return -1;
	r->jumps += !first && b->index != r->expect;
	r->expect = b->index + r->T;
	r->partial += (b->flags & IBVCAP_BLOCK_PARTIAL) != 0;
	r->overrun_sum += b->overrun;
	if (r->scan == 0)
		r->scan = b->scan;
	if (block_copy(c, b, &r->buf, &r->cap, &n) != 0)
		return -1;
	rc = ibvcap_check(c, b);
	if (rc > 0) {
		r->torn_sum += (uint64_t)rc;
		block_recheck(b, r->buf, n);
	}
	if (fwrite(r->buf, 1, n, r->f) != n)
		return -1;
	r->blocks++;
	return 0;
}

static void
print_figures(const struct ibvcap *c, const struct reader *r, int rc)
{
	struct ibvcap_stats st;

	ibvcap_get_stats(c, &st);
	printf("{\"end\": \"%s\", \"blocks\": %" PRIu64 ", \"partial\": %" PRIu64 ", \"jumps\": %"
	       PRIu64 ", \"frames\": %" PRIu64 ", \"invalid\": %" PRIu64 ", \"overrun\": %" PRIu64
	       ", \"torn\": %" PRIu64 ", \"torn_seen\": %" PRIu64 ", \"block_overrun_sum\": %"
	       PRIu64 ", \"skipped\": %" PRIu64 ", \"stat_blocks\": %" PRIu64 ", \"outside\": %"
	       PRIu64 ", \"scan\": %u}\n",
	       term_signal ? "terminated" : rc == -ENODATA ? "stopped" : strerror(-rc), r->blocks, r->partial, r->jumps,
	       st.frames, st.invalid, st.overrun, st.torn, r->torn_sum, r->overrun_sum, st.skipped,
	       st.blocks, st.outside, r->scan);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = { { "oldest", no_argument, NULL, 'O' },
					    { "scans", no_argument, NULL, 'S' }, { 0 } };
	const char *inst = NULL, *name = NULL, *out = NULL, *delays = NULL;
	unsigned long long ants = 0;
	unsigned int sleep_ms = 0, flags = 0;
	long kill_after = -1;
	struct reader r = { .expect = INT64_MIN };
	const struct ibvcap_block *b;
	struct ibvcap *c;
	char err[512];
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "i:n:a:T:o:s:k:d:", lo, NULL)) != -1) {
		switch (opt) {
		case 'i': inst = optarg; break;
		case 'n': name = optarg; break;
		case 'a': ants = strtoull(optarg, NULL, 0); break;
		case 'T': r.T = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'o': out = optarg; break;
		case 's': sleep_ms = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'k': kill_after = strtol(optarg, NULL, 0); break;
		case 'd': delays = optarg; break;
		case 'O': flags |= IBVCAP_OPEN_OLDEST; break;
		case 'S': flags |= IBVCAP_OPEN_SCANS; break;
		default: return 2;
		}
	}
	if (inst == NULL || name == NULL || out == NULL || r.T == 0 || ants == 0) {
		fprintf(stderr, "usage: consumer_read -i PREFIX -n NAME -a ANTMASK -T FRAMES -o FILE "
			"[--oldest] [--scans] [-s MS] [-k BLOCKS] [-d DELAYS]\n");
		return 2;
	}
	c = ibvcap_open(inst, name, flags, err, sizeof(err));
	if (c == NULL) {
		fprintf(stderr, "consumer_read: %s\n", err);
		return 1;
	}
	if (ibvcap_select(c, ants, r.T, err, sizeof(err)) != 0) {
		fprintf(stderr, "consumer_read: %s\n", err);
		ibvcap_close(c);
		return 1;
	}
	r.f = fopen(out, "wb");
	if (r.f == NULL || (delays != NULL && (r.df = fopen(delays, "w")) == NULL))
		return 1;
	fprintf(stderr, "consumer_read %s: attached to '%s' (%u antennas)\n", name, inst,
		ibvcap_antennas(c));
	if (kill_after == 0)
		raise(SIGKILL); /* a consumer dying with its entry held */
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}
	while (!term_signal && ((rc = ibvcap_acquire(c, &b, 100)) == 0 || rc == -EAGAIN)) {
		if (rc == -EAGAIN)
			continue;
		if (take_block(c, b, &r) != 0)
			return 1;
		ibvcap_release(c, b);
		if (kill_after >= 0 && (long)r.blocks >= kill_after)
			raise(SIGKILL);
		if (sleep_ms) {
			struct timespec ts = { sleep_ms / 1000, (long)(sleep_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	fclose(r.f);
	if (r.df != NULL)
		fclose(r.df);
	print_figures(c, &r, rc);
	ibvcap_close(c);
	free(r.buf);
	return term_signal || rc == -ENODATA ? 0 : 1;
}
